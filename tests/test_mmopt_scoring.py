"""Stage-1 scoring rules: tolerance, objective aliases, decision checks and category order."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt.scoring import (
    DEFAULT_TOLERANCE,
    OBJECTIVE_KEYS,
    TOLERANCE_FLOORS,
    normalize_result,
    score_execution,
    tolerance_for,
)

REF = {"status": "optimal", "objective_value": 17.0}


def ran(value: dict[str, Any] | None, outcome: Outcome = Outcome.OK, error: str = "") -> ExecutionResult:
    return ExecutionResult(
        outcome=outcome, value=value, stdout="", error=error, wall_s=0.1, sandbox=SandboxKind.BWRAP
    )


def score(value: dict[str, Any], subcategory: str = "an_unvalidated_subcategory", **kwargs: Any):
    return score_execution(
        ran(value),
        subcategory=subcategory,
        instance={},
        solution_ref=kwargs.pop("ref", REF),
        objective_only=False,
        **kwargs,
    )


def test_tolerance_floors() -> None:
    assert tolerance_for("maximum_flow") == DEFAULT_TOLERANCE == 1e-6
    assert tolerance_for("facility_location") == 1e-3
    assert tolerance_for("tsp_with_time_windows") == 1e-2
    assert all(tolerance_for(name) >= DEFAULT_TOLERANCE for name in TOLERANCE_FLOORS)


@given(
    subcategory=st.sampled_from(["maximum_flow", *TOLERANCE_FLOORS]),
    expected=st.floats(-1e6, 1e6, allow_nan=False),
    fraction=st.floats(0.0, 0.5),
    sign=st.sampled_from([-1.0, 1.0]),
)
def test_within_tolerance_passes(subcategory: str, expected: float, fraction: float, sign: float) -> None:
    returned = expected + sign * fraction * tolerance_for(subcategory)
    verdict = score_execution(
        ran({"objective_value": returned}),
        subcategory=subcategory,
        instance={},
        solution_ref={"status": "optimal", "objective_value": expected},
        objective_only=True,
    )
    assert verdict.passed, verdict.detail


@given(
    subcategory=st.sampled_from(["maximum_flow", *TOLERANCE_FLOORS]),
    expected=st.floats(-1e6, 1e6, allow_nan=False),
    factor=st.floats(2.0, 1e6),
    sign=st.sampled_from([-1.0, 1.0]),
)
def test_outside_tolerance_is_wrong_objective(
    subcategory: str, expected: float, factor: float, sign: float
) -> None:
    returned = expected + sign * factor * tolerance_for(subcategory)
    verdict = score_execution(
        ran({"objective_value": returned}),
        subcategory=subcategory,
        instance={},
        solution_ref={"status": "optimal", "objective_value": expected},
        objective_only=True,
    )
    assert not verdict.passed and verdict.category == "wrong_objective"


@pytest.mark.parametrize("key", OBJECTIVE_KEYS)
def test_every_documented_objective_alias_is_read(key: str) -> None:
    verdict = score({key: 17})
    assert verdict.passed and verdict.extra["objective_key"] == key


def test_nested_solution_is_lifted_and_top_level_wins() -> None:
    assert normalize_result({"solution": {"objective": 3, "flows": {}}, "objective": 4}) == {
        "objective": 4,
        "flows": {},
    }
    assert score({"status": "optimal", "solution": {"total_cost": 17}}).passed


@pytest.mark.parametrize(
    ("value", "category", "fragment"),
    [
        ({"status": "optimal"}, "output_format", "no objective"),
        ({"objective_value": "seventeen"}, "output_format", "not a number"),
        ({"objective_value": True}, "output_format", "boolean"),
        ({"objective_value": float("nan")}, "output_format", "not finite"),
        ({"status": "infeasible", "objective_value": 17}, "wrong_objective", "status 'infeasible'"),
    ],
)
def test_malformed_results(value: dict[str, Any], category: str, fragment: str) -> None:
    verdict = score(value)
    assert verdict.category == category and fragment in verdict.detail
    assert verdict.valid_code  # the code ran and returned a dict


def test_execution_failures_keep_their_category_and_are_not_valid_code() -> None:
    verdict = score_execution(
        ran(None, Outcome.TIMEOUT, "timed out after 2 s"),
        subcategory="x",
        instance={},
        solution_ref=REF,
        objective_only=False,
    )
    assert (
        verdict.category == "timeout" and not verdict.valid_code and verdict.detail == "timed out after 2 s"
    )


def test_infeasible_reference_requires_an_infeasible_status() -> None:
    ref = {"status": "infeasible"}
    assert score({"status": "infeasible"}, ref=ref).passed
    assert score({"status": "optimal", "objective_value": 3}, ref=ref).category == "wrong_objective"
