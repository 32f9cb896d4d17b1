"""A wrong command line is one clear error before the first case: every option, marker, gate metric
and API key is checked when the session starts, no run folder is left behind, and the exit status
is pytest's usage error (4). A run folder holding another model's or suite's run is refused; a run
in which nothing was scored exits non-zero."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PLANTED_PLUGIN, REPO, run_bench

ONE_CASE = ("-k", "mf_e_001")
ABSENT_KEY = "OPTBENCH_TEST_KEY_THAT_IS_NEVER_SET"


def _pytest(run_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_XDIST_WORKER", ABSENT_KEY)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", PLANTED_PLUGIN,
         f"--report-dir={run_dir}", f"--cache-dir={run_dir.parent / 'cache'}", *args],
        cwd=REPO, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


def _keyed_models_file(tmp_path: Path) -> Path:
    """An alias whose key variable is unset; its endpoint (a closed loopback port) is never asked."""
    path = tmp_path / "models.toml"
    path.write_text(
        f'[models.keyed]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key_env = "{ABSENT_KEY}"\n',
        encoding="utf-8",
    )
    return path


def _usage_cases(tmp_path: Path) -> dict[str, tuple[tuple[str, ...], str]]:
    empty = tmp_path / "empty-dataset"
    empty.mkdir()
    return {
        "exec-timeout": (
            ("--model=oracle", "--exec-timeout=-1", *ONE_CASE),
            "--exec-timeout must be positive",
        ),
        "max-tokens": (("--model=oracle", "--max-tokens=0", *ONE_CASE), "--max-tokens must be positive"),
        "gate-metric": (
            ("--model=oracle", "--gate", "accuracy>=0.4", *ONE_CASE),
            "this run's summary has no metric 'accuracy'; it has instances, pass@1",
        ),
        "gate-pass-at-4": (
            ("--model=oracle", "--gate", "pass@4>=0.5", *ONE_CASE),
            "pass@4 needs at least 4 samples per case and this run takes 1",
        ),
        "marker-typo": (
            ("--model=oracle", "-m", "hardd and maximum_flow"),
            "Unknown marker(s) in '-m' expression: hardd",
        ),
        "empty-dataset": (("--model=oracle", f"--dataset={empty}"), f"dataset {empty}: no mmopt cases there"),
        "api-key": (
            ("--model=keyed", f"--models-file={_keyed_models_file(tmp_path)}", *ONE_CASE),
            f"--model=keyed: environment variable {ABSENT_KEY} is not set",
        ),
    }


@pytest.mark.parametrize(
    "name",
    [
        "exec-timeout",
        "max-tokens",
        "gate-metric",
        "gate-pass-at-4",
        "marker-typo",
        "empty-dataset",
        "api-key",
    ],
)
def test_a_wrong_command_line_is_one_error_before_any_case(name: str, tmp_path: Path) -> None:
    args, message = _usage_cases(tmp_path)[name]
    run_dir = tmp_path / "run"
    done = _pytest(run_dir, *args)
    output = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, output[-3000:]
    assert message in output, output[-3000:]
    assert output.count("ERROR") == 1, output[-3000:]  # one error, not one per case
    assert "not recorded" not in output and "optbench summary" not in output
    assert not run_dir.exists()  # a usage error leaves no run folder


@pytest.mark.slow
def test_a_run_folder_of_another_model_or_suite_is_refused_even_with_resume(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    first = run_bench(run_dir, "--model=oracle", *ONE_CASE)
    assert first.returncode == 0, first.output[-3000:]
    results = (run_dir / "results.jsonl").read_bytes()

    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"case": "x", "response": "nothing"}) + "\n")
    for args, message in (
        ((f"--model=replay:{replay}", *ONE_CASE), "holds a run of model oracle on suite mmopt, not replay:"),
        ((f"--model=replay:{replay}", "--resume", *ONE_CASE), "--resume continues a run of the same model"),
        (("--model=oracle", "--suite=mamo", "-k", "ode"), "suite mmopt, not oracle on mamo"),
    ):  # fmt: skip
        refused = run_bench(run_dir, *args)
        assert refused.returncode == pytest.ExitCode.USAGE_ERROR, refused.output[-3000:]
        assert message in refused.output, refused.output[-3000:]
    assert (run_dir / "results.jsonl").read_bytes() == results  # nothing was added to the folder

    resumed = run_bench(run_dir, "--model=oracle", "--resume", *ONE_CASE)  # the same model and suite
    assert resumed.returncode == 0, resumed.output[-3000:]
    assert len(resumed.records) == 1


@pytest.mark.slow
def test_a_run_that_scored_nothing_exits_non_zero_and_says_why(tmp_path: Path) -> None:
    """Every selected case skipped (here: the oracle has no reference for an external question)."""
    release = tmp_path / "release"
    release.mkdir()
    ode = {
        "id": 1,
        "Question": "A tank ... Round to two decimal places.",
        "Answer": "20.09",
        "Category": "ordinary_differential_equation",
        "Type": "first_order_equation",
    }
    lp = {"id": 1, "Question": "Chairs and tables ...", "Answer": "15", "Category": "optimization",
          "Type": "easy_lp"}  # fmt: skip
    for name, line in (("ode.jsonl", ode), ("lp.jsonl", lp)):
        (release / name).write_text(json.dumps(line) + "\n")
    run = run_bench(tmp_path / "run", f"--dataset=mamo:{release}", "--model=oracle")
    assert [r["outcome"] for r in run.records] == ["skipped", "skipped"], run.output[-3000:]
    assert run.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, run.output[-3000:]
    assert "optbench: no case was scored: all 2 were skipped: [oracle_unavailable]" in run.output
