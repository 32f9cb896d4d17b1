"""Artifacts of a parallel-machine package, all derived from the verified record.

The task text says how to read the table (and which optional columns it has) and the output
contract; every time, release, setup and eligibility is read from the figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.parallel_machine_scheduling.generator import (
    formulation_size,
    single_job_bound,
)

READING = (
    "The figure visual_0.png is a table of jobs and parallel machines. Each row is a job (bold name "
    "J followed by a number) and each machine column (M followed by a number) gives the job's "
    "processing time on that machine; a dash means that machine may not process the job."
)
SETUP = (
    'The "setup" column is the job\'s setup time: the machine that runs the job spends that time '
    "preparing it right before processing it, whichever machine that is."
)
RELEASE = (
    'The "release" column is the job\'s release time: the job (its setup included) may not start earlier.'
)
TASK = (
    "Task: assign every job to exactly one machine that may process it and schedule the jobs so "
    "that each machine handles at most one job at a time and no job is interrupted. Minimize the "
    "makespan, the time at which the last job finishes. All data must be read from the figure."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal schedule is found;
- "objective_value": the minimum makespan, as a number;
- "assignment": a dict mapping each job to its machine, written as in the figure (for example
  {"J1": "M2", ...});
- "schedule": a list with one record per job, each a dict with the keys "job", "machine", "start"
  and "finish" (start is when the machine begins the job{setup_note}).
"""
)


def task_input(instance: Mapping[str, Any]) -> str:
    reading = READING
    if "release_time" in instance:
        reading += " " + RELEASE
    if "setup_time" in instance:
        reading += " " + SETUP
    setup_note = ", its setup first" if "setup_time" in instance else ""
    contract = CONTRACT.replace("{setup_note}", setup_note)
    title = "Parallel-machine scheduling (scheduling and sequencing)"
    return task_text(title, reading, TASK, contract=contract)


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
    return (
        "This is a single-period parallel-machine scheduling problem (makespan).\n\n"
        f"Instance ID: {record.instance_id}\nVariant: {instance['variant']}\n"
        f"Difficulty: {record.difficulty}\n\n"
        f"Machines: {', '.join(instance['sets']['machines'])} (speeds {speeds}; "
        f"type {instance['meta_parameters']['machine_type']})\n\n"
        "Jobs:\n" + "\n".join(_job_line(instance, j) for j in instance["sets"]["jobs"]) + "\n\n"
        "Objective:\n- Minimize the makespan.\n\n"
        "Constraints:\n- Each job runs once, on one eligible machine, without preemption.\n"
        "- A machine processes at most one job at a time.\n"
        "- A job occupies its machine for its setup (if any) plus its processing time there,\n"
        "  starting no earlier than its release (if any).\n\n"
        f"Metadata:\n{meta}\n\n"
        "Visual interpretation:\n"
        "- visual_0.png: job x machine table of processing times (dash: not eligible),\n"
        "  with release and setup columns when the instance has them.\n\n"
        "Output contract:\n"
        "- solve() returns status, objective_value, assignment {job: machine} and schedule.\n"
    )


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
    return f"""# Parallel-machine scheduling — {record.instance_id}

## Sets
- $J$: jobs ({len(instance["sets"]["jobs"])}), $M$: machines ({len(instance["sets"]["machines"])}),
  $E_j \\subseteq M$: machines eligible for job $j$

## Parameters
- $p_{{jm}}$: processing time of job $j$ on machine $m \\in E_j$; setup ${setup}$; release $r_j$ (0 if none)
- $q_{{jm}} = {setup} + p_{{jm}}$: how long job $j$ occupies machine $m$

## Decision variables
- $x_{{jm}} \\in \\{{0, 1\\}}$: job $j$ runs on machine $m$; $S_j \\ge r_j$: its start
- $C_{{\\max}}$: makespan

## Objective
$$\\min \\; C_{{\\max}}$$

## Constraints
- Assignment: $\\sum_{{m \\in E_j}} x_{{jm}} = 1$ for every job $j$
- Makespan: $C_{{\\max}} \\ge S_j + \\sum_m q_{{jm}} x_{{jm}}$
- No overlap on a machine (disjunctive, for jobs $i, j$ both on $m$):
  $S_j \\ge S_i + q_{{im}}$ or $S_i \\ge S_j + q_{{jm}}$
- Equivalent assignment-only form (earliest release first is optimal on one machine):
  $C_{{\\max}} \\ge t + \\sum_{{j: r_j \\ge t}} q_{{jm}} x_{{jm}}$ for every machine $m$ and release
  value $t$

## Instance data

| job | machine | processing time |
|---|---|---:|
{rows}

## Instance notes
- Verified minimum makespan: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Machine finishing times of the reference: {loads}; the single-job bound is {single_job_bound(instance)}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (parallel-machine scheduling), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.sat.python import cp_model

MACHINES = {machines!r}
TIME = {{  # job -> {{eligible machine: processing time}}
{times}
}}
SETUP = {setup!r}
RELEASE = {release!r}


def solve() -> dict:
    jobs = list(TIME)
    horizon = max(RELEASE.values(), default=0) + sum(
        SETUP.get(j, 0) + max(TIME[j].values()) for j in jobs
    )
    model = cp_model.CpModel()
    use, start, per_machine = {{}}, {{}}, {{m: [] for m in MACHINES}}
    makespan = model.new_int_var(0, horizon, "makespan")
    for j in jobs:
        for m, p in TIME[j].items():
            length = SETUP.get(j, 0) + p
            use[j, m] = model.new_bool_var(f"x_{{j}}_{{m}}")
            start[j, m] = model.new_int_var(RELEASE.get(j, 0), horizon, f"s_{{j}}_{{m}}")
            per_machine[m].append(
                model.new_optional_fixed_size_interval_var(start[j, m], length, use[j, m], f"i_{{j}}_{{m}}")
            )
            model.add(makespan >= start[j, m] + length).only_enforce_if(use[j, m])
        model.add_exactly_one(use[j, m] for m in TIME[j])
    for intervals in per_machine.values():
        model.add_no_overlap(intervals)
    model.minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60.0
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        failed = "infeasible" if status == cp_model.INFEASIBLE else "error"
        return {{"status": failed, "objective_value": None}}
    assignment, schedule = {{}}, []
    for j in jobs:
        m = next(m for m in TIME[j] if solver.boolean_value(use[j, m]))
        assignment[j] = m
        begin = solver.value(start[j, m])
        end = begin + SETUP.get(j, 0) + TIME[j][m]
        schedule.append({{"job": j, "machine": m, "start": begin, "finish": end}})
    value = int(solver.objective_value)
    return {{
        "status": "optimal",
        "objective_value": value,
        "makespan": value,
        "assignment": assignment,
        "schedule": schedule,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


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
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
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
    return DerivedArtifacts(
        task_input=task_input(instance),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
