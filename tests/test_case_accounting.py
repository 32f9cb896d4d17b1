"""Every selected case ends in exactly one record, and ``--gate`` cannot pass over unscored ones.

Each kind of unscored case is produced for real in a subprocess run: an instance lacking a key
its check needs (a package copy with a key removed and its checksum updated: a dataset error
naming the file and the key, never the model's failure), an endpoint fault (a replay file without
the case), a damaged package (a checksum mismatch) and an xdist worker killed with SIGKILL in the
middle of a case. A validator that crashes on an answer is a harness error (unit tests below).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt import scoring
from tests.conftest import FIXTURES, REPO, BenchRun

EASY_MF = Path("network_optimization/maximum_flow/easy")
KEY = "mmopt/network_optimization/maximum_flow/easy/{}/stage1/s0"


def _copy(root: Path, *names: str) -> Path:
    for name in names:
        shutil.copytree(FIXTURES / EASY_MF / name, root / EASY_MF / name)
    return root


def _stage1(code: str) -> str:
    return f"ASSUMPTIONS\nnone\n\nMATHEMATICAL_MODEL\nmax flow\n\nPYTHON_CODE\n{code}"


def _reference(name: str) -> str:
    return _stage1((FIXTURES / EASY_MF / name / "ground_truth/solver_ref.py").read_text())


def _replay(path: Path, responses: dict[str, str]) -> Path:
    path.write_text(
        "".join(json.dumps({"case": KEY.format(k), "response": v}) + "\n" for k, v in responses.items())
    )
    return path


def _remove_instance_key(package: Path, key: str) -> None:
    """Drop a key the validator reads and re-record the checksum, so the package still loads."""
    data_path = package / "ground_truth/instance_data.json"
    data = json.loads(data_path.read_text())
    del data[key]
    data_path.write_text(json.dumps(data))
    meta_path = package / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["checksums"]["ground_truth/instance_data.json"] = hashlib.sha256(data_path.read_bytes()).hexdigest()
    meta_path.write_text(json.dumps(meta))


@pytest.fixture
def faulty_dataset(tmp_path: Path) -> tuple[Path, Path]:
    """Five packages: two intact, one whose instance lacks a key, one damaged, one unanswered."""
    root = _copy(tmp_path / "data", "mf_e_001", "mf_e_002", "mf_e_003", "mf_e_004", "mf_e_005")
    _remove_instance_key(root / EASY_MF / "mf_e_002", "arcs")
    task = root / EASY_MF / "mf_e_003/task_input.txt"
    task.write_text(task.read_text() + "\ntampered\n")
    replay = _replay(
        tmp_path / "replay.jsonl",
        {name: _reference(name) for name in ("mf_e_001", "mf_e_002", "mf_e_003", "mf_e_005")},
    )  # mf_e_004 has no recorded response: an api_error
    return root, replay


_MAXIMUM_FLOW = scoring.get_subcategory("maximum_flow")


class _StrictValidator:
    """A validator that indexes the answer without checking it: the kind of bug the scorer must
    absorb (the shipped validators all check types, so this fault cannot be produced with them)."""

    def check_solution(self, instance: dict, result: dict) -> object:
        flows = result["flows"]
        return _MAXIMUM_FLOW.check_solution(instance, {**result, "flows": flows})


def _score_with_strict_validator(
    monkeypatch: pytest.MonkeyPatch, value: dict, solution_ref: dict | None = None
) -> scoring.Verdict:
    monkeypatch.setattr(scoring, "get_subcategory", lambda name: _StrictValidator())
    monkeypatch.setattr(scoring, "official_schema", lambda name, instance: None)  # the validator path
    package = FIXTURES / EASY_MF / "mf_e_001/ground_truth"
    execution = ExecutionResult(
        outcome=Outcome.OK, value=value, stdout="", error="", wall_s=0.1, sandbox=SandboxKind.BWRAP
    )
    return scoring.score_execution(
        execution,
        subcategory="maximum_flow",
        instance=json.loads((package / "instance_data.json").read_text()),
        solution_ref=solution_ref or json.loads((package / "solution_ref.json").read_text()),
        objective_only=False,
    )


def test_an_answer_the_validator_cannot_read_is_an_output_format_failure(monkeypatch) -> None:
    verdict = _score_with_strict_validator(monkeypatch, {"status": "optimal", "objective_value": 25})
    assert not verdict.passed and verdict.category == "output_format"
    assert "cannot be read (KeyError: 'flows')" in verdict.detail


def test_a_validator_that_cannot_read_the_reference_either_raises(monkeypatch) -> None:
    """A validator bug must not be blamed on the model: it escapes, and becomes a harness_error."""
    answer = reference = {"status": "optimal", "objective_value": 25}
    with pytest.raises(KeyError, match="flows"):
        _score_with_strict_validator(monkeypatch, answer, solution_ref=reference)


@pytest.mark.slow
def test_each_kind_of_unscored_case_has_its_record_and_fails_the_gate(bench, faulty_dataset) -> None:
    root, replay = faulty_dataset
    run: BenchRun = bench(f"--dataset={root}", f"--model=replay:{replay}", "--gate", "pass@1>=0.5", "-n", "2")
    assert run.returncode == 1, run.output[-3000:]
    categories = {r["case"].split("/")[4]: r["category"] for r in run.records}
    assert categories == {
        "mf_e_001": None,
        "mf_e_002": "dataset_error",
        "mf_e_003": "dataset_error",
        "mf_e_004": "api_error",
        "mf_e_005": None,
    }
    assert len(run.records) == 5  # exactly one record per case
    malformed = run.by_case()[KEY.format("mf_e_002")]
    assert malformed["outcome"] == "error"
    assert "instance_data.json: the instance lacks 'arcs'" in malformed["detail"]
    counts = run.summary["counts"]
    assert (counts["selected"], counts["recorded"], counts["scored"], counts["passed"]) == (5, 5, 2, 2)
    assert run.summary["not_scored"] == {"api_error": 1, "dataset_error": 2}
    assert run.summary["metrics"]["pass@1"] == 1.0  # the errors are not the model's
    assert run.summary["run"]["gate"]["passed"] is False
    assert "selected 5, recorded 5, scored 2 (2 passed, 0 failed)" in run.output
    assert "not scored 3: api_error 1, dataset_error 2" in run.output
    assert "FAIL unscored cases: 3 of 5 selected" in run.output


@pytest.mark.slow
def test_the_gate_accepts_unscored_cases_only_within_the_allowance(bench, faulty_dataset) -> None:
    root, replay = faulty_dataset
    common = (f"--dataset={root}", f"--model=replay:{replay}", "--gate", "pass@1>=0.5")
    allowed = bench(*common, "--gate-allow-unscored=60%")
    assert allowed.returncode == 0, allowed.output[-3000:]
    assert "PASS unscored cases: 3 of 5 selected (allowed 60%)" in allowed.output
    too_few = bench(*common, "--gate-allow-unscored", "2")
    assert too_few.returncode == 1, too_few.output[-3000:]
    assert too_few.summary["run"]["gate"]["passed"] is False


@pytest.mark.slow
def test_a_gate_allowance_without_a_gate_is_refused(bench) -> None:
    run = bench("--model=oracle", "-k", "mf_e_001", "--gate-allow-unscored=1")
    assert run.returncode == 4 and "--gate-allow-unscored needs a --gate" in run.output


#: The name the slow case gives its own process (``/proc/self/comm``, at most 15 characters), so the
#: test finds the case wherever the sandbox runs it: a cold bwrap child or a fork of a warm pool server.
VICTIM_NAME = "optbench-victim"


def _parent(pid: int) -> int | None:
    try:
        return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _worker_running_victim(controller: int) -> int | None:
    """The xdist worker whose case process is named VICTIM_NAME: the ancestor of that process that
    is a direct child of the controller. None while no such process exists."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if name != VICTIM_NAME:
            continue
        pid: int | None = int(entry.name)
        while pid is not None and pid > 1:
            parent = _parent(pid)
            if parent == controller:
                return pid
            pid = parent
    return None


@pytest.mark.slow
def test_a_worker_killed_mid_case_is_recorded_and_resume_runs_the_case_again(tmp_path: Path) -> None:
    root = _copy(tmp_path / "data", "mf_e_001", "mf_e_002", "mf_e_003")
    slow = _stage1(
        "import time\n\ndef solve():\n"
        f"    with open('/proc/self/comm', 'w') as comm:\n        comm.write({VICTIM_NAME!r})\n"
        "    time.sleep(120)\n    return {}\n"
    )
    replay = _replay(
        tmp_path / "slow.jsonl", {"mf_e_001": slow, **{n: _reference(n) for n in ("mf_e_002", "mf_e_003")}}
    )
    run_dir = tmp_path / "run"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--report-dir={run_dir}",
               f"--cache-dir={tmp_path / 'cache'}", f"--dataset={root}", f"--model=replay:{replay}",
               "--gate", "pass@1>=0.5", "-n", "1", "--exec-timeout=300"]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"}
    controller = subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    # the slow case names its process; the worker killed is the controller's child that runs it
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and time.monotonic() < deadline and controller.poll() is None:
        killed = _worker_running_victim(controller.pid)
        if killed is None:
            time.sleep(0.1)
    if killed is not None:
        os.kill(killed, signal.SIGKILL)
    output, _ = controller.communicate(timeout=300)
    assert killed is not None, output[-3000:]
    run = BenchRun(controller.returncode, output, run_dir)
    assert run.returncode == 1, output[-3000:]
    by_case = run.by_case()
    assert len(run.records) == 3
    crashed = by_case[KEY.format("mf_e_001")]
    assert crashed["category"] == "harness_error" and "died" in crashed["detail"]
    assert by_case[KEY.format("mf_e_002")]["passed"] and by_case[KEY.format("mf_e_003")]["passed"]
    assert run.summary["not_scored"] == {"harness_error": 1}
    assert run.summary["run"]["gate"]["passed"] is False

    # The same model (the replay file, fixed in place): --resume continues only a run of its model.
    _replay(replay, {n: _reference(n) for n in ("mf_e_001", "mf_e_002", "mf_e_003")})
    resumed = subprocess.run(
        [*command[:8], f"--model=replay:{replay}", "--resume", "--gate", "pass@1>=0.5"],
        cwd=REPO, capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert resumed.returncode == 0, (resumed.stdout + resumed.stderr)[-3000:]
    again = BenchRun(resumed.returncode, resumed.stdout, run_dir)
    assert [r["case"] for r in again.records].count(KEY.format("mf_e_001")) == 2  # only it ran again
    assert len(again.records) == 4 and again.summary["counts"]["passed"] == 3


def test_a_selected_case_without_a_record_is_counted_and_named() -> None:
    from benchmark.reporting.render import headline
    from benchmark.reporting.summary import build_summary, unscored_errors
    from benchmark.schema import CaseRecord

    keys = [KEY.format(f"mf_e_00{i}") for i in (1, 2, 3)]
    common = {"suite": "mmopt", "setting": "stage1", "sample": 0}
    records = [
        CaseRecord.model_validate({**common, "case": keys[0], "outcome": "passed", "passed": True}),
        CaseRecord.model_validate(
            {
                **common,
                "case": keys[1],
                "outcome": "skipped",
                "passed": False,
                "category": "oracle_unavailable",
            }
        ),
    ]
    summary = build_summary(records, selected=keys)
    assert summary["counts"]["selected"] == 3 and summary["counts"]["recorded"] == 2
    assert summary["not_scored"] == {"not recorded": 1, "skipped: oracle_unavailable": 1}
    assert summary["not_recorded_cases"] == [keys[2]]
    assert unscored_errors(summary) == {"not recorded": 1}  # a deliberate skip is not an error
    assert headline(summary) == [
        "selected 3, recorded 2, scored 1 (1 passed, 0 failed)",
        "not scored 2: not recorded 1, skipped: oracle_unavailable 1",
    ]
