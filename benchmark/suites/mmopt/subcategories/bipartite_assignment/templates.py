"""Artifacts of a bipartite-assignment package, all derived from the verified record.

The task text states the sense (minimize cost or maximize value), whether every task must be
taken, and the output contract; every worker, task, weight and forbidden pair is in the matrix.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.subcategories.bipartite_assignment.generator import MAXIMIZE, greedy_total

WIDTH = 100

READING = (
    "The figure visual_0.png is a matrix with one row per worker and one column per task. The bold names "
    "at the left of the rows are the worker names (W followed by a number) and the bold names in the "
    "header row are the task names (T followed by a number). The number in a cell is the {measure} of "
    "giving the task of that column to the worker of that row.{forbidden_text}"
)
TASK = (
    "Task: assign tasks to workers so that {rules} The objective is to {goal}, the sum of the {measure}s "
    "of the chosen worker-task pairs. All workers, tasks, {measure}s{forbidden_word} must be read from "
    "the figure."
)
CONTRACT = """\
Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the {best} total {measure}, as a number;
- "assignment": a dict mapping each worker name to the name of the task it is given, written as in
  the figure (for example {{"W1": "T3", ...}}).
"""
_FORBIDDEN_TEXT = (
    ' A grey cell marked with a cross (the sign "✕") means the worker may not be given that task;'
    " such a pair may not be used."
)


def task_input(instance: Mapping[str, Any]) -> str:
    balanced = len(instance["tasks"]) == len(instance["workers"])
    rules = (
        "every worker gets exactly one task and every task goes to exactly one worker."
        if balanced
        else "every worker gets exactly one task and no task goes to more than one worker; there are "
        "more tasks than workers, so some tasks stay unassigned."
    )
    maximize = instance["sense"] == MAXIMIZE
    forbidden = bool(instance["forbidden"])
    fields = {
        "measure": instance["measure"],
        "forbidden_text": _FORBIDDEN_TEXT if forbidden else "",
        "rules": rules,
        "goal": "maximize the total value" if maximize else "minimize the total cost",
        "forbidden_word": " and forbidden pairs" if forbidden else "",
        "best": "maximum" if maximize else "minimum",
    }
    paragraphs = [
        "Bipartite assignment (location, covering and assignment)",
        textwrap.fill(READING.format(**fields), WIDTH),
        textwrap.fill(TASK.format(**fields), WIDTH),
        CONTRACT.format(**fields),
    ]
    return "\n\n".join(paragraphs)


def _weight_rows(instance: Mapping[str, Any]) -> list[str]:
    rows = []
    for worker in instance["workers"]:
        weights = instance["weights"][worker]
        rows.append(" ".join(f"{weights[t]:>4}" if t in weights else "   -" for t in instance["tasks"]))
    return rows


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    header = "        " + " ".join(f"{t:>4}" for t in instance["tasks"])
    matrix = "\n".join(
        f"  {w:>4}  {row}" for w, row in zip(instance["workers"], _weight_rows(instance), strict=True)
    )
    forbidden = ", ".join(f"{w}-{t}" for w, t in instance["forbidden"]) or "none"
    return (
        f"Instance {record.instance_id} - bipartite assignment ({record.difficulty})\n\n"
        "Problem\n"
        "  Give every worker exactly one task, each task to at most one worker (exactly one when the\n"
        "  counts are equal), using only allowed pairs.\n\n"
        f"Sense: {instance['sense']} the total {instance['measure']}\n"
        f"Workers ({len(instance['workers'])}): {', '.join(instance['workers'])}\n"
        f"Tasks ({len(instance['tasks'])}): {', '.join(instance['tasks'])}\n"
        f"Forbidden pairs ({len(instance['forbidden'])}): {forbidden}\n\n"
        f"{instance['measure'].capitalize()} matrix (rows workers, columns tasks, '-' forbidden):\n"
        f"{header}\n{matrix}\n\n"
        "Visual interpretation\n"
        f"  visual_0.png is the {instance['measure']} matrix: a row per worker, a column per task; a grey\n"
        "  cell with a cross marks a forbidden pair. Heavier grid lines every five rows and columns only\n"
        "  help counting.\n\n"
        "Output contract\n  solve() returns status, objective_value and assignment {worker: task}.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    maximize = instance["sense"] == MAXIMIZE
    balanced = len(instance["tasks"]) == len(instance["workers"])
    task_relation = "=" if balanced else "\\le"
    rows = "\n".join(
        f"| {w} | {t} | {instance['weights'][w][t]} |"
        for w in instance["workers"]
        for t in instance["weights"][w]
    )
    greedy = greedy_total(instance)
    greedy_note = "strands a worker" if greedy is None else f"reaches {greedy}"
    pairs = ", ".join(f"{w}→{t}" for w, t in solution["assignment"].items())
    return f"""# Bipartite assignment — {record.instance_id}

## Sets
- $W$: workers ({len(instance["workers"])}), $T$: tasks ({len(instance["tasks"])})
- $E \\subseteq W \\times T$: allowed pairs ({sum(len(r) for r in instance["weights"].values())}; the
  {len(instance["forbidden"])} forbidden pairs are left out)

## Parameters
- $w_{{ij}}$: {instance["measure"]} of giving task $j$ to worker $i$, for $(i, j) \\in E$

## Decision variables
- $x_{{ij}} \\in \\{{0, 1\\}}$: 1 if worker $i$ gets task $j$, for $(i, j) \\in E$

## Objective
$$\\{"max" if maximize else "min"} \\; \\sum_{{(i,j) \\in E}} w_{{ij}} x_{{ij}}$$

## Constraints
- Each worker one task: $\\sum_{{j:(i,j) \\in E}} x_{{ij}} = 1$ for all $i \\in W$
- Each task at most one worker: $\\sum_{{i:(i,j) \\in E}} x_{{ij}} {task_relation} 1$ for all $j \\in T$

## Instance data

| worker | task | {instance["measure"]} |
|---|---|---:|
{rows}

## Instance notes
- Verified optimum: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Reference assignment: {pairs}. Optimal assignments need not be unique; the optimum value is.
- The constraint matrix is totally unimodular, so the LP relaxation has an integral optimum.
- The best-remaining-pair-first greedy {greedy_note}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (bipartite assignment), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

import numpy as np
from scipy.optimize import linear_sum_assignment

SENSE = {sense!r}
WORKERS = {workers!r}
TASKS = {tasks!r}
WEIGHTS = [  # one row per worker, one column per task; None marks a forbidden pair
{rows}
]


def solve() -> dict:
    maximize = SENSE == "maximize"
    blocked = -np.inf if maximize else np.inf
    matrix = np.array([[blocked if w is None else w for w in row] for row in WEIGHTS], dtype=float)
    try:
        rows, cols = linear_sum_assignment(matrix, maximize=maximize)
    except ValueError:
        return {{"status": "infeasible", "objective_value": None}}
    assignment = {{WORKERS[i]: TASKS[j] for i, j in zip(rows, cols)}}
    total = int(sum(WEIGHTS[i][j] for i, j in zip(rows, cols)))
    return {{
        "status": "optimal",
        "objective_value": total,
        "objective_exact": total,
        "assignment": assignment,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    rows = "\n".join(
        f"    {[instance['weights'][w].get(t) for t in instance['tasks']]!r},  # {w}"
        for w in instance["workers"]
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        sense=instance["sense"],
        workers=list(instance["workers"]),
        tasks=list(instance["tasks"]),
        rows=rows,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    workers, tasks = len(instance["workers"]), len(instance["tasks"])
    allowed = sum(len(row) for row in instance["weights"].values())
    tags = [
        f"sense_{instance['sense']}",
        "balanced" if workers == tasks else "unbalanced",
        "forbidden_pairs" if instance["forbidden"] else "complete_compatibility",
        "greedy_suboptimal",
    ]
    return DerivedArtifacts(
        task_input=task_input(instance),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": allowed,
            "constraints": workers + tasks,
            "workers": workers,
            "tasks": tasks,
            "allowed_pairs": allowed,
            "forbidden_pairs": len(instance["forbidden"]),
        },
    )
