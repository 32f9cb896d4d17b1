"""Scoring-time check of a heterogeneous-fleet plan (official keys ``routes`` with
``route_vehicle_ids`` or ``route_vehicle_types``, or a dict vehicle -> route)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation import decisions, routing
from benchmark.suites.mmopt.generation.flows import reported_objective
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.vehicle_routing_problem.validator import coverage_problems
from benchmark.suites.mmopt.tolerances import objective_tolerance

TOLERANCE = objective_tolerance("heterogeneous_fleet_vrp")  # the official release's floor
COST_DECIMALS = 4  # fixed costs have one decimal, multipliers and base legs two
ROUTE_KEYS = ("routes", "vehicle_routes", "tours")
VEHICLE_KEYS = ("route_vehicle_ids", "route_vehicles", "vehicles_used", "route_vehicle_types")


def _label(raw: Any, names: list[str]) -> str | None:
    if isinstance(raw, bool) or not isinstance(raw, str):
        return None
    folded = {n.lower(): n for n in names}
    return folded.get(raw.strip().lower())


def read_plan(
    instance: Mapping[str, Any], solution: Mapping[str, Any]
) -> tuple[list[tuple[str | None, str, list[str]]], list[str]]:
    """``(vehicle id or None, type, customers)`` per non-empty route, and the problems found; with no
    route list, the routes and their vehicles of the ``active_arcs`` records (the release's fallback)."""
    names = list(instance["sets"]["nodes"])
    depot = instance["depot"]
    raw = decisions.first_present(solution, ROUTE_KEYS)
    read: list[str] = []
    if raw is None and "active_arcs" in solution:
        by_vehicle, read = routing.vehicle_arc_routes(solution["active_arcs"], names, depot)
        raw = dict(by_vehicle)
    if raw is None:
        return [], ["no routes returned"]
    vehicles = list(instance["vehicle_parameters"])
    types = list(instance["vehicle_type_parameters"])
    if isinstance(raw, Mapping):
        labels, items = list(raw.keys()), list(raw.values())
    elif isinstance(raw, list | tuple):
        labels, items = decisions.first_present(solution, VEHICLE_KEYS), list(raw)
        if not isinstance(labels, list | tuple) or len(labels) != len(items):
            return [], ["routes do not say which vehicle drives each (give route_vehicle_ids, one per route)"]
    else:
        return [], ["routes is neither a list of routes nor a dict vehicle -> route"]
    plan, problems = [], read
    for number, (label, item) in enumerate(zip(labels, items, strict=True), start=1):
        sequence, found = routing.depot_route(item, names, depot, number)
        problems += found
        if sequence is None:
            continue
        if not sequence:
            continue
        vehicle = _label(label, vehicles)
        kind = instance["vehicle_parameters"][vehicle]["type_id"] if vehicle else _label(label, types)
        if kind is None:
            problems.append(f"route {number}: unknown vehicle {label!r}")
            continue
        plan.append((vehicle, kind, sequence))
    return plan, problems


def fleet_problems(instance: Mapping[str, Any], plan: list[tuple[str | None, str, list[str]]]) -> list[str]:
    """Each vehicle drives at most one route, each type at most its available count, each route
    within its vehicle's capacity."""
    parameters = instance["vehicle_type_parameters"]
    problems = []
    for vehicle, count in Counter(v for v, _, _ in plan if v is not None).items():
        if count > 1:
            problems.append(f"vehicle {vehicle} drives {count} routes")
    for kind, count in Counter(k for _, k, _ in plan).items():
        available = int(parameters[kind]["available_count"])
        if count > available:
            problems.append(
                f"more vehicles of type {kind} than available: {count} routes, {available} available"
            )
    for number, (_, kind, route) in enumerate(plan, start=1):
        load = sum(int(instance["demands"][c]) for c in route)
        capacity = int(parameters[kind]["capacity"])
        if load > capacity:
            problems.append(f"route {number} ({kind}): load {load} exceeds the capacity {capacity}")
    return problems


def plan_cost(instance: Mapping[str, Any], plan: list[tuple[str | None, str, list[str]]]) -> float:
    """Σ over the routes of the type's fixed cost plus its multiplier times the base distance."""
    matrix = instance["base_distance_matrix"]
    depot = instance["depot"]
    total = 0.0
    for _, kind, route in plan:
        stops = [depot, *route, depot]
        base = sum(float(matrix[stops[k]][stops[k + 1]]) for k in range(len(stops) - 1))
        values = instance["vehicle_type_parameters"][kind]
        total += float(values["fixed_activation_cost"]) + float(values["distance_multiplier"]) * base
    return round(total, COST_DECIMALS) + 0.0


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Depot-to-depot routes serving every customer exactly once, each driven by a named vehicle
    (or type) of the fleet, within that type's capacity and availability; the cost recomputed from
    the base distances, fixed costs and multipliers, and a reported value must agree within 1e-3."""
    plan, problems = read_plan(instance, solution)
    if not problems:
        problems = coverage_problems(instance, [route for _, _, route in plan]) + fleet_problems(
            instance, plan
        )
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    objective = plan_cost(instance, plan)
    claimed = reported_objective(solution)
    if claimed is not None and abs(claimed - objective) > TOLERANCE:
        problems.append(f"reported objective {claimed:g} != recomputed fleet cost {objective:g}")
    return SolutionCheck(feasible=not problems, objective=objective, problems=tuple(problems))
