"""Artifacts of a facility-location package, all derived from the verified record.

The task text (App. D.7 Example B) states the objective, the rules, how to read the two figures and
the output contract; every number (coordinates, costs, radii, capacities, demands) stays in the
figures. It fixes the distance rule the scorer applies: exact Euclidean distances, the total
rounded to four decimals, answers accepted within 1e-3.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.spatial import number_text
from benchmark.suites.mmopt.subcategories.facility_location.generator import (
    REGIMES,
    customer_names,
    dist,
    facility_loads,
    facility_names,
    is_capacitated,
)

#: How the task text, the specification and the solver name the official ``variant_type``.
VARIANT_NAMES = {"UFL": "uncapacitated", "CFL": "capacitated_single_source"}

_READING = """\
Two figures describe the instance. visual_0.png is a map on a square grid whose lines are one
distance unit apart, numbered along the bottom (x coordinate) and the left side (y coordinate).
Triangles are candidate facilities (names starting with F) and squares are customers (names
starting with C). The dashed circle drawn in a facility's colour is that facility's coverage area.
visual_1.png holds two tables: for every facility its coordinates (x, y), opening cost,
{facility_columns}; for every customer its coordinates (x, y) and demand. All data must be read
from the figures; the tables give the exact values, the map shows where everything lies."""

_CAPACITY_RULE = """\
Each facility has a capacity: the total demand of the customers assigned to it may not exceed its
capacity. Every customer is served entirely by one facility (its demand is not split)."""

_UNCAPACITATED_RULE = "Facilities have no capacity limit."

TASK_TEMPLATE = """\
Facility location ({kind}; location, covering and assignment)

{reading}

Task: decide which facilities to open and assign every customer to exactly one open facility. A
customer may be assigned to a facility only if the straight-line (Euclidean) distance between them
is at most that facility's coverage radius, i.e. the customer lies inside or on the facility's
circle. {capacity_rule}

The total cost is the sum of the opening costs of all open facilities plus, for every customer, its
demand times the Euclidean distance from the customer to the facility it is assigned to. Minimize
the total cost. Compute distances exactly from the coordinates (do not round them); the objective
is compared after rounding to four decimal places, and answers within one thousandth of the
verified optimum are accepted.

Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the minimum total cost, as a number;
- "open_facilities": the list of the names of the facilities that are opened, written exactly as
  labelled in the figures (the letter F followed by the facility's number);
- "assignments": a dict that maps every customer's name (the letter C followed by its number) to the
  name of the facility serving it.
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
    capacitated = is_capacitated(record.instance)
    return _rewrap(
        TASK_TEMPLATE.format(
            kind="capacitated, single-source" if capacitated else "uncapacitated",
            reading=_READING.format(
                facility_columns="capacity and coverage radius" if capacitated else "and coverage radius"
            ),
            capacity_rule=_CAPACITY_RULE if capacitated else _UNCAPACITATED_RULE,
        )
    )


def _facility_lines(instance: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(name, instance["facility"][name]) for name in facility_names(instance)]


def _customer_lines(instance: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(name, instance["customer"][name]) for name in customer_names(instance)]


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    capacitated = is_capacitated(instance)
    facilities = "\n".join(
        f"  {name:>4}: at ({f['xy'][0]}, {f['xy'][1]}), opening cost {f['open_cost']}, "
        + (f"capacity {f['capacity']}, " if capacitated else "")
        + f"coverage radius {number_text(f['radius'])}"
        for name, f in _facility_lines(instance)
    )
    customers = "\n".join(
        f"  {name:>4}: at ({c['xy'][0]}, {c['xy'][1]}), demand {c['demand']}; covered by "
        + ", ".join(instance["feasible_assignments"][name])
        for name, c in _customer_lines(instance)
    )
    grid = REGIMES[record.difficulty].grid
    capacity_line = (
        "  Capacitated, single source: each facility's assigned demand is at most its capacity.\n"
        if capacitated
        else "  Uncapacitated.\n"
    )
    variant = VARIANT_NAMES[instance["variant_type"]]
    return (
        f"Instance {record.instance_id} - facility location ({record.difficulty}, {variant})\n\n"
        "Problem\n"
        "  Open a subset of candidate facilities and assign each customer to exactly one open facility\n"
        "  whose coverage circle contains it (Euclidean distance <= coverage radius).\n"
        f"{capacity_line}\n"
        f"Facilities ({len(instance['facility'])}):\n{facilities}\n\n"
        f"Customers ({len(instance['customer'])}):\n{customers}\n\n"
        "Objective\n"
        "  minimize sum of opening costs of open facilities + sum over customers of demand x Euclidean\n"
        "  distance to the assigned facility; distances exact, the total rounded to 4 decimals\n"
        "  (scoring tolerance 1e-3).\n\n"
        "Visual interpretation\n"
        f"  visual_0.png: map of the grid [0, {grid}] x [0, {grid}], one line per\n"
        "  unit; triangles = facilities (bold coloured names), squares = customers; dashed circle in a\n"
        "  facility's colour = its coverage area.\n"
        "  visual_1.png: tables of facilities (x, y, opening cost, "
        + ("capacity, " if capacitated else "")
        + "coverage radius) and customers (x, y, demand).\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value, open_facilities (list of names) and assignments\n"
        "  (dict customer name -> facility name).\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    capacitated = is_capacitated(instance)
    facility_rows = "\n".join(
        f"| {name} | {f['xy'][0]} | {f['xy'][1]} | {f['open_cost']} | "
        + (f"{f['capacity']} | " if capacitated else "")
        + f"{number_text(f['radius'])} |"
        for name, f in _facility_lines(instance)
    )
    customer_rows = "\n".join(
        f"| {name} | {c['xy'][0]} | {c['xy'][1]} | {c['demand']} |" for name, c in _customer_lines(instance)
    )
    served_by = solution["assignments"]
    loads = facility_loads(instance, served_by)
    assignment_rows = "\n".join(
        f"| {name} | {served_by[name]} | {dist(instance, served_by[name], name):.4f} |"
        for name in customer_names(instance)
    )
    capacity_constraint = (
        "- Capacity: $\\sum_{c \\in C} d_c x_{cf} \\le Q_f y_f$ for all $f \\in F$\n" if capacitated else ""
    )
    capacity_header = " $Q_f$ |" if capacitated else ""
    capacity_rule = "---:|" if capacitated else ""
    load_note = (
        "- Load of each open facility at the reference optimum (assigned demand / capacity): "
        + ", ".join(
            f"{name} {loads[name]}/{f['capacity']}"
            for name, f in _facility_lines(instance)
            if name in solution["open_facilities"]
        )
        + ".\n"
        if capacitated
        else ""
    )
    n_f, n_c = len(instance["facility"]), len(instance["customer"])
    return f"""# Facility location ({VARIANT_NAMES[instance["variant_type"]]}) — {record.instance_id}

## Sets
- $F$: candidate facilities ({n_f}), $C$: customers ({n_c})
- $A = \\{{(c, f) : \\lVert p_c - p_f \\rVert_2 \\le r_f\\}}$: admissible (covered) pairs

## Parameters
- $p_f, p_c$: integer grid coordinates
- $\\delta_{{cf}} = \\lVert p_c - p_f \\rVert_2$: exact Euclidean distance
- $o_f$: opening cost, $r_f$: coverage radius{", $Q_f$: capacity" if capacitated else ""} of facility $f$
- $d_c$: demand of customer $c$

## Decision variables
- $y_f \\in \\{{0, 1\\}}$: facility $f$ is open
- $x_{{cf}} \\in \\{{0, 1\\}}$ for $(c, f) \\in A$: customer $c$ is served by facility $f$

## Objective
$$\\min \\; \\sum_{{f \\in F}} o_f y_f + \\sum_{{(c, f) \\in A}} d_c \\, \\delta_{{cf}} \\, x_{{cf}}$$
reported rounded to four decimals (scoring tolerance $10^{{-3}}$).

## Constraints
- Single assignment: $\\sum_{{f : (c, f) \\in A}} x_{{cf}} = 1$ for all $c \\in C$
- Open before use: $x_{{cf}} \\le y_f$ for all $(c, f) \\in A$
{capacity_constraint}- Coverage: $x_{{cf}} = 0$ for $(c, f) \\notin A$ (no variable)

## Instance data

| facility | x | y | $o_f$ |{capacity_header} $r_f$ |
|---|---:|---:|---:|{capacity_rule}---:|
{facility_rows}

| customer | x | y | $d_c$ |
|---|---:|---:|---:|
{customer_rows}

## Reference solution
- Verified minimum total cost: **{solution["objective_value"]}** ({record.reference.method}); cross-checked
  by {record.cross_check_method} (value {record.cross_check_objective:g}).
- Open facilities: {", ".join(solution["open_facilities"])} (of {n_f}).
{load_note}
| customer | facility | distance |
|---|---|---:|
{assignment_rows}
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (facility location, {variant}), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk. Distances are exact
Euclidean distances; the objective is rounded to four decimals at the end.
"""

from __future__ import annotations

import json
import math

import numpy as np
from scipy.optimize import LinearConstraint, milp

# name, x, y, opening cost, capacity (None: uncapacitated), coverage radius
FACILITIES = [
{facilities}
]
# name, x, y, demand
CUSTOMERS = [
{customers}
]


def solve() -> dict:
    n_f = len(FACILITIES)
    pairs = [
        (i, j)
        for j, (_, cx, cy, _) in enumerate(CUSTOMERS)
        for i, (_, fx, fy, _, _, radius) in enumerate(FACILITIES)
        if (fx - cx) ** 2 + (fy - cy) ** 2 <= radius**2
    ]
    n = n_f + len(pairs)
    cost = np.zeros(n)
    cost[:n_f] = [f[3] for f in FACILITIES]
    for k, (i, j) in enumerate(pairs):
        cost[n_f + k] = CUSTOMERS[j][3] * math.dist(FACILITIES[i][1:3], CUSTOMERS[j][1:3])
    rows, lower, upper = [], [], []
    for j in range(len(CUSTOMERS)):  # every customer served exactly once
        row = np.zeros(n)
        row[[n_f + k for k, (_, jj) in enumerate(pairs) if jj == j]] = 1.0
        rows.append(row)
        lower.append(1.0)
        upper.append(1.0)
    for k, (i, _) in enumerate(pairs):  # only by an open facility
        row = np.zeros(n)
        row[n_f + k], row[i] = 1.0, -1.0
        rows.append(row)
        lower.append(-np.inf)
        upper.append(0.0)
    for i, facility in enumerate(FACILITIES):  # within capacity
        if facility[4] is None:
            continue
        row = np.zeros(n)
        for k, (ii, j) in enumerate(pairs):
            if ii == i:
                row[n_f + k] = CUSTOMERS[j][3]
        row[i] = -facility[4]
        rows.append(row)
        lower.append(-np.inf)
        upper.append(0.0)
    result = milp(
        cost,
        constraints=LinearConstraint(np.array(rows), lower, upper),
        integrality=np.ones(n),
        bounds=(0, 1),
        options={{"mip_rel_gap": 0.0}},
    )
    if result.status != 0:
        return {{"status": "infeasible" if result.status == 2 else "error", "objective_value": None}}
    open_facilities = [FACILITIES[i][0] for i in range(n_f) if result.x[i] > 0.5]
    assignment = {{
        CUSTOMERS[j][0]: FACILITIES[i][0] for k, (i, j) in enumerate(pairs) if result.x[n_f + k] > 0.5
    }}
    location = {{f[0]: f for f in FACILITIES}}
    total = sum(location[name][3] for name in open_facilities) + sum(
        demand * math.dist((x, y), location[assignment[name]][1:3]) for name, x, y, demand in CUSTOMERS
    )
    return {{
        "status": "optimal",
        "objective_value": round(total, 4) + 0.0,
        "open_facilities": open_facilities,
        "assignments": assignment,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    facilities = "\n".join(
        f"    ({name!r}, {f['xy'][0]}, {f['xy'][1]}, {f['open_cost']}, {f.get('capacity')!r}, "
        f"{f['radius']!r}),"
        for name, f in _facility_lines(instance)
    )
    customers = "\n".join(
        f"    ({name!r}, {c['xy'][0]}, {c['xy'][1]}, {c['demand']})," for name, c in _customer_lines(instance)
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        variant=VARIANT_NAMES[instance["variant_type"]],
        facilities=facilities,
        customers=customers,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    n_f, n_c = len(instance["facility"]), len(instance["customer"])
    covered = sum(map(len, instance["feasible_assignments"].values()))
    capacitated = is_capacitated(instance)
    tags = [
        VARIANT_NAMES[instance["variant_type"]],
        "euclidean_distance",
        "coverage_radius",
        f"facilities_{n_f}",
        f"customers_{n_c}",
    ]
    if capacitated:
        tags.append("binding_capacity" if record.difficulty == "hard" else "capacity")
    opened = len(record.reference.solution["open_facilities"])
    constraints = n_c + covered + (n_f if capacitated else 0)
    meta_extra: dict[str, Any] = {  # the official meta.json fields
        "variant_type": instance["variant_type"],
        "number_of_facilities": n_f,
        "number_of_customers": n_c,
        "total_demand": sum(c["demand"] for c in instance["customer"].values()),
        "assignment_graph_density": instance["assignment_graph_density"],
        "structural_extension": instance["structural_extension"]["type"],
        "optimal_objective_value": record.reference.objective,
    }
    if capacitated:
        meta_extra["total_capacity"] = sum(f["capacity"] for f in instance["facility"].values())
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=(*tags, f"open_{opened}_of_{n_f}"),
        formulation_size={  # the official names, and the project's variables / constraints
            "num_binary_y": n_f,
            "num_binary_x": covered,
            "num_variables_total": n_f + covered,
            "num_constraints_total": constraints,
            "variables": n_f + covered,
            "constraints": constraints,
        },
        meta_extra=meta_extra,
    )
