"""Artifacts of a parallel-machine package, all derived from the verified record.

The task text says how to read the table (and which optional columns it has) and the output
contract; every time, release, setup and eligibility is read from the figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.parallel_machine_scheduling.generator import (
    formulation_size,
    scaled,
    single_job_bound,
)
from benchmark.suites.mmopt.subcategories.parallel_machine_scheduling.renderer import panels

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")
#: medium and hard (official scale): the redundant machine-load rows of the generator's reference,
#: and its seed, so that the replay follows the search that proved the optimum
LOAD_ROWS = """    for m in MACHINES:  # redundant: the makespan covers each machine's load (the LP bound)
        model.add(makespan >= sum((SETUP.get(j, 0) + TIME[j][m]) * use[j, m] for j in jobs if m in TIME[j]))
"""
SEARCH = "    solver.parameters.random_seed = 0\n"

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
SETUP = _TEXT["setup"]
RELEASE = _TEXT["release"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


ONE_FIGURE = "The figure visual_0.png is a table of jobs and parallel machines."
ONE_VISUAL = """- visual_0.png: job x machine table of processing times (dash: not eligible),
  with release and setup columns when the instance has them."""


def _figures(instance: Mapping[str, Any]) -> list[str]:
    return [f"visual_{i}.png" for i in range(len(panels(instance)))]


def task_input(record: VerifiedRecord) -> str:
    instance = record.instance
    reading, task = READING, TASK
    figures = _figures(instance)
    if len(figures) > 1:
        if ONE_FIGURE not in reading or "from the figure." not in task:
            raise ValueError("task text: the one-figure sentences moved")
        reading = reading.replace(
            ONE_FIGURE,
            f"The figures {', '.join(figures[:-1])} and {figures[-1]} together form one table of jobs "
            "and parallel machines; the job rows are split between the figures, and each figure "
            "repeats the header row.",
        )
        task = task.replace("from the figure.", "from the figures.")
    if "release_time" in instance:
        reading += " " + RELEASE
    if "setup_time" in instance:
        reading += " " + SETUP
    setup_note = ", its setup first" if "setup_time" in instance else ""
    contract = CONTRACT.replace("{setup_note}", setup_note)
    title = "Parallel-machine scheduling (scheduling and sequencing)"
    return task_text(title, reading, task, contract=contract)


def _job_line(instance: Mapping[str, Any], job: str) -> str:
    times = ", ".join(f"{m}={t}" for m, t in instance["effective_processing_time"][job].items())
    extra = ""
    if "release_time" in instance:
        extra += f", release={instance['release_time'][job]}"
    if "setup_time" in instance:
        extra += f", setup={instance['setup_time'][job]}"
    return f"- {job}: eligible {', '.join(instance['eligibility'][job])}; processing {times}{extra}"


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    speeds = ", ".join(f"{m}={s:g}" for m, s in instance["machine_speed"].items())
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        variant=instance["variant"],
        difficulty=record.difficulty,
        machines_joined=", ".join(instance["sets"]["machines"]),
        speeds=speeds,
        machine_type=instance["meta_parameters"]["machine_type"],
        jobs_joined="\n".join(_job_line(instance, j) for j in instance["sets"]["jobs"]),
        meta=meta,
        visuals=_visual_lines(instance),
    )


def _visual_lines(instance: Mapping[str, Any]) -> str:
    parts = panels(instance)
    if len(parts) == 1:
        return ONE_VISUAL
    lines = [
        f"- visual_{i}.png: jobs {jobs[0]}-{jobs[-1]} of the job x machine table of processing times"
        for i, jobs in enumerate(parts)
    ]
    lines.append("  (dash: not eligible; setup and release columns when the instance has them).")
    return "\n".join(lines)


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rows = "\n".join(
        f"| {j} | {m} | {instance['effective_processing_time'][j][m]} |"
        for j in instance["sets"]["jobs"]
        for m in instance["eligibility"][j]
    )
    setup = "s_j" if "setup_time" in instance else "0"
    loads = ", ".join(f"{m} {v}" for m, v in solution["machine_load"].items())
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_jobs=len(instance["sets"]["jobs"]),
        n_machines=len(instance["sets"]["machines"]),
        setup=setup,
        rows=rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        loads=loads,
        single_job_bound=single_job_bound(instance),
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    times = "\n".join(
        f"    {j!r}: {instance['effective_processing_time'][j]!r}," for j in instance["sets"]["jobs"]
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        machines=list(instance["sets"]["machines"]),
        times=times,
        setup=dict(instance.get("setup_time", {})),
        release=dict(instance.get("release_time", {})),
        load_rows=LOAD_ROWS if scaled(instance) else "",
        search=SEARCH if scaled(instance) else "",
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["machine_type"],
        meta["processing_time_regime"],
        "restricted_eligibility" if meta["restricted_eligibility_flag"] else "full_eligibility",
        "setup_times" if meta["setup_flag"] else "no_setup",
        "release_times" if meta["release_flag"] else "no_release",
        f"jobs_{meta['number_jobs']}",
        f"machines_{meta['number_machines']}",
    ]
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
