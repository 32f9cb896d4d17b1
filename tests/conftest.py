"""Helpers for the harness's own tests: running the benchmark as a user would, in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest
from hypothesis import settings

# CI runs property tests derandomized (the same examples every run, no example database), so a rare
# example cannot fail a landing at random; locally they stay random and keep searching. Neither
# profile has a per-example deadline: tests assert behaviour, not speed (a first example that pays
# the scorers' imports on a loaded machine took 7.5 s against hypothesis's default 200 ms).
settings.register_profile("local", deadline=None)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
settings.load_profile(os.environ.get("OPTBENCH_HYPOTHESIS_PROFILE", "local"))

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures" / "mmopt"
#: The pytest plugin that registers the test adapters; benchmark sessions of the tests load it.
PLANTED_PLUGIN = "tests.planted_adapter"
#: The tests' data folder holds task layouts of the public releases, whose verifier scripts are
#: named ``test_*.py`` and expect the task's container (``/tests``): they are data, not our tests.
collect_ignore = ["data"]


def fail_missing_fixture(what: str | Path) -> NoReturn:
    """Fail, never skip, a test whose shipped fixture is absent: the fixtures are committed with the
    repository, so a missing one is a broken checkout or generation, which a skip would hide."""
    shown = what.relative_to(REPO) if isinstance(what, Path) and what.is_relative_to(REPO) else what
    pytest.fail(
        f"shipped fixture missing: {shown} (the fixtures are committed: restore the checkout, "
        "or regenerate them with `python -m benchmark generate`)"
    )


@dataclass
class BenchRun:
    returncode: int
    output: str
    run_dir: Path

    @property
    def records(self) -> list[dict[str, Any]]:
        path = self.run_dir / "results.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def by_case(self) -> dict[str, dict[str, Any]]:
        return {r["case"]: r for r in self.records}

    @property
    def summary(self) -> dict[str, Any]:
        return json.loads((self.run_dir / "summary.json").read_text())


def run_bench(
    run_dir: Path, *args: str, env: Mapping[str, str] | None = None, timeout: float = 600
) -> BenchRun:
    """``python -m pytest --report-dir RUN_DIR ARGS`` from the repository root, as a user runs it,
    plus the tests' own adapter plugin (``planted:``, see ``tests/planted_adapter.py``)."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", PLANTED_PLUGIN,
               f"--report-dir={run_dir}", f"--cache-dir={run_dir.parent / 'response-cache'}",
               *args]  # fmt: skip
    full_env = {**os.environ, **(env or {})}
    full_env.pop("PYTEST_XDIST_WORKER", None)
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=timeout, env=full_env)
    return BenchRun(done.returncode, done.stdout + done.stderr, run_dir)


@pytest.fixture
def bench(tmp_path: Path):
    """Run the benchmark into a fresh run folder under tmp_path."""
    counter = iter(range(1000))

    def run(*args: str, env: Mapping[str, str] | None = None, run_dir: Path | None = None) -> BenchRun:
        return run_bench(run_dir or tmp_path / f"run{next(counter)}", *args, env=env)

    return run
