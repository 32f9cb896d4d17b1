"""The reported objective as the release's scorer reads it, on the subcategories its validators
score (those without ``subcategories/<name>/official.py``), for ``--scoring=official``.

The release reads it in two steps. Its ``normalize_solution_aliases`` first gives an absent
``objective_value`` the value of the first *present* key of :data:`ALIASES` (an unparsable value
included). Then the subcategory's validator reads its own keys (:func:`keys`): the first holding a
number, an unparsable value passed over; multi-dimensional knapsack and set packing read the first
key present only (:data:`FIRST_PRESENT`); graph colouring with a colour objective needs every key
present to be a number equal to the colours used (:data:`EVERY_KEY_AGREES`). With no reported
objective the validator's recomputed one stands for the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.official_answers import number

#: ``normalize_solution_aliases``: where an absent ``objective_value`` is taken from, in order.
ALIASES: tuple[str, ...] = ("objective", "objective_exact", "total_cost", "cost", "value", "makespan")
_COMMON = ("objective_exact", "objective", "objective_value")
#: Per subcategory, the keys its validator reads the reported objective from, in its order.
KEYS: dict[str, tuple[str, ...]] = {
    "lot_sizing_production_planning": (*_COMMON, "total_cost"),
    "workforce_planning_shift_scheduling": (*_COMMON, "total_cost", "assignment_cost"),
    "energy_dispatch_unit_commitment": (*_COMMON, "total_cost"),
    "inventory_routing_problem": (*_COMMON, "total_cost"),
    "job_shop_scheduling": (*_COMMON, "makespan", "total_makespan"),
    "rcpsp": (*_COMMON, "makespan", "total_makespan"),
    "flexible_hybrid_flow_shop_scheduling": (*_COMMON, "optimal_makespan", "makespan", "total_makespan"),
    "travel_salesman_problem": (*_COMMON, "total_cost", "total_distance"),
    "tsp_with_time_windows": (*_COMMON, "total_cost", "total_distance", "total_travel_time"),
    "vehicle_routing_problem": (*_COMMON, "total_cost", "total_distance"),
    "heterogeneous_fleet_vrp": (*_COMMON, "total_cost", "objective_from_routes"),
    "multi_dim_knapsack": (*_COMMON, "total_value"),
    "set_packing": ("total_value", "objective_value"),
    "graph_coloring": ("objective_exact", "objective_value", "objective", "total_cost"),
    # Subcategories with official rules, when one of our own (project-schema) packages is scored
    # by its validator:
    "bipartite_assignment": (*_COMMON, "total_cost", "total_value"),
    "facility_location": (*_COMMON, "total_cost", "total_value"),
    "generalized_assignment_problem": (*_COMMON, "total_cost", "total_value"),
    "set_covering_partitioning": (*_COMMON, "total_cost", "total_value"),
    "p_median_center": (*_COMMON, "total_weighted_distance", "total_distance", "max_assignment_distance"),
    "capacitated_network_design": (*_COMMON, "total_cost"),
    "minimum_cost_flow": (*_COMMON, "total_cost"),
    "time_expanded_multi_period_network_flow": (*_COMMON, "total_cost"),
    "resource_constrained_shortest_path": (*_COMMON, "path_cost"),
    "maximum_flow": (
        "max_flow",
        "maximum_flow",
        "maximum_flow_value",
        "max_flow_value",
        "flow_value",
        "objective_exact",
        "objective_value",
        "minimum_cut_value",
        "cut_value",
    ),
}
#: Parallel-machine scheduling reads by the instance's objective type.
PARALLEL_MACHINE_KEYS: dict[str, tuple[str, ...]] = {
    "makespan": (*_COMMON, "makespan", "total_makespan"),
    "total_completion": ("total_completion", "total_completion_time", "sum_completion_times", *_COMMON),
    "weighted_completion": (
        "weighted_completion",
        "total_weighted_completion",
        "weighted_completion_time",
        *_COMMON,
    ),
}
FIRST_PRESENT = frozenset({"multi_dim_knapsack", "set_packing"})
EVERY_KEY_AGREES = frozenset({"graph_coloring"})
_COLOUR_OBJECTIVES = {"min_colors", "weighted_min_colors"}


def keys(subcategory: str, instance: Mapping[str, Any]) -> tuple[str, ...]:
    """The keys the release's validator of ``subcategory`` reads the reported objective from."""
    name = subcategory.replace("-", "_")
    if name == "parallel_machine_scheduling":
        meta = instance.get("meta_parameters")
        kind = instance.get(
            "objective_type", meta.get("objective_type") if isinstance(meta, Mapping) else None
        )
        return PARALLEL_MACHINE_KEYS.get(str(kind or "makespan"), ())
    return KEYS.get(name, (*_COMMON, "total_cost"))  # the keys most of its validators read


def aliased(result: Mapping[str, Any]) -> dict[str, Any]:
    """``result`` with ``objective_value`` filled in as the release's alias step fills it."""
    found = dict(result)
    if "objective_value" not in found:
        alias = next((key for key in ALIASES if key in found), None)
        if alias is not None:
            found["objective_value"] = found[alias]
    return found


def reported(
    result: Mapping[str, Any], subcategory: str, instance: Mapping[str, Any]
) -> tuple[str | None, float | None, str | None]:
    """(key read, reported objective, problem). (None, None, None): nothing reported, so the
    recomputed objective stands; a problem makes the answer wrong (graph colouring only)."""
    name = subcategory.replace("-", "_")
    answer = aliased(result)
    wanted = keys(name, instance)
    if name in EVERY_KEY_AGREES:
        variant = {instance.get("task_variant"), instance.get("objective_type")}
        if not variant & _COLOUR_OBJECTIVES:
            return None, None, None
        present = [(key, answer[key]) for key in wanted if answer.get(key) is not None]
        values = {number(value) for _, value in present}
        if None in values or len(values) > 1:
            shown = ", ".join(f"{key}={value!r}" for key, value in present)
            return None, None, f"every objective key must be the same number here ({shown})"
        return (present[0][0], values.pop(), None) if present else (None, None, None)
    for key in wanted:
        if key in answer:
            value = number(answer[key])
            if value is not None or name in FIRST_PRESENT:
                return (key, value, None) if value is not None else (None, None, None)
    return None, None, None
