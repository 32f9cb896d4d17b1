"""Scoring-time check of a returned job-shop schedule: every operation once, on its machine, for
its duration, in its job's order, machines never running two operations at once; the makespan is
recomputed from the start times."""

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
    record_problems,
)
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

REPORTED_KEYS = ("objective_value", "objective", "makespan", "objective_exact")


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    operations = instance["sets"]["operations"]
    starts, records, problems = read_starts(solution, operations)
    duration = {
        (job, op): float(instance["processing_time"][job][op])
        for job, ops in operations.items()
        for op in ops
    }
    machine_of = {
        (job, op): instance["machine_assignment"][job][op] for job, ops in operations.items() for op in ops
    }
    problems += negative_starts(starts)
    problems += record_problems(records, duration, {key: [m] for key, m in machine_of.items()})
    problems += precedence_problems(starts, duration, operations)
    intervals: dict[str, list[tuple[float, float, str]]] = {}
    for key, start in starts.items():
        intervals.setdefault(machine_of[key], []).append((start, start + duration[key], f"{key[0]}-{key[1]}"))
    problems += machine_overlaps(intervals)
    makespan = max((start + duration[key] for key, start in starts.items()), default=None)
    if makespan is None:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    for reported_key in REPORTED_KEYS:
        reported = number(solution.get(reported_key)) if reported_key in solution else None
        if reported is not None and not close(reported, makespan):
            problems.append(f"reported {reported_key} {fmt(reported)} != recomputed makespan {fmt(makespan)}")
    return SolutionCheck(feasible=not problems, objective=makespan, problems=tuple(problems))
