"""Artifacts of a capacitated VRP package, all derived from the verified record.

The task text fixes the cost rule in words, the fleet semantics and the output contract; the
coordinates, demands, fleet size and capacity stay in the figures.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation import routing
from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.vehicle_routing_problem.generator import (
    cost_rule,
    greedy_cost,
    grid_size,
)

READING = (
    "Two figures describe the instance. visual_0.png is a map on a square grid whose lines are one "
    "distance unit apart, numbered along the bottom (x coordinate) and the left side (y coordinate); "
    "the depot is the red square and every customer is a blue dot with its name (C followed by a "
    "number) beside it. visual_1.png states at the top the number of identical vehicles and their "
    "common capacity, followed by a table of the exact coordinates (x, y) of the depot and of every "
    "customer and each customer's demand. All data must be read from the figures; the table gives "
    "the exact values."
)
TASK = (
    "Task: every customer must be served by exactly one vehicle, which delivers the customer's whole "
    "demand in one visit. Each vehicle used drives one route that starts at the depot, visits some "
    "customers and returns to the depot; the total demand of the customers on a route may not exceed "
    "the vehicle capacity, and at most the stated number of vehicles can be used (a vehicle may stay "
    "unused). Travel is possible between every pair of locations, in both directions at the same "
    "cost. {rule} Minimize the total travel cost of all routes."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal solution is found;
- "objective_value": the minimum total travel cost, as a number;
- "routes": a list with one entry per vehicle used, each the list of location names in visiting
  order, starting and ending at "Depot" (for example ["Depot", "C3", "C1", "Depot"]).
"""
)


def task_input(record: VerifiedRecord) -> str:
    rule = routing.rule_sentence(cost_rule(record.instance))
    title = "Capacitated vehicle routing problem (routing and tour optimization)"
    return task_text(title, READING, TASK.format(rule=rule), contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    rows = "\n".join(
        f"  {n:>5}: ({instance['coordinates'][n][0]}, {instance['coordinates'][n][1]})"
        + ("" if n == instance["depot"] else f", demand {instance['demands'][n]}")
        for n in instance["sets"]["nodes"]
    )
    grid = grid_size(instance)
    return (
        f"Instance {record.instance_id} - capacitated vehicle routing problem ({record.difficulty})\n\n"
        "Problem\n"
        f"  Serve {len(instance['sets']['customers'])} customers from the depot with at most "
        f"{meta['number_vehicles']} identical vehicles\n"
        f"  of capacity {instance['vehicle_capacity']}; each customer visited once by one vehicle, "
        "no split deliveries.\n\n"
        f"Depot and customers (coordinates, demand):\n{rows}\n\n"
        f"Total demand: {meta['total_demand']}\n"
        f"Cost rule: {meta['cost_matrix_type']} ({routing.rule_sentence(meta['cost_matrix_type'])})\n"
        f"Layout: {meta['layout_type']}\n\n"
        "Objective\n  minimize the total travel cost of all routes.\n\n"
        "Visual interpretation\n"
        f"  visual_0.png: map of the grid [0, {grid}] x [0, {grid}], one line per unit; the depot is a\n"
        "  red square, customers blue dots, names beside them; no edges and no routes are drawn.\n"
        "  visual_1.png: the fleet line (vehicles, capacity) above a table of coordinates and demands.\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value and routes (lists of names from Depot to Depot).\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rule = cost_rule(instance)
    greedy, count = greedy_cost(instance)
    rows = "\n".join(
        f"| {n} | {x} | {y} | {instance['demands'][n]} |"
        for n, (x, y) in ((n, instance["coordinates"][n]) for n in instance["sets"]["nodes"])
    )
    routes = "\n".join(
        f"  - {' → '.join(route)} (load {load}, cost {cost:g})"
        for route, load, cost in zip(
            solution["routes"], solution["route_loads"], solution["route_costs"], strict=True
        )
    )
    return f"""# Capacitated vehicle routing problem — {record.instance_id}

## Sets
- $C$: customers ({len(instance["sets"]["customers"])}), depot $0$, $V = C \\cup \\{{0\\}}$
- $R$: every route $r \\subseteq C$ with $\\sum_{{i \\in r}} q_i \\le Q$ (a feasible load for one vehicle)

## Parameters
- $q_i$: demand of customer $i$; $Q = {instance["vehicle_capacity"]}$: vehicle capacity;
  $K = {instance["meta_parameters"]["number_vehicles"]}$: vehicles available
- $c_{{ij}}$: travel cost, the Euclidean distance between $i$ and $j$ ({rule}: {routing.rule_sentence(rule)})
- $c_r$: cost of the cheapest closed path from the depot through exactly the customers of $r$

## Decision variables
- $y_r \\in \\{{0, 1\\}}$: 1 if route $r$ is driven by a vehicle

## Objective
$$\\min \\; \\sum_{{r \\in R}} c_r y_r$$

## Constraints
- Each customer served once: $\\sum_{{r \\ni i}} y_r = 1$ for all $i \\in C$
- Fleet size: $\\sum_{{r \\in R}} y_r \\le K$

An equivalent arc formulation uses $x_{{ij}}$ for every leg, degree constraints and capacity
(rounded capacity or MTZ load) constraints; the set-partitioning form above is exact because
$c_r$ is computed exactly for every feasible customer subset (Held–Karp).

## Instance data

| node | x | y | demand |
|---|---:|---:|---:|
{rows}

## Instance notes
- Verified minimum total cost: **{solution["objective_value"]}** ({record.reference.method});
  cross-checked by {record.cross_check_method} (value {record.cross_check_objective:g}).
- Reference routes:
{routes}
- The nearest-feasible-customer greedy costs {greedy:g} with {count} routes.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (capacitated VRP), generated from the verified instance record.

Set partitioning over every capacity-feasible customer subset, each priced by its cheapest closed
path from the depot (Held-Karp dynamic program); HiGHS picks routes covering each customer once.
Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json
import math

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

DEPOT = {depot!r}
COORDINATES = {coordinates!r}
DEMANDS = {demands!r}
VEHICLES = {vehicles!r}
CAPACITY = {capacity!r}
DECIMALS = {decimals!r}  # legs rounded to this many decimals; None: exact distances


def leg(a: str, b: str) -> float:
    exact = math.dist(COORDINATES[a], COORDINATES[b])
    return exact if DECIMALS is None else round(exact, DECIMALS)


def solve() -> dict:
    customers = [c for c in COORDINATES if c != DEPOT]
    m = len(customers)
    # path[(mask, j)]: cheapest path from the depot through the customers of mask, ending at j
    path = {{(1 << j, j): (leg(DEPOT, customers[j]), -1) for j in range(m)}}
    for mask in range(1, 1 << m):
        for j in range(m):
            if (mask, j) not in path:
                continue
            value = path[(mask, j)][0]
            for k in range(m):
                if mask >> k & 1:
                    continue
                key = (mask | 1 << k, k)
                candidate = value + leg(customers[j], customers[k])
                if key not in path or candidate < path[key][0] - 1e-12:
                    path[key] = (candidate, j)
    columns, prices, lasts = [], [], []
    for mask in range(1, 1 << m):
        load = sum(DEMANDS[customers[j]] for j in range(m) if mask >> j & 1)
        if load > CAPACITY:
            continue
        ends = [j for j in range(m) if mask >> j & 1]
        price, last = min((path[(mask, j)][0] + leg(customers[j], DEPOT), j) for j in ends)
        columns.append(mask)
        prices.append(price)
        lasts.append(last)
    cover = np.array([[mask >> j & 1 for mask in columns] for j in range(m)], dtype=float)
    result = milp(
        np.array(prices),
        constraints=[
            LinearConstraint(cover, lb=1.0, ub=1.0),
            LinearConstraint(np.ones((1, len(columns))), lb=1.0, ub=float(VEHICLES)),
        ],
        integrality=np.ones(len(columns)),
        bounds=Bounds(0, 1),
    )
    if result.status != 0:
        return {{"status": "infeasible" if result.status == 2 else "error", "objective_value": None}}
    routes = []
    for index, value in enumerate(result.x):
        if value < 0.5:
            continue
        mask, end, order = columns[index], lasts[index], []
        while end >= 0:
            order.append(customers[end])
            mask, end = mask & ~(1 << end), path[(mask, end)][1]
        routes.append([DEPOT, *reversed(order), DEPOT])
    total = sum(leg(r[k], r[k + 1]) for r in routes for k in range(len(r) - 1))
    total = round(total, 4 if DECIMALS is None else DECIMALS) + 0.0
    return {{"status": "optimal", "objective_value": total, "routes": sorted(routes)}}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        depot=instance["depot"],
        coordinates={n: tuple(instance["coordinates"][n]) for n in instance["sets"]["nodes"]},
        demands={c: instance["demands"][c] for c in instance["sets"]["customers"]},
        vehicles=len(instance["sets"]["vehicles"]),
        capacity=instance["vehicle_capacity"],
        decimals=routing.rule_decimals(cost_rule(instance)),
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    n = meta["number_customers"]
    vehicles = meta["number_vehicles"]
    tightness = meta["total_demand"] / (vehicles * instance["vehicle_capacity"])
    greedy, count = greedy_cost(instance)
    tags = [
        meta["layout_type"],
        meta["cost_matrix_type"],
        f"customers_{n}",
        f"vehicles_{vehicles}",
        f"tightness_{round(tightness * 100)}pct",
    ]
    if count > vehicles:
        tags.append("greedy_needs_too_many_vehicles")
    elif abs(greedy - float(record.reference.solution["objective_value"])) > 1e-6:
        tags.append("greedy_suboptimal")
    if max(record.reference.solution["route_loads"]) == instance["vehicle_capacity"]:
        tags.append("capacity_binding")
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": (n + 1) * n * vehicles,
            "constraints": 2 * n + vehicles * (n + 2),
            "customers": n,
            "vehicles": vehicles,
        },
    )
