"""Heterogeneous-fleet VRP: one depot, customers with demands, and vehicle types that differ in
capacity, fixed activation cost, cost per unit of distance and the number available.

A vehicle that drives a route pays its type's fixed cost once plus its multiplier times the route's
base distance; the base distance of a leg is the Euclidean distance rounded to the stated number of
decimals (fixed costs have one decimal and multipliers two, so every total is exact at the rule's
decimals plus two). Regimes: easy has six or seven customers and two types (small cheap vans, one
large truck with a low multiplier); medium twelve or thirteen customers and three types (five
vehicles, capacities of a few customers each); hard ten or eleven clustered customers and three
types, with demand at up to 90 % of the fleet's capacity.
At medium and hard the optimum must use at least two types, and the greedy that fills the largest
vehicles first with nearest-feasible customers must be suboptimal or run out of vehicles.

The reference is HiGHS on (type, customer subset) columns priced by Held–Karp; the cross-check a
solver-free partition dynamic program per type combined over subsets (:mod:`.solvers`), at
medium (``feasible_routes``) the vectorised state DP over (subset, vehicles used per type) and a
``solver_ref.py`` whose Held–Karp covers only the subsets that fit the largest vehicle.
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
from benchmark.suites.mmopt.subcategories.heterogeneous_fleet_vrp import solvers

VARIANT = "heterogeneous_fleet_vrp"
UNIFORM = "uniform_layout"
CLUSTERED = "clustered_layout"


@dataclass(frozen=True)
class TypeProfile:
    """A vehicle type's shape: capacity relative to the smallest, fixed cost (one decimal) and
    multiplier (two decimals) ranges."""

    name: str
    capacity_ratio: float
    fixed: tuple[float, float]
    multiplier: tuple[float, float]


VAN = TypeProfile("VAN", 1.0, (0.8, 2.0), (1.05, 1.25))
MID = TypeProfile("MID", 1.5, (2.2, 3.8), (0.94, 1.04))
TRK = TypeProfile("TRK", 2.2, (4.0, 7.0), (0.8, 0.92))


@dataclass(frozen=True)
class Regime:
    customers: tuple[int, int]
    grid: int
    layouts: tuple[str, ...]
    fleets: tuple[tuple[tuple[TypeProfile, int], ...], ...]  # (type, available) choices
    demand: tuple[int, int]
    tightness: tuple[float, float]  # total demand / aggregate capacity
    rules: tuple[str, ...]
    demanding: bool  # at least two types in the optimum, greedy defeated
    feasible_routes: bool = False  # cross-check by solvers.state_dp, solver_ref over feasible subsets


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        (6, 7), 10, (UNIFORM,), (((VAN, 2), (TRK, 1)),), (1, 5), (0.7, 0.9), ("euclidean_rounded_2dp",), False
    ),
    "medium": Regime(
        (12, 13),
        16,
        (UNIFORM, CLUSTERED),
        (((VAN, 3), (MID, 1), (TRK, 1)), ((VAN, 2), (MID, 2), (TRK, 1))),
        (1, 5),
        (0.75, 0.9),
        ("euclidean_rounded_1dp", "euclidean_rounded_2dp"),
        True,
        feasible_routes=True,
    ),
    "hard": Regime(
        (10, 11),
        16,
        (CLUSTERED,),
        (((VAN, 2), (MID, 2), (TRK, 1)), ((VAN, 3), (MID, 1), (TRK, 1))),
        (2, 8),
        (0.75, 0.9),
        ("euclidean_rounded_2dp", "euclidean_rounded_1dp"),
        True,
    ),
}


CLUSTERING = Clustering(centres=(2, 3), spacing=2.4, reach=4.5)


def grid_size(instance: Mapping[str, Any]) -> int:
    """The side of the square map the instance is drawn on: its difficulty's regime grid (kept out
    of ``instance_data.json``, whose official schema has no such key)."""
    return REGIMES[str(instance["difficulty"])].grid


def sample_structure(rng: random.Random, difficulty: str) -> Layout:
    regime = REGIMES[difficulty]
    count = rng.randint(*regime.customers)
    kind = rng.choice(regime.layouts)
    return sample_layout(rng, kind, count, regime.grid, None if kind == UNIFORM else CLUSTERING)


def official_rule_name(rule: str) -> str:
    """The release's name of a rounded rule (``rounded_euclidean_2dp``)."""
    return f"rounded_euclidean_{routing.rule_decimals(rule)}dp"


def base_rule(instance: Mapping[str, Any]) -> str:
    """The routing rule of the instance's ``base_distance_type`` (``rounded_euclidean_<d>dp``)."""
    name = str(instance["base_distance_type"])
    decimals = name.removeprefix("rounded_euclidean_").removesuffix("dp")
    return f"euclidean_rounded_{decimals}dp"


def instantiate(rng: random.Random, layout: Layout, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    rule = rng.choice(regime.rules)
    decimals = routing.rule_decimals(rule)
    customers = customer_names(len(layout.customers))
    nodes = [DEPOT, *customers]
    coordinates = coordinates_of(layout, customers)
    demands = {name: rng.randint(*regime.demand) for name in customers}
    total = sum(demands.values())
    fleet = rng.choice(regime.fleets)
    weight = sum(profile.capacity_ratio * count for profile, count in fleet)
    unit = total / (rng.uniform(*regime.tightness) * weight)
    type_parameters = {
        profile.name: {
            "available_count": count,
            "capacity": max(1, round(profile.capacity_ratio * unit)),
            "fixed_activation_cost": round(rng.uniform(*profile.fixed), 1),
            "distance_multiplier": round(rng.uniform(*profile.multiplier), 2),
        }
        for profile, count in fleet
    }
    vehicles = {f"{profile.name}{k}": profile.name for profile, count in fleet for k in range(1, count + 1)}
    base = routing.distance_table(coordinates, nodes, rule)
    return {
        "variant": VARIANT,
        "scenario": VARIANT,
        "difficulty": difficulty,
        "sets": {
            "nodes": nodes,
            "customers": customers,
            "vehicle_types": list(type_parameters),
            "vehicles": list(vehicles),
            "directed_arcs": [[a, b] for a in nodes for b in nodes if a != b],
        },
        "depot": DEPOT,
        "coordinates": coordinates,
        "demands": {DEPOT: 0} | demands,
        "base_distance_type": official_rule_name(rule),
        "base_distance_rule": {
            "type": official_rule_name(rule),
            "description": "Base distance between two nodes equals the Euclidean distance between their "
            f"plotted coordinates, rounded to {decimals} decimals.",
        },
        "base_distance_matrix": base,
        "vehicle_type_parameters": type_parameters,
        "vehicle_parameters": {
            vehicle: {"type_id": name}
            | {k: v for k, v in type_parameters[name].items() if k != "available_count"}
            for vehicle, name in vehicles.items()
        },
        "type_to_vehicles": {name: [v for v, t in vehicles.items() if t == name] for name in type_parameters},
        "travel_cost_matrix_by_vehicle_type": {
            name: {
                a: {b: round(values["distance_multiplier"] * base[a][b], (decimals or 0) + 2) for b in nodes}
                for a in nodes
            }
            for name, values in type_parameters.items()
        },
        "meta_parameters": {
            "number_customers": len(customers),
            "number_vehicle_types": len(type_parameters),
            "number_available_vehicles": len(vehicles),
            "total_demand": total,
            "aggregate_capacity": sum(v["capacity"] * v["available_count"] for v in type_parameters.values()),
            "layout_type": layout.kind,
            "fixed_cost_flag": True,
            "distance_multiplier_flag": True,
            "base_distance_type": official_rule_name(rule),
        },
    }


def decimals_of(instance: Mapping[str, Any]) -> int:
    decimals = routing.rule_decimals(base_rule(instance))
    assert decimals is not None
    return decimals


def vehicle_types(instance: Mapping[str, Any]) -> list[solvers.VehicleType]:
    """The types in integer units of ``10^-(d + 2)``: fixed costs scaled, multipliers in hundredths."""
    scale = 10 ** (decimals_of(instance) + 2)
    return [
        solvers.VehicleType(
            name=name,
            available=int(values["available_count"]),
            capacity=int(values["capacity"]),
            fixed=round(values["fixed_activation_cost"] * scale),
            multiplier=round(values["distance_multiplier"] * 100),
        )
        for name, values in instance["vehicle_type_parameters"].items()
    ]


def units(instance: Mapping[str, Any]) -> np.ndarray:
    return routing.cost_matrix(instance["coordinates"], nodes(instance), base_rule(instance))


def as_cost(instance: Mapping[str, Any], total_units: float) -> float:
    decimals = decimals_of(instance) + 2
    scale: int = 10**decimals
    return round(total_units / scale, decimals) + 0.0


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    types = vehicle_types(instance)
    demands = demand_vector(instance)
    problems = layout_problems(instance, regime.customers)
    if max(demands) > max(t.capacity for t in types):
        problems.append("structure: a customer's demand exceeds every capacity")
    if sum(demands) <= max(t.capacity for t in types):
        problems.append("structure: one vehicle could serve everyone")
    if sum(demands) > sum(t.capacity * t.available for t in types):
        problems.append("structure: total demand exceeds the fleet's capacity")
    if len({t.capacity for t in types}) < len(types):
        problems.append("structure: two vehicle types have the same capacity")
    if (
        routing.distance_table(instance["coordinates"], nodes(instance), base_rule(instance))
        != instance["base_distance_matrix"]
    ):
        problems.append("structure: base distance matrix disagrees with the rule")
    return problems


def solution_of(
    instance: Mapping[str, Any], total: int, routes: Sequence[solvers.FleetRoute]
) -> dict[str, Any]:
    """The official ``solution_ref.json`` shape."""
    names = nodes(instance)
    depot = instance["depot"]
    types = vehicle_types(instance)
    parameters = instance["vehicle_type_parameters"]
    decimals = decimals_of(instance)
    used: dict[str, int] = {}
    ids, kinds, named = [], [], []
    for route in routes:
        kind = types[route.type_index].name
        used[kind] = used.get(kind, 0) + 1
        ids.append(f"{kind}{used[kind]}")
        kinds.append(kind)
        named.append([depot, *(names[i] for i in route.customers), depot])
    base = [round(r.distance / 10**decimals, decimals) for r in routes]
    variable = [as_cost(instance, types[r.type_index].multiplier * r.distance) for r in routes]
    return {
        "status": "optimal",
        "objective_value": as_cost(instance, total),
        "routes": named,
        "route_vehicle_ids": ids,
        "route_vehicle_types": kinds,
        "route_loads": [sum(instance["demands"][c] for c in route[1:-1]) for route in named],
        "route_capacities": [parameters[k]["capacity"] for k in kinds],
        "route_base_distances": base,
        "route_variable_costs": variable,
        "route_total_costs": [as_cost(instance, r.cost) for r in routes],
        "activated_vehicles": ids,
        "unused_vehicles": [v for v in instance["sets"]["vehicles"] if v not in ids],
        "active_arcs": [
            [route[k], route[k + 1], vehicle]
            for route, vehicle in zip(named, ids, strict=True)
            for k in range(len(route) - 1)
        ],
        "num_routes_used": len(named),
    }


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    try:
        found = solvers.column_milp(units(instance), demand_vector(instance), vehicle_types(instance))
    except RuntimeError as exc:
        raise Rejected("reference: solver did not certify optimality", str(exc)) from None
    if found is None:
        raise Rejected("reference: the fleet cannot serve every customer")
    total, routes = found
    return ReferenceSolution(
        solution=solution_of(instance, total, routes),
        method="scipy.optimize.milp (HiGHS) over (vehicle type, customer subset) routes, each priced by "
        "Held-Karp, once per fleet mix within the availability",
    )


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    if REGIMES[str(instance["difficulty"])].feasible_routes:
        found = solvers.state_dp(units(instance), demand_vector(instance), vehicle_types(instance))
        if found is None:
            raise Rejected("cross-check: the state DP finds no feasible fleet plan")
        return (
            "dynamic programming over (served customer subset, vehicles used per type) states, "
            "peeling off the capacity-feasible route of the lowest unserved customer",
            as_cost(instance, found),
        )
    total = solvers.partition_dp(units(instance), demand_vector(instance), vehicle_types(instance))
    if total is None:
        raise Rejected("cross-check: the partition DP finds no feasible fleet plan")
    return "dynamic programming over partitions per vehicle type, combined over customer subsets", as_cost(
        instance, total
    )


def greedy_cost(instance: Mapping[str, Any]) -> float | None:
    """The greedy that takes vehicles largest capacity first and drives each to the nearest unserved
    customer that still fits; ``None`` when the fleet runs out with customers left."""
    cost = units(instance)
    demands = demand_vector(instance)
    fleet = sorted(
        (t for t in vehicle_types(instance) for _ in range(t.available)), key=lambda t: (-t.capacity, t.name)
    )
    free = set(range(1, cost.shape[0]))
    total = 0
    for kind in fleet:
        if not free:
            break
        route, load, here = [], 0, 0
        while True:
            fits = [j for j in free if load + demands[j] <= kind.capacity]
            if not fits:
                break
            here = min(fits, key=lambda j: (cost[here, j], j))
            route.append(here)
            load += demands[here]
            free.remove(here)
        if route:
            total += kind.fixed + kind.multiplier * int(routing.tour_units(cost, [0, *route]))
    return None if free else as_cost(instance, total)


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    solution = reference.solution
    if len(solution["routes"]) < 2:
        return ["nontrivial: one route serves everyone"]
    if REGIMES[difficulty].demanding:
        if len(set(solution["route_vehicle_types"])) < 2:
            return ["nontrivial: the optimum uses a single vehicle type"]
        greedy = greedy_cost(instance)
        if greedy is not None and math.isclose(greedy, float(solution["objective_value"]), abs_tol=1e-9):
            return ["nontrivial: the largest-first nearest-customer greedy is optimal"]
    return []
