"""Artifacts of an RCPSP package, all derived from the verified record.

The task text explains the two figures and the output contract; every activity, arc, duration,
demand and capacity is read from the figures.
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.rcpsp.generator import critical_path, formulation_size

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


def task_input(record: VerifiedRecord) -> str:
    title = "Resource-constrained project scheduling (scheduling and sequencing)"
    return task_text(title, READING, TASK, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    resources = instance["sets"]["resources"]
    rows = "\n".join(
        f"- {a}: duration={instance['duration'][a]}; "
        + ", ".join(f"{r}={instance['resource_demand'][a][r]}" for r in resources)
        for a in instance["sets"]["real_activities"]
    )
    arcs = ", ".join(f"{u}->{v}" for u, v in instance["precedence_arcs"])
    capacity = ", ".join(f"{r}={instance['resource_capacity'][r]}" for r in resources)
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        variant=instance["variant"],
        difficulty=record.difficulty,
        rows=rows,
        arcs=arcs,
        capacity=capacity,
        meta=meta,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    starts = ", ".join(f"{a} {t}" for a, t in solution["activity_start_times"].items())
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_real_activities=len(instance["sets"]["real_activities"]),
        n_precedence_arcs=len(instance["precedence_arcs"]),
        n_resources=len(instance["sets"]["resources"]),
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        critical_path=critical_path(instance),
        binding_resources_joined=", ".join(solution["binding_resources"]),
        starts=starts,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    real = instance["sets"]["real_activities"]
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        duration={a: instance["duration"][a] for a in real},
        arcs=[(u, v) for u, v in instance["precedence_arcs"] if u in real and v in real],
        capacity=dict(instance["resource_capacity"]),
        demand={a: dict(instance["resource_demand"][a]) for a in real},
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["graph_pattern"],
        meta["resource_capacity_regime"],
        f"activities_{meta['number_real_activities']}",
        f"resources_{meta['number_resources']}",
    ]
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
