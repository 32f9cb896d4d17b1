"""Scoring-time check of returned vehicle routes (official key ``routes``; the per-vehicle arcs of
``active_arcs`` when no route list is given, as the official scorer reads them)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation import decisions, routing
from benchmark.suites.mmopt.generation.flows import reported_objective
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.tolerances import objective_tolerance

TOLERANCE = objective_tolerance("vehicle_routing_problem")  # the official release's floor
ROUTE_KEYS = ("routes", "vehicle_routes", "tours")


def read_routes(raw: Any, instance: Mapping[str, Any]) -> tuple[list[list[str]], list[str]]:
    """Routes as customer lists (the depot stripped from both ends; empty routes dropped), from a
    list of name lists or a dict vehicle → name list, and the problems found while reading."""
    names = list(instance["sets"]["nodes"])
    depot = instance["depot"]
    items = list(raw.values()) if isinstance(raw, Mapping) else raw
    if not isinstance(items, list | tuple):
        return [], ["routes is neither a list of routes nor a dict vehicle -> route"]
    routes, problems = [], []
    for number, item in enumerate(items, start=1):
        sequence, found = routing.depot_route(item, names, depot, number)
        problems += found
        if sequence is None:
            continue
        if sequence:
            routes.append(sequence)
    return routes, problems


def route_cost_total(instance: Mapping[str, Any], routes: list[list[str]]) -> float:
    matrix = instance["distance_matrix"]
    depot = instance["depot"]
    total = 0.0
    for route in routes:
        stops = [depot, *route, depot]
        total += sum(float(matrix[stops[k]][stops[k + 1]]) for k in range(len(stops) - 1))
    return routing.finish_total(total, str(instance["meta_parameters"]["cost_matrix_type"]))


def capacity_problems(instance: Mapping[str, Any], routes: list[list[str]]) -> list[str]:
    capacity = int(instance["vehicle_capacity"])
    problems = []
    for number, route in enumerate(routes, start=1):
        load = sum(int(instance["demands"][c]) for c in route)
        if load > capacity:
            problems.append(f"route {number}: load {load} exceeds the vehicle capacity {capacity}")
    return problems


def coverage_problems(instance: Mapping[str, Any], routes: list[list[str]]) -> list[str]:
    visits = Counter(c for route in routes for c in route)
    customers = instance["sets"]["customers"]
    problems = [f"customer {c} is served {visits[c]} times" for c in customers if visits[c] > 1]
    return problems + [f"customer {c} is not served" for c in customers if visits[c] == 0]


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Depot-to-depot routes serving every customer exactly once, each within the vehicle capacity,
    no more routes than vehicles; the total cost recomputed from the instance's distance matrix
    under its cost rule, and a reported value must agree within 1e-3."""
    raw = decisions.first_present(solution, ROUTE_KEYS)
    if raw is not None:
        routes, problems = read_routes(raw, instance)
    elif "active_arcs" in solution:  # the release's fallback
        found, problems = routing.vehicle_arc_routes(
            solution["active_arcs"], list(instance["sets"]["nodes"]), instance["depot"]
        )
        routes = [customers for _, customers in found if customers]
    else:
        return SolutionCheck(feasible=False, objective=None, problems=("no routes returned",))
    problems += coverage_problems(instance, routes) + capacity_problems(instance, routes)
    vehicles = len(instance["sets"]["vehicles"])
    if len(routes) > vehicles:
        problems.append(f"{len(routes)} routes used, only {vehicles} vehicles available")
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    objective = route_cost_total(instance, routes)
    claimed = reported_objective(solution)
    if claimed is not None and abs(claimed - objective) > TOLERANCE:
        problems.append(f"reported objective {claimed:g} != recomputed route cost {objective:g}")
    return SolutionCheck(feasible=not problems, objective=objective, problems=tuple(problems))
