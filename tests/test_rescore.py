"""``python -m benchmark rescore RUN_DIR`` reproduces every verdict from the run's log alone (the
stored attempts, scored again with no model and no sandbox), a change of the scoring shows in it,
and each record carries what an audit needs: every turn's raw response, the artifact and output
tails."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from benchmark import rescore as rescoring
from benchmark.plugin import model_side
from benchmark.sandbox import executor
from tests.conftest import FIXTURES, REPO, BenchRun

#: The ``bench`` fixture: runs the benchmark into a fresh run folder.
Bench = Callable[..., BenchRun]

MF1 = "mmopt/network_optimization/maximum_flow/easy/mf_e_001"


def _stage1(code: str) -> str:
    return f"ASSUMPTIONS\nnone\n\nMATHEMATICAL_MODEL\nmax flow\n\nPYTHON_CODE\n{code}"


def _rescore(run_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmark", "rescore", str(run_dir)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def _offline(monkeypatch: pytest.MonkeyPatch, host_tools: tuple[str, ...] = ()) -> None:
    """Make any sandbox run, any model side and any process start fail the test, except a process
    of ``host_tools`` (a program the scoring runs on trusted dataset files, by name)."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("rescoring started a sandbox run, a process or a model")

    popen = subprocess.Popen

    def host_tool_only(argv: Sequence[str], *args: Any, **kwargs: Any) -> subprocess.Popen[Any]:
        if Path(str(argv[0])).name not in host_tools:
            raise AssertionError(f"rescoring started a process: {argv[0]}")
        return popen(argv, *args, **kwargs)

    monkeypatch.setattr(executor.Sandbox, "run_solve", refused)
    monkeypatch.setattr(executor.Sandbox, "run_script", refused)
    monkeypatch.setattr(subprocess, "Popen", host_tool_only)
    monkeypatch.setattr(model_side, "build_model_side", refused)


def _rescored(run_dir: Path) -> list[dict[str, Any]]:
    return BenchRun(0, "", run_dir / "rescore").records


def _verdicts(records: list[dict[str, Any]]) -> dict[str, str]:
    return {
        r["case"]: json.dumps({f: r.get(f) for f in rescoring.VERDICT_FIELDS}, sort_keys=True)
        for r in records
    }


def test_a_run_without_stored_attempts_is_refused_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {"suite": "mmopt", "case": f"{MF1}/stage1/s0", "setting": "stage1", "sample": 0,
              "outcome": "passed", "passed": True, "turns": []}  # fmt: skip
    (tmp_path / "results.jsonl").write_text(json.dumps(record) + "\n")
    assert rescoring.rescore(tmp_path) == 2
    err = capsys.readouterr().err
    assert "1 scored records keep no attempt" in err and f"e.g. {MF1}/stage1/s0" in err


@pytest.mark.slow
def test_rescore_reproduces_an_oracle_run_with_no_sandbox_and_no_model(
    bench: Bench, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run: BenchRun = bench("--model=oracle", "-k", "mf_e_00 or mcf_m_001 or fl_e_001", "-n", "2")
    assert run.returncode == 0, run.output[-2000:]
    record = run.by_case()[f"{MF1}/stage1/s0"]
    assert record["turns"][0]["key"] == f"{MF1}/stage1/s0" and "PYTHON_CODE" in record["turns"][0]["response"]
    assert "def solve" in record["artifact"]["solve.py"] and set(record["output"]) == {"stdout", "stderr"}
    assert record["attempt"]["executions"]["solve.py"]["outcome"] == "ok"
    # the reply is the first turn's response, kept once (as that turn's number)
    assert record["attempt"]["replies"]["stage1"] == {"turn": 0, "truncated": False, "error": None}
    with monkeypatch.context() as offline:
        _offline(offline)
        assert rescoring.rescore(run.run_dir) == 0
    assert f"{len(run.records)} identical, 0 differ" in capsys.readouterr().out
    assert _verdicts(_rescored(run.run_dir)) == _verdicts(run.records)

    # a verdict that the log does not reproduce is named, and the command fails
    lines = (run.run_dir / "results.jsonl").read_text().splitlines()
    tampered = json.loads(lines[0]) | {"passed": False, "outcome": "failed", "category": "wrong_objective"}
    (run.run_dir / "results.jsonl").write_text("\n".join([json.dumps(tampered), *lines[1:]]) + "\n")
    differs = _rescore(run.run_dir)
    assert differs.returncode == 1 and f"{tampered['case']}: outcome: 'failed' -> 'passed'" in differs.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("selection", "host_tools"),
    [
        # EF1 by role compares with the gold pair's LP translation, made by the local glpsol from
        # the trusted gold files (never the candidate's: those ran in the sandbox while solving)
        (("--suite=nldata", "--judge-model=oracle", "--setting=derivation_irr", "-m", "staffing and hard"),
         ("glpsol",)),
        (("--suite=tbmath", "-k", "demand_forecast or shift_staffing"), ()),
    ],
    ids=["nldata", "tbmath"],
)  # fmt: skip
def test_an_oracle_run_of_the_other_suites_rescores_alike_with_no_sandbox_and_no_model(
    bench: Bench,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    selection: tuple[str, ...],
    host_tools: tuple[str, ...],
) -> None:
    run: BenchRun = bench("--model=oracle", "-n", "2", *selection)
    assert run.returncode == 0 and run.records, run.output[-2000:]
    with monkeypatch.context() as offline:
        _offline(offline, host_tools)
        assert rescoring.rescore(run.run_dir) == 0
    assert f"{len(run.records)} identical, 0 differ" in capsys.readouterr().out
    assert _verdicts(_rescored(run.run_dir)) == _verdicts(run.records)


FL1 = "mmopt/location_covering_assignment/facility_location/easy/fl_e_001"


@pytest.mark.slow
def test_a_tolerance_change_changes_the_rescored_verdicts(
    bench: Bench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An answer 5e-4 above the optimum passes under facility_location's 1e-3 floor; rescored with
    the floor gone (1e-6), the same stored answer fails: its decisions give the optimum, so the
    reported objective disagrees with them."""
    solution = json.loads((FIXTURES / FL1.split("/", 1)[1] / "ground_truth/solution_ref.json").read_text())
    solution["objective_value"] = round(solution["objective_value"] + 5e-4, 6)
    reply = _stage1(f"import json\n\n\ndef solve():\n    return json.loads({json.dumps(solution)!r})\n")
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps({"case": f"{FL1}/stage1/s0", "response": reply}) + "\n")
    run = bench(f"--model=replay:{replay}", "-k", "fl_e_001")
    (record,) = run.records
    assert record["passed"], run.output[-2000:]
    from benchmark.suites.mmopt import scoring

    with monkeypatch.context() as changed:
        _offline(changed)
        changed.delitem(scoring.TOLERANCE_FLOORS, "facility_location")
        assert rescoring.rescore(run.run_dir) == 1
    out = capsys.readouterr().out
    assert f"{FL1}/stage1/s0: outcome: 'passed' -> 'failed', passed: True -> False" in out
    (again,) = _rescored(run.run_dir)
    assert again["category"] == "infeasible_solution"
    assert again["recomputed_objective"] == pytest.approx(116.1652, abs=1e-4)
    assert again["returned_objective"] == solution["objective_value"]
    assert "1 differ" in out
    # today's tolerance again: the stored attempt passes as it did
    assert rescoring.rescore(run.run_dir) == 0


@pytest.mark.slow
def test_mamo_rescores_from_its_attempts_and_a_stricter_comparison_fails_them(
    bench: Bench, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    select = "first_order_equation/1-fewshot or first_order_equation/2-fewshot or easy_lp/1-fewshot"
    run = bench("--suite=mamo", "--model=oracle", "-k", select, "-n", "2")
    assert run.returncode == 0 and len(run.records) == 3, run.output[-2000:]
    with monkeypatch.context() as offline:
        _offline(offline)
        assert rescoring.rescore(run.run_dir) == 0
    assert f"{len(run.records)} identical, 0 differ" in capsys.readouterr().out
    from benchmark.suites.mamo import suite as mamo

    with monkeypatch.context() as changed:
        _offline(changed)
        changed.setattr(mamo, "answers_match", lambda returned, answer: False)
        assert rescoring.rescore(run.run_dir) == 1
    assert {r["category"] for r in _rescored(run.run_dir)} == {"wrong_ode_value", "wrong_objective"}
    assert f"0 identical, {len(run.records)} differ" in capsys.readouterr().out


@pytest.mark.slow
def test_rescore_reproduces_a_replay_run_with_a_failure_of_every_category(
    bench: Bench, tmp_path: Path
) -> None:
    reference = (FIXTURES / MF1.split("/", 1)[1] / "ground_truth/solver_ref.py").read_text()
    flows_off = reference.replace("def solve(", "def _reference_solve(") + (
        "\ndef solve():\n    result = _reference_solve()\n"
        "    result['flows'] = {k: v + 1 for k, v in result['flows'].items()}\n    return result\n"
    )
    # (a suboptimal maximum flow is infeasible, not a wrong objective: the official rules ask for a
    # min cut matching the flow value)
    status_off = reference.replace("def solve(", "def _reference_solve(") + (
        "\ndef solve():\n    result = _reference_solve()\n"
        "    result['status'] = 'infeasible'\n    return result\n"
    )
    responses = [
        "I would model this as a maximum flow problem, but I will not write code.",  # response_contract
        _stage1("def solve(:\n    return {}\n"),  # syntax
        _stage1("import not_a_real_solver_pkg\n\ndef solve():\n    return {}\n"),  # dependency
        _stage1("def solve():\n    return 1 / 0\n"),  # runtime
        _stage1("def solve():\n    while True:\n        pass\n"),  # timeout
        _stage1("def solve():\n    return 'the answer is 42'\n"),  # output_format
        _stage1(flows_off),  # infeasible_solution
        _stage1(status_off),  # wrong_objective: the optimal flows reported as "infeasible"
        _stage1(reference),  # passes
    ]
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"case": f"{MF1}/stage1/s{i}", "response": r}) + "\n" for i, r in enumerate(responses)
        )
    )
    run = bench(
        f"--model=replay:{replay}", "-k", "mf_e_001", "--samples", str(len(responses)), "--exec-timeout", "3"
    )
    categories = [r["category"] for r in sorted(run.records, key=lambda r: r["sample"])]
    assert categories == [
        "response_contract", "syntax", "dependency", "runtime", "timeout", "output_format",
        "infeasible_solution", "wrong_objective", None,
    ], run.output[-2000:]  # fmt: skip
    done = _rescore(run.run_dir)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert _verdicts(_rescored(run.run_dir)) == _verdicts(run.records)


@pytest.mark.slow
def test_record_exports_every_turn_of_a_two_stage_case(bench: Bench, tmp_path: Path) -> None:
    replay = tmp_path / "replay.jsonl"
    wrong = _stage1("def solve():\n    return {'status': 'optimal', 'objective_value': 0, 'flows': {}}\n")
    replay.write_text(
        json.dumps({"case": f"{MF1}/stage1/s0", "response": wrong})
        + "\n"
        + json.dumps({"case": f"{MF1}/stage2/s0", "response": '{"nodes": []}'})
        + "\n"
    )
    recording = tmp_path / "recorded.jsonl"
    run = bench(f"--model=replay:{replay}", "-k", "mf_e_001", "--setting=two_stage", f"--record={recording}")
    assert [t["key"] for t in run.records[0]["turns"]] == [f"{MF1}/stage1/s0", f"{MF1}/stage2/s0"]
    recorded = [json.loads(line) for line in recording.read_text().splitlines()]
    assert [(r["case"], r["of_case"]) for r in recorded] == [
        (f"{MF1}/stage1/s0", f"{MF1}/two_stage/s0"),
        (f"{MF1}/stage2/s0", f"{MF1}/two_stage/s0"),
    ]
    again = bench(f"--model=replay:{recording}", "-k", "mf_e_001", "--setting=two_stage")
    assert _verdicts(again.records) == _verdicts(run.records)
    assert again.records[0]["extra"]["stage2"] == run.records[0]["extra"]["stage2"]
