"""Artifacts of a flexible flow-shop package, all derived from the verified record.

The task text explains how to read the stage panel, the processing-time matrix and (at hard) the
eligibility matrix, and states the output contract; every number is read from the figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling.generator import (
    eligible,
    formulation_size,
    longest_job,
    makespan_lower_bound,
)
from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling.renderer import has_eligibility

READING = (
    "The figure visual_0.png is the stage architecture: the stages (S followed by a number) as boxes "
    "from left to right in processing order, joined by arrows, each box listing the stage's parallel "
    "machines. The figure visual_1.png gives the processing time of every job (J followed by a "
    "number) at every stage. Machines of one stage are identical: a job's processing time depends "
    "only on the job and the stage."
)
ELIGIBILITY = (
    "The figure visual_2.png is the eligibility matrix: a job may run at a stage only on the machines "
    'marked "yes" in its row.'
)
TASK = (
    "Task: every job passes all stages in the shown order; at each stage it is processed on exactly "
    "one machine of that stage, starting only after it has finished the previous stage. A machine "
    "processes at most one job at a time, without interruption. There are no release dates, setup or "
    "transport times. Start times are nonnegative. Minimize the makespan, the time the last job "
    "finishes its last stage. All data must be read from the figures."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal schedule is found;
- "objective_value": the minimum makespan, as a number;
- "machine_assignment": {job: {stage: machine}}, names as in the figures
  (for example {"J1": {"S1": "S1M2", ...}, ...});
- "start_time": {job: {stage: start time}}; "completion_time": {job: {stage: finish time}}.
"""
)


def task_input(instance: Mapping[str, Any]) -> str:
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
    return (
        "This is a flexible (hybrid) flow-shop scheduling problem with identical parallel machines "
        "per stage.\n\n"
        f"Instance ID: {record.instance_id}\nVariant: {instance['variant']}\n"
        f"Difficulty: {record.difficulty}\n\n"
        f"Stages in order:\n{stage_lines}\n\nProcessing times:\n{times}\n\n{rules}"
        "Objective:\n- Minimize the makespan.\n\n"
        "Constraints:\n- Every job visits every stage in order, on one (eligible) machine per stage.\n"
        "- A machine processes one job at a time, non-preemptively.\n\n"
        f"Metadata:\n{meta}\n\n"
        "Output contract:\n- solve() returns status, objective_value, machine_assignment, start_time, "
        "completion_time.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    return f"""# Flexible / hybrid flow-shop scheduling — {record.instance_id}

## Sets
- $J$: jobs ({len(instance["sets"]["jobs"])}), $S = (s_1, \\dots, s_K)$: stages in order
  ({len(instance["sets"]["stages"])}), $M_s$: the machines of stage $s$,
  $E_{{js}} \\subseteq M_s$: the eligible ones

## Parameters
- $p_{{js}}$: processing time of job $j$ at stage $s$ (the same on every machine of $s$)

## Decision variables
- $t_{{js}} \\ge 0$ start time; $a_{{jsm}} \\in \\{{0, 1\\}}$ job $j$ on machine $m \\in E_{{js}}$;
  $y_{{ijs}} \\in \\{{0, 1\\}}$ order of jobs $i < j$ at stage $s$; $C_{{\\max}}$ makespan

## Objective
$$\\min \\; C_{{\\max}}$$

## Constraints
- Assignment: $\\sum_{{m \\in E_{{js}}}} a_{{jsm}} = 1$
- Stage order: $t_{{j,s_{{k+1}}}} \\ge t_{{j s_k}} + p_{{j s_k}}$
- Makespan: $C_{{\\max}} \\ge t_{{j s_K}} + p_{{j s_K}}$
- Non-overlap on a shared machine $m$ (big-$H$):
  $t_{{js}} \\ge t_{{is}} + p_{{is}} - H(3 - y_{{ijs}} - a_{{ism}} - a_{{jsm}})$ and
  $t_{{is}} \\ge t_{{js}} + p_{{js}} - H(2 + y_{{ijs}} - a_{{ism}} - a_{{jsm}})$

## Instance notes
- Verified minimum makespan: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Longest job {longest_job(instance)}, one-machine lower bound {makespan_lower_bound(instance)}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (flexible / hybrid flow-shop scheduling), generated from the
verified record. Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.sat.python import cp_model

JOBS = {jobs!r}
STAGES = {stages!r}  # in processing order
TIME = {time!r}  # job -> [processing time per stage]
ELIGIBLE = {eligible!r}  # job -> [machines allowed at each stage]


def solve() -> dict:
    horizon = sum(sum(row) for row in TIME.values())
    model = cp_model.CpModel()
    start, on, per_machine = {{}}, {{}}, {{}}
    for j in JOBS:
        for k, s in enumerate(STAGES):
            start[j, s] = model.new_int_var(0, horizon, f"t_{{j}}_{{s}}")
            for m in ELIGIBLE[j][k]:
                on[j, s, m] = model.new_bool_var(f"a_{{j}}_{{m}}")
                interval = model.new_optional_fixed_size_interval_var(
                    start[j, s], TIME[j][k], on[j, s, m], f"i_{{j}}_{{m}}"
                )
                per_machine.setdefault(m, []).append(interval)
            model.add_exactly_one(on[j, s, m] for m in ELIGIBLE[j][k])
            if k:
                model.add(start[j, s] >= start[j, STAGES[k - 1]] + TIME[j][k - 1])
    makespan = model.new_int_var(0, horizon, "makespan")
    for j in JOBS:
        model.add(makespan >= start[j, STAGES[-1]] + TIME[j][-1])
    for m in per_machine:  # one job at a time on every machine
        model.add_no_overlap(per_machine[m])
    model.minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60.0
    if solver.solve(model) != cp_model.OPTIMAL:
        return {{"status": "error", "objective_value": None}}
    assignment = {{
        j: {{s: next(m for m in ELIGIBLE[j][k] if solver.value(on[j, s, m])) for k, s in enumerate(STAGES)}}
        for j in JOBS
    }}
    starts = {{j: {{s: solver.value(start[j, s]) for s in STAGES}} for j in JOBS}}
    finish = {{j: {{s: starts[j][s] + TIME[j][k] for k, s in enumerate(STAGES)}} for j in JOBS}}
    value = int(solver.objective_value)
    return {{
        "status": "optimal",
        "objective_value": value,
        "machine_assignment": assignment,
        "start_time": starts,
        "completion_time": finish,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


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


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["processing_time_regime"],
        meta["flexibility_level"],
        "eligibility" if meta["eligibility_flag"] else "no_eligibility",
        f"jobs_{meta['number_jobs']}",
        f"stages_{meta['number_stages']}",
    ]
    return DerivedArtifacts(
        task_input=task_input(instance),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
