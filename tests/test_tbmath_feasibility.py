"""The feasibility gate's six forms and the certificate layer (z3 + Lean source), on synthetic
artifacts whose violations are known by construction; the shipped tasks' contracts (coverage,
the oracle passes its own gate, one-leaf mutations rejected citing the field) are in
``test_tbmath_tasks.py``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark.suites.tbmath.certificates import certify, lean_source
from benchmark.suites.tbmath.feasibility import CheckError, run_gate
from benchmark.suites.tbmath.obligations import exact_decimal
from tests.conftest import REPO

CHECKS = [
    {"id": "rate", "form": "range", "path": "rates[*]", "min": 0, "max": 1},
    {"id": "count", "form": "range", "path": "count", "min": 0, "integer": True},
    {"id": "q95_above_mean", "form": "ordering", "lesser": "mean", "greater": "q95"},
    {"id": "speed_cap", "form": "identity", "product": ["head", "ratio"], "equals": 2, "rel_tolerance": 0.01},
    {"id": "bits", "form": "membership", "path": "bits", "length": True, "values": [16, 17]},
    {
        "id": "shares",
        "form": "aggregate",
        "path": "shares[*]",
        "op": "sum",
        "equals": 100,
        "abs_tolerance": 0.5,
    },
    {
        "id": "capacity",
        "form": "replay",
        "terms": [{"path": "plan[*]", "coefficients": [2, 3]}],
        "op": "<=",
        "rhs": {"path": "capacity"},
    },
]

GOOD = {
    "rates": [0.0, 0.43, 1.0],
    "count": 7,
    "mean": 3.0,
    "q95": 5.5,
    "head": 1.246266,
    "ratio": 1.604793,
    "bits": [0] * 16,
    "shares": [33.3, 33.3, 33.4],
    "plan": [10, 5],
    "capacity": 35,
}


def test_a_feasible_artifact_passes_with_one_obligation_per_checked_field() -> None:
    result = run_gate(CHECKS, GOOD)
    assert result.passed, result.violations
    assert not result.gaps
    assert len(result.obligations) == 3 + 1 + 1 + 1 + 1 + 1 + 1


@pytest.mark.parametrize(
    ("path", "value", "check"),
    [
        ("rates", [0.2, 1.4], "rate"),
        ("count", 2.5, "count"),
        ("count", -1, "count"),
        ("q95", 2.0, "q95_above_mean"),
        ("head", 1.406276, "speed_cap"),  # the paper's infeasible dragon-dance anchor: 2.2568 m/s
        ("bits", [1] * 15, "bits"),
        ("shares", [50, 30, 30], "shares"),
        ("plan", [10, 6], "capacity"),  # 2·10 + 3·6 = 38 > 35
        ("count", "7", "count"),  # present but not a number
    ],
)
def test_each_form_rejects_its_violation_naming_the_check_and_field(
    path: str, value: object, check: str
) -> None:
    artifact = {**GOOD, path: value}
    result = run_gate(CHECKS, artifact)
    assert not result.passed
    assert {v.check_id for v in result.violations} == {check}
    assert all(path in v.path for v in result.violations)


def test_missing_fields_are_gaps_and_an_empty_artifact_warns_without_failing() -> None:
    partial = {k: v for k, v in GOOD.items() if k != "q95"}
    result = run_gate(CHECKS, partial)
    assert result.passed and [g.path for g in result.gaps] == ["q95"]
    empty = run_gate(CHECKS, {})
    assert empty.passed and not empty.obligations
    assert any("empty artifact" in w for w in empty.warnings)


def test_malformed_declarations_are_refused() -> None:
    with pytest.raises(CheckError, match="unknown form"):
        run_gate([{"id": "x", "form": "vibes"}], {})
    with pytest.raises(CheckError, match="needs"):
        run_gate([{"id": "x", "form": "ordering", "lesser": "a"}], {})
    with pytest.raises(CheckError, match="unique"):
        run_gate([{"id": "x", "form": "range", "path": "a"}] * 2, {})


def test_values_are_exact_decimals() -> None:
    assert exact_decimal(0.1) == exact_decimal(0.1)
    assert (exact_decimal(0.1).expr, exact_decimal(0.1).exp) == (1, 1)
    assert (exact_decimal(1246266).expr, exact_decimal(-0.0223).expr, exact_decimal(-0.0223).exp) == (
        1246266,
        -223,
        4,
    )


def test_z3_proves_what_holds_and_refutes_what_does_not() -> None:
    good = run_gate(CHECKS, GOOD)
    certificate = certify(good.obligations, good.gaps)
    assert certificate.status == "certified"
    assert certificate.proved == len(good.obligations)
    bad = run_gate(CHECKS, {**GOOD, "head": 1.406276})
    rejected = certify(bad.obligations, bad.gaps).rejected
    assert [d.obligation.check_id for d in rejected] == ["speed_cap"]
    assert rejected[0].refuted and "head" in rejected[0].obligation.paths


def test_missing_evidence_is_a_witnessed_gap_never_proved() -> None:
    partial = run_gate(CHECKS, {k: v for k, v in GOOD.items() if k != "capacity"})
    certificate = certify(partial.obligations, partial.gaps)
    assert certificate.status == "partial"
    assert [g["path"] for g in certificate.as_record()["gaps"]] == ["capacity"]


def test_lean_source_has_one_decidable_theorem_per_obligation_and_lists_gaps() -> None:
    partial = run_gate(CHECKS, {k: v for k, v in GOOD.items() if k != "capacity"})
    source = lean_source("demo-task", partial.obligations, partial.gaps)
    assert source.count(":= by decide") == len(partial.obligations)
    assert "sorry" not in source and "native_decide" not in source
    assert "-- GAP (missing evidence, not proved): capacity at capacity" in source
    # the dragon-dance identity, scaled: 1.98 ≤ head·ratio ≤ 2.02 at 10^12
    assert "((1246266 : Int) * (1604793 : Int))" in source


def test_the_certify_command_writes_lean_and_rejects_a_violation(tmp_path: Path) -> None:
    task = REPO / "tests" / "data" / "tbmath_public" / "mini-mean-estimate"
    good = task / "tests" / "expected_result.json"
    lean = tmp_path / "mini.lean"
    command = [sys.executable, "-m", "benchmark", "tbmath-certify", str(task)]
    done = subprocess.run(
        [*command, str(good), "--lean", str(lean)], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0 and "certified: 2/2 proved" in done.stdout, done.stdout + done.stderr
    assert lean.read_text().count(":= by decide") == 2
    bad = tmp_path / "bad.json"
    artifact = json.loads(good.read_text())
    artifact["experiment_result"]["ci_low"] = 11.0  # above ci_high
    bad.write_text(json.dumps(artifact))
    done = subprocess.run([*command, str(bad)], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 1 and "REFUTED  interval_ordered_1" in done.stdout, done.stdout


EVIDENCE = """
def recompute(artifact, data):
    rows = (data / "attachments" / "widths.csv").read_text().split()[1:]
    widths = [float(r) for r in rows]
    picks = artifact["picks"]
    if sorted(set(picks)) != sorted(picks) or not all(0 <= p < len(widths) for p in picks):
        raise ValueError(f"picks must be distinct rows of widths.csv, got {picks}")
    return {"total_width": sum(widths[p] for p in picks)}
"""
RECOMPUTE = [
    {
        "id": "from_picks",
        "form": "recompute",
        "required": ["picks"],
        "claims": {"total_width": {"abs_tolerance": 0.01}},
    }
]


@pytest.fixture
def task_root(tmp_path: Path) -> Path:
    """A task folder with a grader script and one attachment (widths 1.5, 2.25, 4.0)."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "evidence.py").write_text(EVIDENCE)
    (tmp_path / "environment" / "data" / "attachments").mkdir(parents=True)
    (tmp_path / "environment" / "data" / "attachments" / "widths.csv").write_text("width\n1.5\n2.25\n4.0\n")
    return tmp_path


def test_recompute_verifies_a_claim_its_decisions_give(task_root: Path) -> None:
    result = run_gate(RECOMPUTE, {"picks": [0, 2], "total_width": 5.5}, task_root)  # 1.5 + 4.0
    assert result.passed and result.verified == {"total_width"}
    assert result.recomputed == {"total_width": 5.5}
    assert certify(result.obligations, result.gaps).status == "certified"


@pytest.mark.parametrize(
    ("artifact", "says"),
    [
        ({"total_width": 7.75}, "required decision is absent"),  # the claim alone
        ({"picks": [0, 0], "total_width": 3.0}, "distinct rows"),  # the script's own refusal
        ({"picks": "all", "total_width": 7.75}, "do not solve the task"),  # unusable decisions
        ({"picks": [1], "total_width": 4.0}, "must equal its recomputation 2.25"),  # a made-up claim
    ],
)
def test_recompute_fails_what_the_decisions_do_not_give(task_root: Path, artifact: dict, says: str) -> None:
    result = run_gate(RECOMPUTE, artifact, task_root)
    assert not result.passed and not result.verified
    assert any(says in v.message for v in result.violations), result.violations
    refuted = [d for d in certify(result.obligations, []).rejected if d.refuted]
    assert bool(refuted) == ("recomputation" in says)


def test_recompute_declarations_are_checked(task_root: Path) -> None:
    with pytest.raises(CheckError, match="needs the task folder"):
        run_gate(RECOMPUTE, {"picks": [0]})
    with pytest.raises(CheckError, match="does not recompute depth"):
        run_gate([{**RECOMPUTE[0], "claims": {"depth": {}}}], {"picks": [0]}, task_root)
    with pytest.raises(CheckError, match="path → tolerance"):
        run_gate([{**RECOMPUTE[0], "claims": ["total_width"]}], {}, task_root)
