"""Artifacts of an inventory-routing package, all derived from the verified record.

The task text says which figure holds what, states the rules and the travel-cost rule in words and
the output contract; every coordinate, stock, capacity, cost and demand is read from the figures.
"""

from __future__ import annotations

from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.generator import (
    formulation_size,
    just_in_time_cost,
)
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.model import DEPOT, customers_periods

WHERE = (
    "The figure visual_0.png is a map of the depot and the customers on a unit grid (no routes are "
    "drawn); visual_1.png holds the tables: the exact coordinates of every node with each "
    "customer's initial stock, storage capacity and holding cost, the demand of every customer in "
    "every period (periods in time order), and the vehicle's capacity and fixed dispatch cost."
)
RULES = (
    "Rules: in each period at most one trip is made by the single vehicle: it leaves the depot, "
    "visits some customers once each in an order of your choice and returns to the depot within the "
    "period, paying the fixed dispatch cost for the trip and the travel cost of its legs. The travel "
    "cost of a leg is the Euclidean distance between the coordinates of its ends, rounded to two "
    "decimal places. A customer can receive goods in a period only if the trip of that period visits "
    "it, and the goods on one trip may not exceed the vehicle capacity. A customer's stock at the end "
    "of a period is its stock at the end of the previous period (the initial stock before the first "
    "period) plus what it receives minus its demand; it may never be negative (no shortage or "
    "backlog) and never exceed the customer's storage capacity, and every unit in stock at the end of "
    "a period pays the customer's holding cost."
)
TASK = (
    "Task: plan the trips and the delivered quantities so that every demand is met and the total of "
    "travel, dispatch and holding costs is minimal. All data must be read from the figures."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal plan is found;
- "objective_value": the minimum total cost, as a number;
- "route_by_period": {period: the trip as a list of node names from "Depot" back to "Depot"
  (for example ["Depot", "C2", "C1", "Depot"]), or an empty list where no trip is made};
- "deliveries": {customer: {period: quantity delivered}};
- "ending_inventory": {customer: {period: stock at the end of the period}}.
"""
)


def task_input(instance: dict[str, Any]) -> str:
    title = "Inventory routing (multi-period and system planning)"
    return task_text(title, WHERE, RULES, TASK, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    customers, periods = customers_periods(instance)
    nodes = "\n".join(f"- {n}: coordinates {tuple(instance['coordinates'][n])}" for n in [DEPOT, *customers])
    data = "\n".join(
        f"- {c}: initial={instance['initial_inventory'][c]}, storage={instance['inventory_capacity'][c]}, "
        f"holding={instance['holding_cost'][c]}, demand: "
        + ", ".join(f"{t}={instance['demands'][c][t]}" for t in periods)
        for c in customers
    )
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    return (
        "This is a single-vehicle inventory routing problem.\n\n"
        f"Instance ID: {record.instance_id}\nVariant: {instance['variant']}\n"
        f"Difficulty: {record.difficulty}\n\n"
        f"Nodes:\n{nodes}\n\nCustomers:\n{data}\n\n"
        f"Vehicle: capacity={instance['vehicle_capacity']}, fixed dispatch cost="
        f"{instance['fixed_dispatch_cost']}\nTravel cost rule: {instance['travel_cost_rule']}\n\n"
        "Objective:\n- Minimize travel + dispatch + holding cost.\n\n"
        "Constraints:\n- At most one depot-to-depot trip per period, each customer at most once.\n"
        "- Deliveries only to visited customers; load within the vehicle capacity.\n"
        "- Inventory balance per customer and period, between zero and the storage capacity.\n\n"
        f"Metadata:\n{meta}\n\nVisual interpretation:\n- visual_0.png (map) and visual_1.png (tables).\n\n"
        "Output contract:\n- solve() returns status, objective_value, route_by_period, deliveries and "
        "ending_inventory.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    customers, periods = customers_periods(instance)
    simple = just_in_time_cost(instance)
    binding = ", ".join(solution["capacity_binding_periods"]) or "none"
    return f"""# Inventory routing — {record.instance_id}

## Sets
- $N$: customers ({len(customers)}), depot $0$; $T$: periods ({len(periods)}); $\\mathcal R$: every nonempty
  subset $S \\subseteq N$ (a trip), priced by $c_S$, its shortest closed tour from the depot

## Parameters
- $d_{{it}}$ demand, $I_{{i0}}$ initial stock, $U_i$ storage capacity, $h_i$ holding cost, $Q$ vehicle
  capacity, $F$ fixed dispatch cost, $c_{{ij}}$ leg cost (Euclidean, rounded to two decimals)

## Decision variables
- $z_{{St}} \\in \\{{0, 1\\}}$ trip $S$ made in period $t$, $q_{{it}} \\ge 0$ delivery,
  $I_{{it}} \\ge 0$ end stock

## Objective
$$\\min \\; \\sum_t \\sum_S (c_S + F) z_{{St}} + \\sum_{{i, t}} h_i I_{{it}}$$

## Constraints
- One vehicle: $\\sum_S z_{{St}} \\le 1$
- Visit before delivery: $q_{{it}} \\le \\min(Q, U_i + d_{{it}}) \\sum_{{S \\ni i}} z_{{St}}$
- Vehicle capacity: $\\sum_i q_{{it}} \\le Q \\sum_S z_{{St}}$
- Balance: $I_{{i,t-1}} + q_{{it}} - I_{{it}} = d_{{it}}$, $0 \\le I_{{it}} \\le U_i$

## Instance notes
- Verified minimum cost: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Periods in which the vehicle leaves full: {binding}.
- Just-in-time plan for comparison: {"infeasible" if simple is None else f"{simple:g}"}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (inventory routing), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json
import math

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

CUSTOMERS = {customers!r}
PERIODS = {periods!r}
COORDINATES = {coordinates!r}  # the depot first
DEMAND = {demand!r}
INITIAL = {initial!r}
STORAGE = {storage!r}
HOLDING = {holding!r}
CAPACITY = {capacity!r}
DISPATCH = {dispatch!r}


def leg(a, b):
    """Travel cost in cents: the Euclidean distance rounded to two decimals."""
    return round(round(math.dist(COORDINATES[a], COORDINATES[b]), 2) * 100)


def trips():
    """Every nonempty customer subset (bit i: customer i) with its shortest closed tour from the
    depot, by the Held-Karp dynamic program: (cost in cents, customers in order)."""
    n = len(CUSTOMERS)
    best = {{(1 << j, j): (leg("Depot", CUSTOMERS[j]), [j]) for j in range(n)}}
    for mask in range(1, 1 << n):
        for j in range(n):
            if (mask, j) not in best:
                continue
            cost, order = best[(mask, j)]
            for k in range(n):
                if mask >> k & 1:
                    continue
                key = (mask | 1 << k, k)
                value = cost + leg(CUSTOMERS[j], CUSTOMERS[k])
                if key not in best or value < best[key][0]:
                    best[key] = (value, order + [k])
    table = []
    for mask in range(1, 1 << n):
        options = [(c + leg(CUSTOMERS[j], "Depot"), o) for (m, j), (c, o) in best.items() if m == mask]
        cost, order = min(options)
        table.append((cost, [CUSTOMERS[i] for i in order]))
    return table


def solve() -> dict:
    table = trips()
    nC, nT, nR = len(CUSTOMERS), len(PERIODS), len(table)
    z = lambda r, t: t * nR + r  # noqa: E731  (trip choice, then delivery, then stock)
    q = lambda i, t: nR * nT + i * nT + t  # noqa: E731
    s = lambda i, t: nR * nT + nC * nT + i * nT + t  # noqa: E731
    n = nR * nT + 2 * nC * nT
    cost, upper = np.zeros(n), np.full(n, np.inf)
    rows, lo, hi = [], [], []

    def add(row, low, high):
        rows.append(row)
        lo.append(low)
        hi.append(high)

    for t in range(nT):
        row = np.zeros(n)
        for r, (tour, _) in enumerate(table):
            cost[z(r, t)], upper[z(r, t)] = tour + 100 * DISPATCH, 1
            row[z(r, t)] = 1
        add(row, -np.inf, 1)  # at most one trip
        row = np.zeros(n)
        for i in range(nC):
            row[q(i, t)] = 1
        for r in range(nR):
            row[z(r, t)] = -CAPACITY
        add(row, -np.inf, 0)  # vehicle capacity
        for i, C in enumerate(CUSTOMERS):
            cost[s(i, t)], upper[s(i, t)] = 100 * HOLDING[C], STORAGE[C]
            row = np.zeros(n)
            row[q(i, t)] = 1
            for r, (_, stops) in enumerate(table):
                if C in stops:
                    row[z(r, t)] = -(STORAGE[C] + DEMAND[C][t])
            add(row, -np.inf, 0)  # deliver only when visited
            row = np.zeros(n)
            row[q(i, t)], row[s(i, t)] = 1, -1
            if t:
                row[s(i, t - 1)] = 1
            start = DEMAND[C][t] - (INITIAL[C] if t == 0 else 0)
            add(row, start, start)  # inventory balance
    integrality = np.zeros(n)
    integrality[: nR * nT] = 1
    result = milp(cost, constraints=[LinearConstraint(np.array(rows), lo, hi)], integrality=integrality,
                  bounds=Bounds(np.zeros(n), upper), options={{"mip_rel_gap": 0.0}})
    if result.status != 0:
        return {{"status": "infeasible" if result.status == 2 else "error", "objective_value": None}}
    x = result.x
    routes = {{}}
    for t, T in enumerate(PERIODS):
        chosen = [stops for r, (_, stops) in enumerate(table) if x[z(r, t)] > 0.5]
        routes[T] = ["Depot", *chosen[0], "Depot"] if chosen else []
    deliveries = {{C: {{T: round(float(x[q(i, t)]), 6) + 0.0 for t, T in enumerate(PERIODS)}}
                  for i, C in enumerate(CUSTOMERS)}}
    stock = {{C: {{T: round(float(x[s(i, t)]), 6) + 0.0 for t, T in enumerate(PERIODS)}}
             for i, C in enumerate(CUSTOMERS)}}
    return {{
        "status": "optimal",
        "objective_value": round(float(result.fun) / 100, 2),
        "route_by_period": routes,
        "deliveries": deliveries,
        "ending_inventory": stock,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    customers, periods = customers_periods(instance)
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        customers=customers,
        periods=periods,
        coordinates={n: tuple(instance["coordinates"][n]) for n in [DEPOT, *customers]},
        demand={c: [instance["demands"][c][t] for t in periods] for c in customers},
        initial=dict(instance["initial_inventory"]),
        storage=dict(instance["inventory_capacity"]),
        holding=dict(instance["holding_cost"]),
        capacity=instance["vehicle_capacity"],
        dispatch=instance["fixed_dispatch_cost"],
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["demand_regime"],
        meta["vehicle_capacity_regime"],
        "dispatch_cost" if meta["dispatch_cost_flag"] else "no_dispatch_cost",
        "peak_period" if meta["peak_demand_flag"] else "no_peak",
        f"customers_{meta['number_customers']}",
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
