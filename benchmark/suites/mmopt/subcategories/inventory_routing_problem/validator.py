"""Scoring-time check of a returned inventory-routing plan, at the official 1e-2 tolerance
(DESIGN §4).

Deliveries per customer and period are required, and so are the routes (``route_by_period``, or
``routes``): per period a node sequence from the depot back to it (an empty list, or the depot
alone, means no dispatch). A route must name known customers, visit each at most once, and pass
through every customer that receives goods in that period (route feasibility); the period's
deliveries must fit in the vehicle. Inventory is recomputed from the balance
I_t = I_{t-1} + q_t - d_t and must stay within [0, storage]; a returned ``ending_inventory`` must
agree with it. The cost (travel legs as the instance's distance matrix gives them, holding, fixed
dispatch) is recomputed from the decisions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.flows import fmt
from benchmark.suites.mmopt.generation.period_grids import read_grid, resolve_label
from benchmark.suites.mmopt.generation.schedules import number
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.model import (
    DEPOT,
    customers_periods,
    inventories,
    plan_cents,
    report,
)

TOLERANCE = 1e-2
REPORTED_KEYS = ("objective_value", "objective", "total_cost", "objective_exact")
ROUTE_KEYS = ("route_by_period", "routes")
#: Instance keys this check may look up that an official instance may lack.
OPTIONAL_KEYS = ("fixed_dispatch_cost", "distance_matrix")


def _routes(raw: Any, customers: list[str], periods: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Per period the customers in visiting order; a route must start and end at the depot."""
    if not isinstance(raw, Mapping):
        return {}, ["route_by_period is not a dict of periods"]
    names = {c.lower(): c for c in customers} | {DEPOT.lower(): DEPOT}
    period_names = {t.lower(): t for t in periods}
    routes: dict[str, list[str]] = {}
    problems = []
    for raw_period, sequence in raw.items():
        period = resolve_label(raw_period, period_names, "t")
        if period is None:
            problems.append(f"route_by_period: unknown period {raw_period!r}")
            continue
        if sequence is None:
            sequence = []
        if not isinstance(sequence, list | tuple):
            problems.append(f"route of {period} is not a list of nodes")
            continue
        stops = [
            resolve_label(node, names, "C") if isinstance(node, str | int) else None for node in sequence
        ]
        if any(stop is None for stop in stops):
            problems.append(f"route of {period} names an unknown node")
            continue
        if stops in ([], [DEPOT], [DEPOT, DEPOT]):
            routes[period] = []
            continue
        if stops[0] != DEPOT or stops[-1] != DEPOT:
            problems.append(f"route of {period} does not start and end at the depot")
            continue
        inner = [str(s) for s in stops[1:-1]]
        if DEPOT in inner:
            problems.append(f"route of {period} returns to the depot in between")
            continue
        if len(set(inner)) != len(inner):
            problems.append(f"route of {period} visits a customer twice")
            continue
        routes[period] = inner
    for period in periods:
        routes.setdefault(period, [])
    return routes, problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    customers, periods = customers_periods(instance)
    if "deliveries" not in solution:
        return SolutionCheck(feasible=False, objective=None, problems=("no deliveries returned",))
    key = next((k for k in ROUTE_KEYS if k in solution), None)
    if key is None:
        return SolutionCheck(feasible=False, objective=None, problems=("no routes returned",))
    deliveries, problems = read_grid(
        solution["deliveries"], customers, periods, "deliveries", "customer", "C"
    )
    routes, route_problems = _routes(solution[key], customers, periods)
    problems += route_problems
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    capacity = float(instance["vehicle_capacity"])
    for period in periods:
        load = 0.0
        for customer in customers:
            amount = deliveries[customer][period]
            load += amount
            if amount < -TOLERANCE:
                problems.append(f"deliveries[{customer}][{period}] = {fmt(amount)} < 0")
            elif amount > TOLERANCE and customer not in routes[period]:
                problems.append(
                    f"{customer} receives {fmt(amount)} in {period} but the route does not visit it"
                )
        if load > capacity + TOLERANCE:
            problems.append(f"load {fmt(load)} in {period} exceeds the vehicle capacity {fmt(capacity)}")
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
    total = report(sum(plan_cents(instance, routes, deliveries).values()))
    for name in REPORTED_KEYS:
        reported = number(solution.get(name)) if name in solution else None
        if reported is not None and abs(reported - total) > TOLERANCE:
            problems.append(f"reported {name} {fmt(reported)} != recomputed cost {fmt(total)}")
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))
