"""Scoring-time check of a returned tour (official keys ``tour`` or ``selected_arcs``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation import decisions, routing
from benchmark.suites.mmopt.generation.flows import reported_objective
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.tolerances import objective_tolerance

TOLERANCE = objective_tolerance("travel_salesman_problem")  # the official release's floor
TOUR_KEYS = ("tour", "route", "sequence", "order", "path")


def tour_problems(cycle: list[str], cities: list[str]) -> list[str]:
    """Every city exactly once in an open cycle (the return leg is implied)."""
    counts = Counter(cycle)
    problems = [f"city {c} is visited {counts[c]} times" for c in cities if counts[c] > 1]
    problems += [f"city {c} is not visited" for c in cities if counts[c] == 0]
    return problems


def open_cycle(sequence: list[str]) -> list[str]:
    """A tour written closed (``A … A``) or open (``A …``) as the open cycle ``A …``."""
    return sequence[:-1] if len(sequence) > 1 and sequence[0] == sequence[-1] else sequence


def cycle_cost(instance: Mapping[str, Any], cycle: list[str]) -> float:
    """Σ of the instance's leg costs around the closed cycle, finished under its cost rule."""
    matrix = instance["distance_matrix"]
    total = sum(float(matrix[cycle[k]][cycle[(k + 1) % len(cycle)]]) for k in range(len(cycle)))
    return routing.finish_total(total, str(instance["meta_parameters"]["cost_matrix_type"]))


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """A single closed tour through every city exactly once (any start and direction: the costs are
    symmetric); its cost recomputed from the instance's distance matrix under the stated rule, and a
    reported value must agree within 1e-3."""
    cities = list(instance["sets"]["nodes"])
    root = str(instance.get("root_city", cities[0]))
    raw = decisions.first_present(solution, TOUR_KEYS)
    if raw is not None:
        sequence, problems = routing.read_sequence(raw, cities)
    elif "selected_arcs" in solution:
        sequence, problems = routing.sequence_from_arcs(solution["selected_arcs"], cities, root)
    else:
        return SolutionCheck(feasible=False, objective=None, problems=("no tour returned",))
    if sequence is None or problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    cycle = open_cycle(sequence)
    problems = tour_problems(cycle, cities)
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    objective = cycle_cost(instance, cycle)
    claimed = reported_objective(solution)
    if claimed is not None and abs(claimed - objective) > TOLERANCE:
        problems.append(f"reported objective {claimed:g} != recomputed tour cost {objective:g}")
    return SolutionCheck(feasible=not problems, objective=objective, problems=tuple(problems))
