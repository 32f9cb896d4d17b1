"""Stage-1 scoring: the returned objective against the verified optimum, and the returned decisions
against the instance (MM-OptBench §3.3, App. F.1; DESIGN §4).

Objective tolerance is absolute: 1e-6 by default, with the official release's per-subcategory
floors. Unless ``objective_only`` is set, the subcategory's validator checks the decisions for
feasibility and recomputes the objective from them; a reported objective that disagrees with the
recomputed one makes the answer ``infeasible_solution`` even when the number is right.

Accepted result shapes (documented for model authors):

- keys may sit at the top level or inside a nested ``solution`` or ``decisions`` dict (lifted out;
  top-level keys win);
- the objective is read from the first of :data:`OBJECTIVE_KEYS` present;
- decision keys are renamed to their canonical names by :data:`DECISION_ALIASES`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from benchmark.sandbox import ExecutionResult, Outcome
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.verdict import Verdict

DEFAULT_TOLERANCE = 1e-6
#: The official release's absolute-tolerance floors (DESIGN §4).
TOLERANCE_FLOORS: dict[str, float] = {
    "facility_location": 1e-3,
    "p_median_center": 1e-3,
    "travel_salesman_problem": 1e-3,
    "vehicle_routing_problem": 1e-3,
    "heterogeneous_fleet_vrp": 1e-3,
    "lot_sizing_production_planning": 1e-2,
    "workforce_planning_shift_scheduling": 1e-2,
    "inventory_routing_problem": 1e-2,
    "tsp_with_time_windows": 1e-2,
}
OBJECTIVE_KEYS: tuple[str, ...] = (
    "objective_value",
    "objective",
    "objective_exact",
    "total_cost",
    "cost",
    "value",
    "makespan",
    "optimal_value",
    "obj_value",
    "max_flow_value",
    "max_flow",
    "flow_value",
    "min_cost",
)
NESTED_KEYS: tuple[str, ...] = ("solution", "decisions")
DECISION_ALIASES: dict[str, str] = {
    "flow": "flows",
    "arc_flows": "flows",
    "flow_values": "flows",
    "x": "flows",
    "min_cut_s": "min_cut_S",
    "min_cut_t": "min_cut_T",
    "cut_S": "min_cut_S",
    "cut_T": "min_cut_T",
    "source_side": "min_cut_S",
    "sink_side": "min_cut_T",
    "selected_subsets": "selected",
    "matching": "assignment",
}
_FAILED_STATUSES = {"infeasible", "unbounded", "error", "failed", "failure", "not_solved", "no_solution"}


def tolerance_for(subcategory: str) -> float:
    return max(DEFAULT_TOLERANCE, TOLERANCE_FLOORS.get(subcategory, 0.0))


def normalize_result(value: Mapping[str, Any]) -> dict[str, Any]:
    """Lift nested ``solution``/``decisions`` keys and rename decision aliases."""
    result: dict[str, Any] = {}
    for nested in NESTED_KEYS:
        inner = value.get(nested)
        if isinstance(inner, Mapping):
            result.update(inner)
    result.update({k: v for k, v in value.items() if k not in NESTED_KEYS or not isinstance(v, Mapping)})
    for alias, canonical in DECISION_ALIASES.items():
        if alias in result and canonical not in result:
            result[canonical] = result.pop(alias)
    return result


def read_objective(result: Mapping[str, Any]) -> tuple[str | None, float | None, str | None]:
    """(key used, objective, problem). A present but non-numeric objective is a problem."""
    for key in OBJECTIVE_KEYS:
        if key in result and result[key] is not None:
            raw = result[key]
            if isinstance(raw, bool):
                return key, None, f"{key} is a boolean, not a number"
            try:
                number = float(raw)
            except (TypeError, ValueError):
                return key, None, f"{key}={raw!r} is not a number"
            if not math.isfinite(number):
                return key, None, f"{key}={raw!r} is not finite"
            return key, number, None
    return (
        None,
        None,
        "no objective in the returned dict (looked for " + ", ".join(OBJECTIVE_KEYS[:7]) + " …)",
    )


def score_execution(
    execution: ExecutionResult,
    *,
    subcategory: str,
    instance: Mapping[str, Any],
    solution_ref: Mapping[str, Any],
    objective_only: bool,
) -> Verdict:
    exec_info = {"outcome": str(execution.outcome), "wall_s": round(execution.wall_s, 4)}
    if execution.outcome is not Outcome.OK or execution.value is None:
        return Verdict.fail(str(execution.outcome), execution.error, execution=exec_info)
    result = normalize_result(execution.value)
    expected_raw = solution_ref.get("objective_value")
    expected = float(expected_raw) if isinstance(expected_raw, int | float) else None
    common: dict[str, Any] = {"valid_code": True, "execution": exec_info, "expected_objective": expected}
    status = str(result.get("status", "")).strip().lower()
    if str(solution_ref.get("status", "")).lower() == "infeasible":
        # feasibility-type instances: the only right answer is to say so
        if status == "infeasible":
            return Verdict(passed=True, **common)
        return Verdict.fail(
            "wrong_objective", f"the instance is infeasible; solve() reported {status!r}", **common
        )
    if status in _FAILED_STATUSES and str(solution_ref.get("status", "")).lower() == "optimal":
        return Verdict.fail(
            "wrong_objective",
            f"solve() reported status {status!r}, but the instance has an optimum",
            **common,
        )
    key, returned, problem = read_objective(result)
    if problem is not None:
        return Verdict.fail("output_format", problem, **common)
    assert returned is not None
    tolerance = tolerance_for(subcategory)
    extra: dict[str, Any] = {"objective_key": key, "tolerance": tolerance}
    recomputed: float | None = None
    validator = None if objective_only else get_subcategory(subcategory)
    if validator is not None:
        try:
            check = validator.check_solution(instance, result)
        except Exception as exc:
            # the validator reads the reference solution: if that works, the answer is unreadable
            validator.check_solution(instance, normalize_result(solution_ref))
            return Verdict.fail(
                "output_format",
                f"the returned decisions cannot be read ({type(exc).__name__}: {exc})",
                returned_objective=returned,
                extra=extra,
                **common,
            )
        recomputed = check.objective
        extra["decisions_checked"] = True
        if not check.feasible:
            return Verdict.fail(
                "infeasible_solution",
                "; ".join(check.problems) or "the returned decisions are infeasible",
                returned_objective=returned,
                recomputed_objective=recomputed,
                extra=extra,
                **common,
            )
        if recomputed is not None and abs(recomputed - returned) > tolerance:
            return Verdict.fail(
                "infeasible_solution",
                f"reported objective {returned:g} but the returned decisions give {recomputed:g}",
                returned_objective=returned,
                recomputed_objective=recomputed,
                extra=extra,
                **common,
            )
    else:
        extra["decisions_checked"] = False
        if not objective_only:
            extra["note"] = f"no decision validator for {subcategory}; scored on the objective alone"
    if expected is None:  # load_package guarantees a numeric optimum unless the status is infeasible
        raise ValueError("solution_ref.json has no numeric objective_value")
    if abs(returned - expected) > tolerance:
        return Verdict.fail(
            "wrong_objective",
            f"objective {returned:g} differs from the verified optimum {expected:g} "
            f"(tolerance {tolerance:g})",
            returned_objective=returned,
            recomputed_objective=recomputed,
            extra=extra,
            **common,
        )
    return Verdict(
        passed=True, returned_objective=returned, recomputed_objective=recomputed, extra=extra, **common
    )
