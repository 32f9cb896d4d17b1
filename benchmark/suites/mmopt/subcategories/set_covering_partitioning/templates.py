"""Artifacts of a set covering/partitioning package, all derived from the verified record.

The task text names the variant (at least once or exactly once) and the output contract, and sends
the reader to the incidence matrix for every subset, element and cost.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.subcategories.set_covering_partitioning.generator import (
    PARTITIONING,
    elements_of,
    greedy_cost,
    subsets_of,
    variant_of,
)
from benchmark.suites.mmopt.subcategories.set_covering_partitioning.renderer import panels

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
_RULE = {
    "covering": (
        "Set covering",
        "at least once",
        _TEXT["rule_covering"],
    ),
    "partitioning": (
        "Set partitioning",
        "exactly once",
        _TEXT["rule_partitioning"],
    ),
}
WIDTH = 100
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = _TEXT["contract"]


def _figures(instance: Mapping[str, Any]) -> list[str]:
    return [f"visual_{index}.png" for index in range(len(panels(instance)))]


def task_input(record: VerifiedRecord) -> str:
    instance = record.instance
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
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        title=title.lower(),
        difficulty=record.difficulty,
        times=times,
        variant=variant_of(instance),
        n_elements=len(elements_of(instance)),
        elements_of=", ".join(elements_of(instance)),
        n_subsets=len(subsets_of(instance)),
        subsets=subsets,
        figures=" + ".join(_figures(instance)),
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
    return MATH_MODEL.format(
        variant=variant_of(instance),
        instance_id=record.instance_id,
        n_elements=len(elements_of(instance)),
        elements_of=", ".join(elements_of(instance)),
        n_subsets=len(subsets_of(instance)),
        constraint_name="Partitioning" if partition else "Covering",
        relation=relation,
        rows=rows,
        coverage="exactly once" if partition else "at least once",
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        selected_subsets_joined=", ".join(solution["selected_subsets"]),
        greedy_note=greedy_note,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    subsets = "\n".join(f"    ({s['id']!r}, {s['cost']}, {s['elements']!r})," for s in subsets_of(instance))
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        variant=variant_of(instance),
        elements=list(elements_of(instance)),
        subsets=subsets,
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    n_elements, n_subsets = len(elements_of(instance)), len(subsets_of(instance))
    nonzeros = sum(len(s["elements"]) for s in subsets_of(instance))
    tags = [f"variant_{variant_of(instance)}", f"elements_{n_elements}", f"subsets_{n_subsets}"]
    if variant_of(instance) == PARTITIONING:
        tags.append("planted_partitions")
    if greedy_cost(instance) != record.reference.solution["objective_exact"]:
        tags.append("greedy_suboptimal")
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={
            "variables": n_subsets,
            "constraints": n_elements,
            "nonzeros": nonzeros,
            "elements": n_elements,
            "subsets": n_subsets,
        },
    )
