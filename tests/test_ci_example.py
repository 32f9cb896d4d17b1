"""The documented GitHub Actions example (docs/ci/benchmark-shards.yml) is a valid workflow whose
commands are this harness's: a shard matrix, artifacts, a merge job with the gate."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest
import yaml

from benchmark.cli import build_parser
from tests.conftest import REPO

WORKFLOW = REPO / "docs" / "ci" / "benchmark-shards.yml"


def _commands() -> list[tuple[str, list[str]]]:
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    found = []
    for name, job in jobs.items():
        for step in job["steps"]:
            if "run" in step:
                text = re.sub(r"\$\{\{\s*[\w.]+\s*\}\}", "X", step["run"])  # expressions → a value
                found.append((name, shlex.split(text)))
    return found


def test_the_workflow_shards_uploads_merges_and_gates() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    shard, merge = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    matrix = shard["strategy"]["matrix"]["shard"]
    assert matrix == list(range(1, len(matrix) + 1))
    assert merge["needs"] == "shard"
    uses = [step.get("uses", "") for job in (shard, merge) for step in job["steps"]]
    assert any(u.startswith("actions/upload-artifact") for u in uses)
    assert any(u.startswith("actions/download-artifact") for u in uses)
    merge_line = next(cmd for job, cmd in _commands() if job == "merge" and "merge" in cmd)
    shards = [arg for arg in merge_line if arg.startswith("runs/shard-")]
    assert len(shards) == len(matrix), "the merge job must name every shard of the matrix"
    assert "--gate" in merge_line and "--gate-baseline" in merge_line


def test_every_benchmark_command_of_the_workflow_parses() -> None:
    commands = [cmd for _, cmd in _commands() if cmd[0] == ".venv/bin/python"]
    assert commands
    pytest_help = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    for command in commands:
        if command[1:3] == ["-m", "benchmark"]:
            build_parser().parse_args(command[3:])  # exits (SystemExit) on an unknown option
        elif command[1:3] == ["-m", "pytest"]:
            for arg in command[3:]:
                if arg.startswith("--"):
                    assert re.search(rf"^\s+{re.escape(arg.split('=', 1)[0])}\b", pytest_help, re.M), arg
        else:
            pytest.fail(f"unexpected command {command}")
    for _, command in _commands():
        if command[0] == "sudo":
            assert (REPO / command[2]).exists()
