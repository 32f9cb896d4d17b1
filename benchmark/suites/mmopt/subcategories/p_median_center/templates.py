"""Artifacts of a p-median / p-center package, all derived from the verified record.

The task text names the variant and its objective, the reading of both figures and the output
contract; p, coordinates and weights stay in the figures. It fixes the distance rule the scorer
applies: exact Euclidean distances, the objective rounded to four decimals, accepted within 1e-3.
"""

from __future__ import annotations

import textwrap

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.subcategories.p_median_center.generator import (
    P_CENTER,
    P_MEDIAN,
    TITLES,
    dist,
    grid_size,
    is_median,
    points,
    sites,
    weight,
)

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
    P_CENTER: """\
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
- "open_sites": the list of the names of the p selected sites, written exactly as labelled in the
  figures (the letter S followed by the site's number);
- "assignments": a dict that maps every demand point's name (the letter D followed by its number) to
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
    median = is_median(record.instance)
    return _rewrap(
        TASK_TEMPLATE.format(
            title=TITLES[record.instance["variant_type"]],
            reading=_READING.format(weights=" and weight" if median else ""),
            objective=_OBJECTIVE[record.instance["variant_type"]],
            measure="total weighted distance" if median else "largest distance",
        )
    )


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    median = is_median(instance)
    site_lines = "\n".join(f"  {name:>4}: at ({x}, {y})" for name, x, y in sites(instance))
    point_lines = "\n".join(
        f"  {name:>4}: at ({x}, {y})" + (f", weight {weight(instance, name)}" if median else "")
        for name, x, y in points(instance)
    )
    grid = grid_size(instance)
    p = instance["p_value"]
    objective = (
        "  minimize sum over demand points of weight x Euclidean distance to the assigned site"
        if median
        else "  minimize the maximum over demand points of the Euclidean distance to the assigned site"
    )
    return (
        f"Instance {record.instance_id} - {TITLES[instance['variant_type']]} ({record.difficulty})\n\n"
        "Problem\n"
        f"  Select exactly p = {p} of {len(sites(instance))} candidate sites and assign\n"
        f"  each of {len(points(instance))} demand points to one selected site (no capacities,\n"
        "  no radius).\n\n"
        f"Candidate sites:\n{site_lines}\n\n"
        f"Demand points:\n{point_lines}\n\n"
        f"Objective\n{objective};\n"
        "  distances exact, the value rounded to 4 decimals (scoring tolerance 1e-3).\n\n"
        "Visual interpretation\n"
        f"  visual_0.png: map of the grid [0, {grid}] x [0, {grid}], one line per\n"
        "  unit; blue diamonds = candidate sites, orange dots = demand points, names beside them.\n"
        f"  visual_1.png: 'Select exactly p = {p} sites', then tables of sites (x, y)\n"
        "  and demand points (x, y" + (", weight" if median else "") + ").\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value, open_sites (list of site names) and assignments\n"
        "  (dict demand point name -> site name).\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    median = is_median(instance)
    assigned = solution["assignments"]
    site_rows = "\n".join(f"| {name} | {x} | {y} |" for name, x, y in sites(instance))
    point_rows = "\n".join(
        f"| {name} | {x} | {y} |" + (f" {weight(instance, name)} |" if median else "")
        for name, x, y in points(instance)
    )
    assignment_rows = "\n".join(
        f"| {name} | {assigned[name]} | {dist(instance, name, assigned[name]):.4f} |"
        for name, _, _ in points(instance)
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
    return f"""# {TITLES[instance["variant_type"]]} — {record.instance_id}

## Sets
- $S$: candidate sites ({len(sites(instance))}), $D$: demand points ({len(points(instance))})

## Parameters
- $p = {instance["p_value"]}$: number of sites to select
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
- Selected sites: {", ".join(solution["open_sites"])}.

| point | site | distance |
|---|---|---:|
{assignment_rows}
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} ({title}), generated from the verified instance record.

Self-contained: the instance data is embedded below, nothing is read from disk. Distances are exact
Euclidean distances; the objective is rounded to four decimals at the end.
"""

from __future__ import annotations

import json
import math

import numpy as np
from scipy.optimize import LinearConstraint, milp

VARIANT = {variant!r}  # "p_median": sum of weight * distance; "p_center": largest distance
P = {p}
SITES = [  # name, x, y
{sites}
]
POINTS = [  # name, x, y, weight (1 for p-center, where weights play no role)
{points}
]


def solve() -> dict:
    n_s, n_d = len(SITES), len(POINTS)
    center = VARIANT == "p_center"
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
        "objective_exact": round(value, 4) + 0.0,
        "objective_value": round(value, 4) + 0.0,
        "open_sites": selected,
        "assignments": assignment,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    site_lines = "\n".join(f"    ({name!r}, {x}, {y})," for name, x, y in sites(instance))
    point_lines = "\n".join(
        f"    ({name!r}, {x}, {y}, {weight(instance, name)})," for name, x, y in points(instance)
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        variant=instance["variant_type"],
        title=TITLES[instance["variant_type"]],
        p=instance["p_value"],
        sites=site_lines,
        points=point_lines,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    n_s, n_d = len(sites(instance)), len(points(instance))
    center = not is_median(instance)
    variant = instance["variant_type"]
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=(TITLES[variant], "euclidean_distance", f"p_{instance['p_value']}", f"sites_{n_s}"),
        formulation_size={
            "variables": n_s + n_s * n_d + (1 if center else 0),
            "binary_variables": n_s + n_s * n_d,
            "constraints": 1 + n_d + n_s * n_d + (n_d if center else 0),
            "sites": n_s,
            "demand_points": n_d,
            "p": instance["p_value"],
        },
        meta_extra={  # the official release's meta.json fields
            "variant_type": variant,
            "number_of_candidates": n_s,
            "number_of_demand_points": n_d,
            "p_value": instance["p_value"],
            "distance_metric": instance["distance_metric"],
        },
    )
