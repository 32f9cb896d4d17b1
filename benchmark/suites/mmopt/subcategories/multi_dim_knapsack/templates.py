"""Artifacts of a multi-dimensional knapsack package, all derived from the verified record."""

from __future__ import annotations

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.multi_dim_knapsack.generator import greedy_value
from benchmark.suites.mmopt.subcategories.multi_dim_knapsack.renderer import panels

READING = (
    "The figure visual_0.png is a table with one column per item; the bold numbers in the header are "
    'the item numbers.{split} The row "value" gives each item\'s value, and each row named R followed '
    'by a number gives how much of that resource the item uses. The last column, "capacity", gives '
    "how much of each resource is available in total. All data must be read from the figure."
)
SPLIT = (
    " The items are split over several stacked parts of the table; the capacity column is in the last part."
)
TASK = (
    "Task: select a set of items, each at most once, so that for every resource the total use of the "
    "selected items does not exceed its capacity, and the total value of the selected items is as "
    "large as possible."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal selection is found;
- "objective_value": the maximum total value, as a number;
- "selected_items": the list of the numbers of the selected items.
"""
)


def task_input(record: VerifiedRecord) -> str:
    split = SPLIT if len(panels(record.instance)) > 1 else ""
    title = "Multi-dimensional knapsack (combinatorial and logical models)"
    return task_text(title, READING.format(split=split), TASK, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    resources = instance["sets"]["resources"]
    rows = "\n".join(
        f"  item {i:>2}: value {instance['values'][i - 1]:>3}, uses "
        + ", ".join(f"{name} {instance['weights'][i - 1][r]}" for r, name in enumerate(resources))
        for i in instance["sets"]["items"]
    )
    capacities = ", ".join(f"{name} {c}" for name, c in zip(resources, instance["capacities"], strict=True))
    return (
        f"Instance {record.instance_id} - multi-dimensional knapsack ({record.difficulty})\n\n"
        "Problem\n"
        "  Select items (each at most once) of maximum total value within every resource capacity.\n\n"
        f"Items:\n{rows}\n\nCapacities: {capacities}\n"
        f"Correlation: {meta['profit_weight_correlation_type']}; "
        f"tightness: {meta['capacity_tightness_type']}\n\n"
        "Objective\n  maximize the total value of the selected items.\n\n"
        "Visual interpretation\n"
        "  visual_0.png: columns = items (value row, one row per resource), last column = capacities;\n"
        "  long item lists are split into stacked parts.\n\n"
        "Output contract\n  solve() returns status, objective_value and selected_items (item numbers).\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    return f"""# Multi-dimensional knapsack — {record.instance_id}

## Sets
- $I$: items ({len(instance["sets"]["items"])}), $R$: resources ({", ".join(instance["sets"]["resources"])})

## Parameters
- $p_i$: value of item $i$; $w_{{ir}}$: use of resource $r$ by item $i$; $C_r$: capacity of resource $r$

## Decision variables
- $x_i \\in \\{{0, 1\\}}$: 1 if item $i$ is selected

## Objective
$$\\max \\; \\sum_{{i \\in I}} p_i x_i$$

## Constraints
- Capacity: $\\sum_{{i \\in I}} w_{{ir}} x_i \\le C_r$ for all $r \\in R$

## Instance notes
- Values: {instance["values"]}
- Weights (per item, per resource): {instance["weights"]}
- Capacities: {instance["capacities"]}
- Verified maximum value: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Reference selection: {solution["selected_items"]}; binding resources {solution["binding_constraints"]}.
- The value-per-weight greedy reaches {greedy_value(instance)}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (multi-dimensional knapsack), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.sat.python import cp_model

VALUES = {values!r}
WEIGHTS = {weights!r}  # per item, per resource
CAPACITIES = {capacities!r}


def solve() -> dict:
    model = cp_model.CpModel()
    take = [model.new_bool_var(f"x_{{i + 1}}") for i in range(len(VALUES))]
    for r, capacity in enumerate(CAPACITIES):
        model.add(sum(w[r] * x for w, x in zip(WEIGHTS, take)) <= capacity)
    model.maximize(sum(v * x for v, x in zip(VALUES, take)))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60.0
    if solver.solve(model) != cp_model.OPTIMAL:
        return {{"status": "error", "objective_value": None}}
    chosen = [i + 1 for i, x in enumerate(take) if solver.boolean_value(x)]
    value = sum(VALUES[i - 1] for i in chosen)
    return {{"status": "optimal", "objective_value": value, "selected_items": chosen}}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        values=instance["values"],
        weights=instance["weights"],
        capacities=instance["capacities"],
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    n, m = meta["number_items"], meta["number_dimensions"]
    solution = record.reference.solution
    tags = [
        meta["profit_weight_correlation_type"],
        f"tightness_{meta['capacity_tightness_type']}",
        f"items_{n}",
        f"resources_{m}",
        f"binding_{solution['binding_constraint_count']}",
    ]
    if greedy_value(instance) < solution["objective_value"]:
        tags.append("greedy_suboptimal")
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={"variables": n, "constraints": m, "nonzeros": n * m, "items": n, "resources": m},
    )
