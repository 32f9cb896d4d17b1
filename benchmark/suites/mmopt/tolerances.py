"""The scoring tolerances of MM-OptBench, one table for the scorer, the validators and the
official checks (DESIGN §4).

An objective is compared with the verified optimum, and a reported objective with the one
recomputed from the decisions, within an absolute tolerance: 1e-6 by default, raised per
subcategory to the official release's floor (its scorer's ``abs_tol``). Time windows are checked
at their own tolerance where the release states one. Numerical noise guards inside a check (a
solver's 1e-9 on a binary, say) are not scoring rules and stay with the check.

The tables are read at each call, so a test that changes a floor changes every reader.
"""

from __future__ import annotations

DEFAULT_OBJECTIVE = 1e-6
#: The official release's absolute objective floors, by subcategory.
OBJECTIVE_FLOORS: dict[str, float] = {
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
#: Absolute tolerance on arrival and service-start times, where the release checks time windows.
TIME: dict[str, float] = {"tsp_with_time_windows": 1e-3}


def objective_tolerance(subcategory: str) -> float:
    """The absolute objective tolerance of ``subcategory``: its floor, never below the default."""
    return max(DEFAULT_OBJECTIVE, OBJECTIVE_FLOORS.get(subcategory, 0.0))


def time_tolerance(subcategory: str) -> float:
    """The absolute tolerance on ``subcategory``'s times (the objective default where none is set)."""
    return TIME.get(subcategory, DEFAULT_OBJECTIVE)
