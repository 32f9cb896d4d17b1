"""Artifacts of a lot-sizing package, all derived from the verified record.

The task text says which figure holds which table and the output contract; every demand, capacity,
cost, setup time and initial stock is read from the figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.lot_sizing_production_planning.generator import (
    formulation_size,
    simple_plan_costs,
)
from benchmark.suites.mmopt.subcategories.lot_sizing_production_planning.renderer import split

WHERE_ONE = "The figure visual_0.png holds the demand grid (top) and the cost table (below it)."
WHERE_TWO = "The figure visual_0.png holds the demand grid and the figure visual_1.png the cost table."
READING = (
    "In the demand grid each row is a product (P followed by a number) and each column a period "
    "(t followed by a number, in time order); a cell is the product's demand in that period, and the "
    "last row is the production capacity of each period, shared by all products. The cost table "
    "gives, per product, the cost of each unit produced, the holding cost of each unit in stock at "
    "the end of a period, the setup cost paid in every period in which the product is produced, "
    "and the stock on hand before the first period."
)
SETUP_TIME = (
    'Its "setup time" column is the capacity a product\'s setup uses in every period in which the '
    "product is produced."
)
TASK = (
    "Task: decide how much of each product to produce in each period so that every period's demand "
    "is met from production and stock (no backlog, no shortage), the units produced in a period "
    "(plus setup times, where given) do not exceed its capacity, and the total cost of production, "
    "holding and setups is minimal. Stock carries over from one period to the next. All data must "
    "be read from the figures."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal plan is found;
- "objective_value": the minimum total cost, as a number;
- "production": {product: {period: units produced}}, names as in the figures
  (for example {"P1": {"t1": <number>, ...}, ...});
- "inventory": {product: {period: units in stock at the end of the period}};
- "setup": {product: {period: a binary flag, one where the product is set up (produced) in that
  period and zero elsewhere}}.
"""
)


def task_input(instance: Mapping[str, Any]) -> str:
    reading = f"{WHERE_TWO if split(instance) else WHERE_ONE} {READING}"
    if "setup_time" in instance:
        reading += " " + SETUP_TIME
    title = "Lot sizing and production planning (multi-period and system planning)"
    return task_text(title, reading, TASK, contract=CONTRACT)


def _first(row: Mapping[str, Any]) -> Any:
    return next(iter(row.values()))


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    periods = instance["sets"]["periods"]
    demand = "\n".join(
        f"- {p}: " + ", ".join(f"{t}={instance['demand'][p][t]}" for t in periods)
        for p in instance["sets"]["products"]
    )
    costs = "\n".join(
        f"- {p}: production={_first(instance['production_cost'][p])}, "
        f"holding={_first(instance['holding_cost'][p])}, setup={_first(instance['setup_cost'][p])}"
        + (f", setup_time={instance['setup_time'][p]}" if "setup_time" in instance else "")
        + f", initial_inventory={instance['initial_inventory'][p]}"
        for p in instance["sets"]["products"]
    )
    capacity = ", ".join(f"{t}={instance['capacity'][t]}" for t in periods)
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    figures = (
        "visual_0.png (demand grid) and visual_1.png (cost table)" if split(instance) else "visual_0.png"
    )
    return (
        "This is a multi-period capacitated lot-sizing problem.\n\n"
        f"Instance ID: {record.instance_id}\nVariant: {instance['variant']}\n"
        f"Difficulty: {record.difficulty}\n\n"
        f"Demand:\n{demand}\n\nCapacity per period: {capacity}\n\n"
        f"Costs per product (constant over the periods):\n{costs}\n\n"
        "Objective:\n- Minimize production + holding + setup cost.\n\n"
        "Constraints:\n- Inventory balance per product and period, no backlog.\n"
        "- Production only in periods with a setup.\n"
        "- Shared capacity per period (production plus setup times, where given).\n\n"
        f"Metadata:\n{meta}\n\nVisual interpretation:\n- {figures}.\n\n"
        "Output contract:\n- solve() returns status, objective_value, production, inventory and setup.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    plans = simple_plan_costs(instance)
    simple = ", ".join(
        f"{name.replace('_', '-')} {'infeasible' if c is None else f'{c:g}'}" for name, c in plans.items()
    )
    binding = ", ".join(solution["capacity_binding_periods"]) or "none"
    setup_term = " + \\tau_p y_{pt}" if "setup_time" in instance else ""
    setup_parameter = ", $\\tau_p$ setup time" if "setup_time" in instance else ""
    counts = len(instance["sets"]["products"]), len(instance["sets"]["periods"])
    sizes = f"$P$: products ({counts[0]}), $T$: periods ({counts[1]})"
    return f"""# Capacitated lot sizing — {record.instance_id}

## Sets
- {sizes}, in order

## Parameters
- $d_{{pt}}$ demand, $C_t$ capacity, $c_p$ unit production cost, $h_p$ unit holding cost, $f_p$ setup cost,
  $s_{{p0}}$ initial stock{setup_parameter}

## Decision variables
- $x_{{pt}} \\ge 0$ production, $s_{{pt}} \\ge 0$ end-of-period stock, $y_{{pt}} \\in \\{{0, 1\\}}$ setup

## Objective
$$\\min \\; \\sum_{{p, t}} \\left(c_p x_{{pt}} + h_p s_{{pt}} + f_p y_{{pt}}\\right)$$

## Constraints
- Balance: $s_{{p,t-1}} + x_{{pt}} - s_{{pt}} = d_{{pt}}$ for all $p, t$
- Setup link: $x_{{pt}} \\le \\min(C_t, \\textstyle\\sum_t d_{{pt}})\\, y_{{pt}}$
- Capacity: $\\sum_p (x_{{pt}}{setup_term}) \\le C_t$ for all $t$

## Instance notes
- Verified minimum cost: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Binding capacity periods in the reference plan: {binding}.
- Simple plans for comparison: {simple}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (capacitated lot sizing), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

PRODUCTS = {products!r}
PERIODS = {periods!r}
DEMAND = {demand!r}
CAPACITY = {capacity!r}
PRODUCTION_COST = {production_cost!r}
HOLDING_COST = {holding_cost!r}
SETUP_COST = {setup_cost!r}
SETUP_TIME = {setup_time!r}
INITIAL = {initial!r}


def solve() -> dict:
    nP, nT = len(PRODUCTS), len(PERIODS)
    block = nP * nT
    x = lambda p, t: p * nT + t  # noqa: E731  (production, then stock, then setup blocks)
    s = lambda p, t: block + p * nT + t  # noqa: E731
    y = lambda p, t: 2 * block + p * nT + t  # noqa: E731
    cost = np.zeros(3 * block)
    upper = np.zeros(3 * block)
    rows, lo, hi = [], [], []
    for p, P in enumerate(PRODUCTS):
        total = sum(DEMAND[P])
        for t in range(nT):
            cost[x(p, t)], cost[s(p, t)], cost[y(p, t)] = PRODUCTION_COST[P], HOLDING_COST[P], SETUP_COST[P]
            upper[x(p, t)] = upper[s(p, t)] = total
            upper[y(p, t)] = 1
            row = np.zeros(3 * block)
            row[x(p, t)], row[s(p, t)] = 1, -1
            if t:
                row[s(p, t - 1)] = 1
            rows.append(row)
            lo.append(DEMAND[P][t] - (INITIAL[P] if t == 0 else 0))
            hi.append(lo[-1])
            row = np.zeros(3 * block)
            row[x(p, t)], row[y(p, t)] = 1, -min(total, CAPACITY[t])
            rows.append(row)
            lo.append(-np.inf)
            hi.append(0)
    for t in range(nT):
        row = np.zeros(3 * block)
        for p, P in enumerate(PRODUCTS):
            row[x(p, t)], row[y(p, t)] = 1, SETUP_TIME.get(P, 0)
        rows.append(row)
        lo.append(-np.inf)
        hi.append(CAPACITY[t])
    integrality = np.zeros(3 * block)
    integrality[2 * block :] = 1
    result = milp(cost, constraints=[LinearConstraint(np.array(rows), lo, hi)], integrality=integrality,
                  bounds=Bounds(np.zeros(3 * block), upper))
    if result.status != 0:
        return {{"status": "infeasible" if result.status == 2 else "error", "objective_value": None}}
    v = np.rint(result.x).astype(int)
    production = {{P: {{T: int(v[x(p, t)]) for t, T in enumerate(PERIODS)}} for p, P in enumerate(PRODUCTS)}}
    inventory = {{P: {{T: int(v[s(p, t)]) for t, T in enumerate(PERIODS)}} for p, P in enumerate(PRODUCTS)}}
    setup = {{P: {{T: int(v[x(p, t)] > 0) for t, T in enumerate(PERIODS)}} for p, P in enumerate(PRODUCTS)}}
    value = round(float(result.fun), 6)
    return {{
        "status": "optimal",
        "objective_value": value,
        "production": production,
        "inventory": inventory,
        "setup": setup,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    products, periods = instance["sets"]["products"], instance["sets"]["periods"]
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        products=list(products),
        periods=list(periods),
        demand={p: [instance["demand"][p][t] for t in periods] for p in products},
        capacity=[instance["capacity"][t] for t in periods],
        production_cost={p: _first(instance["production_cost"][p]) for p in products},
        holding_cost={p: _first(instance["holding_cost"][p]) for p in products},
        setup_cost={p: _first(instance["setup_cost"][p]) for p in products},
        setup_time=dict(instance.get("setup_time", {})),
        initial=dict(instance["initial_inventory"]),
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["demand_pattern"],
        meta["capacity_regime"],
        "setup_times" if meta["setup_time_flag"] else "no_setup_time",
        "two_figures" if split(instance) else "one_figure",
        f"products_{meta['number_products']}",
        f"periods_{meta['number_periods']}",
    ]
    return DerivedArtifacts(
        task_input=task_input(instance),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
