"""Artifacts of a flexible flow-shop package, all derived from the verified record.

The task text explains how to read the stage panel, the processing-time matrix and (at hard) the
eligibility matrix, and states the output contract; every number is read from the figures.
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling.generator import (
    eligible,
    formulation_size,
    longest_job,
    makespan_lower_bound,
)
from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling.renderer import has_eligibility

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
ELIGIBILITY = _TEXT["eligibility"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


def task_input(record: VerifiedRecord) -> str:
    instance = record.instance
    reading = READING + (" " + ELIGIBILITY if has_eligibility(instance) else "")
    return task_text(
        "Flexible / hybrid flow-shop scheduling (scheduling and sequencing)", reading, TASK, contract=CONTRACT
    )


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    machines = instance["sets"]["machines_by_stage"]
    stage_lines = "\n".join(f"- {s}: {', '.join(machines[s])}" for s in stages)
    times = "\n".join(
        f"- {j}: " + ", ".join(f"{s}={instance['processing_time'][j][s]}" for s in stages) for j in jobs
    )
    rules = ""
    if has_eligibility(instance):
        rules = (
            "Eligible machines:\n"
            + "\n".join(
                f"- {j}: " + "; ".join(f"{s}: {', '.join(eligible(instance, j, s))}" for s in stages)
                for j in jobs
            )
            + "\n\n"
        )
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        variant=instance["variant"],
        difficulty=record.difficulty,
        stage_lines=stage_lines,
        times=times,
        rules=rules,
        meta=meta,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_jobs=len(instance["sets"]["jobs"]),
        n_stages=len(instance["sets"]["stages"]),
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        longest_job=longest_job(instance),
        makespan_lower_bound=makespan_lower_bound(instance),
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        jobs=list(jobs),
        stages=list(stages),
        time={j: [instance["processing_time"][j][s] for s in stages] for j in jobs},
        eligible={j: [eligible(instance, j, s) for s in stages] for j in jobs},
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["processing_time_regime"],
        meta["flexibility_level"],
        "eligibility" if meta["eligibility_flag"] else "no_eligibility",
        f"jobs_{meta['number_jobs']}",
        f"stages_{meta['number_stages']}",
    ]
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
