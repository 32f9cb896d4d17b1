"""Scoring-time check of a returned parallel-machine schedule.

The assignment (job → eligible machine) is required. A schedule with start times is checked when
given: each job on its assigned machine, starting at or after its release, finishing after its
setup and processing, machines never running two jobs at once; the makespan is then its latest
finish. Without start times the makespan is recomputed as the best one the assignment allows
(earliest release first on each machine), since the assignment alone fixes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.decisions import first_present
from benchmark.suites.mmopt.generation.flows import close, fmt
from benchmark.suites.mmopt.generation.schedules import TOLERANCE, machine_overlaps, number
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.bipartite_assignment.validator import read_assignment
from benchmark.suites.mmopt.subcategories.parallel_machine_scheduling.generator import (
    machine_makespan,
    occupancy,
    release,
)

REPORTED_KEYS = ("objective_value", "objective", "makespan", "objective_exact")
#: Instance keys this check may look up that an official instance lacks (no setups, no releases).
OPTIONAL_KEYS = ("setup_time", "release_time")


def _starts(raw: Any, jobs: list[str]) -> tuple[dict[str, float], list[str]]:
    lookup = {j.lower(): j for j in jobs}
    starts: dict[str, float] = {}
    problems: list[str] = []
    items: list[tuple[Any, Any]] = []
    if isinstance(raw, list):
        for item in raw:
            if not isinstance(item, Mapping):
                problems.append(f"schedule entry {item!r} is not a record")
                continue
            items.append((item.get("job"), item.get("start", item.get("start_time"))))
    elif isinstance(raw, Mapping):
        items = [(k, v.get("start") if isinstance(v, Mapping) else v) for k, v in raw.items()]
    else:
        return {}, ["schedule is neither a list of records nor a dict of start times"]
    for raw_job, raw_start in items:
        text = str(raw_job).strip()
        job = lookup.get((f"J{int(text)}" if text.isdigit() else text).lower())
        start = number(raw_start)
        if job is None:
            problems.append(f"schedule names unknown job {raw_job!r}")
        elif start is None:
            problems.append(f"job {job}: start {raw_start!r} is not a number")
        elif job in starts:
            problems.append(f"job {job} is scheduled twice")
        else:
            starts[job] = start
    return starts, problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    jobs, machines = instance["sets"]["jobs"], instance["sets"]["machines"]
    assignment, problems = read_assignment(solution, jobs, machines, "J", "M", ("job", "machine"))
    for job, machine in assignment.items():
        if machine not in instance["eligibility"][job]:
            problems.append(f"job {job} is not eligible for machine {machine}")
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    raw = first_present(solution, ("schedule", "start_times", "starts"))
    if raw is None:
        makespan = float(
            max(machine_makespan(instance, m, [j for j, a in assignment.items() if a == m]) for m in machines)
        )
    else:
        starts, problems = _starts(raw, jobs)
        intervals: dict[str, list[tuple[float, float, str]]] = {}
        for job in jobs:
            if job not in starts:
                problems.append(f"job {job} has no start time")
                continue
            if starts[job] < release(instance, job) - TOLERANCE:
                problems.append(
                    f"job {job} starts at {fmt(starts[job])}, before its release {release(instance, job)}"
                )
            machine = assignment[job]
            intervals.setdefault(machine, []).append(
                (starts[job], starts[job] + occupancy(instance, job, machine), job)
            )
        if isinstance(raw, list):
            for item in raw:
                if isinstance(item, Mapping) and "finish" in item and str(item.get("job")) in starts:
                    job = str(item["job"])
                    finish = number(item["finish"])
                    expected = starts[job] + occupancy(instance, job, assignment[job])
                    if finish is None or abs(finish - expected) > TOLERANCE:
                        given_finish, wanted = item["finish"], fmt(expected)
                        problems.append(
                            f"job {job}: finish {given_finish!r}, start + setup + processing is {wanted}"
                        )
                    given = item.get("machine")
                    if given is not None and str(given) != assignment[job]:
                        problems.append(
                            f"job {job}: schedule puts it on {given!r}, assignment on {assignment[job]}"
                        )
        problems += machine_overlaps(intervals)
        finishes = [s + occupancy(instance, j, assignment[j]) for j, s in starts.items() if j in assignment]
        makespan = max(finishes) if finishes else None
    if makespan is None:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    for key in REPORTED_KEYS:
        reported = number(solution.get(key)) if key in solution else None
        if reported is not None and not close(reported, makespan):
            problems.append(f"reported {key} {fmt(reported)} != recomputed makespan {fmt(makespan)}")
    return SolutionCheck(feasible=not problems, objective=makespan, problems=tuple(problems))
