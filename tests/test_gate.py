"""The release-gate expression language."""

from __future__ import annotations

import pytest

from benchmark.gate import GateError, evaluate_gate, parse_allowance, parse_gate


def test_parses_fractions_percentages_and_lists() -> None:
    conditions = parse_gate("pass@1>=0.45, valid_code_rate>90%")
    assert [(c.metric, c.op, c.threshold) for c in conditions] == [
        ("pass@1", ">=", 0.45),
        ("valid_code_rate", ">", 0.9),
    ]


@pytest.mark.parametrize("bad", ["pass@1", "pass@1 >= high", ">=0.4", "pass@1=>0.4"])
def test_rejects_malformed_conditions(bad: str) -> None:
    with pytest.raises(GateError, match="cannot read gate condition"):
        parse_gate(bad)


def test_every_condition_must_hold() -> None:
    gate = parse_gate("pass@1>=0.45,valid_code_rate>=0.9")
    assert evaluate_gate(gate, {"pass@1": 0.5, "valid_code_rate": 0.95}).passed
    result = evaluate_gate(gate, {"pass@1": 0.5, "valid_code_rate": 0.85})
    assert not result.passed and result.lines[1].startswith("FAIL")


def test_undefined_metric_fails_the_gate() -> None:
    result = evaluate_gate(parse_gate("pass@4>=0.1"), {"pass@4": None})
    assert not result.passed and "undefined" in result.lines[0]


def test_unscored_cases_fail_the_gate_unless_allowed() -> None:
    gate = parse_gate("pass@1>=0.5")
    unscored = {"api_error": 2, "harness_error": 1}
    refused = evaluate_gate(gate, {"pass@1": 1.0}, selected=10, unscored=unscored)
    assert not refused.passed and refused.lines[-1].startswith("FAIL unscored cases: 3 of 10")
    assert evaluate_gate(
        gate, {"pass@1": 1.0}, selected=10, unscored=unscored, allowance=parse_allowance("3")
    ).passed
    assert not evaluate_gate(
        gate, {"pass@1": 1.0}, selected=10, unscored=unscored, allowance=parse_allowance("2")
    ).passed
    assert evaluate_gate(
        gate, {"pass@1": 1.0}, selected=10, unscored=unscored, allowance=parse_allowance("30%")
    ).passed
    assert not evaluate_gate(
        gate, {"pass@1": 1.0}, selected=10, unscored=unscored, allowance=parse_allowance("29%")
    ).passed
    assert evaluate_gate(gate, {"pass@1": 1.0}, selected=10, unscored={}).passed


@pytest.mark.parametrize("bad", ["", "two", "1.5", "-1", "150%"])
def test_rejects_malformed_allowances(bad: str) -> None:
    with pytest.raises(GateError, match="gate-allow-unscored"):
        parse_allowance(bad)
