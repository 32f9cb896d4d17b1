"""Artifacts of a bipartite-assignment package, all derived from the verified record.

The task text states the sense (minimize cost or maximize value), whether every task must be
taken, and the output contract; every worker, task, weight and forbidden pair is in the matrix.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.subcategories.bipartite_assignment.generator import (
    MAXIMIZE,
    forbidden,
    greedy_total,
    measure,
    sense,
    tasks,
    weights,
    workers,
)

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
- "assignments": a dict mapping each worker name to the name of the task it is given, written as in
  the figure (for example {{"W1": "T3", ...}}).
"""
_FORBIDDEN_TEXT = (
    ' A grey cell marked with a cross (the sign "✕") means the worker may not be given that task;'
    " such a pair may not be used."
)


def task_input(instance: Mapping[str, Any]) -> str:
    balanced = len(tasks(instance)) == len(workers(instance))
    rules = (
        "every worker gets exactly one task and every task goes to exactly one worker."
        if balanced
        else "every worker gets exactly one task and no task goes to more than one worker; there are "
        "more tasks than workers, so some tasks stay unassigned."
    )
    maximize = sense(instance) == MAXIMIZE
    any_forbidden = bool(forbidden(instance))
    fields = {
        "measure": measure(instance),
        "forbidden_text": _FORBIDDEN_TEXT if any_forbidden else "",
        "rules": rules,
        "goal": "maximize the total value" if maximize else "minimize the total cost",
        "forbidden_word": " and forbidden pairs" if any_forbidden else "",
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
    for worker in workers(instance):
        row = weights(instance)[worker]
        rows.append(" ".join(f"{row[t]:>4}" if t in row else "   -" for t in tasks(instance)))
    return rows


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    header = "        " + " ".join(f"{t:>4}" for t in tasks(instance))
    matrix = "\n".join(
        f"  {w:>4}  {row}" for w, row in zip(workers(instance), _weight_rows(instance), strict=True)
    )
    blocked = forbidden(instance)
    listed = ", ".join(f"{w}-{t}" for w, t in blocked) or "none"
    what = measure(instance)
    return (
        f"Instance {record.instance_id} - bipartite assignment ({record.difficulty})\n\n"
        "Problem\n"
        "  Give every worker exactly one task, each task to at most one worker (exactly one when the\n"
        "  counts are equal), using only allowed pairs.\n\n"
        f"Sense: {sense(instance)} the total {what}\n"
        f"Workers ({len(workers(instance))}): {', '.join(workers(instance))}\n"
        f"Tasks ({len(tasks(instance))}): {', '.join(tasks(instance))}\n"
        f"Forbidden pairs ({len(blocked)}): {listed}\n\n"
        f"{what.capitalize()} matrix (rows workers, columns tasks, '-' forbidden):\n"
        f"{header}\n{matrix}\n\n"
        "Visual interpretation\n"
        f"  visual_0.png is the {what} matrix: a row per worker, a column per task; a grey\n"
        "  cell with a cross marks a forbidden pair. Heavier grid lines every five rows and columns only\n"
        "  help counting.\n\n"
        "Output contract\n  solve() returns status, objective_value and assignments {worker: task}.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    maximize = sense(instance) == MAXIMIZE
    balanced = len(tasks(instance)) == len(workers(instance))
    task_relation = "=" if balanced else "\\le"
    rows = "\n".join(
        f"| {w} | {t} | {value} |" for w, row in weights(instance).items() for t, value in row.items()
    )
    greedy = greedy_total(instance)
    greedy_note = "strands a worker" if greedy is None else f"reaches {greedy}"
    pairs = ", ".join(f"{w}→{t}" for w, t in solution["assignments"].items())
    what = measure(instance)
    return f"""# Bipartite assignment — {record.instance_id}

## Sets
- $W$: workers ({len(workers(instance))}), $T$: tasks ({len(tasks(instance))})
- $E \\subseteq W \\times T$: allowed pairs ({sum(len(r) for r in weights(instance).values())}; the
  {len(forbidden(instance))} forbidden pairs are left out)

## Parameters
- $w_{{ij}}$: {what} of giving task $j$ to worker $i$, for $(i, j) \\in E$

## Decision variables
- $x_{{ij}} \\in \\{{0, 1\\}}$: 1 if worker $i$ gets task $j$, for $(i, j) \\in E$

## Objective
$$\\{"max" if maximize else "min"} \\; \\sum_{{(i,j) \\in E}} w_{{ij}} x_{{ij}}$$

## Constraints
- Each worker one task: $\\sum_{{j:(i,j) \\in E}} x_{{ij}} = 1$ for all $i \\in W$
- Each task at most one worker: $\\sum_{{i:(i,j) \\in E}} x_{{ij}} {task_relation} 1$ for all $j \\in T$

## Instance data

| worker | task | {what} |
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
        "assignments": assignment,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    rows = "\n".join(
        f"    {[weights(instance)[w].get(t) for t in tasks(instance)]!r},  # {w}" for w in workers(instance)
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        sense=sense(instance),
        workers=workers(instance),
        tasks=tasks(instance),
        rows=rows,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    n_workers, n_tasks = len(workers(instance)), len(tasks(instance))
    allowed = sum(len(row) for row in weights(instance).values())
    blocked = len(forbidden(instance))
    tags = [
        f"sense_{sense(instance)}",
        "balanced" if n_workers == n_tasks else "unbalanced",
        "forbidden_pairs" if blocked else "complete_compatibility",
        "greedy_suboptimal",
    ]
    official_meta: dict[str, Any] = {  # the official release's meta.json fields
        "variant_type": instance["variant_type"],
        "number_left_nodes": n_workers,
        "number_right_nodes": n_tasks,
        "graph_density": round(allowed / (n_workers * n_tasks), 4),
    }
    if "matching_requirement" in instance:
        official_meta["required_side"] = instance["matching_requirement"]["required_side"]
    return DerivedArtifacts(
        task_input=task_input(instance),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": allowed,
            "constraints": n_workers + n_tasks,
            "workers": n_workers,
            "tasks": n_tasks,
            "allowed_pairs": allowed,
            "forbidden_pairs": blocked,
        },
        meta_extra=official_meta,
    )
