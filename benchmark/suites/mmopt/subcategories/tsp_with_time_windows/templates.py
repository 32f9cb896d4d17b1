"""Artifacts of a TSPTW package, all derived from the verified record.

The task text fixes the travel-time rule in words, the timing semantics and the output contract;
coordinates, windows and service times stay in the figures.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation import routing
from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.tsp_with_time_windows.generator import (
    grid_size,
    heuristic_summary,
    travel_rule,
)

READING = (
    "Two figures describe the instance. visual_0.png is a map on a square grid whose lines are one "
    "distance unit apart, numbered along the bottom (x coordinate) and the left side (y coordinate); "
    "the depot is the red square and every customer is a blue dot with its name (C followed by a "
    "number) beside it. visual_1.png is a table giving, for the depot and every customer, the exact "
    "coordinates (x, y), the time window (the earliest and the latest time at which service may "
    "start; for the depot, the time by which the vehicle must be back) and the service time. All "
    "data must be read from the figures; the table gives the exact values."
)
TASK = (
    "Task: a single vehicle leaves the depot at time zero, visits every customer exactly once and "
    "returns to the depot. Travel is possible between every pair of locations, in both directions, "
    "and the travel time of a leg equals its travel cost. {rule} Service at a customer must start "
    "within the customer's time window: a vehicle that arrives early waits until the window opens, "
    "and it may not arrive after the window closes. Service takes the customer's service time, after "
    "which the vehicle departs. The vehicle must be back at the depot no later than the depot's "
    "closing time. Minimize the total travel time of the tour (waiting and service times are not "
    "part of the objective)."
)
CONTRACT = output_contract(
    '- "status": "optimal" when an optimal tour is found;\n'
    '- "objective_value": the minimum total travel time, as a number;\n'
    '- "tour": the list of location names in visiting order, starting and ending at "Depot";\n'
    '- optionally "service_start_times": a dict location name -> the time service starts there.\n'
)


def rule_text(instance: dict) -> str:  # type: ignore[type-arg]
    return routing.rule_sentence(travel_rule(instance)).replace("cities", "locations")


def task_input(record: VerifiedRecord) -> str:
    title = "Travelling salesman problem with time windows (routing and tour optimization)"
    return task_text(title, READING, TASK.format(rule=rule_text(record.instance)), contract=CONTRACT)


def _rows(instance: dict) -> list[tuple[str, int, int, int, int, int]]:  # type: ignore[type-arg]
    return [
        (n, *instance["coordinates"][n], *instance["time_windows"][n], instance["service_times"][n])
        for n in instance["sets"]["nodes"]
    ]


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    rows = "\n".join(
        f"  {n:>5}: ({x}, {y}), window [{a}, {b}], service {s}" for n, x, y, a, b, s in _rows(instance)
    )
    grid = grid_size(instance)
    return (
        f"Instance {record.instance_id} - travelling salesman problem with time windows "
        f"({record.difficulty})\n\n"
        "Problem\n"
        f"  One vehicle leaves the depot at time 0, serves all {meta['number_customers']} customers once,\n"
        "  and returns by the depot's closing time; service starts inside each window (waiting\n"
        "  allowed) and lasts the service time; travel time = travel cost.\n\n"
        f"Locations (coordinates, time window, service time):\n{rows}\n\n"
        f"Travel-time rule: {meta['travel_time_rule']} ({rule_text(instance)})\n"
        f"Layout: {meta['layout_type']}; windows: {meta['window_tightness_type']}; "
        f"service times: {meta['service_time_type']}\n\n"
        "Objective\n  minimize the total travel time of the tour.\n\n"
        "Visual interpretation\n"
        f"  visual_0.png: map of the grid [0, {grid}] x [0, {grid}], one line per unit; the depot is a\n"
        "  red square, customers blue dots, names beside them; no edges and no tour are drawn.\n"
        "  visual_1.png: a table of coordinates, time windows and service times.\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value and tour (names from Depot back to Depot),\n"
        "  optionally service_start_times.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rule = travel_rule(instance)
    windowless, greedy = heuristic_summary(instance)
    rows = "\n".join(f"| {n} | {x} | {y} | {a} | {b} | {s} |" for n, x, y, a, b, s in _rows(instance))
    starts = ", ".join(f"{n} {t:g}" for n, t in solution["service_start_times"].items())
    greedy_note = "gets stuck (some window can no longer be met)" if greedy is None else f"costs {greedy:g}"
    return f"""# Travelling salesman problem with time windows — {record.instance_id}

## Sets
- $V = \\{{0\\}} \\cup C$: the depot $0$ and the customers $C$ ({len(instance["sets"]["customers"])})
- $A = \\{{(i, j) : i, j \\in V, i \\ne j\\}}$: every directed leg

## Parameters
- $c_{{ij}}$: travel time (= cost) of leg $(i, j)$, the Euclidean distance ({rule}: {rule_text(instance)})
- $[a_i, b_i]$: time window of customer $i$; $b_0$: the depot's closing time
- $s_i$: service time at $i$ ($s_0 = 0$)
- $M_{{ij}} = b_i + s_i + c_{{ij}} - a_j$: big-M of the time link on $(i, j)$

## Decision variables
- $x_{{ij}} \\in \\{{0, 1\\}}$: 1 if the vehicle drives leg $(i, j)$
- $t_i \\ge 0$: service start at customer $i$ ($t_0 = 0$, the departure); $r$: return time

## Objective
$$\\min \\; \\sum_{{(i, j) \\in A}} c_{{ij}} x_{{ij}}$$

## Constraints
- One leg out of and one into every node: $\\sum_j x_{{ij}} = 1$, $\\sum_j x_{{ji}} = 1$ for all $i \\in V$
- Time propagation: $t_j \\ge t_i + s_i + c_{{ij}} - M_{{ij}} (1 - x_{{ij}})$ for $(i, j) \\in A$, $j \\ne 0$
- Return: $r \\ge t_i + s_i + c_{{i0}} - M_{{i0}} (1 - x_{{i0}})$, $r \\le b_0$
- Windows: $a_i \\le t_i \\le b_i$ for $i \\in C$

Because every leg takes positive time, the time propagation also rules out subtours.

## Instance data

| node | x | y | opens | closes | service |
|---|---:|---:|---:|---:|---:|
{rows}

## Instance notes
- Verified minimum travel time: **{solution["objective_value"]}** ({record.reference.method});
  cross-checked by {record.cross_check_method} (value {record.cross_check_objective:g}).
- Reference tour: {" → ".join(solution["tour"])}; earliest service starts: {starts}.
- Without the windows the best tour costs {windowless:g}: the windows bind. The greedy that drives
  to the nearest customer whose window can still be met {greedy_note}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (TSP with time windows), generated from the verified record.

Arc model with big-M time propagation, solved by HiGHS through SciPy, in integer time units.
Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json
import math

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

DEPOT = {depot!r}
COORDINATES = {coordinates!r}
WINDOWS = {windows!r}
SERVICE = {service!r}
DECIMALS = {decimals!r}  # legs rounded to this many decimals


def solve() -> dict:
    names = [DEPOT] + [n for n in COORDINATES if n != DEPOT]
    n, scale = len(names), 10**DECIMALS
    cost = [[round(round(math.dist(COORDINATES[a], COORDINATES[b]), DECIMALS) * scale) for b in names]
            for a in names]
    opens = [0 if i == 0 else WINDOWS[names[i]][0] * scale for i in range(n)]
    closes = [WINDOWS[names[i]][1] * scale for i in range(n)]
    service = [SERVICE[name] * scale for name in names]
    arcs = [(i, j) for i in range(n) for j in range(n) if i != j]
    size = len(arcs) + n + 1  # x per arc, t per node, return time r
    t0, r = len(arcs), len(arcs) + n
    rows, low, high = [], [], []
    for node in range(n):
        for side in (0, 1):
            rows.append([1.0 if a < len(arcs) and arcs[a][side] == node else 0.0 for a in range(size)])
            low.append(1.0)
            high.append(1.0)
    for a, (i, j) in enumerate(arcs):
        leg = cost[i][j] + service[i]
        close = 0 if i == 0 else closes[i]
        target = r if j == 0 else t0 + j
        big = close + leg - (0 if j == 0 else opens[j])
        if big <= 0:
            continue
        row = [0.0] * size
        row[target], row[t0 + i], row[a] = 1.0, -1.0, -float(big)
        rows.append(row)
        low.append(float(leg - big))
        high.append(np.inf)
    lower, upper = np.zeros(size), np.ones(size)
    for a, (i, j) in enumerate(arcs):
        if opens[i] + service[i] + cost[i][j] > closes[j]:
            upper[a] = 0.0
    for i in range(n):
        lower[t0 + i], upper[t0 + i] = (opens[i], 0 if i == 0 else closes[i])
    lower[r], upper[r] = 0, closes[0]
    weights = np.array([float(cost[i][j]) for i, j in arcs] + [0.0] * (n + 1))
    integrality = np.array([1] * len(arcs) + [0] * (n + 1))
    result = milp(
        weights,
        constraints=[LinearConstraint(np.array(rows), lb=low, ub=high)],
        integrality=integrality,
        bounds=Bounds(lower, upper),
    )
    if result.status != 0:
        return {{"status": "infeasible" if result.status == 2 else "error", "objective_value": None}}
    successor = {{i: j for a, (i, j) in enumerate(arcs) if result.x[a] > 0.5}}
    order, node = [0], successor[0]
    while node != 0:
        order.append(node)
        node = successor[node]
    starts, time = {{DEPOT: 0.0}}, 0
    for previous, node in zip(order, order[1:]):
        time = max(time + service[previous] + cost[previous][node], opens[node])
        starts[names[node]] = round(time / scale, DECIMALS)
    tour = [names[i] for i in order] + [DEPOT]
    total = round(sum(cost[order[k]][order[(k + 1) % n]] for k in range(n)) / scale, DECIMALS) + 0.0
    return {{"status": "optimal", "objective_value": total, "tour": tour, "service_start_times": starts}}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    names = instance["sets"]["nodes"]
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        depot=instance["depot"],
        coordinates={n: tuple(instance["coordinates"][n]) for n in names},
        windows={n: tuple(instance["time_windows"][n]) for n in names},
        service={n: instance["service_times"][n] for n in names},
        decimals=routing.rule_decimals(travel_rule(instance)),
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    n = meta["number_customers"] + 1
    windowless, greedy = heuristic_summary(instance)
    optimum = float(record.reference.solution["objective_value"])
    tags = [
        meta["layout_type"],
        meta["travel_time_rule"],
        f"customers_{meta['number_customers']}",
        f"windows_{meta['window_tightness_type']}",
        f"service_{meta['service_time_type']}",
        f"windows_cost_{round((optimum / windowless - 1) * 100)}pct",
    ]
    if greedy is None:
        tags.append("greedy_gets_stuck")
    elif abs(greedy - optimum) > 1e-9:
        tags.append("greedy_suboptimal")
    if record.reference.solution["binding_time_window_nodes"]:
        tags.append("binding_windows_on_optimal_tour")
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": n * (n - 1) + n + 1,
            "constraints": 2 * n + n * (n - 1),
            "customers": meta["number_customers"],
        },
    )
