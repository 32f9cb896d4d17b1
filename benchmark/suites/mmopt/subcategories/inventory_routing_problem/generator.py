"""Inventory routing (multi-period/system-planning family, prefix ``irp``).

A depot replenishes customers over a few periods with one vehicle per period (the rules in
:mod:`.model`): deliver often and pay travel, or deliver in bulk and pay holding, within each
customer's storage capacity and the vehicle's capacity.

Regimes (App. D.2): easy has four customers over three periods and no dispatch cost, medium five
customers over four periods with a fixed dispatch cost, hard six customers over five periods with a
dispatch cost, a demand peak and a vehicle that binds in several periods. IRP stays small (at most
six customers, so 63 possible routes per period), which keeps the exact solve well under a second.

Rejection rules (App. D): a candidate in which some prefix of periods needs more than the vehicle
can bring in that many trips is infeasible and rejected before solving; on the verified optimum the
vehicle must leave full in some period (a binding capacity period, else the capacity is vacuous),
and the optimum must be strictly cheaper than the just-in-time plan (deliver in each period exactly
what a customer lacks, on the shortest route through those customers).

Reference: HiGHS MILP (SciPy) over routes: one binary per period and customer subset, priced by
the subset's optimal closed tour (Held–Karp over all subsets); cross-check: SCIP (OR-Tools) on the
arc-based formulation with degree constraints and Miller–Tucker–Zemlin subtour elimination, which
shares nothing with the reference but the data.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.linear_solver import pywraplp
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.generation.routing import subset_paths
from benchmark.suites.mmopt.generation.spatial import sample_points
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.model import (
    DEPOT,
    cents,
    customers_periods,
    inventories,
    leg_cents,
    plan_cents,
    report,
    route_cents,
)

SOLVE_LIMIT_S = 60.0
RULE = "euclidean_distance_rounded_to_2_decimals"
GRID = 10


@dataclass(frozen=True)
class Regime:
    customers: int
    periods: int
    demand: tuple[int, int]
    capacity_share: tuple[float, float]  # vehicle capacity / average total demand per period
    dispatch_cost: tuple[int, int]
    peak: bool
    demand_pattern: str
    capacity_regime: str


REGIMES: dict[str, Regime] = {
    "easy": Regime(4, 3, (1, 3), (1.3, 1.6), (0, 0), False, "stable", "moderate"),
    "medium": Regime(5, 4, (1, 4), (1.15, 1.4), (4, 8), False, "varying", "binding"),
    "hard": Regime(6, 4, (1, 4), (1.05, 1.25), (5, 10), True, "peak_period", "tight"),
}


@dataclass(frozen=True)
class Structure:
    customers: tuple[str, ...]
    periods: tuple[str, ...]
    coordinates: dict[str, tuple[int, int]]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    customers = tuple(f"C{i}" for i in range(1, regime.customers + 1))
    depot = (rng.randint(4, 6), rng.randint(4, 6))
    points = sample_points(rng, len(customers), 1, GRID - 1, 2.5, avoid=[depot])
    coordinates = {DEPOT: depot} | dict(zip(customers, points, strict=True))
    return Structure(customers, tuple(f"t{t}" for t in range(1, regime.periods + 1)), coordinates)


def formulation_size(instance: Mapping[str, Any]) -> dict[str, int]:
    customers, periods = customers_periods(instance)
    n, T = len(customers), len(periods)
    routes = (2**n - 1) * T
    return {
        "variables": routes + 2 * n * T,
        "binary_variables": routes,
        "constraints": T * (2 + 2 * n) + n * T,
        "customers": n,
        "periods": T,
    }


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    customers, periods = list(structure.customers), list(structure.periods)
    nodes = [DEPOT, *customers]
    peak = rng.randrange(1, len(periods)) if regime.peak else None
    demands = {
        c: {t: rng.randint(*regime.demand) + (2 if k == peak else 0) for k, t in enumerate(periods)}
        for c in customers
    }
    average = sum(sum(row.values()) for row in demands.values()) / len(periods)
    capacity = max(
        max(max(row.values()) for row in demands.values()) + 1,
        round(rng.uniform(*regime.capacity_share) * average),
    )
    storage = {c: max(demands[c].values()) + rng.randint(1, 3) for c in customers}
    coordinates = {name: list(structure.coordinates[name]) for name in nodes}
    instance: dict[str, Any] = {
        "variant": "inventory_routing_problem",
        "scenario": "inventory_routing_problem",
        "difficulty": difficulty,
        "sets": {"periods": periods, "customers": customers, "nodes": nodes, "vehicles": ["V1"]},
        "coordinates": coordinates,
        "demands": demands,
        "initial_inventory": {c: rng.randint(0, 2) for c in customers},
        "inventory_capacity": storage,
        "holding_cost": {c: rng.randint(1, 3) for c in customers},
        "vehicle_capacity": capacity,
        "fixed_dispatch_cost": rng.randint(*regime.dispatch_cost),
        "travel_cost_rule": RULE,
    }
    instance["distance_matrix"] = {a: {b: leg_cents(instance, a, b) / 100 for b in nodes} for a in nodes}
    instance["meta_parameters"] = {
        "number_periods": len(periods),
        "number_customers": len(customers),
        "number_vehicles": 1,
        "total_demand": sum(sum(row.values()) for row in demands.values()),
        "demand_regime": regime.demand_pattern,
        "vehicle_capacity_regime": regime.capacity_regime,
        "dispatch_cost_flag": regime.dispatch_cost[1] > 0,
        "peak_demand_flag": regime.peak,
        "visual_type": "map_plus_inventory_and_demand_tables",
        "formulation_size": formulation_size(instance)["variables"],
    }
    return instance


def _initial_inventory_fits(instance: Mapping[str, Any]) -> bool:
    return all(
        instance["initial_inventory"][c] <= instance["inventory_capacity"][c]
        for c in instance["sets"]["customers"]
    )


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    customers, periods = customers_periods(instance)
    if not _initial_inventory_fits(instance):
        return ["structure: an initial inventory exceeds its storage"]
    for k in range(1, len(periods) + 1):
        needed = sum(
            max(0.0, sum(instance["demands"][c][t] for t in periods[:k]) - instance["initial_inventory"][c])
            for c in customers
        )
        if needed > k * float(instance["vehicle_capacity"]):
            return ["structure: cumulative demand exceeds what the vehicle can bring"]
    for c in customers:
        if max(instance["demands"][c].values()) > instance["inventory_capacity"][c]:
            return ["structure: a period's demand exceeds the customer's storage"]
    return []


# --------------------------------------------------------------------------------------------------
# reference: HiGHS over routes


def route_table(instance: Mapping[str, Any]) -> tuple[list[int], list[list[str]]]:
    """Per nonempty customer subset (bit i: customer i): its optimal closed tour's cost in cents
    and the customers in visiting order."""
    customers, _ = customers_periods(instance)
    nodes = [DEPOT, *customers]
    cost = np.array([[leg_cents(instance, a, b) for b in nodes] for a in nodes], dtype=np.int64)
    paths = subset_paths(cost)
    totals, lasts = paths.closed()
    costs, orders = [], []
    for mask in range(1, 1 << len(customers)):
        costs.append(round(float(totals[mask])))
        orders.append([nodes[i] for i in paths.order(mask, int(lasts[mask]))])
    return costs, orders


def delivery_bound(instance: Mapping[str, Any], customer: str, k: int, capacity: bool = True) -> float:
    """An upper bound on an optimal delivery to ``customer`` in period index ``k``: its storage
    plus the period's demand, the vehicle capacity, and the demand still to come (goods left over
    at the end only add holding cost, so no optimal plan delivers more)."""
    periods = instance["sets"]["periods"]
    demand = float(instance["demands"][customer][periods[k]])
    remaining = sum(float(instance["demands"][customer][t]) for t in periods[k:])
    bound = min(float(instance["inventory_capacity"][customer]) + demand, remaining)
    return min(bound, float(instance["vehicle_capacity"])) if capacity else bound


def single_vehicle(instance: Mapping[str, Any]) -> None:
    """Our exact methods plan one vehicle; an instance with a fleet (the release's medium and hard
    packages) is refused by name rather than solved as if it had one vehicle."""
    vehicles = instance["sets"].get("vehicles") or ["V1"]
    if len(vehicles) > 1:
        raise Rejected(f"reference: our IRP models plan one vehicle, the instance has {len(vehicles)}")


def _highs(instance: Mapping[str, Any], *, capacity: bool = True) -> tuple[Any, list[list[str]]]:
    single_vehicle(instance)
    customers, periods = customers_periods(instance)
    n, T = len(customers), len(periods)
    costs, orders = route_table(instance)
    R = len(costs)

    def z(r: int, t: int) -> int:  # the columns: route choice, then delivery, then inventory
        return t * R + r

    def q(i: int, t: int) -> int:
        return R * T + i * T + t

    def s(i: int, t: int) -> int:
        return R * T + n * T + i * T + t

    size = R * T + 2 * n * T
    objective = np.zeros(size)
    upper = np.full(size, np.inf)
    rows, lo, hi = [], [], []

    def add(row: dict[int, float], low: float, high: float) -> None:
        rows.append(row)
        lo.append(low)
        hi.append(high)

    dispatch = cents(instance.get("fixed_dispatch_cost", 0))
    Q = float(instance["vehicle_capacity"])
    for t, period in enumerate(periods):
        for r in range(R):
            objective[z(r, t)] = costs[r] + dispatch
            upper[z(r, t)] = 1
        add({z(r, t): 1.0 for r in range(R)}, -np.inf, 1.0)  # one vehicle
        if capacity:
            row = {q(i, t): 1.0 for i in range(n)}
            row |= {z(r, t): -Q for r in range(R)}
            add(row, -np.inf, 0.0)
        for i, customer in enumerate(customers):
            demand = float(instance["demands"][customer][period])
            storage = float(instance["inventory_capacity"][customer])
            objective[s(i, t)] = cents(instance["holding_cost"][customer])
            upper[s(i, t)] = storage
            bound = delivery_bound(instance, customer, t, capacity)
            row = {q(i, t): 1.0}  # deliver only on a route through the customer
            row |= {z(r, t): -bound for r in range(R) if (r + 1) >> i & 1}
            add(row, -np.inf, 0.0)
            row = {q(i, t): 1.0, s(i, t): -1.0}  # s_{t-1} + q_t - s_t = d_t
            if t:
                row[s(i, t - 1)] = 1.0
            start = float(instance["initial_inventory"][customer]) if t == 0 else 0.0
            add(row, demand - start, demand - start)
    matrix = np.zeros((len(rows), size))
    for k, row in enumerate(rows):
        for column, value in row.items():
            matrix[k, column] += value
    integrality = np.zeros(size)
    integrality[: R * T] = 1
    result = milp(
        c=objective,
        constraints=[LinearConstraint(matrix, lb=np.array(lo), ub=np.array(hi))],
        integrality=integrality,
        bounds=Bounds(np.zeros(size), upper),
        options={"time_limit": SOLVE_LIMIT_S, "mip_rel_gap": 0.0},
    )
    routes: list[list[str]] = []
    if result.status == 0:
        for t in range(T):
            chosen = [r for r in range(R) if result.x[z(r, t)] > 0.5]
            routes.append(orders[chosen[0]] if chosen else [])
    return result, routes


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    result, routes = _highs(instance)
    if result.status == 2:
        raise Rejected("structure: no replenishment plan meets every demand")
    if result.status != 0:
        raise Rejected("reference: solver did not certify optimality", str(result.message))
    customers, periods = customers_periods(instance)
    n, T = len(customers), len(periods)
    offset = len(result.x) - 2 * n * T
    deliveries = {
        c: {t: round(float(result.x[offset + i * T + k]), 6) + 0.0 for k, t in enumerate(periods)}
        for i, c in enumerate(customers)
    }
    by_period = dict(zip(periods, routes, strict=True))
    solution = solution_record(instance, by_period, deliveries)
    if abs(solution["objective_value"] - float(result.fun) / 100) > 1e-6:
        raise Rejected("reference: rounded plan does not reproduce the MILP optimum")
    return ReferenceSolution(
        solution=solution, method="scipy.optimize.milp (HiGHS, route formulation, proven optimal)"
    )


def solution_record(
    instance: Mapping[str, Any],
    routes: Mapping[str, list[str]],
    deliveries: Mapping[str, Mapping[str, float]],
) -> dict[str, Any]:
    customers, periods = customers_periods(instance)
    parts = plan_cents(instance, routes, deliveries)
    stock = inventories(instance, deliveries)
    loads = {t: round(sum(float(deliveries[c][t]) for c in customers), 6) + 0.0 for t in periods}
    total = report(sum(parts.values()))
    return {
        "status": "optimal",
        "objective_value": total,
        "dispatch_by_period": {t: int(bool(routes[t])) for t in periods},
        "route_by_period": {t: [DEPOT, *routes[t], DEPOT] if routes[t] else [] for t in periods},
        "visited_customers_by_period": {t: list(routes[t]) for t in periods},
        "deliveries": {c: dict(row) for c, row in deliveries.items()},
        "ending_inventory": {c: {t: round(v, 6) + 0.0 for t, v in row.items()} for c, row in stock.items()},
        "load_by_period": loads,
        "route_cost_by_period": {t: report(route_cents(instance, routes[t])) for t in periods},
        "total_routing_cost": report(parts["routing"]),
        "total_holding_cost": report(parts["holding"]),
        "total_dispatch_cost": report(parts["dispatch"]),
        "capacity_binding_periods": [
            t for t in periods if routes[t] and abs(loads[t] - float(instance["vehicle_capacity"])) < 1e-6
        ],
    }


# --------------------------------------------------------------------------------------------------
# cross-check: SCIP, arc formulation with MTZ


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    single_vehicle(instance)
    customers, periods = customers_periods(instance)
    nodes = [DEPOT, *customers]
    n = len(customers)
    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:
        raise RuntimeError("OR-Tools was built without SCIP")
    solver.SetTimeLimit(int(SOLVE_LIMIT_S * 1000))
    exact = pywraplp.MPSolverParameters()
    exact.SetDoubleParam(pywraplp.MPSolverParameters.RELATIVE_MIP_GAP, 0.0)
    Q = float(instance["vehicle_capacity"])
    objective = solver.Objective()
    previous = {c: float(instance["initial_inventory"][c]) for c in customers}
    for k, period in enumerate(periods):
        x = {(a, b): solver.BoolVar(f"x_{a}_{b}_{period}") for a in nodes for b in nodes if a != b}
        go = solver.BoolVar(f"dispatch_{period}")
        objective.SetCoefficient(go, cents(instance.get("fixed_dispatch_cost", 0)))
        for arc, var in x.items():
            objective.SetCoefficient(var, leg_cents(instance, *arc))
        solver.Add(sum(x[DEPOT, c] for c in customers) == go)
        solver.Add(sum(x[c, DEPOT] for c in customers) == go)
        order = {c: solver.NumVar(1.0, float(n), f"order_{c}_{period}") for c in customers}
        load = []
        for c in customers:
            visit = solver.BoolVar(f"y_{c}_{period}")
            solver.Add(sum(x[c, b] for b in nodes if b != c) == visit)
            solver.Add(sum(x[a, c] for a in nodes if a != c) == visit)
            storage = float(instance["inventory_capacity"][c])
            demand = float(instance["demands"][c][period])
            bound = delivery_bound(instance, c, k)
            amount = solver.NumVar(0.0, bound, f"q_{c}_{period}")
            solver.Add(amount <= bound * visit)
            solver.Add(visit <= go)
            stock = solver.NumVar(0.0, storage, f"s_{c}_{period}")
            solver.Add(stock == previous[c] + amount - demand)
            objective.SetCoefficient(stock, cents(instance["holding_cost"][c]))
            previous[c] = stock
            load.append(amount)
            for b in customers:
                if b != c:  # Miller–Tucker–Zemlin: positions increase along the route
                    solver.Add(order[b] >= order[c] + 1 - n * (1 - x[c, b]))
        solver.Add(sum(load) <= Q * go)
    objective.SetMinimization()
    status = solver.Solve(exact)
    if status != pywraplp.Solver.OPTIMAL:
        raise Rejected("cross-check: SCIP did not certify optimality", str(status))
    method = "OR-Tools pywraplp + SCIP (arc formulation, Miller-Tucker-Zemlin subtour elimination)"
    return method, report(objective.Value())


# --------------------------------------------------------------------------------------------------
# nontriviality


def just_in_time(
    instance: Mapping[str, Any],
) -> tuple[dict[str, list[str]], dict[str, dict[str, float]]] | None:
    """The simple plan: each period, deliver exactly what a customer lacks on the shortest route
    through those customers (None where a period's need exceeds the vehicle)."""
    customers, periods = customers_periods(instance)
    costs, orders = route_table(instance)
    del costs
    stock = {c: float(instance["initial_inventory"][c]) for c in customers}
    deliveries: dict[str, dict[str, float]] = {c: {} for c in customers}
    routes: dict[str, list[str]] = {}
    for period in periods:
        mask = 0
        for i, c in enumerate(customers):
            need = max(0.0, float(instance["demands"][c][period]) - stock[c])
            deliveries[c][period] = need
            stock[c] += need - float(instance["demands"][c][period])
            if need > 0:
                mask |= 1 << i
        if sum(deliveries[c][period] for c in customers) > float(instance["vehicle_capacity"]):
            return None
        routes[period] = orders[mask - 1] if mask else []
    return routes, deliveries


def just_in_time_cost(instance: Mapping[str, Any]) -> float | None:
    plan = just_in_time(instance)
    return None if plan is None else report(sum(plan_cents(instance, *plan).values()))


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    solution = reference.solution
    if not solution["capacity_binding_periods"]:
        return ["nontrivial: the vehicle never leaves full (no binding capacity period)"]
    simple = just_in_time_cost(instance)
    if simple is not None and simple <= float(solution["objective_value"]) + 1e-6:
        return ["nontrivial: the just-in-time plan is optimal"]
    return []
