"""Scoring-time check of a returned RCPSP schedule: every real activity starts once, after all its
predecessors finish, and no resource is ever used beyond its capacity; the makespan (latest finish)
is recomputed from the start times."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.decisions import first_present, number
from benchmark.suites.mmopt.generation.flows import close, fmt
from benchmark.suites.mmopt.generation.schedules import TOLERANCE
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

START_KEYS = ("activity_start_times", "start_times", "starts", "schedule")
REPORTED_KEYS = ("objective_value", "objective", "makespan", "objective_exact")


def _starts(raw: Any, activities: list[str]) -> tuple[dict[str, float], list[str]]:
    lookup = {a.lower(): a for a in activities}
    pairs: list[tuple[Any, Any]]
    if isinstance(raw, Mapping):
        pairs = [(k, v.get("start") if isinstance(v, Mapping) else v) for k, v in raw.items()]
    elif isinstance(raw, list):
        pairs = [
            (item.get("activity"), item.get("start")) if isinstance(item, Mapping) else (item, None)
            for item in raw
        ]
    else:
        return {}, ["start times are neither a dict nor a list of records"]
    starts: dict[str, float] = {}
    problems = []
    for raw_name, raw_start in pairs:
        text = str(raw_name).strip()
        name = lookup.get((f"A{int(text)}" if text.isdigit() else text).lower())
        value = number(raw_start)
        if name is None:
            if text.lower() not in ("start", "end"):
                problems.append(f"unknown activity {raw_name!r}")
        elif value is None:
            problems.append(f"activity {name}: start {raw_start!r} is not a number")
        elif name in starts:
            problems.append(f"activity {name} is scheduled twice")
        else:
            starts[name] = value
    return starts, problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    real = list(instance["sets"]["real_activities"])
    raw = first_present(solution, START_KEYS)
    if raw is None:
        return SolutionCheck(feasible=False, objective=None, problems=("no activity start times returned",))
    starts, problems = _starts(raw, real)
    missing = [a for a in real if a not in starts]
    problems += [f"activity {a} has no start time" for a in missing]
    if missing:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    duration = {a: float(instance["duration"][a]) for a in real}
    for a in real:
        if starts[a] < -TOLERANCE:
            problems.append(f"activity {a} starts at {fmt(starts[a])} < 0")
    for u, v in instance["precedence_arcs"]:
        if u in starts and v in starts and starts[v] < starts[u] + duration[u] - TOLERANCE:
            ends = fmt(starts[u] + duration[u])
            problems.append(
                f"activity {v} starts at {fmt(starts[v])}, before its predecessor {u} ends at {ends}"
            )
    for t in sorted({starts[a] for a in real}):  # resource use only rises at a start
        running = [a for a in real if starts[a] <= t + TOLERANCE and t < starts[a] + duration[a] - TOLERANCE]
        for r in instance["sets"]["resources"]:
            used = sum(instance["resource_demand"][a][r] for a in running)
            if used > instance["resource_capacity"][r]:
                limit = instance["resource_capacity"][r]
                problems.append(
                    f"resource {r} at time {fmt(t)}: {', '.join(running)} use {used}, capacity {limit}"
                )
    makespan = max(starts[a] + duration[a] for a in real)
    for key in REPORTED_KEYS:
        reported = number(solution.get(key)) if key in solution else None
        if reported is not None and not close(reported, makespan):
            problems.append(f"reported {key} {fmt(reported)} != recomputed makespan {fmt(makespan)}")
    return SolutionCheck(feasible=not problems, objective=makespan, problems=tuple(problems))
