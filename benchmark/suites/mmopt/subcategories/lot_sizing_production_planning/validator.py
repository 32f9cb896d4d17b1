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

from benchmark.suites.mmopt.generation.flows import fmt
from benchmark.suites.mmopt.generation.schedules import number
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.lot_sizing_production_planning.generator import (
    capacity_usage,
    inventories,
    plan_cost,
)

TOLERANCE = 1e-2
REPORTED_KEYS = ("objective_value", "objective", "total_cost", "objective_exact")
#: Instance keys this check may look up that an official instance lacks (no setup times).
OPTIONAL_KEYS = ("setup_time",)


def _grid(
    raw: Any, products: list[str], periods: list[str], what: str
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """A product → period → number table; names matched case-insensitively, bare numbers accepted."""
    if not isinstance(raw, Mapping):
        return {}, [f"{what} is not a dict of products"]
    product_names = {p.lower(): p for p in products}
    period_names = {t.lower(): t for t in periods}
    grid: dict[str, dict[str, float]] = {}
    problems = []
    for raw_product, row in raw.items():
        text = str(raw_product).strip()
        product = product_names.get((f"P{int(text)}" if text.isdigit() else text).lower())
        if product is None:
            problems.append(f"{what}: unknown product {raw_product!r}")
            continue
        if isinstance(row, list | tuple) and len(row) == len(periods):
            row = dict(zip(periods, row, strict=True))
        if not isinstance(row, Mapping):
            problems.append(f"{what}[{product}] is not a dict of periods")
            continue
        grid[product] = {}
        for raw_period, value in row.items():
            label = str(raw_period).strip()
            period = period_names.get((f"t{int(label)}" if label.isdigit() else label).lower())
            amount = number(value)
            if period is None:
                problems.append(f"{what}[{product}]: unknown period {raw_period!r}")
            elif amount is None:
                problems.append(f"{what}[{product}][{period}] = {value!r} is not a number")
            else:
                grid[product][period] = amount
    for product in products:
        for period in periods:
            if period not in grid.get(product, {}):
                problems.append(f"{what}[{product}][{period}] is missing")
    return grid, problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    products, periods = instance["sets"]["products"], instance["sets"]["periods"]
    if "production" not in solution:
        return SolutionCheck(feasible=False, objective=None, problems=("no production plan returned",))
    production, problems = _grid(solution["production"], products, periods, "production")
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    for product in products:
        for period in periods:
            if production[product][period] < -TOLERANCE:
                problems.append(f"production[{product}][{period}] = {fmt(production[product][period])} < 0")
    producing = {p: {t: int(production[p][t] > TOLERANCE) for t in periods} for p in products}
    if "setup" in solution:
        returned, setup_problems = _grid(solution["setup"], products, periods, "setup")
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
        returned_stock, stock_problems = _grid(solution["inventory"], products, periods, "inventory")
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
