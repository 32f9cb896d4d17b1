"""Artifacts of a multi-dimensional knapsack package, all derived from the verified record."""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.multi_dim_knapsack.generator import greedy_value
from benchmark.suites.mmopt.subcategories.multi_dim_knapsack.renderer import panels

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
SPLIT = _TEXT["split"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


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
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        rows=rows,
        capacities=capacities,
        profit_weight_correlation_type=meta["profit_weight_correlation_type"],
        capacity_tightness_type=meta["capacity_tightness_type"],
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_items=len(instance["sets"]["items"]),
        resources_joined=", ".join(instance["sets"]["resources"]),
        values=instance["values"],
        weights=instance["weights"],
        capacities=instance["capacities"],
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        selected_items=solution["selected_items"],
        binding_constraints=solution["binding_constraints"],
        greedy_value=greedy_value(instance),
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        values=instance["values"],
        weights=instance["weights"],
        capacities=instance["capacities"],
    )


def describe(record: VerifiedRecord) -> Descriptors:
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
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={"variables": n, "constraints": m, "nonzeros": n * m, "items": n, "resources": m},
    )
