"""Artifacts of a bipartite-assignment package, all derived from the verified record.

The task text states the sense (minimize cost or maximize value), which side must be covered
completely, which figures hold the matrix, and the output contract; every worker, task, weight and
forbidden pair is in the matrix.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.subcategories.bipartite_assignment.generator import (
    MAXIMIZE,
    forbidden,
    greedy_total,
    measure,
    sense,
    spare_workers,
    tasks,
    weights,
    workers,
)
from benchmark.suites.mmopt.subcategories.bipartite_assignment.renderer import panels

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

WIDTH = 100

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = _TEXT["contract"]
_FORBIDDEN_TEXT = _TEXT["forbidden_text"]


def figures(instance: Mapping[str, Any]) -> list[str]:
    return [f"visual_{index}.png" for index in range(len(panels(instance)))]


def _figure_list(instance: Mapping[str, Any]) -> str:
    names = figures(instance)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def task_input(record: VerifiedRecord) -> str:
    instance = record.instance
    balanced = len(tasks(instance)) == len(workers(instance))
    if balanced:
        rules = "every worker gets exactly one task and every task goes to exactly one worker."
    elif spare_workers(instance):
        rules = (
            "every task goes to exactly one worker and no worker gets more than one task; there are "
            "more workers than tasks, so some workers stay without a task."
        )
    else:
        rules = (
            "every worker gets exactly one task and no task goes to more than one worker; there are "
            "more tasks than workers, so some tasks stay unassigned."
        )
    maximize = sense(instance) == MAXIMIZE
    any_forbidden = bool(forbidden(instance))
    split = len(figures(instance)) > 1
    figure = "figures" if split else "figure"
    idle = spare_workers(instance)
    assignments = _TEXT["assignments_some_workers"] if idle else _TEXT["assignments_every_worker"]
    fields = {
        "where": _TEXT["where_split"].format(figures=_figure_list(instance)) if split else _TEXT["where_one"],
        "measure": measure(instance),
        "forbidden_text": _FORBIDDEN_TEXT if any_forbidden else "",
        "rules": rules,
        "goal": "maximize the total value" if maximize else "minimize the total cost",
        "forbidden_word": " and forbidden pairs" if any_forbidden else "",
        "figure": figure,
        "best": "maximum" if maximize else "minimum",
        "assignments": assignments.format(figure=figure),
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
    rule = (
        "Give every task exactly one worker, each worker at most one task, using only allowed\n"
        "  pairs; there are more workers than tasks."
        if spare_workers(instance)
        else "Give every worker exactly one task, each task to at most one worker (exactly one when the\n"
        "  counts are equal), using only allowed pairs."
    )
    names = figures(instance)
    where = (
        f"{names[0]} is the {what} matrix"
        if len(names) == 1
        else f"{' + '.join(names)} are the {what} matrix, its rows (workers)\n"
        "  split evenly over the figures, each repeating the task header"
    )
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        rule=rule,
        where=where,
        sense=sense(instance),
        what=what,
        n_workers=len(workers(instance)),
        workers=", ".join(workers(instance)),
        n_tasks=len(tasks(instance)),
        tasks=", ".join(tasks(instance)),
        n_blocked=len(blocked),
        listed=listed,
        measure_title=what.capitalize(),
        header=header,
        matrix=matrix,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    maximize = sense(instance) == MAXIMIZE
    balanced = len(tasks(instance)) == len(workers(instance))
    worker_relation = "\\le" if spare_workers(instance) else "="
    task_relation = "=" if balanced or spare_workers(instance) else "\\le"
    worker_rule = "Each worker at most one task" if spare_workers(instance) else "Each worker one task"
    task_rule = "Each task one worker" if spare_workers(instance) else "Each task at most one worker"
    rows = "\n".join(
        f"| {w} | {t} | {value} |" for w, row in weights(instance).items() for t, value in row.items()
    )
    greedy = greedy_total(instance)
    stranded = "a task" if spare_workers(instance) else "a worker"
    greedy_note = f"strands {stranded}" if greedy is None else f"reaches {greedy}"
    pairs = ", ".join(f"{w}→{t}" for w, t in solution["assignments"].items())
    what = measure(instance)
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_workers=len(workers(instance)),
        n_tasks=len(tasks(instance)),
        n_allowed=sum(len(r) for r in weights(instance).values()),
        n_forbidden=len(forbidden(instance)),
        what=what,
        sense_op="max" if maximize else "min",
        worker_rule=worker_rule,
        worker_relation=worker_relation,
        task_rule=task_rule,
        task_relation=task_relation,
        rows=rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        pairs=pairs,
        greedy_note=greedy_note,
    )


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


def describe(record: VerifiedRecord) -> Descriptors:
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
    return Descriptors(
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
