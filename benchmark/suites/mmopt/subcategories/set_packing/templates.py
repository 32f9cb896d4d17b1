"""Artifacts of a set packing package, all derived from the verified record."""

from __future__ import annotations

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.set_packing.generator import greedy_weight
from benchmark.suites.mmopt.subcategories.set_packing.renderer import panels

READING = (
    "The bold name at the left of a row is a candidate group (G followed by a number), and the number "
    'in the "weight" column of that row is what selecting the group earns. The bold capital letters in '
    "the header row are the items. A dot in a cell means that the group of that row contains the item "
    "of that column; an empty cell means it does not."
)
TASK = (
    "Task: select groups so that no item belongs to more than one selected group (the selected groups "
    "are pairwise disjoint), maximizing the total weight of the selected groups. Items may stay "
    "uncovered. All groups, items, memberships and weights must be read from the {figure}."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal selection is found;
- "objective_value": the maximum total weight, as a number;
- "selected_groups": the list of the names of the selected groups, written as in the figure.
"""
)


def task_input(record: VerifiedRecord) -> str:
    figures = [f"visual_{i}.png" for i in range(len(panels(record.instance)))]
    if len(figures) == 1:
        where = "The figure visual_0.png is a table with one row per candidate group and one column per item."
    else:
        where = (
            f"The figures {', '.join(figures[:-1])} and {figures[-1]} together form one table with one row "
            "per candidate group and one column per item; the rows are split between the figures, and "
            "each figure repeats the header row of items."
        )
    task = TASK.format(figure="figure" if len(figures) == 1 else "figures")
    title = "Set packing (combinatorial and logical models)"
    return task_text(title, f"{where} {READING}", task, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    rows = "\n".join(
        f"  {name:>4}: weight {g['weight']:>3}  items {{{', '.join(g['elements'])}}}"
        for name, g in instance["subsets"].items()
    )
    return (
        f"Instance {record.instance_id} - weighted set packing ({record.difficulty})\n\n"
        "Problem\n  Select pairwise disjoint groups of maximum total weight.\n\n"
        f"Items ({len(instance['sets']['items'])}): {', '.join(instance['sets']['items'])}\n\n"
        f"Groups ({len(instance['subsets'])}; name, weight, items):\n{rows}\n\n"
        "Objective\n  maximize the sum of the weights of the selected groups.\n\n"
        "Visual interpretation\n"
        "  incidence matrix, a row per group (bold name, weight behind a heavy rule), a column per item;\n"
        "  a dot marks membership; rows are split evenly over the figures.\n\n"
        "Output contract\n  solve() returns status, objective_value and selected_groups.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rows = "\n".join(
        f"| {name} | {g['weight']} | {', '.join(g['elements'])} |" for name, g in instance["subsets"].items()
    )
    return f"""# Weighted set packing — {record.instance_id}

## Sets
- $I$: items ({len(instance["sets"]["items"])}), $G$: candidate groups ({len(instance["subsets"])})

## Parameters
- $w_g$: weight of group $g$; $a_{{ig}} = 1$ if item $i$ belongs to group $g$

## Decision variables
- $x_g \\in \\{{0, 1\\}}$: 1 if group $g$ is selected

## Objective
$$\\max \\; \\sum_{{g \\in G}} w_g x_g$$

## Constraints
- Packing: $\\sum_{{g \\in G}} a_{{ig}} x_g \\le 1$ for all $i \\in I$

## Instance data

| group | weight | items |
|---|---:|---|
{rows}

## Instance notes
- Verified maximum weight: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Reference selection: {", ".join(solution["selected_groups"])}.
- The weight-per-item greedy reaches {greedy_weight(instance)}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (weighted set packing), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.sat.python import cp_model

ITEMS = {items!r}
GROUPS = [  # (name, weight, items)
{groups}
]


def solve() -> dict:
    model = cp_model.CpModel()
    take = {{name: model.new_bool_var(name) for name, _, _ in GROUPS}}
    for item in ITEMS:
        model.add_at_most_one(take[name] for name, _, members in GROUPS if item in members)
    model.maximize(sum(weight * take[name] for name, weight, _ in GROUPS))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60.0
    if solver.solve(model) != cp_model.OPTIMAL:
        return {{"status": "error", "objective_value": None}}
    chosen = [name for name, _, _ in GROUPS if solver.boolean_value(take[name])]
    value = sum(weight for name, weight, _ in GROUPS if name in chosen)
    return {{"status": "optimal", "objective_value": value, "selected_groups": chosen}}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    groups = "\n".join(
        f"    ({name!r}, {g['weight']}, {g['elements']!r})," for name, g in instance["subsets"].items()
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id, items=instance["sets"]["items"], groups=groups
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    n, m = len(instance["sets"]["items"]), len(instance["subsets"])
    nonzeros = sum(len(g["elements"]) for g in instance["subsets"].values())
    tags = [f"items_{n}", f"groups_{m}"]
    if greedy_weight(instance) < record.reference.solution["objective_value"]:
        tags.append("greedy_suboptimal")
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={"variables": m, "constraints": n, "nonzeros": nonzeros, "items": n, "groups": m},
    )
