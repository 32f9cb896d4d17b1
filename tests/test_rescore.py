"""``python -m benchmark rescore RUN_DIR`` reproduces every verdict from the run's log alone, and
each record carries what an audit needs: every turn's raw response, the artifact and output tails."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark.rescore import VERDICT_FIELDS, rescore_arguments
from tests.conftest import FIXTURES, REPO, BenchRun

MF1 = "mmopt/network_optimization/maximum_flow/easy/mf_e_001"


def _stage1(code: str) -> str:
    return f"ASSUMPTIONS\nnone\n\nMATHEMATICAL_MODEL\nmax flow\n\nPYTHON_CODE\n{code}"


def _rescore(run_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmark", "rescore", str(run_dir)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def _verdicts(records: list[dict]) -> dict[str, str]:
    return {r["case"]: json.dumps({f: r.get(f) for f in VERDICT_FIELDS}, sort_keys=True) for r in records}


def test_rescoring_drops_the_model_and_run_control_but_keeps_the_selection() -> None:
    original = [
        "--model=claude",
        "-k",
        "mf_e",
        "--report-dir",
        "x",
        "--resume",
        "--gate=pass@1>=1",
        "-n",
        "2",
    ]
    assert rescore_arguments(original) == ["-k", "mf_e", "-n", "2"]
    # another model the suite asks (a modifier, a judge) is replayed from the log like the model
    asks = ["--model=claude", "--modifier-model", "gpt", "--shots=2", "--judge-model=x"]
    replay = Path("turns.jsonl")
    rewritten = rescore_arguments(asks, ("--modifier-model", "--judge-model"), replay)
    assert rewritten == [
        "--modifier-model=replay:turns.jsonl",
        "--shots=2",
        "--judge-model=replay:turns.jsonl",
    ]


@pytest.mark.slow
def test_rescore_reproduces_an_oracle_run(bench) -> None:
    run: BenchRun = bench("--model=oracle", "-k", "mf_e_00 or mcf_m_001", "-n", "2")
    assert run.returncode == 0, run.output[-2000:]
    record = run.by_case()[f"{MF1}/stage1/s0"]
    assert record["turns"][0]["key"] == f"{MF1}/stage1/s0" and "PYTHON_CODE" in record["turns"][0]["response"]
    assert "def solve" in record["artifact"]["solve.py"] and set(record["output"]) == {"stdout", "stderr"}
    done = _rescore(run.run_dir)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    again = BenchRun(0, "", run.run_dir / "rescore" / "run")
    assert _verdicts(again.records) == _verdicts(run.records)
    assert f"{len(run.records)} identical, 0 differ" in done.stdout

    # a verdict that the log does not reproduce is named, and the command fails
    lines = (run.run_dir / "results.jsonl").read_text().splitlines()
    tampered = json.loads(lines[0]) | {"passed": False, "outcome": "failed", "category": "wrong_objective"}
    (run.run_dir / "results.jsonl").write_text("\n".join([json.dumps(tampered), *lines[1:]]) + "\n")
    differs = _rescore(run.run_dir)
    assert differs.returncode == 1 and f"{tampered['case']}: outcome: 'failed' -> 'passed'" in differs.stdout


@pytest.mark.slow
def test_rescore_reproduces_a_replay_run_with_a_failure_of_every_category(bench, tmp_path: Path) -> None:
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
    again = BenchRun(0, "", run.run_dir / "rescore" / "run")
    assert _verdicts(again.records) == _verdicts(run.records)


@pytest.mark.slow
def test_record_exports_every_turn_of_a_two_stage_case(bench, tmp_path: Path) -> None:
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
