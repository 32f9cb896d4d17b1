"""Artifacts of a set covering/partitioning package, all derived from the verified record.

The task text names the variant (at least once or exactly once) and the output contract, and sends
the reader to the incidence matrix for every subset, element and cost.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.subcategories.set_covering_partitioning.generator import (
    PARTITIONING,
    elements_of,
    greedy_cost,
    subsets_of,
    variant_of,
)
from benchmark.suites.mmopt.subcategories.set_covering_partitioning.renderer import panels

_RULE = {
    "covering": (
        "Set covering",
        "at least once",
        "every element is contained in at least one selected subset (an element may be contained in "
        "several selected subsets)",
    ),
    "partitioning": (
        "Set partitioning",
        "exactly once",
        "every element is contained in exactly one selected subset (selected subsets may not share any "
        "element)",
    ),
}
WIDTH = 100
READING = (
    "The bold name at the left of a row is the subset's name (S followed by a number), and the number "
    'in the "cost" column of that row is the cost of selecting the subset. The bold names in the header '
    "row are the element names (e followed by a number). A dot in a cell means that the subset of that "
    "row contains the element of that column; an empty cell means it does not."
)
TASK = (
    "Task: select a family of subsets of least total cost such that {rule}. The total cost is the sum of "
    "the costs of the selected subsets. All subsets, elements, memberships and costs must be read from "
    "the {figure}."
)
CONTRACT = """\
Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the minimum total cost, as a number;
- "selected_subsets": the list of the names of the selected subsets, written as in the figure (for
  example "S" followed by the subset's number).
"""


def _figures(instance: Mapping[str, Any]) -> list[str]:
    return [f"visual_{index}.png" for index in range(len(panels(instance)))]


def task_input(instance: Mapping[str, Any]) -> str:
    title, _, rule = _RULE[variant_of(instance)]
    figures = _figures(instance)
    if len(figures) == 1:
        where = "The figure visual_0.png is a table with one row per subset and one column per element."
    else:
        where = (
            f"The figures {', '.join(figures[:-1])} and {figures[-1]} together form one table with one row "
            "per subset and one column per element; the rows are split between the figures, and each "
            "figure repeats the header row of element names."
        )
    paragraphs = [
        f"{title} (location, covering and assignment)",
        textwrap.fill(f"{where} {READING}", WIDTH),
        textwrap.fill(TASK.format(rule=rule, figure="figure" if len(figures) == 1 else "figures"), WIDTH),
        CONTRACT,
    ]
    return "\n\n".join(paragraphs)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    title, times, _ = _RULE[variant_of(instance)]
    subsets = "\n".join(
        f"  {s['id']:>4}: cost {s['cost']:>3}  elements {{{', '.join(s['elements'])}}}"
        for s in subsets_of(instance)
    )
    return (
        f"Instance {record.instance_id} - {title.lower()} ({record.difficulty})\n\n"
        "Problem\n"
        f"  Select subsets of least total cost so that every element lies in {times} selected subset.\n\n"
        f"Variant: {variant_of(instance)}\n"
        f"Elements ({len(elements_of(instance))}): {', '.join(elements_of(instance))}\n\n"
        f"Subsets ({len(subsets_of(instance))}; name, selection cost, members):\n{subsets}\n\n"
        "Objective\n  minimize the sum of the costs of the selected subsets.\n\n"
        "Visual interpretation\n"
        f"  {' + '.join(_figures(instance))}: an incidence matrix, a row per subset (bold name, then its\n"
        "  cost behind a heavy rule), a column per element; a dot marks membership. Rows are split\n"
        "  evenly over the figures, each repeating the element header. Heavier grid lines every five\n"
        "  rows and columns only help counting.\n\n"
        "Output contract\n  solve() returns status, objective_value and selected_subsets (subset names).\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    partition = variant_of(instance) == PARTITIONING
    relation = "=" if partition else "\\ge"
    rows = "\n".join(
        f"| {s['id']} | {s['cost']} | {', '.join(s['elements'])} |" for s in subsets_of(instance)
    )
    greedy = greedy_cost(instance)
    greedy_note = "gets stuck (no disjoint completion)" if greedy is None else f"costs {greedy}"
    return f"""# Set {variant_of(instance)} — {record.instance_id}

## Sets
- $E$: elements ({len(elements_of(instance))}: {", ".join(elements_of(instance))})
- $S$: candidate subsets ({len(subsets_of(instance))}), each $s \\subseteq E$

## Parameters
- $c_s$: cost of selecting subset $s$
- $a_{{es}} = 1$ if element $e$ belongs to subset $s$, else $0$

## Decision variables
- $x_s \\in \\{{0, 1\\}}$: 1 if subset $s$ is selected

## Objective
$$\\min \\; \\sum_{{s \\in S}} c_s x_s$$

## Constraints
- {"Partitioning" if partition else "Covering"}, for all $e \\in E$:
  $\\sum_{{s \\in S}} a_{{es}} x_s {relation} 1$

## Instance data

| subset | cost | elements |
|---|---:|---|
{rows}

## Instance notes
- Variant: {variant_of(instance)} (each element {"exactly once" if partition else "at least once"}).
- Verified minimum cost: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Reference selection: {", ".join(solution["selected_subsets"])}. Optimal selections need not be unique; the
  minimum cost is.
- The cheapest-per-newly-covered-element greedy {greedy_note}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (set {variant}), generated from the verified instance record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.sat.python import cp_model

VARIANT = {variant!r}  # "covering": each element at least once; "partitioning": exactly once
ELEMENTS = {elements!r}
SUBSETS = [  # (name, cost, elements)
{subsets}
]


def solve() -> dict:
    model = cp_model.CpModel()
    chosen = {{name: model.new_bool_var(name) for name, _, _ in SUBSETS}}
    for element in ELEMENTS:
        covering = sum(chosen[name] for name, _, members in SUBSETS if element in members)
        if VARIANT == "partitioning":
            model.add(covering == 1)
        else:
            model.add(covering >= 1)
    model.minimize(sum(cost * chosen[name] for name, cost, _ in SUBSETS))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60.0
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        failed = "infeasible" if status == cp_model.INFEASIBLE else "error"
        return {{"status": failed, "objective_value": None}}
    selected = [name for name, _, _ in SUBSETS if solver.boolean_value(chosen[name])]
    total = sum(cost for name, cost, _ in SUBSETS if name in selected)
    return {{
        "status": "optimal",
        "objective_value": total,
        "objective_exact": total,
        "selected_subsets": selected,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    subsets = "\n".join(f"    ({s['id']!r}, {s['cost']}, {s['elements']!r})," for s in subsets_of(instance))
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        variant=variant_of(instance),
        elements=list(elements_of(instance)),
        subsets=subsets,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    n_elements, n_subsets = len(elements_of(instance)), len(subsets_of(instance))
    nonzeros = sum(len(s["elements"]) for s in subsets_of(instance))
    tags = [f"variant_{variant_of(instance)}", f"elements_{n_elements}", f"subsets_{n_subsets}"]
    if variant_of(instance) == PARTITIONING:
        tags.append("planted_partitions")
    if greedy_cost(instance) != record.reference.solution["objective_exact"]:
        tags.append("greedy_suboptimal")
    return DerivedArtifacts(
        task_input=task_input(instance),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": n_subsets,
            "constraints": n_elements,
            "nonzeros": nonzeros,
            "elements": n_elements,
            "subsets": n_subsets,
        },
    )
