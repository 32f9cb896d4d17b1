"""Capacitated vehicle routing instances: one depot, customers with demands, identical vehicles.

Regimes tighten with difficulty: easy instances have six or seven customers and two vehicles with
slack capacity; medium ones eight to ten customers, three vehicles and total demand at 75–90 % of
the fleet's capacity; hard ones fifteen to eighteen clustered customers on a 20 × 20 map (the
release's median is 17.5), four vehicles at 80–93 %, with heavier demands, so packing the customers
into routes interacts with ordering them. At medium and hard the nearest-feasible-customer greedy
must be suboptimal (or need too many vehicles).

Easy and medium: the reference enumerates every capacity-feasible customer subset as a candidate
route priced by its optimal closed path (Held–Karp over all ``2^n`` subsets) and lets HiGHS choose
an exact cover with at most the fleet size; the cross-check is a solver-free dynamic program over
partitions of the customers. Hard (``Regime.columns``), where ``2^n`` tables and ``3^n`` partitions
no longer fit the budget: Held–Karp over the feasible subsets only, HiGHS on the columns with LP
reduced-cost fixing, and a CP-SAT arc model as the cross-check (:mod:`.solvers`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmark.suites.mmopt.generation import routing
from benchmark.suites.mmopt.generation.depot_layouts import (
    DEPOT,
    Clustering,
    Layout,
    coordinates_of,
    customer_names,
    demand_vector,
    layout_problems,
    nodes,
    sample_layout,
)
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.subcategories.vehicle_routing_problem import solvers

VARIANT = "vehicle_routing_problem"
UNIFORM = "uniform_random_euclidean"
CLUSTERED = "clustered_euclidean"


@dataclass(frozen=True)
class Regime:
    customers: tuple[int, int]
    vehicles: tuple[int, int]
    grid: int
    layouts: tuple[str, ...]
    demand: tuple[int, int]
    tightness: tuple[float, float]  # total demand / (vehicles × capacity)
    rules: tuple[str, ...]
    greedy_must_fail: bool
    clustering: Clustering | None = None  # None: CLUSTERING
    columns: bool = False  # certify with solvers.column_milp + solvers.circuit_cpsat (no 2^n tables)


REGIMES: dict[str, Regime] = {
    "easy": Regime((6, 7), (2, 2), 10, (UNIFORM,), (1, 5), (0.6, 0.85), ("euclidean_rounded_2dp",), False),
    "medium": Regime(
        (8, 10),
        (3, 3),
        14,
        (UNIFORM, CLUSTERED),
        (1, 6),
        (0.75, 0.9),
        ("euclidean_rounded_1dp", "euclidean_rounded_0dp"),
        True,
    ),
    "hard": Regime(
        (15, 18),
        (4, 4),
        20,
        (CLUSTERED,),
        (2, 9),
        (0.8, 0.93),
        (routing.EXACT, "euclidean_rounded_2dp"),
        True,
        clustering=Clustering(centres=(3, 4), spacing=2.8, reach=5.0),
        columns=True,
    ),
}


CLUSTERING = Clustering(centres=(3, 4), spacing=2.6, reach=6)


def grid_size(instance: Mapping[str, Any]) -> int:
    """The side of the square map the instance is drawn on: its difficulty's regime grid (kept out
    of ``instance_data.json``, whose official schema has no such key)."""
    return REGIMES[str(instance["difficulty"])].grid


def sample_structure(rng: random.Random, difficulty: str) -> Layout:
    regime = REGIMES[difficulty]
    count = rng.randint(*regime.customers)
    kind = rng.choice(regime.layouts)
    clustering = regime.clustering or CLUSTERING
    return sample_layout(rng, kind, count, regime.grid, None if kind == UNIFORM else clustering)


def instantiate(rng: random.Random, layout: Layout, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    rule = rng.choice(regime.rules)
    customers = customer_names(len(layout.customers))
    vehicles = rng.randint(*regime.vehicles)
    demands = {name: rng.randint(*regime.demand) for name in customers}
    total = sum(demands.values())
    capacity = max(max(demands.values()), math.ceil(total / (vehicles * rng.uniform(*regime.tightness))))
    nodes = [DEPOT, *customers]
    coordinates = coordinates_of(layout, customers)
    return {
        "variant": VARIANT,
        "scenario": VARIANT,
        "difficulty": difficulty,
        "sets": {
            "nodes": nodes,
            "customers": customers,
            "vehicles": [f"V{k}" for k in range(1, vehicles + 1)],
            "directed_arcs": [[a, b] for a in nodes for b in nodes if a != b],
        },
        "depot": DEPOT,
        "coordinates": coordinates,
        "demands": {DEPOT: 0} | demands,
        "distance_matrix": routing.distance_table(coordinates, nodes, rule),
        "vehicle_capacity": capacity,
        "meta_parameters": {
            "number_customers": len(customers),
            "number_vehicles": vehicles,
            "total_demand": total,
            "vehicle_capacity": capacity,
            "layout_type": layout.kind,
            "cost_matrix_type": rule,
        },
    }


def cost_rule(instance: Mapping[str, Any]) -> str:
    return str(instance["meta_parameters"]["cost_matrix_type"])


def units(instance: Mapping[str, Any]) -> np.ndarray:
    return routing.cost_matrix(instance["coordinates"], nodes(instance), cost_rule(instance))


def fleet(instance: Mapping[str, Any]) -> tuple[int, int]:
    """(number of vehicles, common capacity)."""
    return len(instance["sets"]["vehicles"]), int(instance["vehicle_capacity"])


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    vehicles, capacity = fleet(instance)
    demands = demand_vector(instance)
    problems = layout_problems(instance, regime.customers)
    if max(demands) > capacity:
        problems.append("structure: a customer's demand exceeds the vehicle capacity")
    if sum(demands) <= capacity:
        problems.append("structure: one vehicle could serve everyone")
    tightness = sum(demands) / (vehicles * capacity)
    if not regime.tightness[0] - 0.1 <= tightness <= regime.tightness[1]:
        problems.append("structure: demand/capacity tightness outside the regime")
    if (
        routing.distance_table(instance["coordinates"], nodes(instance), cost_rule(instance))
        != instance["distance_matrix"]
    ):
        problems.append("structure: distance matrix disagrees with the cost rule")
    return problems


def solution_of(
    instance: Mapping[str, Any], routes: Sequence[Sequence[int]], total_units: float
) -> dict[str, Any]:
    """The official ``solution_ref.json`` shape for routes given as customer node indices."""
    names = nodes(instance)
    rule = cost_rule(instance)
    cost = units(instance)
    depot = instance["depot"]
    vehicles = instance["sets"]["vehicles"]
    named = [[depot, *(names[i] for i in route), depot] for route in routes]
    return {
        "status": "optimal",
        "objective_value": routing.from_units(total_units, rule),
        "routes": named,
        "route_vehicle_ids": vehicles[: len(named)],
        "route_loads": [sum(instance["demands"][c] for c in route[1:-1]) for route in named],
        "route_costs": [routing.from_units(routing.tour_units(cost, [0, *route]), rule) for route in routes],
        "num_routes_used": len(named),
        "active_arcs": [
            [route[k], route[k + 1], vehicle]
            for route, vehicle in zip(named, vehicles, strict=False)
            for k in range(len(route) - 1)
        ],
    }


def uses_columns(instance: Mapping[str, Any]) -> bool:
    return REGIMES[str(instance["difficulty"])].columns


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    vehicles, capacity = fleet(instance)
    solve, method = (
        (
            solvers.column_milp,
            "scipy.optimize.milp (HiGHS) set partitioning over every capacity-feasible route, "
            "each priced by Held-Karp over the feasible subsets, with LP reduced-cost fixing",
        )
        if uses_columns(instance)
        else (
            routing.set_partitioning_routes,
            "scipy.optimize.milp (HiGHS) set partitioning over every capacity-feasible route, "
            "each priced by Held-Karp",
        )
    )
    try:
        found = solve(units(instance), demand_vector(instance), capacity, vehicles)
    except RuntimeError as exc:
        raise Rejected("reference: solver did not certify optimality", str(exc)) from None
    if found is None:
        raise Rejected("reference: the fleet cannot serve every customer")
    total, routes = found
    return ReferenceSolution(solution=solution_of(instance, routes, total), method=method)


def _circuit_cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """CP-SAT's arc model, bounded above by the reference's cost: it must find a routing at that
    cost and prove that none is cheaper (a wrong reference is either beaten or unreachable)."""
    vehicles, capacity = fleet(instance)
    cost = units(instance)
    rule = cost_rule(instance)
    exact = rule == routing.EXACT
    reference = float(reference_solve(instance).solution["objective_value"])
    if exact:  # the reported cost is rounded to 4 decimals; a scaled leg is off by half a unit at most
        bound = math.ceil((reference + 1e-4) * solvers.EXACT_SCALE) + cost.shape[0] + vehicles + 1
    else:
        bound = round(reference * 10 ** (routing.rule_decimals(rule) or 0))
    try:
        routes = solvers.circuit_cpsat(
            solvers.integer_costs(cost, exact), demand_vector(instance), capacity, vehicles, bound
        )
    except RuntimeError as exc:
        raise Rejected("cross-check: CP-SAT did not prove optimality in its work limit", str(exc)) from None
    if routes is None:
        raise Rejected("cross-check: CP-SAT finds no routing at the reference's cost")
    return (
        "CP-SAT arc model (multiple circuit through the depot, MTZ loads, at most K routes, one "
        "worker, deterministic work limit)",
        routing.from_units(routing.routes_units(cost, routes), rule),
    )


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    if uses_columns(instance):
        return _circuit_cross_check(instance)
    vehicles, capacity = fleet(instance)
    total = routing.partition_dp_routes(units(instance), demand_vector(instance), capacity, vehicles)
    if total is None:
        raise Rejected("cross-check: partition DP finds no feasible routing")
    return "dynamic programming over partitions of the customers into feasible routes", routing.from_units(
        total, cost_rule(instance)
    )


def greedy_cost(instance: Mapping[str, Any]) -> tuple[float, int]:
    """(cost, routes) of the nearest-feasible-customer greedy."""
    _, capacity = fleet(instance)
    cost = units(instance)
    routes = routing.nearest_feasible_routes(cost, demand_vector(instance), capacity)
    return routing.from_units(routing.routes_units(cost, routes), cost_rule(instance)), len(routes)


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    if len(reference.solution["routes"]) < 2:
        return ["nontrivial: one route serves everyone"]
    if REGIMES[difficulty].greedy_must_fail:
        greedy, count = greedy_cost(instance)
        vehicles, _ = fleet(instance)
        if count <= vehicles and math.isclose(
            greedy, float(reference.solution["objective_value"]), abs_tol=1e-6
        ):
            return ["nontrivial: the nearest-feasible-customer greedy is optimal"]
    return []
