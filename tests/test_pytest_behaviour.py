"""pytest behaves as its users expect: listing cases runs nothing and writes nothing, plugins can
be switched off, option values work after an ``=`` and after a space (or, where a space would make
pytest miss ``pytest.ini``, say to write the ``=``), and the README's commands run."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO

EASY_MF = Path("network_optimization/maximum_flow/easy")


def _pytest(
    *args: str, cwd: Path = REPO, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**{k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"}, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env,
    )  # fmt: skip


def _collected(output: str) -> list[str]:
    return [line for line in output.splitlines() if "::test_case[" in line]


def _readme_pytest_commands() -> list[list[str]]:
    """Every ``pytest`` command line in the README's shell blocks, as argument lists."""
    readme = (REPO / "README.md").read_text()
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", readme, flags=re.S):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0].endswith("pytest"):
                commands.append(words[1:])
    return commands


@pytest.fixture
def outside_dataset(tmp_path: Path) -> Path:
    """A dataset root outside the checkout (the case where a value after a space misled pytest)."""
    root = tmp_path / "data"
    for name in ("mf_e_001", "mf_e_002"):
        shutil.copytree(FIXTURES / EASY_MF / name, root / EASY_MF / name)
    return root


def test_the_readme_documents_pytest_command_lines() -> None:
    assert len(_readme_pytest_commands()) >= 4


@pytest.mark.parametrize("args", _readme_pytest_commands(), ids=" ".join)
def test_each_readme_command_line_runs_as_written(args: list[str], tmp_path: Path) -> None:
    before = set((REPO / "reports").iterdir())
    done = _pytest(*args, "--collect-only", "-q", f"--models-file={REPO / 'models.example.toml'}")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert _collected(done.stdout), done.stdout[-2000:]
    assert set((REPO / "reports").iterdir()) == before  # listing cases makes no run folder


@pytest.mark.parametrize(
    "listing", [("--collect-only",), ("--co", "-q"), ("--setup-only",), ("--setup-plan",)]
)
def test_listing_cases_calls_no_model_and_makes_no_run_folder(
    listing: tuple[str, ...], tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    # a replay file that does not exist: any attempt to build the adapter or call it would fail
    done = _pytest(
        f"--model=replay:{tmp_path / 'absent.jsonl'}", "-k", "mf_e_00", f"--report-dir={run_dir}", *listing
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert not run_dir.exists()
    assert "optbench summary" not in done.stdout


def test_a_value_after_a_space_works_like_one_after_an_equals_sign() -> None:
    spaced = _pytest("--model", "oracle", "-k", "mf_e_00", "--co", "-q")
    joined = _pytest("--model=oracle", "-k", "mf_e_00", "--co", "-q")
    assert spaced.returncode == joined.returncode == 0, spaced.stdout[-2000:] + spaced.stderr[-2000:]
    assert _collected(spaced.stdout) == _collected(joined.stdout)
    assert len(_collected(joined.stdout)) > 1


def test_an_outside_path_after_a_space_is_a_usage_error_naming_the_equals_form(
    outside_dataset: Path,
) -> None:
    """pytest reads the path as a test path and misses pytest.ini before the plugin is loaded; the
    run stops in the same process (no second pytest) and says what to write."""
    spaced = _pytest("--dataset", str(outside_dataset), "--model=oracle", "--co", "-q")
    joined = _pytest(f"--dataset={outside_dataset}", "--model=oracle", "--co", "-q")
    assert spaced.returncode == pytest.ExitCode.USAGE_ERROR, spaced.stdout[-2000:] + spaced.stderr[-2000:]
    assert f"write value options with '=': --dataset={outside_dataset}" in spaced.stderr
    assert not _collected(spaced.stdout)
    assert joined.returncode == 0, joined.stdout[-2000:] + joined.stderr[-2000:]
    assert len(_collected(joined.stdout)) == 2


def test_a_run_without_a_model_says_why_no_case_ran() -> None:
    done = _pytest("-k", "mf_e_00")
    assert done.returncode == 5, done.stdout[-2000:] + done.stderr[-2000:]  # pytest's "no tests ran"
    assert "benchmark cases deselected: they run only with --model=ALIAS" in done.stdout
    assert not _collected(done.stdout)


@pytest.mark.slow
def test_a_run_without_the_junitxml_plugin_still_reports(outside_dataset: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    done = _pytest(
        "-p", "no:junitxml", f"--dataset={outside_dataset}", "--model=oracle", f"--report-dir={run_dir}"
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "INTERNALERROR" not in done.stdout + done.stderr
    assert (run_dir / "summary.json").exists() and not (run_dir / "junit.xml").exists()


@pytest.mark.slow
def test_a_failing_run_reports_one_line_per_failure_and_ends_with_the_optbench_summary(
    tmp_path: Path,
) -> None:
    key = "mmopt/network_optimization/maximum_flow/easy/{}/stage1/s0"
    wrong = "PYTHON_CODE\ndef solve():\n    return {'status': 'optimal', 'objective_value': 0, 'flows': {}}\n"
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"case": key.format(n), "response": wrong}) + "\n" for n in ("mf_e_001", "mf_e_002")
        )
    )
    done = _pytest(
        f"--model=replay:{replay}",
        "-k",
        "mf_e_001 or mf_e_002 or mf_e_003",
        f"--report-dir={tmp_path / 'run'}",
        env={"OPTBENCH_STATUS_INTERVAL_S": "0"},  # a status line after every case
    )
    out = done.stdout
    assert done.returncode == 1, out[-3000:]
    assert "= FAILURES =" not in out and "Traceback" not in out
    tail = out[out.index("optbench summary") :].splitlines()
    assert [line.split(":")[0] for line in tail[1:4]] == [
        "FAILED mmopt/network_optimization/maximum_flow/easy/mf_e_001/stage1/s0",
        "FAILED mmopt/network_optimization/maximum_flow/easy/mf_e_002/stage1/s0",
        "ERROR mmopt/network_optimization/maximum_flow/easy/mf_e_003/stage1/s0",  # no recorded response
    ]
    assert "[infeasible_solution] an arc-flow map is required" in tail[1] and "[api_error]" in tail[3]
    assert not any(line.startswith(("FAILED cases/", "ERROR cases/")) for line in out.splitlines())
    status = [line for line in out.splitlines() if line.startswith("optbench: ") and " done, " in line]
    assert status[-1].startswith("optbench: 3/3 done, pass 0.0% of 2 scored, 0 in flight")
    assert tail[5].startswith("selected 3, recorded 3") and tail[-2].startswith("reports: ")
