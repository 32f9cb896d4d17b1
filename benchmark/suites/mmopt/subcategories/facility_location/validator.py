"""Scoring-time check of a returned facility-location plan."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation import decisions
from benchmark.suites.mmopt.generation.spatial import resolve_name
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.facility_location.generator import (
    covers,
    is_capacitated,
    total_cost,
)

TOLERANCE = 1e-3  # the official release's absolute tolerance for this subcategory
OPEN_KEYS = ("open_facilities", "opened_facilities", "open", "facilities_open", "selected_facilities")
ASSIGNMENT_KEYS = ("assignment", "assignments", "customer_assignment", "assign")


def reported(solution: Mapping[str, Any]) -> float | None:
    value = solution.get("objective_value", solution.get("objective"))
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Every customer assigned exactly once to a facility that is open, covers it (distance at most
    the coverage radius) and, when capacitated, keeps its total assigned demand within capacity;
    the objective (opening costs of the open facilities + demand × distance, rounded to four
    decimals) is recomputed from the decisions and a reported value must agree within 1e-3."""
    facilities = {f["name"]: f for f in instance["facilities"]}
    customers = {c["name"]: c for c in instance["customers"]}
    problems: list[str] = []
    chosen = decisions.chosen(decisions.first_present(solution, OPEN_KEYS))
    pairs = decisions.pairs(decisions.first_present(solution, ASSIGNMENT_KEYS))
    if chosen is None:
        problems.append("no open_facilities list returned")
    if pairs is None:
        problems.append("no assignment dict returned")
    if chosen is None or pairs is None:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))

    open_names: list[str] = []
    for raw in chosen:
        name = resolve_name(raw, list(facilities))
        if name is None:
            problems.append(f"open_facilities names unknown facility {raw!r}")
        elif name not in open_names:
            open_names.append(name)
    assignment: dict[str, str] = {}
    for raw_customer, raw_facility in pairs:
        customer = resolve_name(raw_customer, list(customers))
        facility = resolve_name(raw_facility, list(facilities))
        if customer is None or facility is None:
            problems.append(f"assignment {raw_customer!r} -> {raw_facility!r} names no customer/facility")
            continue
        if customer in assignment and assignment[customer] != facility:
            problems.append(f"customer {customer} assigned twice")
        assignment[customer] = facility
    for name, customer in customers.items():
        facility = assignment.get(name)
        if facility is None:
            problems.append(f"customer {name} is not assigned")
            continue
        if facility not in open_names:
            problems.append(f"customer {name} assigned to closed facility {facility}")
        if not covers(facilities[facility], customer):
            problems.append(f"customer {name} lies outside the coverage radius of {facility}")
    if is_capacitated(instance):
        loads = dict.fromkeys(facilities, 0)
        for name, facility in assignment.items():
            loads[facility] += customers[name]["demand"]
        for name, load in loads.items():
            if load > facilities[name]["capacity"]:
                problems.append(
                    f"facility {name}: assigned demand {load} exceeds capacity {facilities[name]['capacity']}"
                )
    if set(assignment) != set(customers):
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    objective = total_cost(instance, open_names, assignment)
    claimed = reported(solution)
    if claimed is not None and abs(claimed - objective) > TOLERANCE:
        problems.append(f"reported objective {claimed:g} != recomputed cost {objective:g}")
    return SolutionCheck(feasible=not problems, objective=objective, problems=tuple(problems))
