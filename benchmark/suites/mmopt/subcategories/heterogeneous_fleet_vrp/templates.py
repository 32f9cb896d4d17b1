"""Artifacts of a heterogeneous-fleet VRP package, all derived from the verified record.

The task text fixes the distance rule and the cost of a route in words, the fleet semantics and the
output contract; coordinates, demands and the fleet's numbers stay in the figures.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.heterogeneous_fleet_vrp.generator import (
    decimals_of,
    greedy_cost,
    grid_size,
)

DECIMAL_WORDS = {0: "the nearest whole number", 1: "one decimal place", 2: "two decimal places"}
READING = (
    "Two figures describe the instance. visual_0.png is a map on a square grid whose lines are one "
    "distance unit apart, numbered along the bottom (x coordinate) and the left side (y coordinate); "
    "the depot is the red square and every customer is a blue dot with its name (C followed by a "
    "number) beside it. visual_1.png holds two tables: the fleet, one row per vehicle type (the "
    "number of vehicles of that type available, their capacity, the fixed cost paid once when a "
    "vehicle of that type is used, and its cost per unit of distance), and the exact coordinates "
    "(x, y) of the depot and of every customer with each customer's demand. All data must be read "
    "from the figures; the tables give the exact values. Vehicles of a type are named by the type "
    "followed by a number starting from one (for example the first two of a type VAN are VAN1 and VAN2)."
)
TASK = (
    "Task: every customer must be served by exactly one vehicle, which delivers the customer's whole "
    "demand in one visit. Each vehicle used drives one route that starts at the depot, visits some "
    "customers and returns to the depot; the total demand on a route may not exceed the capacity of "
    "the vehicle's type, and no more vehicles of a type may be used than are available (a vehicle "
    "may stay unused). Travel is possible between every pair of locations, in both directions. The "
    "base distance between two locations is the Euclidean distance between their coordinates, "
    "rounded to {decimals}. A used vehicle costs its type's fixed cost plus its cost per distance "
    "unit times the sum of the base distances of its route. Minimize the total cost of all routes."
)
CONTRACT = output_contract(
    '- "status": "optimal" when an optimal solution is found;\n'
    '- "objective_value": the minimum total cost, as a number;\n'
    '- "routes": a list with one entry per vehicle used, each the list of location names in visiting\n'
    '  order, starting and ending at "Depot" (for example ["Depot", "C3", "C1", "Depot"]);\n'
    '- "route_vehicle_ids": the vehicle driving each route, in the same order (for example "VAN1").\n'
)


def task_input(record: VerifiedRecord) -> str:
    title = "Heterogeneous fleet vehicle routing problem (routing and tour optimization)"
    task = TASK.format(decimals=DECIMAL_WORDS[decimals_of(record.instance)])
    return task_text(title, READING, task, contract=CONTRACT)


def _fleet_rows(instance: dict) -> list[str]:  # type: ignore[type-arg]
    return [
        f"  {name}: {v['available_count']} available, capacity {v['capacity']}, fixed cost "
        f"{v['fixed_activation_cost']:.1f}, cost per distance unit {v['distance_multiplier']:.2f}"
        for name, v in instance["vehicle_type_parameters"].items()
    ]


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    rows = "\n".join(
        f"  {n:>5}: ({instance['coordinates'][n][0]}, {instance['coordinates'][n][1]})"
        + ("" if n == instance["depot"] else f", demand {instance['demands'][n]}")
        for n in instance["sets"]["nodes"]
    )
    fleet = "\n".join(_fleet_rows(instance))
    grid = grid_size(instance)
    return (
        f"Instance {record.instance_id} - heterogeneous fleet vehicle routing problem "
        f"({record.difficulty})\n\n"
        "Problem\n"
        f"  Serve {meta['number_customers']} customers from the depot with vehicles of "
        f"{meta['number_vehicle_types']} types; each customer\n"
        "  visited once by one vehicle, no split deliveries; route load within the type's capacity,\n"
        "  at most the available number of vehicles per type.\n\n"
        f"Fleet:\n{fleet}\n\n"
        f"Depot and customers (coordinates, demand):\n{rows}\n\n"
        f"Total demand: {meta['total_demand']}; aggregate capacity: {meta['aggregate_capacity']}\n"
        f"Base distance: {instance['base_distance_type']} ({instance['base_distance_rule']['description']})\n"
        f"Layout: {meta['layout_type']}\n\n"
        "Objective\n  minimize the sum over used vehicles of fixed cost + cost per distance unit x\n"
        "  route distance.\n\n"
        "Visual interpretation\n"
        f"  visual_0.png: map of the grid [0, {grid}] x [0, {grid}], one line per unit; the depot is a\n"
        "  red square, customers blue dots, names beside them; no edges and no routes are drawn.\n"
        "  visual_1.png: the fleet table by vehicle type and the coordinate and demand table.\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value, routes (Depot to Depot) and route_vehicle_ids.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    greedy = greedy_cost(instance)
    rows = "\n".join(
        f"| {n} | {x} | {y} | {instance['demands'][n]} |"
        for n, (x, y) in ((n, instance["coordinates"][n]) for n in instance["sets"]["nodes"])
    )
    fleet = "\n".join(
        f"| {name} | {v['available_count']} | {v['capacity']} | {v['fixed_activation_cost']:.1f} | "
        f"{v['distance_multiplier']:.2f} |"
        for name, v in instance["vehicle_type_parameters"].items()
    )
    routes = "\n".join(
        f"  - {vehicle}: {' → '.join(route)} (load {load}, base distance {base:g}, cost {cost:g})"
        for vehicle, route, load, base, cost in zip(
            solution["route_vehicle_ids"],
            solution["routes"],
            solution["route_loads"],
            solution["route_base_distances"],
            solution["route_total_costs"],
            strict=True,
        )
    )
    greedy_note = "runs out of vehicles" if greedy is None else f"costs {greedy:g}"
    return f"""# Heterogeneous fleet vehicle routing problem — {record.instance_id}

## Sets
- $C$: customers ({len(instance["sets"]["customers"])}), depot $0$; $T$: vehicle types
- $R_t$: every route $r \\subseteq C$ with $\\sum_{{i \\in r}} q_i \\le Q_t$ (a feasible load for type $t$)

## Parameters
- $q_i$: demand of customer $i$; $Q_t$, $K_t$, $f_t$, $m_t$: capacity, number available, fixed cost
  and cost per distance unit of type $t$
- $d_{{ij}}$: base distance, the Euclidean distance rounded as stated ({instance["base_distance_type"]})
- $d_r$: length of the shortest closed path from the depot through exactly the customers of $r$
  (the same order is best for every type, since $m_t$ scales every leg alike)

## Decision variables
- $y_{{t,r}} \\in \\{{0, 1\\}}$: 1 if a vehicle of type $t$ drives route $r$

## Objective
$$\\min \\; \\sum_{{t \\in T}} \\sum_{{r \\in R_t}} (f_t + m_t d_r) \\, y_{{t,r}}$$

## Constraints
- Each customer served once: $\\sum_{{t}} \\sum_{{r \\ni i}} y_{{t,r}} = 1$ for all $i \\in C$
- Availability: $\\sum_{{r \\in R_t}} y_{{t,r}} \\le K_t$ for all $t \\in T$

An equivalent arc formulation has $x_{{ijk}}$ per leg and vehicle $k$, an activation binary per vehicle
and MTZ load variables; the set-partitioning form is exact because $d_r$ is computed exactly for
every feasible customer subset (Held–Karp).

## Instance data

| type | available | capacity | fixed cost | cost per distance unit |
|---|---:|---:|---:|---:|
{fleet}

| node | x | y | demand |
|---|---:|---:|---:|
{rows}

## Instance notes
- Verified minimum total cost: **{solution["objective_value"]}** ({record.reference.method});
  cross-checked by {record.cross_check_method} (value {record.cross_check_objective:g}).
- Reference routes:
{routes}
- The greedy that fills the largest vehicles first with the nearest customer that fits {greedy_note}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (heterogeneous fleet VRP), generated from the verified record.

Set partitioning over (vehicle type, customer subset) routes: each subset is priced by its shortest
closed path from the depot (Held-Karp) in base-distance units; HiGHS picks routes covering each
customer once within every type's capacity, once per fleet mix within the availability.
Integer units throughout.
Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

DEPOT = {depot!r}
COORDINATES = {coordinates!r}
DEMANDS = {demands!r}
TYPES = {types!r}  # name -> (available, capacity, fixed cost, cost per distance unit)
DECIMALS = {decimals!r}  # base distances rounded to this many decimals


def solve() -> dict:
    customers = [c for c in COORDINATES if c != DEPOT]
    m, scale = len(customers), 10**DECIMALS

    def leg(a: str, b: str) -> int:
        return round(round(math.dist(COORDINATES[a], COORDINATES[b]), DECIMALS) * scale)

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
                if key not in path or candidate < path[key][0]:
                    path[key] = (candidate, j)
    closed = {{}}
    for mask in range(1, 1 << m):
        ends = [j for j in range(m) if mask >> j & 1]
        closed[mask] = min((path[(mask, j)][0] + leg(customers[j], DEPOT), j) for j in ends)
    names = list(TYPES)
    columns, prices = [], []
    for t, name in enumerate(names):
        available, capacity, fixed, multiplier = TYPES[name]
        for mask in range(1, 1 << m):
            if sum(DEMANDS[customers[j]] for j in range(m) if mask >> j & 1) <= capacity:
                columns.append((t, mask))
                prices.append(round(fixed * 100 * scale) + round(multiplier * 100) * closed[mask][0])
    cover = np.array([[mask >> j & 1 for _, mask in columns] for j in range(m)], dtype=float)
    fleet = np.array([[1.0 if t == k else 0.0 for t, _ in columns] for k in range(len(names))])
    demand = sum(DEMANDS.values())
    best = None
    # one solve per fleet mix (vehicles of each type fixed): the fixed costs become constants and
    # each relaxation is tight; the cheapest mix wins
    for counts in itertools.product(*(range(TYPES[n][0] + 1) for n in names)):
        if sum(c * TYPES[n][1] for c, n in zip(counts, names)) < demand:
            continue
        result = milp(
            np.array(prices, dtype=float),
            constraints=[
                LinearConstraint(cover, lb=1.0, ub=1.0),
                LinearConstraint(fleet, lb=list(counts), ub=list(counts)),
            ],
            integrality=np.ones(len(columns)),
            bounds=Bounds(0, 1),
        )
        if result.status == 0 and (best is None or result.fun < best.fun - 0.5):
            best = result
    if best is None:
        return {{"status": "infeasible", "objective_value": None}}
    result = best
    routes, vehicles, used, total = [], [], {{}}, 0
    for index, value in enumerate(result.x):
        if value < 0.5:
            continue
        t, mask = columns[index]
        total += prices[index]
        order, end = [], closed[mask][1]
        while end >= 0:
            order.append(customers[end])
            mask, end = mask & ~(1 << end), path[(mask, end)][1]
        used[names[t]] = used.get(names[t], 0) + 1
        routes.append([DEPOT, *reversed(order), DEPOT])
        vehicles.append(f"{{names[t]}}{{used[names[t]]}}")
    objective = round(total / (100 * scale), DECIMALS + 2) + 0.0
    return {{
        "status": "optimal", "objective_value": objective, "routes": routes, "route_vehicle_ids": vehicles
    }}


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
        types={
            name: (v["available_count"], v["capacity"], v["fixed_activation_cost"], v["distance_multiplier"])
            for name, v in instance["vehicle_type_parameters"].items()
        },
        decimals=decimals_of(instance),
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    solution = record.reference.solution
    n = meta["number_customers"]
    vehicles = meta["number_available_vehicles"]
    greedy = greedy_cost(instance)
    tags = [
        meta["layout_type"],
        instance["base_distance_type"],
        f"customers_{n}",
        f"vehicle_types_{meta['number_vehicle_types']}",
        f"tightness_{round(meta['total_demand'] / meta['aggregate_capacity'] * 100)}pct",
        f"types_used_{len(set(solution['route_vehicle_types']))}",
    ]
    if greedy is None:
        tags.append("greedy_runs_out_of_vehicles")
    elif abs(greedy - float(solution["objective_value"])) > 1e-9:
        tags.append("greedy_suboptimal")
    if any(
        load == cap for load, cap in zip(solution["route_loads"], solution["route_capacities"], strict=True)
    ):
        tags.append("capacity_binding")
    used = {k: solution["route_vehicle_types"].count(k) for k in instance["vehicle_type_parameters"]}
    if any(used[k] == v["available_count"] for k, v in instance["vehicle_type_parameters"].items()):
        tags.append("availability_binding")
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": (n + 1) * n * vehicles + vehicles,
            "constraints": 2 * n + vehicles * (n + 3),
            "customers": n,
            "vehicles": vehicles,
        },
    )
