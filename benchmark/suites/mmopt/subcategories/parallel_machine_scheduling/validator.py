"""Scoring-time check of a returned parallel-machine schedule.

The assignment (job → eligible machine) is required; with no assignment key, the machines named in
the schedule's records stand for it (as the release reads them). A schedule with start times is checked when
given: each job on its assigned machine, starting at or after its release, finishing after its
setup and processing, machines never running two jobs at once. The objective follows the
instance's ``objective_type`` (in ``meta_parameters``; the release has ``makespan`` and
``total_completion``, and ``total_weighted_completion`` would use ``weights``): the latest
finish, or the (weighted) sum of finishes. Without start times it is recomputed as the best one
the assignment allows: earliest release first for the makespan, Smith's rule (shortest weighted
processing time first) for the completion sums, optimal on each machine without release times.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.decisions import (
    ASSIGNMENT_KEYS,
    first_present,
    number,
    read_assignment,
)
from benchmark.suites.mmopt.generation.flows import close, fmt
from benchmark.suites.mmopt.generation.schedules import TOLERANCE, machine_overlaps
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.parallel_machine_scheduling.generator import occupancy, release

MAKESPAN = "makespan"
#: Instance keys this check may look up that an official instance lacks (no setups, no releases;
#: the objective type may sit at the top level or in ``meta_parameters``).
OPTIONAL_KEYS = ("setup_time", "release_time", "objective_type", "weights")


def objective_type(instance: Mapping[str, Any]) -> str:
    """``makespan`` (our packages and most official ones), ``total_completion`` or
    ``total_weighted_completion``."""
    meta = instance.get("meta_parameters")
    raw = instance.get("objective_type") or (
        meta.get("objective_type") if isinstance(meta, Mapping) else None
    )
    return str(raw or MAKESPAN).strip().lower()


def _weight(instance: Mapping[str, Any], kind: str, job: str) -> float:
    weights = instance.get("weights") if "weighted" in kind else None
    return float(weights.get(job, 1)) if isinstance(weights, Mapping) else 1.0


def _objective(instance: Mapping[str, Any], kind: str, finishes: Mapping[str, float]) -> float:
    if kind == MAKESPAN:
        return max(finishes.values())
    return sum(_weight(instance, kind, job) * finish for job, finish in finishes.items())


def _best_finishes(instance: Mapping[str, Any], kind: str, assignment: Mapping[str, str]) -> dict[str, float]:
    """Each job's finish in the best sequence the assignment allows, machine by machine."""
    finishes: dict[str, float] = {}
    for machine in instance["sets"]["machines"]:
        jobs = [j for j, a in assignment.items() if a == machine]
        if kind == MAKESPAN:
            order = sorted(jobs, key=lambda j: (release(instance, j), j))
        else:
            order = sorted(
                jobs, key=lambda j: (occupancy(instance, j, machine) / _weight(instance, kind, j), j)
            )
        time = 0.0
        for job in order:
            time = max(time, release(instance, job)) + occupancy(instance, job, machine)
            finishes[job] = time
    return finishes


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


def _schedule_machines(solution: Mapping[str, Any]) -> dict[str, Any]:
    """job -> machine as the schedule's records name them (the assignment the release reads when
    the answer has no assignment of its own)."""
    raw = solution.get("schedule")
    records = raw if isinstance(raw, list) else list(raw.values()) if isinstance(raw, Mapping) else []
    found = {}
    for item in records:
        if isinstance(item, Mapping) and item.get("job") is not None and item.get("machine") is not None:
            found[str(item["job"])] = item["machine"]
    return found


def official_problems(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> list[str]:
    """What the release's scorer also rejects (``--scoring=official`` only): under a completion-time
    objective every job needs its start or finish time, which we would otherwise recompute as the
    best sequence the assignment allows."""
    if objective_type(instance) == MAKESPAN:
        return []
    timed: set[str] = set()
    raw = solution.get("schedule")
    records = raw.items() if isinstance(raw, Mapping) else enumerate(raw) if isinstance(raw, list) else ()
    for key, item in records:
        if isinstance(item, Mapping) and any(number(item.get(k)) is not None for k in ("start", "finish")):
            timed.add(str(item.get("job", key)))
    for key in ("start_time", "start_times", "job_start_times", "finish_time", "finish_times"):
        table = solution.get(key)
        if isinstance(table, Mapping):
            timed |= {str(job) for job, value in table.items() if number(value) is not None}
    untimed = [job for job in instance["sets"]["jobs"] if job not in timed]
    return [f"no start or finish time for {', '.join(untimed)} (the release needs them)"] if untimed else []


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    jobs, machines = instance["sets"]["jobs"], instance["sets"]["machines"]
    if first_present(solution, ASSIGNMENT_KEYS) is None and (named := _schedule_machines(solution)):
        solution = {**solution, "assignment": named}
    assignment, problems = read_assignment(solution, jobs, machines, "J", "M", ("job", "machine"))
    for job, machine in assignment.items():
        if machine not in instance["eligibility"][job]:
            problems.append(f"job {job} is not eligible for machine {machine}")
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    kind = objective_type(instance)
    raw = first_present(solution, ("schedule", "start_times", "starts"))
    if raw is None:
        released = any(release(instance, job) for job in jobs)
        if kind != MAKESPAN and released:
            problems.append("a schedule with start times is needed: jobs have release times")
            return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
        objective: float | None = _objective(instance, kind, _best_finishes(instance, kind, assignment))
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
        finishes = {
            j: s + occupancy(instance, j, assignment[j]) for j, s in starts.items() if j in assignment
        }
        objective = _objective(instance, kind, finishes) if finishes else None
        if finishes and kind != MAKESPAN:  # a makespan reported beside a completion-time objective
            _check_reported(solution, MAKESPAN, max(finishes.values()), problems)
    if objective is None:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    for key in (
        "objective_value",
        "objective",
        "objective_exact",
        *((MAKESPAN,) if kind == MAKESPAN else ()),
    ):
        _check_reported(solution, key, objective, problems, f"recomputed {kind}")
    return SolutionCheck(feasible=not problems, objective=objective, problems=tuple(problems))


def _check_reported(
    solution: Mapping[str, Any],
    key: str,
    value: float,
    problems: list[str],
    what: str = "recomputed makespan",
) -> None:
    reported = number(solution.get(key)) if key in solution else None
    if reported is not None and not close(reported, value):
        problems.append(f"reported {key} {fmt(reported)} != {what} {fmt(value)}")
