#!/usr/bin/env bash
# Creates the project's environment when it is missing: Debian tools (bubblewrap for the sandbox,
# GLPK's glpsol for AMPL-style models) and a virtual environment in .venv with the package and its
# dev extras. Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
command -v glpsol >/dev/null 2>&1 || need_apt+=(glpk-utils)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${need_apt[*]} with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "setup: ${need_apt[*]} missing and not root; the sandbox falls back to a plain subprocess" >&2
  fi
fi

stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ]; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[dev,scip]'
  rm -f .venv/.installed-*
  touch "$stamp"
fi
echo "setup: environment ready (.venv)"
