"""Artifacts of a TSP package, all derived from the verified record.

The task text fixes the cost rule in words and the output contract; cities and coordinates stay in
the figures.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation import routing
from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.travel_salesman_problem.generator import (
    cost_rule,
    grid_size,
    heuristic_costs,
)

READING = (
    "Two figures describe the instance. visual_0.png is a map on a square grid whose lines are one "
    "distance unit apart, numbered along the bottom (x coordinate) and the left side (y coordinate); "
    "every city is a marker with its name (a capital letter) beside it, and the start city {root} is "
    "the red square. visual_1.png is a table of the exact coordinates (x, y) of every city. All data "
    "must be read from the figures; the table gives the exact values."
)
TASK = (
    "Task: a salesman starts at city {root}, visits every other city exactly once and returns to "
    "{root}. Travel is possible between every pair of cities, in both directions at the same cost. "
    "{rule} Find a tour of minimum total travel cost. There are no capacities, time windows or "
    "forbidden legs."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal tour is found;
- "objective_value": the minimum total travel cost, as a number;
- "tour": the list of city names in visiting order, starting and ending at the start city (so the
  start city appears first and last, every other city exactly once).
"""
)


def task_input(record: VerifiedRecord) -> str:
    instance = record.instance
    root = instance["root_city"]
    task = TASK.format(root=root, rule=routing.rule_sentence(cost_rule(instance)))
    title = "Travelling salesman problem (routing and tour optimization)"
    return task_text(title, READING.format(root=root), task, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    names = instance["sets"]["nodes"]
    coordinates = "\n".join(
        f"  {n}: ({instance['coordinates'][n][0]}, {instance['coordinates'][n][1]})" for n in names
    )
    grid = grid_size(instance)
    meta = instance["meta_parameters"]
    return (
        f"Instance {record.instance_id} - travelling salesman problem ({record.difficulty})\n\n"
        "Problem\n"
        f"  One closed tour from the start city {instance['root_city']} through all {len(names)} cities,\n"
        "  each exactly once; complete symmetric graph, no other constraints.\n\n"
        f"Cities and coordinates:\n{coordinates}\n\n"
        f"Cost rule: {meta['cost_matrix_type']} ({routing.rule_sentence(meta['cost_matrix_type'])})\n"
        f"Layout: {meta['layout_type']}, {meta['cluster_count']} cluster(s)\n\n"
        "Objective\n  minimize the sum of the leg costs of the tour.\n\n"
        "Visual interpretation\n"
        f"  visual_0.png: map of the grid [0, {grid}] x [0, {grid}], one line per unit; the start city\n"
        "  is a red square, the others blue dots, names beside them; no edges and no tour are drawn.\n"
        "  visual_1.png: a table of every city's coordinates (x, y).\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value and tour (city names, start city first and last).\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rule = cost_rule(instance)
    greedy, improved = heuristic_costs(instance)
    rows = "\n".join(
        f"| {n} | {instance['coordinates'][n][0]} | {instance['coordinates'][n][1]} |"
        for n in instance["sets"]["nodes"]
    )
    return f"""# Travelling salesman problem — {record.instance_id}

## Sets
- $V$: cities ({len(instance["sets"]["nodes"])}), start city $s = {instance["root_city"]}$
- $E = \\{{\\{{i, j\\}} : i, j \\in V, i \\ne j\\}}$: the legs of the complete graph

## Parameters
- $c_{{ij}} = c_{{ji}}$: travel cost, the Euclidean distance between the coordinates of $i$ and $j$
  ({rule}: {routing.rule_sentence(rule)})

## Decision variables
- $x_e \\in \\{{0, 1\\}}$: 1 if the tour uses leg $e$

## Objective
$$\\min \\; \\sum_{{e \\in E}} c_e x_e$$

## Constraints
- Degree: $\\sum_{{e \\ni i}} x_e = 2$ for all $i \\in V$
- Subtour elimination: $\\sum_{{e \\subseteq S}} x_e \\le |S| - 1$ for all $S \\subset V$,
  $2 \\le |S| \\le |V| - 2$ (added lazily, only for the subtours an integer solution contains)

## Instance data

| city | x | y |
|---|---:|---:|
{rows}

## Instance notes
- Verified minimum tour cost: **{solution["objective_value"]}** ({record.reference.method});
  cross-checked by {record.cross_check_method} (value {record.cross_check_objective:g}).
- Reference tour: {" → ".join(solution["tour"])}. Optimal tours need not be unique; the minimum cost is.
- The nearest-neighbour tour from the start city costs {greedy:g}; 2-opt from it reaches {improved:g}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (travelling salesman), generated from the verified instance record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

START = {root!r}
COORDINATES = {coordinates!r}
DECIMALS = {decimals!r}  # legs rounded to this many decimals; None: exact distances


def leg(a: str, b: str) -> float:
    exact = math.dist(COORDINATES[a], COORDINATES[b])
    return exact if DECIMALS is None else round(exact, DECIMALS)


def solve() -> dict:
    cities = [START] + [c for c in COORDINATES if c != START]
    edges = list(itertools.combinations(range(len(cities)), 2))
    scale = 1 if DECIMALS is None else 10**DECIMALS  # integer units for rounded legs
    weights = np.array([round(leg(cities[i], cities[j]) * scale, 9) for i, j in edges])
    degree = np.zeros((len(cities), len(edges)))
    for e, (i, j) in enumerate(edges):
        degree[i, e] = degree[j, e] = 1.0
    cuts, limits = [], []
    while True:
        constraints = [LinearConstraint(degree, lb=2.0, ub=2.0)]
        if cuts:
            constraints.append(LinearConstraint(np.array(cuts), lb=-np.inf, ub=np.array(limits)))
        result = milp(weights, constraints=constraints, integrality=np.ones(len(edges)), bounds=Bounds(0, 1))
        if result.status != 0:
            return {{"status": "error", "objective_value": None}}
        neighbours = {{i: [] for i in range(len(cities))}}
        for e, (i, j) in enumerate(edges):
            if result.x[e] > 0.5:
                neighbours[i].append(j)
                neighbours[j].append(i)
        seen, parts = set(), []
        for start in range(len(cities)):
            if start in seen:
                continue
            part, stack = set(), [start]
            while stack:
                node = stack.pop()
                if node not in part:
                    part.add(node)
                    stack.extend(neighbours[node])
            seen |= part
            parts.append(part)
        if len(parts) == 1:
            break
        for part in parts:  # subtour elimination: at most |S| - 1 legs inside S
            cuts.append([1.0 if i in part and j in part else 0.0 for i, j in edges])
            limits.append(len(part) - 1.0)
    order, previous, node = [0], 0, min(neighbours[0])
    while node != 0:
        order.append(node)
        node, previous = next(x for x in neighbours[node] if x != previous), node
    tour = [cities[i] for i in order] + [START]
    total = sum(leg(tour[k], tour[k + 1]) for k in range(len(tour) - 1))
    total = round(total, 4 if DECIMALS is None else DECIMALS) + 0.0
    return {{"status": "optimal", "objective_value": total, "tour": tour}}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    coordinates = {n: tuple(instance["coordinates"][n]) for n in instance["sets"]["nodes"]}
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        root=instance["root_city"],
        coordinates=coordinates,
        decimals=routing.rule_decimals(cost_rule(instance)),
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    n = len(instance["sets"]["nodes"])
    greedy, improved = heuristic_costs(instance)
    optimum = float(record.reference.solution["objective_value"])
    tags = [meta["layout_type"], meta["cost_matrix_type"], f"cities_{n}", f"clusters_{meta['cluster_count']}"]
    if abs(greedy - optimum) > 1e-6:
        tags.append("nearest_neighbour_suboptimal")
    if abs(improved - optimum) > 1e-6:
        tags.append("two_opt_suboptimal")
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": n * (n - 1) // 2,
            "constraints": n,
            "nonzeros": n * (n - 1),
            "cities": n,
        },
    )
