"""Artifacts of a job-shop package, all derived from the verified record.

The task text explains how to read the operation layout and states the output contract; every
job, route, machine and duration is read from the figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.job_shop_scheduling.generator import (
    formulation_size,
    longest_job,
    machine_loads,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


def task_input(record: VerifiedRecord) -> str:
    return task_text("Job-shop scheduling (scheduling and sequencing)", READING, TASK, contract=CONTRACT)


def _routes(instance: Mapping[str, Any]) -> list[str]:
    lines = []
    for job, ops in instance["sets"]["operations"].items():
        machine, time = instance["machine_assignment"][job], instance["processing_time"][job]
        steps = " -> ".join(f"{op} on {machine[op]} (duration={time[op]})" for op in ops)
        lines.append(f"- {job}: {steps}")
    return lines


def _machines(instance: Mapping[str, Any]) -> list[str]:
    lines = []
    for machine in instance["sets"]["machines"]:
        uses = [
            f"{job}-{op} ({instance['processing_time'][job][op]})"
            for job, ops in instance["sets"]["operations"].items()
            for op in ops
            if instance["machine_assignment"][job][op] == machine
        ]
        lines.append(f"- {machine}: {', '.join(uses)}")
    return lines


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    metadata = "\n".join(f"- {key}={value}" for key, value in meta.items())
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        variant=instance["variant"],
        scenario=instance["scenario"],
        difficulty=record.difficulty,
        routes="\n".join(_routes(instance)),
        machines="\n".join(_machines(instance)),
        metadata=metadata,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    machine, time = instance["machine_assignment"], instance["processing_time"]
    rows = "\n".join(
        f"| {job} | {op} | {machine[job][op]} | {time[job][op]} |"
        for job, ops in instance["sets"]["operations"].items()
        for op in ops
    )
    loads = machine_loads(instance)
    load_text = ", ".join(f"{m} {loads[m]}" for m in instance["sets"]["machines"])
    orders = "; ".join(f"{m}: {' → '.join(seq)}" for m, seq in solution["machine_orders"].items())
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_jobs=len(instance["sets"]["jobs"]),
        n_machines=len(instance["sets"]["machines"]),
        rows=rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        load_text=load_text,
        longest_job=longest_job(instance),
        orders=orders,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    routes = "\n".join(
        f"    {job!r}: "
        + repr(
            [
                (op, instance["machine_assignment"][job][op], instance["processing_time"][job][op])
                for op in ops
            ]
        )
        + ","
        for job, ops in instance["sets"]["operations"].items()
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id, machines=list(instance["sets"]["machines"]), routes=routes
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["processing_time_regime"],
        meta["routing_pattern"],
        "bottleneck_machines" if meta["bottleneck_machine_flag"] else "no_bottleneck",
        f"jobs_{meta['number_jobs']}",
        f"machines_{meta['number_machines']}",
    ]
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
