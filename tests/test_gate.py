"""The release-gate expression language."""

from __future__ import annotations

import pytest

from benchmark.gate import GateError, evaluate_gate, parse_gate


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
