"""The benchmark as a user runs it: real pytest sessions in a subprocess, the real sandbox, the
shipped instances, the oracle and replayed responses."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO, BenchRun

pytestmark = pytest.mark.slow

MF1 = "mmopt/network_optimization/maximum_flow/easy/mf_e_001"


def _replay(tmp_path: Path, responses: dict[str, str]) -> Path:
    path = tmp_path / "replay.jsonl"
    path.write_text("".join(json.dumps({"case": k, "response": v}) + "\n" for k, v in responses.items()))
    return path


def _stage1(code: str) -> str:
    return f"ASSUMPTIONS\nnone\n\nMATHEMATICAL_MODEL\nmax flow\n\nPYTHON_CODE\n{code}"


def _reference_code(instance: str = MF1) -> str:
    return (FIXTURES / instance.split("/", 1)[1] / "ground_truth" / "solver_ref.py").read_text()


def _expected(instance: str = MF1) -> float:
    return json.loads((FIXTURES / instance.split("/", 1)[1] / "ground_truth/solution_ref.json").read_text())[
        "objective_value"
    ]


def test_oracle_scores_every_selected_instance(bench) -> None:
    run: BenchRun = bench("--model=oracle", "-k", "mf_e or mcf_e", "-n", "2")
    assert run.returncode == 0, run.output[-3000:]
    assert len(run.records) == 20
    assert all(r["passed"] and r["valid_code"] for r in run.records)
    metrics = run.summary["metrics"]
    assert metrics["pass@1"] == 1.0 and metrics["valid_code_rate"] == 1.0
    assert "optbench summary" in run.output and "pass@1" in run.output
    assert (run.run_dir / "summary.md").read_text().startswith("# Benchmark run")
    manifest = json.loads((run.run_dir / "manifest.json").read_text())
    assert manifest["sandbox"]["kind"] in ("warm", "bwrap", "subprocess")
    assert manifest["dataset"]["version"] and len(manifest["dataset"]["sha256"]) == 64
    assert manifest["sessions"][-1]["exitstatus"] == 0 and manifest["packages"]["ortools"]


def test_junit_xml_carries_case_properties(bench) -> None:
    run = bench("--model=oracle", "-k", "mf_e_001 or mf_h_002")
    tree = ET.parse(run.run_dir / "junit.xml")
    cases = tree.getroot().findall(".//testcase")
    assert len(cases) == 2
    for case in cases:
        props = {p.get("name"): p.get("value") for p in case.findall("properties/property")}
        assert props["family"] == "network_optimization"
        assert props["difficulty"] in ("easy", "hard")
        assert float(props["returned_objective"]) == float(props["expected_objective"])
        assert props["outcome"] == "passed"


def test_bad_responses_get_their_category_and_the_run_goes_on(bench, tmp_path: Path) -> None:
    secret = "sk-test-do-not-leak-4242"
    truth = FIXTURES / MF1.split("/", 1)[1] / "ground_truth" / "solution_ref.json"
    right = _expected()
    wrong_flows = _reference_code().replace("def solve(", "def _reference_solve(") + (
        "\ndef solve():\n    result = _reference_solve()\n"
        "    result['flows'] = {k: v + 1 for k, v in result['flows'].items()}\n    return result\n"
    )
    responses = {
        "no_code": "I would model this as a maximum flow problem, but I will not write code.",
        "syntax": _stage1("def solve(:\n    return {}\n"),
        "dependency": _stage1("import not_a_real_solver_pkg\n\ndef solve():\n    return {}\n"),
        "loop": _stage1("def solve():\n    while True:\n        pass\n"),
        "wrong": _stage1(
            "def solve():\n    return {'status': 'optimal', 'objective_value': 0, 'flows': {}}\n"
        ),
        "string": _stage1("def solve():\n    return 'the answer is 42'\n"),
        "truth": _stage1(f"import json\n\ndef solve():\n    return json.load(open({str(truth)!r}))\n"),
        "socket": _stage1(
            "import socket\n\ndef solve():\n    s = socket.create_connection(('127.0.0.1', 22), timeout=2)\n"
            f"    return {{'status': 'optimal', 'objective_value': {right}}}\n"
        ),
        "env": _stage1(
            "import os\n\ndef solve():\n    print(dict(os.environ))\n"
            f"    return {{'status': 'optimal', 'objective_value': {right}, 'env': dict(os.environ)}}\n"
        ),
        "infeasible": _stage1(wrong_flows),
    }
    expected = {
        "no_code": "response_contract",
        "syntax": "syntax",
        "dependency": "dependency",
        "loop": "timeout",
        # a value without the flows and min cut that attain it: under the official max-flow rules
        # (which the strict mode includes) that is an infeasible answer, not merely a wrong number
        "wrong": "infeasible_solution",
        "string": "output_format",
        "truth": "runtime",
        "socket": "runtime",
        "env": "infeasible_solution",  # the right number without any flows
        "infeasible": "infeasible_solution",
    }
    names = list(responses)
    replay = _replay(tmp_path, {f"{MF1}/stage1/s{i}": responses[name] for i, name in enumerate(names)})
    run = bench(
        f"--model=replay:{replay}", "-k", "mf_e_001", "--samples", str(len(names)), "--exec-timeout", "3",
        env={"OPENAI_API_KEY": secret, "OPTBENCH_TEST_TOKEN": secret},
    )  # fmt: skip
    assert run.returncode == 1, run.output[-3000:]
    got = {names[r["sample"]]: r["category"] for r in run.records}
    assert got == expected
    assert not any(r["passed"] for r in run.records)
    assert "wall timeout" in run.by_case()[f"{MF1}/stage1/s3"]["detail"]
    for path in run.run_dir.iterdir():
        assert secret not in path.read_text(errors="replace"), path
    assert str(right) not in run.by_case()[f"{MF1}/stage1/s6"]["detail"]  # nothing of the truth came back


def test_xdist_gives_the_same_results_as_one_process(bench) -> None:
    selection = ("-k", "mf_m or mcf_m")
    serial = bench("--model=oracle", *selection, "-n", "0")
    parallel = bench("--model=oracle", *selection, "-n", "4")
    assert serial.returncode == parallel.returncode == 0

    def essence(run: BenchRun) -> dict[str, tuple[object, ...]]:
        return {k: (r["passed"], r["category"], r["returned_objective"]) for k, r in run.by_case().items()}

    assert len(serial.records) == 20 and essence(serial) == essence(parallel)
    assert serial.summary["metrics"] == parallel.summary["metrics"]


def test_resume_after_an_interrupt_does_not_redo_finished_cases(tmp_path: Path) -> None:
    # Reference answers that take 1.5 s each, so the interrupt lands mid-run even when a loaded machine
    # is slow to notice the third record.
    hard = sorted((FIXTURES / "network_optimization/maximum_flow/hard").iterdir())
    slow = {
        f"mmopt/network_optimization/maximum_flow/hard/{p.name}/stage1": _stage1(
            (p / "ground_truth/solver_ref.py").read_text() + "\nimport time\n\ntime.sleep(1.5)\n"
        )
        for p in hard
    }
    replay = _replay(tmp_path, slow)
    run_dir = tmp_path / "run"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--model=replay:{replay}",
               "-k", "mf_h", f"--report-dir={run_dir}", f"--cache-dir={tmp_path / 'cache'}"]  # fmt: skip
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = run_dir / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not results.exists() or len(results.read_text().splitlines()) < 3):
        time.sleep(0.05)
    process.kill()  # the hardest interruption: no chance to clean up or write a summary
    process.wait(timeout=60)
    first = [json.loads(line) for line in results.read_text().splitlines()]
    assert 3 <= len(first) < 10
    done = subprocess.run([*command, "--resume"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]
    records = [json.loads(line) for line in results.read_text().splitlines()]
    keys = [r["case"] for r in records]
    assert len(keys) == len(set(keys)) == 10
    assert records[: len(first)] == first
    assert all(r["passed"] for r in records)
    assert len(json.loads((run_dir / "manifest.json").read_text())["sessions"]) == 2


@pytest.mark.parametrize(("gate", "code"), [("pass@1>=0.45", 1), ("pass@1>=0.0", 0)])
def test_gate_decides_the_exit_status(bench, tmp_path: Path, gate: str, code: int) -> None:
    replay = _replay(
        tmp_path, {f"{MF1}/stage1": _stage1("def solve():\n    return {'objective_value': -1}\n")}
    )
    run = bench(f"--model=replay:{replay}", "-k", "mf_e_001", f"--gate={gate}")
    assert run.returncode == code, run.output[-2000:]
    assert run.summary["run"]["gate"]["passed"] is (code == 0)
    assert "gate: " in run.output


def test_gate_passes_the_oracle(bench) -> None:
    run = bench("--model=oracle", "-k", "mcf_e_001", "--gate=pass@1>=1.0,valid_code_rate>=100%")
    assert run.returncode == 0 and run.summary["run"]["gate"]["passed"]


def test_without_a_model_nothing_runs_and_the_run_says_why(bench) -> None:
    run = bench()
    assert run.returncode == pytest.ExitCode.NO_TESTS_COLLECTED
    shipped = len(json.loads((FIXTURES / "manifest.json").read_text())["packages"])
    assert "no --model given" in run.output and f"{shipped} deselected" in run.output


def test_unknown_model_alias_is_a_usage_error(bench) -> None:
    run = bench("--model=no-such-model")
    assert run.returncode == pytest.ExitCode.USAGE_ERROR
    assert "no-such-model" in run.output and "oracle" in run.output


@pytest.mark.parametrize(
    ("selection", "count"),
    [
        (("-k", "maximum_flow"), 30),
        (("-m", "hard and minimum_cost_flow"), 10),
        (("-k", "mf_e_001 or mcf_h"), 11),
    ],
)
def test_selection_by_keyword_and_marker(bench, selection: tuple[str, str], count: int) -> None:
    run = bench("--model=oracle", "--collect-only", "-q", *selection)
    assert re.search(rf"\b{count}(/\d+)? tests collected", run.output), run.output[-1500:]
