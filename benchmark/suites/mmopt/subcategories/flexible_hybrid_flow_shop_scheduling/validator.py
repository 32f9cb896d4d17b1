"""Scoring-time check of a returned flexible flow-shop schedule: every job at every stage once, on
one of the stage's machines it is eligible for, stages in the common order, machines never running
two jobs at once; the makespan is recomputed from the start times.

Read shapes: the official ``start_time`` ({job: {stage: start}}) with ``machine_assignment``
({job: {stage: machine}}), or a list ``schedule`` of records with job, stage, machine and start.
A returned ``completion_time`` must equal start plus processing time; without start times, the
starts are read from it (as the release reads them). A schedule naming no machine at all, where
every machine of a stage may take every job, is feasible when no stage runs more jobs at once than
it has machines (the release's stage-capacity check; a machine assignment then exists).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.decisions import number
from benchmark.suites.mmopt.generation.flows import close, fmt
from benchmark.suites.mmopt.generation.schedules import (
    machine_overlaps,
    negative_starts,
    precedence_problems,
    read_starts,
)
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling.generator import eligible

REPORTED_KEYS = ("objective_value", "objective", "objective_exact", "optimal_makespan", "makespan")
#: Instance keys this check may look up that an official instance lacks (no eligibility restriction).
OPTIONAL_KEYS = ("eligible_machines",)
TOLERANCE = 1e-6


def _machines(
    solution: Mapping[str, Any], records: Mapping[tuple[str, str], Mapping[str, Any]]
) -> dict[tuple[str, str], Any]:
    chosen: dict[tuple[str, str], Any] = {key: operation.get("machine") for key, operation in records.items()}
    raw = solution.get("machine_assignment")
    if isinstance(raw, Mapping):
        for job, row in raw.items():
            if isinstance(row, Mapping):
                for stage, machine in row.items():
                    chosen.setdefault((str(job), str(stage)), machine)
    return chosen


def _starts_from_completions(instance: Mapping[str, Any], completion: Mapping[str, Any]) -> dict[str, Any]:
    """{job: {stage: start}} from completion times (start = completion - processing time), the
    release's reading when no start time is given."""
    times = instance["processing_time"]
    starts: dict[str, Any] = {}
    for job, row in completion.items():
        if isinstance(row, Mapping) and isinstance(times.get(str(job)), Mapping):
            starts[str(job)] = {
                stage: finish - float(times[str(job)][str(stage)])
                if (finish := number(value)) is not None and str(stage) in times[str(job)]
                else value
                for stage, value in row.items()
            }
    return starts


def _stage_capacity_problems(
    instance: Mapping[str, Any],
    starts: Mapping[tuple[str, str], float],
    time: Mapping[tuple[str, str], float],
) -> list[str]:
    """With no machine named and every machine of a stage open to every job, the schedule is
    feasible exactly when no stage ever runs more jobs at once than it has machines (intervals that
    never overlap more than k deep can be put on k machines)."""
    problems = []
    for stage, machines in instance["sets"]["machines_by_stage"].items():
        events = sorted(
            (moment, change)
            for (job, at), start in starts.items()
            if at == stage and time[job, at] > TOLERANCE
            for moment, change in ((start, 1), (start + time[job, at] - TOLERANCE, -1))
        )
        running = 0
        for moment, change in events:
            running += change
            if running > len(machines):
                problems.append(f"{stage} runs {running} jobs at {fmt(moment)} on {len(machines)} machine(s)")
                break
    return problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    operations = {j: list(stages) for j in jobs}
    view = dict(solution)
    if "start_time" in solution and "schedule" not in solution:
        view["schedule"] = solution["start_time"]
    elif "schedule" not in solution and isinstance(solution.get("completion_time"), Mapping):
        view["schedule"] = _starts_from_completions(instance, solution["completion_time"])
    if isinstance(view.get("schedule"), list):  # records name the stage, read_starts wants "operation"
        view["schedule"] = [
            {**item, "operation": item.get("stage", item.get("operation"))}
            if isinstance(item, Mapping)
            else item
            for item in view["schedule"]
        ]
    starts, records, problems = read_starts(view, operations, operation_prefix="S")
    time = {(j, s): float(instance["processing_time"][j][s]) for j in jobs for s in stages}
    problems += negative_starts(starts)
    chosen = _machines(solution, records)
    intervals: dict[str, list[tuple[float, float, str]]] = {}
    if "eligible_machines" not in instance and all(machine is None for machine in chosen.values()):
        problems += _stage_capacity_problems(instance, starts, time)  # no machine named at all
        starts_to_place: dict[tuple[str, str], float] = {}
    else:
        starts_to_place = starts
    for (job, stage), start in starts_to_place.items():
        raw = chosen.get((job, stage))
        options = {m.lower(): m for m in eligible(instance, job, stage)}
        machine = options.get(str(raw).strip().lower()) if raw is not None else None
        if machine is None:
            problems.append(f"{job} at {stage}: machine {raw!r}, must be one of {list(options.values())}")
            continue
        intervals.setdefault(machine, []).append((start, start + time[job, stage], f"{job}@{stage}"))
    problems += precedence_problems(starts, time, operations)
    problems += machine_overlaps(intervals)
    completion = solution.get("completion_time")
    if isinstance(completion, Mapping):
        for job, row in completion.items():
            if not isinstance(row, Mapping):
                continue
            for stage, value in row.items():
                finish, key = number(value), (str(job), str(stage))
                if key in starts and finish is not None and abs(finish - starts[key] - time[key]) > TOLERANCE:
                    problems.append(
                        f"{job} at {stage}: completion {fmt(finish)} is not start {fmt(starts[key])} "
                        f"+ processing time {fmt(time[key])}"
                    )
    if len(starts) < len(time):
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    makespan = max(start + time[key] for key, start in starts.items())
    for reported_key in REPORTED_KEYS:
        reported = number(solution.get(reported_key)) if reported_key in solution else None
        if reported is not None and not close(reported, makespan):
            problems.append(f"reported {reported_key} {fmt(reported)} != recomputed makespan {fmt(makespan)}")
    return SolutionCheck(feasible=not problems, objective=makespan, problems=tuple(problems))
