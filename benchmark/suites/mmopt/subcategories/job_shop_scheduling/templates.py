"""Artifacts of a job-shop package, all derived from the verified record.

The task text explains how to read the operation layout and states the output contract; every
job, route, machine and duration is read from the figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.job_shop_scheduling.generator import (
    formulation_size,
    longest_job,
    machine_loads,
)

READING = (
    "The figure visual_0.png is an operation layout of a job shop. Each row is a job (bold name J "
    "followed by a number at the left). The blocks of a row are the job's operations in the order "
    "they must be processed, left to right, joined by arrows. Each block shows the operation name "
    "(top), the machine the operation must run on (middle, M followed by a number) and its "
    "processing time (bottom, after p=). The figure shows no schedule: block positions and widths "
    "are not times."
)
TASK = (
    "Task: schedule every operation so that each job's operations run in the given order (an "
    "operation starts only after the previous operation of its job has finished), each machine "
    "processes at most one operation at a time, and operations run without interruption. Start "
    "times are nonnegative and may be continuous. Minimize the makespan, the time at which the last "
    "operation finishes. All jobs, machines, routes and processing times must be read from the figure."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal schedule is found;
- "objective_value": the minimum makespan, as a number;
- "schedule": a list with one record per operation, each a dict with the keys "job", "operation",
  "machine", "start" and "finish", names written as in the figure (for example
  {"job": "J1", "operation": "O1", "machine": "M2", "start": <number>, "finish": <number>}).
"""
)


def task_input(instance: Mapping[str, Any]) -> str:
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
    return (
        "This is a single-period classical Job-Shop Scheduling problem.\n\n"
        f"Instance ID: {record.instance_id}\nVariant: {instance['variant']}\n"
        f"Scenario: {instance['scenario']}\nDifficulty: {record.difficulty}\n\n"
        "Jobs and ordered operations:\n" + "\n".join(_routes(instance)) + "\n\n"
        "Machines:\n" + "\n".join(_machines(instance)) + "\n\n"
        "Objective:\n- Minimize the makespan.\n\n"
        "Constraints:\n"
        "- Operations of each job must follow their listed order.\n"
        "- Each machine can process at most one operation at a time.\n"
        "- Operations are non-preemptive.\n"
        "- Start times are continuous nonnegative variables.\n\n"
        f"Metadata:\n{metadata}\n\n"
        "Visual interpretation:\n"
        "- Each row corresponds to one job.\n"
        "- Each block corresponds to one operation in precedence order.\n"
        "- Each block reports the operation, the required machine and the processing duration (p=).\n"
        "- The visual does not reveal any solved schedule, operation start time, or optimal makespan.\n\n"
        "Output contract:\n- solve() returns status, objective_value and schedule "
        "[{job, operation, machine, start, finish}].\n"
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
    return f"""# Job-shop scheduling — {record.instance_id}

## Sets
- $J$: jobs ({len(instance["sets"]["jobs"])}), $M$: machines ({len(instance["sets"]["machines"])})
- $O_j = (o_{{j1}}, \\dots, o_{{jn_j}})$: the operations of job $j$ in precedence order
- $P_m$: the pairs of operations that both require machine $m$

## Parameters
- $\\mu(o) \\in M$: the machine of operation $o$; $p_o$: its processing time

## Decision variables
- $s_o \\ge 0$: start time of operation $o$; $C_{{\\max}}$: makespan
- $y_{{ab}} \\in \\{{0, 1\\}}$ for $(a, b) \\in P_m$: 1 if $a$ precedes $b$ on machine $m$

## Objective
$$\\min \\; C_{{\\max}}$$

## Constraints
- Job precedence: $s_{{o_{{j,k+1}}}} \\ge s_{{o_{{jk}}}} + p_{{o_{{jk}}}}$ for every job $j$ and $k < n_j$
- Makespan: $C_{{\\max}} \\ge s_{{o_{{jn_j}}}} + p_{{o_{{jn_j}}}}$ for every job $j$
- Machine non-overlap (disjunctive, $H$ an upper bound on the makespan):
  $s_b \\ge s_a + p_a - H (1 - y_{{ab}})$ and $s_a \\ge s_b + p_b - H y_{{ab}}$ for $(a, b) \\in P_m$

## Instance data

| job | operation | machine | processing time |
|---|---|---|---:|
{rows}

## Instance notes
- Verified minimum makespan: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Machine loads: {load_text}; longest job {longest_job(instance)} (below the optimum: machine
  conflicts are active).
- Reference machine orders (semi-active schedule): {orders}. Optimal schedules need not be unique; the
  makespan is.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (job-shop scheduling), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.sat.python import cp_model

MACHINES = {machines!r}
ROUTES = {{  # job -> [(operation, machine, processing time), ...] in precedence order
{routes}
}}


def solve() -> dict:
    horizon = sum(p for route in ROUTES.values() for _, _, p in route)
    model = cp_model.CpModel()
    start, interval = {{}}, {{}}
    for job, route in ROUTES.items():
        for op, _, p in route:
            start[job, op] = model.new_int_var(0, horizon, f"s_{{job}}_{{op}}")
            interval[job, op] = model.new_fixed_size_interval_var(start[job, op], p, f"i_{{job}}_{{op}}")
    makespan = model.new_int_var(0, horizon, "makespan")
    for job, route in ROUTES.items():
        for (a, _, p), (b, _, _) in zip(route, route[1:]):
            model.add(start[job, b] >= start[job, a] + p)
        last, _, p_last = route[-1]
        model.add(makespan >= start[job, last] + p_last)
    for machine in MACHINES:
        model.add_no_overlap(
            [interval[job, op] for job, route in ROUTES.items() for op, m, _ in route if m == machine]
        )
    model.minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60.0
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        failed = "infeasible" if status == cp_model.INFEASIBLE else "error"
        return {{"status": failed, "objective_value": None}}
    schedule = [
        {{
            "job": job,
            "operation": op,
            "machine": m,
            "start": solver.value(start[job, op]),
            "finish": solver.value(start[job, op]) + p,
            "duration": p,
        }}
        for job, route in ROUTES.items()
        for op, m, p in route
    ]
    value = int(solver.objective_value)
    return {{"status": "optimal", "objective_value": value, "makespan": value, "schedule": schedule}}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


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


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["processing_time_regime"],
        meta["routing_pattern"],
        "bottleneck_machines" if meta["bottleneck_machine_flag"] else "no_bottleneck",
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
