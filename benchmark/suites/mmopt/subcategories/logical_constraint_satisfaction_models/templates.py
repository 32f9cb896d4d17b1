"""Artifacts of a logical constraint satisfaction package, all derived from the verified record.

The task text says how to read the matrix (as the official release's does) and asks for a status
and, when the model is satisfiable, an assignment; it states no number, since every count and
bound is read from the figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import task_text
from benchmark.suites.mmopt.subcategories.logical_constraint_satisfaction_models.renderer import (
    matrix_rows,
    panels,
)
from benchmark.suites.mmopt.subcategories.logical_constraint_satisfaction_models.validator import (
    is_negative,
    literal_text,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = _TEXT["contract"]


def _figures(record: VerifiedRecord) -> list[str]:
    return [f"visual_{i}.png" for i in range(len(panels(record.instance)))]


def task_input(record: VerifiedRecord) -> str:
    figures = _figures(record)
    if len(figures) == 1:
        where = "The figure visual_0.png is the clause-variable matrix of a Boolean constraint model."
    else:
        where = (
            f"The figures {', '.join(figures[:-1])} and {figures[-1]} together form the clause-variable "
            "matrix of a Boolean constraint model; its rows are split between the figures, and each "
            "figure repeats the header row of variables."
        )
    title = "Logical constraint satisfaction (combinatorial and logical models)"
    task = TASK.format(figure="figure" if len(figures) == 1 else "figures")
    return task_text(title, f"{where} {READING}", task, contract=CONTRACT)


def _rows_text(instance: Mapping[str, Any]) -> list[str]:
    lines = [
        f"  {c['name']}: ({' ∨ '.join(literal_text(lit) for lit in c['literals'])})"
        for c in instance["clauses"]
    ]
    lines += [f"  {r['name']}: {r['if_variable']} -> {r['then_variable']}" for r in instance["implications"]]
    lines += [
        f"  {g['name']}: at most one of {', '.join(g['variables'])}" for g in instance["at_most_one_groups"]
    ]
    lines += [
        f"  {r['name']}: at most {r['rhs']} of {', '.join(r['variables'])}"
        for r in instance.get("cardinality_constraints", [])
    ]
    return lines


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    block = meta["all_different_block"]
    block_text = (
        "All-different block (one-hot; rows of tasks, columns of slots):\n"
        + "\n".join(f"  task {t}: {', '.join(row)}" for t, row in enumerate(block, start=1))
        + "\n  each task takes some slot (a clause), at most one (an at-most-one group), and no two\n"
        "  tasks share a slot (an at-most-one group per slot).\n\n"
        if block
        else ""
    )
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        number_of_variables=meta["number_of_variables"],
        variables_joined=", ".join(instance["sets"]["variables"]),
        clause_count=meta["clause_count"],
        implication_count=meta["implication_count"],
        at_most_one_group_count=meta["at_most_one_group_count"],
        cardinality_constraint_count=meta["cardinality_constraint_count"],
        rows_text="\n".join(_rows_text(instance)),
        block_text=block_text,
        n_matrix_rows=len(matrix_rows(instance)),
        n_panels=len(panels(instance)),
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    meta = instance["meta_parameters"]
    answer = (
        f"- Verified answer: **{solution['status']}** ({record.reference.method}); cross-checked by "
        f"{record.cross_check_method} (feasible = {record.cross_check_objective:g})."
    )
    if solution["status"] == "feasible":
        answer += f"\n- A satisfying assignment sets true: {', '.join(solution['true_variables']) or 'none'}."
    block = meta["all_different_block"]
    block_note = (
        f"\n- All-different block: tasks {'; '.join(', '.join(row) for row in block)} (one-hot slots)."
        if block
        else ""
    )
    rows = "\n".join(_rows_text(instance))
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        number_of_variables=meta["number_of_variables"],
        answer=answer,
        block_note=block_note,
        rows=rows,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        variables=list(instance["sets"]["variables"]),
        clauses=[
            [(lit["variable"], is_negative(lit["sign"])) for lit in c["literals"]]
            for c in instance["clauses"]
        ],
        implications=[(r["if_variable"], r["then_variable"]) for r in instance["implications"]],
        at_most_one=[tuple(g["variables"]) for g in instance["at_most_one_groups"]],
        cardinality=[(tuple(r["variables"]), r["rhs"]) for r in instance.get("cardinality_constraints", [])],
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    satisfiable = record.reference.solution["status"] == "feasible"
    tags = [
        "satisfiable" if satisfiable else "unsatisfiable",
        f"variables_{meta['number_of_variables']}",
        f"rows_{len(matrix_rows(instance))}",
    ]
    if meta["all_different_block"]:
        tags.append("all_different_block")
    if meta["cardinality_constraint_count"]:
        tags.append("cardinality_rows")
    if len(panels(instance)) > 1:
        tags.append("split_panels")
    nonzeros = sum(len(c["literals"]) for c in instance["clauses"]) + 2 * meta["implication_count"]
    nonzeros += sum(len(g["variables"]) for g in instance["at_most_one_groups"])
    nonzeros += sum(len(r["variables"]) for r in instance.get("cardinality_constraints", []))
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={
            "variables": meta["number_of_variables"],
            "constraints": meta["number_of_clauses"],
            "nonzeros": nonzeros,
            "matrix_rows": len(matrix_rows(instance)),
        },
        meta_extra={"satisfiable": satisfiable},
    )
