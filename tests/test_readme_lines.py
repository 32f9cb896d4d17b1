"""The README's commands work as printed in the environment it tells the reader to use: after
``source .venv/bin/activate``, ``pytest``, ``python -m benchmark SUBCOMMAND`` and ``optbench`` are the
environment's (each README ``python -m benchmark`` subcommand answers ``--help``); the CI workflow
example names the models file its shards need; ``scripts/bench_overhead.py --only SUITE:NAME``
measures only that suite."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

README = REPO / "README.md"
VENV_BIN = REPO / ".venv" / "bin"


def _activated_env() -> dict[str, str]:
    """What ``source .venv/bin/activate`` gives a shell: the environment's bin first on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_XDIST_WORKER", "PYTHONPATH")}
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(VENV_BIN.parent)
    return env


def _shell_lines() -> list[str]:
    text = README.read_text()
    return [
        line for block in re.findall(r"```sh\n(.*?)```", text, re.S) for line in block.splitlines() if line
    ]


def _subcommands() -> list[str]:
    """``X`` of every ``python -m benchmark X`` in the README, in shell blocks and in the prose."""
    found = re.findall(r"(?:^|`)python -m benchmark ([a-z][a-z-]*)", README.read_text(), flags=re.M)
    return sorted(set(found))


def test_the_readme_says_which_environment_its_commands_need() -> None:
    assert "source .venv/bin/activate" in _shell_lines()[2]  # right after the two make commands
    text = README.read_text()
    assert "`.venv/bin/optbench …`" in text and "No module named 'z3'" in text


@pytest.mark.parametrize("subcommand", _subcommands())
def test_each_readme_subcommand_runs_as_printed_in_the_activated_environment(subcommand: str) -> None:
    for command in (f"python -m benchmark {subcommand} --help", f"optbench {subcommand} --help"):
        done = subprocess.run(
            shlex.split(command), cwd=REPO, capture_output=True, text=True, timeout=120, env=_activated_env()
        )
        assert done.returncode == 0, f"{command}:\n{done.stdout[-1500:]}{done.stderr[-1500:]}"


def test_pytest_as_printed_is_the_environments_after_activation() -> None:
    done = subprocess.run(
        ["pytest", "--co", "-q", "-p", "no:cacheprovider", "--model=oracle", "-k", "mf_e_001"],
        cwd=REPO, capture_output=True, text=True, timeout=300, env=_activated_env(),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "mf_e_001" in done.stdout


def test_the_ci_workflow_gives_its_shards_a_models_file() -> None:
    workflow = yaml.safe_load((REPO / "docs" / "ci" / "benchmark-shards.yml").read_text())
    (run,) = [step["run"] for step in workflow["jobs"]["shard"]["steps"] if "pytest" in step.get("run", "")]
    assert "--models-file=ci/models.toml" in run.split()
    assert "ci/models.toml" in (REPO / "docs" / "ci" / "README.md").read_text()


def _bench_overhead():
    spec = importlib.util.spec_from_file_location("bench_overhead", REPO / "scripts" / "bench_overhead.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_overhead_only_measures_the_suites_it_names() -> None:
    chosen = _bench_overhead().chosen
    assert chosen([], ["mmopt:maximum_flow"]) == (["mmopt"], {"mmopt": ["maximum_flow"]})
    assert chosen(["mamo"], ["mmopt:maximum_flow"]) == (["mamo", "mmopt"], {"mmopt": ["maximum_flow"]})
    assert chosen([], []) == (["mmopt", "mamo"], {})
    with pytest.raises(ValueError, match="SUITE:SUBCATEGORY"):
        chosen([], ["maximum_flow"])


def test_the_environment_has_the_programs_the_readme_names() -> None:
    for name in ("pytest", "python", "optbench"):
        assert Path(VENV_BIN / name).exists(), name
