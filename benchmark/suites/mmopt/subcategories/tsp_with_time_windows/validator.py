"""Scoring-time check of a returned time-windowed tour (official keys ``tour`` or ``selected_arcs``,
optionally ``service_start_times``)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation import decisions, routing
from benchmark.suites.mmopt.generation.flows import reported_objective
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.travel_salesman_problem.validator import (
    TOUR_KEYS,
    open_cycle,
    tour_problems,
)
from benchmark.suites.mmopt.tolerances import objective_tolerance, time_tolerance

TOLERANCE = objective_tolerance("tsp_with_time_windows")  # the official release's floor
TIME_TOLERANCE = time_tolerance("tsp_with_time_windows")  # on arrival and service-start times
START_KEYS = ("service_start_times", "start_times", "service_starts")


def _number(raw: Any) -> float | None:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    return float(raw)


def _leg(instance: Mapping[str, Any], a: str, b: str) -> float:
    return float(instance["travel_time_matrix"][a][b])


def timing_problems(instance: Mapping[str, Any], cycle: list[str]) -> list[str]:
    """Earliest service starts along the tour (waiting when early) against every window, and the
    return to the depot against its close, within :data:`TIME_TOLERANCE`."""
    windows, service = instance["time_windows"], instance["service_times"]
    depot = cycle[0]
    problems, time = [], 0.0
    for previous, node in itertools.pairwise(cycle):
        arrive = time + float(service[previous]) + _leg(instance, previous, node)
        opens, closes = (float(x) for x in windows[node])
        if arrive > closes + TIME_TOLERANCE:
            problems.append(
                f"late for a window: {node} is reached at {arrive:g}, after its window closes at {closes:g}"
            )
        time = max(arrive, opens)
    back = time + float(service[cycle[-1]]) + _leg(instance, cycle[-1], depot)
    closes = float(windows[depot][1])
    if back > closes + TIME_TOLERANCE:
        problems.append(f"late for a window: back at {depot} at {back:g}, after it closes at {closes:g}")
    return problems


def reported_time_problems(instance: Mapping[str, Any], cycle: list[str], raw: Any) -> list[str]:
    """Returned service starts, where given: inside each window and no earlier than the previous
    stop's start plus its service and the leg (within :data:`TIME_TOLERANCE`)."""
    if not isinstance(raw, Mapping):
        return []
    windows, service = instance["time_windows"], instance["service_times"]
    starts = {name: _number(raw.get(name)) for name in cycle}
    problems = []
    for previous, node in itertools.pairwise(cycle):
        start = starts[node]
        if start is None:
            continue
        opens, closes = (float(x) for x in windows[node])
        if not opens - TIME_TOLERANCE <= start <= closes + TIME_TOLERANCE:
            problems.append(
                f"late for a window: reported service start {start:g} at {node} "
                f"is outside [{opens:g}, {closes:g}]"
            )
        before = starts[previous]
        if (
            before is not None
            and start < before + float(service[previous]) + _leg(instance, previous, node) - TIME_TOLERANCE
        ):
            problems.append(f"reported service start {start:g} at {node} is earlier than {previous} allows")
    return problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """One closed tour from the depot through every customer once, in the returned direction (the
    windows make direction matter; a list of the customers alone leaves from the depot); the
    earliest schedule along it meets every window and the depot's close; returned service starts,
    if any, are consistent; the travel time recomputed from the instance's matrix, and a reported
    value must agree within 1e-2."""
    names = list(instance["sets"]["nodes"])
    depot = str(instance["depot"])
    raw = decisions.first_present(solution, TOUR_KEYS)
    if raw is not None:
        sequence, problems = routing.read_sequence(raw, names)
    elif "selected_arcs" in solution:
        sequence, problems = routing.sequence_from_arcs(solution["selected_arcs"], names, depot)
    else:
        return SolutionCheck(feasible=False, objective=None, problems=("no tour returned",))
    if sequence is None or problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    cycle = open_cycle(sequence)
    if depot not in cycle:  # customers only: the tour leaves from and returns to the depot
        cycle = [depot, *cycle]
    problems = tour_problems(cycle, names)
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    start = cycle.index(depot)
    cycle = cycle[start:] + cycle[:start]
    problems = timing_problems(instance, cycle)
    problems += reported_time_problems(instance, cycle, decisions.first_present(solution, START_KEYS))
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    total = sum(_leg(instance, cycle[k], cycle[(k + 1) % len(cycle)]) for k in range(len(cycle)))
    objective = routing.finish_total(total, str(instance["meta_parameters"]["travel_time_rule"]))
    claimed = reported_objective(solution)
    if claimed is not None and abs(claimed - objective) > TOLERANCE:
        problems.append(f"reported objective {claimed:g} != recomputed travel time {objective:g}")
    return SolutionCheck(feasible=not problems, objective=objective, problems=tuple(problems))
