"""Scoring-time check of a returned lot-sizing plan, at the official 1e-2 tolerance (DESIGN §4).

Production per product and period is required; inventory is recomputed from the balance
s_t = s_{t-1} + x_t - d_t and must never go negative (no backlog); a returned inventory must agree
with it. A period with production needs its setup: a returned setup of 0 there is a broken setup
link, and with no setup returned the setups are those of the producing periods. Capacity (production
plus setup times) is checked per period and the cost recomputed from the decisions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.decisions import number
from benchmark.suites.mmopt.generation.flows import fmt
from benchmark.suites.mmopt.generation.period_grids import read_grid
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.lot_sizing_production_planning.generator import (
    capacity_usage,
    inventories,
    plan_cost,
)
from benchmark.suites.mmopt.tolerances import objective_tolerance

TOLERANCE = objective_tolerance("lot_sizing_production_planning")  # the official release's floor
REPORTED_KEYS = ("objective_value", "objective", "total_cost", "objective_exact")
#: Instance keys this check may look up that an official instance lacks (no setup times).
OPTIONAL_KEYS = ("setup_time",)


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    products, periods = instance["sets"]["products"], instance["sets"]["periods"]
    if "production" not in solution:
        return SolutionCheck(feasible=False, objective=None, problems=("no production plan returned",))
    production, problems = read_grid(solution["production"], products, periods, "production", "product", "P")
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    for product in products:
        for period in periods:
            if production[product][period] < -TOLERANCE:
                problems.append(f"production[{product}][{period}] = {fmt(production[product][period])} < 0")
    producing = {p: {t: int(production[p][t] > TOLERANCE) for t in periods} for p in products}
    if "setup" in solution:
        returned, setup_problems = read_grid(solution["setup"], products, periods, "setup", "product", "P")
        problems += setup_problems
        setup = {p: {t: round(returned.get(p, {}).get(t, 0)) for t in periods} for p in products}
        for product in products:
            for period in periods:
                if producing[product][period] and not setup[product][period]:
                    problems.append(f"{product} is produced in {period} without a setup there")
    else:
        setup = producing
    stock = inventories(instance, production)
    for product in products:
        for period in periods:
            if stock[product][period] < -TOLERANCE:
                problems.append(
                    f"{product} short in {period}: inventory {fmt(stock[product][period])} after demand "
                    f"{instance['demand'][product][period]}"
                )
    if "inventory" in solution:
        returned_stock, stock_problems = read_grid(
            solution["inventory"], products, periods, "inventory", "product", "P"
        )
        problems += stock_problems
        for product, row in returned_stock.items():
            for period, value in row.items():
                if abs(value - stock[product][period]) > TOLERANCE:
                    problems.append(
                        f"inventory[{product}][{period}] = {fmt(value)} breaks the balance "
                        f"(production and demand give {fmt(stock[product][period])})"
                    )
    usage = capacity_usage(instance, production, setup)
    for period in periods:
        if usage[period] > instance["capacity"][period] + TOLERANCE:
            limit = instance["capacity"][period]
            problems.append(f"period {period} uses {fmt(usage[period])}, above its capacity {limit}")
    total = plan_cost(instance, production, setup)
    for key in REPORTED_KEYS:
        reported = number(solution.get(key)) if key in solution else None
        if reported is not None and abs(reported - total) > TOLERANCE:
            problems.append(f"reported {key} {fmt(reported)} != recomputed cost {fmt(total)}")
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))
