"""Scoring-time check of a returned inventory-routing plan, at the official 1e-2 tolerance
(DESIGN §4).

Deliveries per customer and period are required, and so are the routes. A fleet of several
vehicles (the release's medium and hard packages) returns them per vehicle and period, as node
sequences (``route_by_vehicle_period``) or as arc lists (``route_arcs_by_vehicle_period``); one
vehicle may return them per period (``route_by_period`` or ``routes``). The keys are read in the
official scorer's order (:data:`ROUTE_KEYS`) and, as there, a key whose value is not a table of
routes is passed over for the next one. Per vehicle and period a route runs from the depot back to
it (an empty list, or the depot alone, means no dispatch), names known customers and visits each
at most once; a customer receiving goods in a period must be visited by some vehicle in that
period, and at most one vehicle may visit it (the task's rule); the period's deliveries must fit
in the dispatched vehicles' capacity, and where per-vehicle deliveries are returned, each
vehicle's load must fit its own capacity. Inventory is recomputed from the balance
I_t = I_{t-1} + q_t - d_t and must stay within [0, storage]; a returned ``ending_inventory`` must
agree with it. The cost (travel legs as the instance's distance matrix gives them, holding, each
dispatched vehicle's fixed cost) is recomputed from the decisions.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any, TypeGuard

from benchmark.suites.mmopt.generation.decisions import number
from benchmark.suites.mmopt.generation.flows import fmt
from benchmark.suites.mmopt.generation.period_grids import read_grid, resolve_label
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.model import (
    DEPOT,
    cents,
    customers_periods,
    inventories,
    leg_cents,
    report,
)
from benchmark.suites.mmopt.tolerances import objective_tolerance

TOLERANCE = objective_tolerance("inventory_routing_problem")  # the official release's floor
REPORTED_KEYS = ("objective_value", "objective", "total_cost", "objective_exact")
#: Where routes are read, in the official scorer's order: (key, per vehicle, arcs rather than nodes).
ROUTE_KEYS: tuple[tuple[str, bool, bool], ...] = (
    ("route_arcs_by_vehicle_period", True, True),
    ("route_arcs_by_period", False, True),
    ("route_by_vehicle_period", True, False),
    ("route_by_period", False, False),
    ("routes", False, False),
)
#: Instance keys this check may look up that an official instance may lack.
OPTIONAL_KEYS = (
    "fixed_dispatch_cost",
    "distance_matrix",
    "vehicles",
    "vehicle_capacity_by_vehicle",
    "fixed_dispatch_cost_by_vehicle",
)
Routes = dict[str, dict[str, list[str]]]  # vehicle -> period -> customers in visiting order


def vehicles_of(instance: Mapping[str, Any]) -> list[str]:
    """The fleet: ``sets.vehicles`` of the instance, or the single vehicle ``V1``."""
    return [str(v) for v in instance["sets"].get("vehicles") or ["V1"]]


def _per_vehicle(instance: Mapping[str, Any], table: str, scalar: str, vehicle: str) -> float:
    by_vehicle = instance.get(table)
    if isinstance(by_vehicle, Mapping) and vehicle in by_vehicle:
        return float(by_vehicle[vehicle])
    return float(instance.get(scalar, 0))


def _arcs_to_nodes(arcs: Any) -> list[Any] | None:
    """A node sequence from a chain of ``[tail, head]`` arcs (None when it is not one chain)."""
    if not isinstance(arcs, list | tuple):
        return None
    if not arcs:
        return []
    nodes: list[Any] = []
    for arc in arcs:
        if not isinstance(arc, list | tuple) or len(arc) != 2:
            return None
        if nodes and str(arc[0]) != str(nodes[-1]):
            return None
        nodes.extend(arc if not nodes else arc[1:])
    return nodes


def _readable(raw: Any, per_vehicle: bool) -> TypeGuard[Mapping[Any, Any]]:
    """Whether ``raw`` is a table of routes at all (the official scorer passes over one that is not)."""
    if not isinstance(raw, Mapping) or not raw:
        return False
    if per_vehicle:
        return any(isinstance(inner, Mapping) for inner in raw.values())
    return any(isinstance(sequence, list | tuple) or sequence is None for sequence in raw.values())


def _routes(
    raw: Any, customers: list[str], periods: list[str], what: str = "route_by_period", arcs: bool = False
) -> tuple[dict[str, list[str]], list[str]]:
    """Per period the customers in visiting order; a route must start and end at the depot."""
    if not isinstance(raw, Mapping):
        return {}, [f"{what} is not a dict of periods"]
    names = {c.lower(): c for c in customers} | {DEPOT.lower(): DEPOT}
    period_names = {t.lower(): t for t in periods}
    routes: dict[str, list[str]] = {}
    problems = []
    for raw_period, sequence in raw.items():
        period = resolve_label(raw_period, period_names, "t")
        if period is None:
            problems.append(f"{what}: unknown period {raw_period!r}")
            continue
        if sequence is None:
            sequence = []
        if arcs:
            sequence = _arcs_to_nodes(sequence)
            if sequence is None:
                problems.append(f"{what}[{period}] is not one chain of [tail, head] arcs")
                continue
        if not isinstance(sequence, list | tuple):
            problems.append(f"{what}[{period}] is not a list of nodes")
            continue
        stops = [
            resolve_label(node, names, "C") if isinstance(node, str | int) else None for node in sequence
        ]
        if any(stop is None for stop in stops):
            problems.append(f"{what}[{period}] names an unknown node")
            continue
        if stops in ([], [DEPOT], [DEPOT, DEPOT]):
            routes[period] = []
            continue
        if stops[0] != DEPOT or stops[-1] != DEPOT:
            problems.append(f"{what}[{period}] does not start and end at the depot")
            continue
        inner = [str(s) for s in stops[1:-1]]
        if DEPOT in inner:
            problems.append(f"{what}[{period}] returns to the depot in between")
            continue
        if len(set(inner)) != len(inner):
            problems.append(f"{what}[{period}] visits a customer twice")
            continue
        routes[period] = inner
    for period in periods:
        routes.setdefault(period, [])
    return routes, problems


def read_routes(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> tuple[Routes | None, list[str]]:
    """The returned routes per vehicle and period from the first readable key of
    :data:`ROUTE_KEYS` (None when there is none), and the problems found in it."""
    customers, periods = customers_periods(instance)
    fleet = vehicles_of(instance)
    for key, per_vehicle, arcs in ROUTE_KEYS:
        raw = solution.get(key)
        if not _readable(raw, per_vehicle):
            continue
        if not per_vehicle:
            routes, problems = _routes(raw, customers, periods, key, arcs)
            return {fleet[0]: routes}, problems
        names = {v.lower(): v for v in fleet}
        by_vehicle: Routes = {}
        problems = []
        for raw_vehicle, inner in raw.items():
            vehicle = resolve_label(raw_vehicle, names, "V")
            if vehicle is None:
                problems.append(f"{key}: unknown vehicle {raw_vehicle!r}")
                continue
            by_vehicle[vehicle], found = _routes(inner, customers, periods, f"{key}[{vehicle}]", arcs)
            problems += found
        return by_vehicle, problems
    return None, []


def _vehicle_loads(solution: Mapping[str, Any], instance: Mapping[str, Any], routes: Routes) -> list[str]:
    """Per-vehicle deliveries, where returned: each vehicle's load fits its capacity and goes to
    customers on its own route."""
    raw = solution.get("deliveries_by_vehicle_period")
    if not isinstance(raw, Mapping):
        return []
    customers, periods = customers_periods(instance)
    problems = []
    for vehicle in vehicles_of(instance):
        table = raw.get(vehicle)
        if not isinstance(table, Mapping):
            continue
        capacity = _per_vehicle(instance, "vehicle_capacity_by_vehicle", "vehicle_capacity", vehicle)
        for period in periods:
            row = table.get(period)
            if not isinstance(row, Mapping):
                continue
            load = 0.0
            for customer in customers:
                amount = number(row.get(customer, 0)) or 0.0
                load += amount
                if amount > TOLERANCE and customer not in routes.get(vehicle, {}).get(period, []):
                    problems.append(
                        f"{vehicle} delivers {fmt(amount)} to {customer} in {period} but does not visit it"
                    )
            if load > capacity + TOLERANCE:
                problems.append(
                    f"{vehicle} carries {fmt(load)} in {period}, above its capacity {fmt(capacity)}"
                )
    return problems


def plan_total(
    instance: Mapping[str, Any], routes: Routes, deliveries: Mapping[str, Mapping[str, float]]
) -> float:
    """The plan's cost: every vehicle's travel legs and fixed dispatch cost, and holding."""
    customers, periods = customers_periods(instance)
    stock = inventories(instance, deliveries)
    total = sum(cents(instance["holding_cost"][c]) * stock[c][t] for c in customers for t in periods)
    for vehicle, by_period in routes.items():
        dispatch = cents(
            _per_vehicle(instance, "fixed_dispatch_cost_by_vehicle", "fixed_dispatch_cost", vehicle)
        )
        for stops in by_period.values():
            if stops:
                path = [DEPOT, *stops, DEPOT]
                total += dispatch + sum(leg_cents(instance, a, b) for a, b in itertools.pairwise(path))
    return report(total)


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    customers, periods = customers_periods(instance)
    if "deliveries" not in solution:
        return SolutionCheck(feasible=False, objective=None, problems=("no deliveries returned",))
    routes, problems = read_routes(instance, solution)
    if routes is None:
        return SolutionCheck(feasible=False, objective=None, problems=("no routes returned",))
    deliveries, grid_problems = read_grid(
        solution["deliveries"], customers, periods, "deliveries", "customer", "C"
    )
    problems = grid_problems + problems
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    fleet = vehicles_of(instance)
    for period in periods:
        load = capacity = 0.0
        visitors: dict[str, list[str]] = {}
        for vehicle in fleet:
            stops = routes.get(vehicle, {}).get(period, [])
            if stops:
                capacity += _per_vehicle(instance, "vehicle_capacity_by_vehicle", "vehicle_capacity", vehicle)
            for customer in stops:
                visitors.setdefault(customer, []).append(vehicle)
        if not any(routes.get(v, {}).get(period) for v in fleet):
            capacity = _per_vehicle(instance, "vehicle_capacity_by_vehicle", "vehicle_capacity", fleet[0])
        for customer, who in visitors.items():
            if len(who) > 1:
                problems.append(
                    f"{customer} is visited by {', '.join(who)} in {period} (at most one vehicle)"
                )
        for customer in customers:
            amount = deliveries[customer][period]
            load += amount
            if amount < -TOLERANCE:
                problems.append(f"deliveries[{customer}][{period}] = {fmt(amount)} < 0")
            elif amount > TOLERANCE and customer not in visitors:
                problems.append(
                    f"{customer} receives {fmt(amount)} in {period} but the route does not visit it"
                )
        if load > capacity + TOLERANCE:
            problems.append(f"load {fmt(load)} in {period} exceeds the vehicle capacity {fmt(capacity)}")
    problems += _vehicle_loads(solution, instance, routes)
    stock = inventories(instance, deliveries)
    for customer in customers:
        storage = float(instance["inventory_capacity"][customer])
        for period in periods:
            level = stock[customer][period]
            if level < -TOLERANCE:
                problems.append(f"{customer} short in {period}: inventory {fmt(level)} after its demand")
            elif level > storage + TOLERANCE:
                problems.append(
                    f"{customer} holds {fmt(level)} in {period}, above its storage {fmt(storage)}"
                )
    if "ending_inventory" in solution:
        returned, stock_problems = read_grid(
            solution["ending_inventory"], customers, periods, "ending_inventory", "customer", "C"
        )
        problems += stock_problems
        for customer, row in returned.items():
            for period, value in row.items():
                if abs(value - stock[customer][period]) > TOLERANCE:
                    problems.append(
                        f"ending_inventory[{customer}][{period}] = {fmt(value)} breaks the balance "
                        f"(deliveries and demand give {fmt(stock[customer][period])})"
                    )
    total = plan_total(instance, routes, deliveries)
    for name in REPORTED_KEYS:
        reported = number(solution.get(name)) if name in solution else None
        if reported is not None and abs(reported - total) > TOLERANCE:
            problems.append(f"reported {name} {fmt(reported)} != recomputed cost {fmt(total)}")
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))


#: Where the release's scorer reads which vehicles leave in a period, in its order.
VEHICLE_DISPATCH_KEYS = (
    "dispatch_by_vehicle_period",
    "vehicle_dispatch",
    "dispatch_indicator_by_vehicle_period",
)
PERIOD_DISPATCH_KEYS = (
    "dispatch_by_period",
    "dispatch_indicator_by_period",
    "dispatches",
    "vehicle_dispatch",
)


def _flag(value: Any) -> int | None:
    amount = number(value)
    return None if amount is None else int(amount > 0.5)


def official_dispatch(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """Which vehicles the release's scorer counts as dispatched per period: a per-vehicle table
    when given, else ``used_vehicles_by_period`` (period -> vehicles), else a per-period table or
    ``dispatch_periods`` list for the first vehicle only,
    else the first vehicle in every period with a delivery."""
    customers, periods = customers_periods(instance)
    fleet = vehicles_of(instance)
    for key in VEHICLE_DISPATCH_KEYS:
        raw = solution.get(key)
        if isinstance(raw, Mapping):
            table = {
                str(v): {
                    str(t): flag
                    for t, x in row.items()
                    if (flag := _flag(x)) is not None and str(t) in periods
                }
                for v, row in raw.items()
                if str(v) in fleet and isinstance(row, Mapping)
            }
            if any(table.values()):
                return table
    used = solution.get("used_vehicles_by_period")
    if isinstance(used, Mapping):  # period -> the vehicles that leave, read after the flag tables
        leaving = {str(t): {str(v) for v in row} for t, row in used.items() if isinstance(row, list)}
        table = {v: {t: int(v in leaving[t]) for t in periods if t in leaving} for v in fleet}
        if any(any(row.values()) for row in table.values()):
            return table
    for key in PERIOD_DISPATCH_KEYS:
        raw = solution.get(key)
        if isinstance(raw, Mapping):
            row = {
                str(t): flag for t, x in raw.items() if (flag := _flag(x)) is not None and str(t) in periods
            }
            if row:
                return {fleet[0]: row}
    listed = solution.get("dispatch_periods")
    if isinstance(listed, list) and any(str(t) in periods for t in listed):
        return {fleet[0]: {t: int(t in {str(x) for x in listed}) for t in periods}}
    deliveries, _ = read_grid(solution.get("deliveries"), customers, periods, "deliveries", "customer", "C")
    return {
        fleet[0]: {t: int(sum(row.get(t, 0.0) for row in deliveries.values()) > TOLERANCE) for t in periods}
    }


def official_problems(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> list[str]:
    """What the release's scorer also rejects in a plan our check accepts (``--scoring=official``
    only): per period, as many vehicles dispatched (:func:`official_dispatch`) as routed. A fleet's
    plan without per-vehicle dispatch flags counts one vehicle, so it fails there."""
    routes, problems = read_routes(instance, solution)
    if routes is None or problems:
        return []
    dispatch = official_dispatch(instance, solution)
    found = []
    for period in customers_periods(instance)[1]:
        routed = sum(1 for row in routes.values() if row.get(period))
        dispatched = sum(1 for row in dispatch.values() if row.get(period, 0) > 0)
        if routed != dispatched:
            found.append(
                f"{period}: {dispatched} vehicle(s) dispatched but {routed} routed "
                "(the release's dispatch reading)"
            )
    return found
