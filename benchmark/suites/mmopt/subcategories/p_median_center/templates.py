"""Artifacts of a p-median / p-center package, all derived from the verified record.

The task text names the variant and its objective, the reading of both figures and the output
contract; p, coordinates and weights stay in the figures. It fixes the distance rule the scorer
applies: exact Euclidean distances, the objective rounded to four decimals, accepted within 1e-3.
"""

from __future__ import annotations

import textwrap

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.subcategories.p_median_center.generator import P_MEDIAN, dist

_READING = """\
Two figures describe the instance. visual_0.png is a map on a square grid whose lines are one
distance unit apart, numbered along the bottom (x coordinate) and the left side (y coordinate).
Blue diamonds are candidate sites (names starting with S) and orange dots are demand points (names
starting with D). visual_1.png states at the top the number p of sites to select, followed by a
table of every site's coordinates (x, y) and a table of every demand point's coordinates (x, y){weights}.
All data must be read from the figures; the tables give the exact values."""

_OBJECTIVE = {
    P_MEDIAN: """\
Task (p-median): select exactly p of the candidate sites and assign every demand point to one
selected site. Minimize the total weighted distance: the sum over all demand points of the point's
weight times the Euclidean distance from the point to the site it is assigned to.""",
    "p-center": """\
Task (p-center): select exactly p of the candidate sites and assign every demand point to one
selected site. Minimize the largest distance: the maximum over all demand points of the Euclidean
distance from the point to the site it is assigned to (demand points have no weights here).""",
}

TASK_TEMPLATE = """\
{title} (location, covering and assignment)

{reading}

{objective} Sites have no capacity limit and any demand point may be assigned to any selected site.
Compute distances exactly from the coordinates (do not round them); the objective is compared after
rounding to four decimal places, and answers within one thousandth of the verified optimum are
accepted.

Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the minimum {measure}, as a number;
- "selected": the list of the names of the p selected sites, written exactly as labelled in the
  figures (the letter S followed by the site's number);
- "assignment": a dict that maps every demand point's name (the letter D followed by its number) to
  the name of the selected site it is assigned to.
"""


def _rewrap(text: str) -> str:
    """Re-flow prose paragraphs filled from templates; list blocks stay as written."""
    blocks = []
    for block in text.strip("\n").split("\n\n"):
        lines = block.split("\n")
        prose = not any(line.startswith("- ") for line in lines)
        blocks.append(textwrap.fill(" ".join(lines), width=100) if prose else block)
    return "\n\n".join(blocks) + "\n"


def task_input(record: VerifiedRecord) -> str:
    median = record.instance["variant"] == P_MEDIAN
    return _rewrap(
        TASK_TEMPLATE.format(
            title="p-median" if median else "p-center",
            reading=_READING.format(weights=" and weight" if median else ""),
            objective=_OBJECTIVE[record.instance["variant"]],
            measure="total weighted distance" if median else "largest distance",
        )
    )


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    median = instance["variant"] == P_MEDIAN
    sites = "\n".join(f"  {s['name']:>4}: at ({s['x']}, {s['y']})" for s in instance["sites"])
    points = "\n".join(
        f"  {d['name']:>4}: at ({d['x']}, {d['y']})" + (f", weight {d['weight']}" if median else "")
        for d in instance["demand_points"]
    )
    grid = instance["grid_size"]
    objective = (
        "  minimize sum over demand points of weight x Euclidean distance to the assigned site"
        if median
        else "  minimize the maximum over demand points of the Euclidean distance to the assigned site"
    )
    return (
        f"Instance {record.instance_id} - {instance['variant']} ({record.difficulty})\n\n"
        "Problem\n"
        f"  Select exactly p = {instance['p']} of {len(instance['sites'])} candidate sites and assign\n"
        f"  each of {len(instance['demand_points'])} demand points to one selected site (no capacities,\n"
        "  no radius).\n\n"
        f"Candidate sites:\n{sites}\n\n"
        f"Demand points:\n{points}\n\n"
        f"Objective\n{objective};\n"
        "  distances exact, the value rounded to 4 decimals (scoring tolerance 1e-3).\n\n"
        "Visual interpretation\n"
        f"  visual_0.png: map of the grid [0, {grid}] x [0, {grid}], one line per\n"
        "  unit; blue diamonds = candidate sites, orange dots = demand points, names beside them.\n"
        f"  visual_1.png: 'Select exactly p = {instance['p']} sites', then tables of sites (x, y)\n"
        "  and demand points (x, y" + (", weight" if median else "") + ").\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value, selected (list of site names) and assignment\n"
        "  (dict demand point name -> site name).\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    median = instance["variant"] == P_MEDIAN
    site_of = {s["name"]: s for s in instance["sites"]}
    site_rows = "\n".join(f"| {s['name']} | {s['x']} | {s['y']} |" for s in instance["sites"])
    point_rows = "\n".join(
        f"| {d['name']} | {d['x']} | {d['y']} |" + (f" {d['weight']} |" if median else "")
        for d in instance["demand_points"]
    )
    assignment_rows = "\n".join(
        f"| {d['name']} | {solution['assignment'][d['name']]} | "
        f"{dist(site_of[solution['assignment'][d['name']]], d):.4f} |"
        for d in instance["demand_points"]
    )
    if median:
        objective = "$$\\min \\; \\sum_{i \\in D} \\sum_{j \\in S} w_i \\, \\delta_{ij} \\, x_{ij}$$"
        variables = ""
        extra = ""
    else:
        objective = "$$\\min \\; z$$"
        variables = "- $z \\ge 0$: the largest assignment distance\n"
        extra = "- Bound: $z \\ge \\sum_{j \\in S} \\delta_{ij} x_{ij}$ for all $i \\in D$\n"
    weight_header = " $w_i$ |" if median else ""
    weight_rule = "---:|" if median else ""
    return f"""# {instance["variant"]} — {record.instance_id}

## Sets
- $S$: candidate sites ({len(instance["sites"])}), $D$: demand points ({len(instance["demand_points"])})

## Parameters
- $p = {instance["p"]}$: number of sites to select
- $\\delta_{{ij}} = \\lVert q_i - s_j \\rVert_2$: exact Euclidean distance between point $i$ and site $j$
{"- $w_i$: weight of demand point $i$" + chr(10) if median else ""}
## Decision variables
- $y_j \\in \\{{0, 1\\}}$: site $j$ is selected
- $x_{{ij}} \\in \\{{0, 1\\}}$: point $i$ is assigned to site $j$
{variables}
## Objective
{objective}
reported rounded to four decimals (scoring tolerance $10^{{-3}}$).

## Constraints
- Exactly p sites: $\\sum_{{j \\in S}} y_j = p$
- Single assignment: $\\sum_{{j \\in S}} x_{{ij}} = 1$ for all $i \\in D$
- Only to selected sites: $x_{{ij}} \\le y_j$ for all $i \\in D, j \\in S$
{extra}
## Instance data

| site | x | y |
|---|---:|---:|
{site_rows}

| point | x | y |{weight_header}
|---|---:|---:|{weight_rule}
{point_rows}

## Reference solution
- Verified optimum: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Selected sites: {", ".join(solution["selected"])}.

| point | site | distance |
|---|---|---:|
{assignment_rows}
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} ({variant}), generated from the verified instance record.

Self-contained: the instance data is embedded below, nothing is read from disk. Distances are exact
Euclidean distances; the objective is rounded to four decimals at the end.
"""

from __future__ import annotations

import json
import math

import numpy as np
from scipy.optimize import LinearConstraint, milp

VARIANT = {variant!r}  # "p-median": sum of weight * distance; "p-center": largest distance
P = {p}
SITES = [  # name, x, y
{sites}
]
POINTS = [  # name, x, y, weight (1 for p-center, where weights play no role)
{points}
]


def solve() -> dict:
    n_s, n_d = len(SITES), len(POINTS)
    center = VARIANT == "p-center"
    n = n_s + n_s * n_d + (1 if center else 0)  # y_j, x_ij (row-major by point), z
    delta = [[math.dist(point[1:3], site[1:3]) for site in SITES] for point in POINTS]
    cost = np.zeros(n)
    if center:
        cost[-1] = 1.0
    else:
        for i, point in enumerate(POINTS):
            for j in range(n_s):
                cost[n_s + i * n_s + j] = point[3] * delta[i][j]
    rows, lower, upper = [], [], []
    row = np.zeros(n)
    row[:n_s] = 1.0
    rows.append(row)
    lower.append(P)
    upper.append(P)
    for i in range(n_d):
        row = np.zeros(n)
        row[n_s + i * n_s : n_s + (i + 1) * n_s] = 1.0
        rows.append(row)
        lower.append(1.0)
        upper.append(1.0)
        for j in range(n_s):
            row = np.zeros(n)
            row[n_s + i * n_s + j], row[j] = 1.0, -1.0
            rows.append(row)
            lower.append(-np.inf)
            upper.append(0.0)
        if center:
            row = np.zeros(n)
            row[n_s + i * n_s : n_s + (i + 1) * n_s] = delta[i]
            row[-1] = -1.0
            rows.append(row)
            lower.append(-np.inf)
            upper.append(0.0)
    integrality = np.ones(n)
    high = np.ones(n)
    if center:
        integrality[-1], high[-1] = 0, np.inf
    result = milp(
        cost,
        constraints=LinearConstraint(np.array(rows), lower, upper),
        integrality=integrality,
        bounds=(np.zeros(n), high),
        options={{"mip_rel_gap": 0.0}},
    )
    if result.status != 0:
        return {{"status": "error", "objective_value": None}}
    selected = [SITES[j][0] for j in range(n_s) if result.x[j] > 0.5]
    chosen = [j for j in range(n_s) if result.x[j] > 0.5]
    assignment, terms = {{}}, []
    for i, point in enumerate(POINTS):
        j = min(chosen, key=lambda j: delta[i][j])  # the nearest selected site is optimal
        assignment[point[0]] = SITES[j][0]
        terms.append(point[3] * delta[i][j])
    value = max(terms) if center else sum(terms)
    return {{
        "status": "optimal",
        "objective_value": round(value, 4) + 0.0,
        "selected": selected,
        "assignment": assignment,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    median = instance["variant"] == P_MEDIAN
    sites = "\n".join(f"    ({s['name']!r}, {s['x']}, {s['y']})," for s in instance["sites"])
    points = "\n".join(
        f"    ({d['name']!r}, {d['x']}, {d['y']}, {d['weight'] if median else 1}),"
        for d in instance["demand_points"]
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        variant=instance["variant"],
        p=instance["p"],
        sites=sites,
        points=points,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    n_s, n_d = len(instance["sites"]), len(instance["demand_points"])
    center = instance["variant"] != P_MEDIAN
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=(instance["variant"], "euclidean_distance", f"p_{instance['p']}", f"sites_{n_s}"),
        formulation_size={
            "variables": n_s + n_s * n_d + (1 if center else 0),
            "binary_variables": n_s + n_s * n_d,
            "constraints": 1 + n_d + n_s * n_d + (n_d if center else 0),
            "sites": n_s,
            "demand_points": n_d,
            "p": instance["p"],
        },
        meta_extra={"variant": instance["variant"]},
    )
