"""Artifacts of a set packing package, all derived from the verified record."""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.set_packing.generator import greedy_weight
from benchmark.suites.mmopt.subcategories.set_packing.renderer import panels

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


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
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        n_items=len(instance["sets"]["items"]),
        items_joined=", ".join(instance["sets"]["items"]),
        n_subsets=len(instance["subsets"]),
        rows=rows,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rows = "\n".join(
        f"| {name} | {g['weight']} | {', '.join(g['elements'])} |" for name, g in instance["subsets"].items()
    )
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_items=len(instance["sets"]["items"]),
        n_subsets=len(instance["subsets"]),
        rows=rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        selected_groups_joined=", ".join(solution["selected_groups"]),
        greedy_weight=greedy_weight(instance),
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    groups = "\n".join(
        f"    ({name!r}, {g['weight']}, {g['elements']!r})," for name, g in instance["subsets"].items()
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id, items=instance["sets"]["items"], groups=groups
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    n, m = len(instance["sets"]["items"]), len(instance["subsets"])
    nonzeros = sum(len(g["elements"]) for g in instance["subsets"].values())
    tags = [f"items_{n}", f"groups_{m}"]
    if greedy_weight(instance) < record.reference.solution["objective_value"]:
        tags.append("greedy_suboptimal")
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={"variables": m, "constraints": n, "nonzeros": nonzeros, "items": n, "groups": m},
    )
