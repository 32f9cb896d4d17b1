"""Scoring-time check of a returned p-median or p-center selection."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation import decisions
from benchmark.suites.mmopt.generation.spatial import resolve_name
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.p_median_center.generator import objective_of

TOLERANCE = 1e-3  # the official release's absolute tolerance for this subcategory
SELECTED_KEYS = ("selected", "selected_sites", "open_sites", "medians", "centers", "facilities")
ASSIGNMENT_KEYS = ("assignment", "assignments", "assign")


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Exactly p distinct sites selected, every demand point assigned to a selected site; the
    variant's objective (weighted distance sum for p-median, largest distance for p-center, exact
    distances, rounded to four decimals) is recomputed from the assignment, and a reported value
    must agree within 1e-3."""
    sites = [s["name"] for s in instance["sites"]]
    points = [d["name"] for d in instance["demand_points"]]
    problems: list[str] = []
    chosen = decisions.chosen(decisions.first_present(solution, SELECTED_KEYS))
    pairs = decisions.pairs(decisions.first_present(solution, ASSIGNMENT_KEYS))
    if chosen is None:
        problems.append("no selected list returned")
    if pairs is None:
        problems.append("no assignment dict returned")
    if chosen is None or pairs is None:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    selected: list[str] = []
    for raw in chosen:
        name = resolve_name(raw, sites)
        if name is None:
            problems.append(f"selected names unknown site {raw!r}")
        elif name in selected:
            problems.append(f"site {name} selected twice")
        else:
            selected.append(name)
    if len(selected) != instance["p"]:
        problems.append(f"{len(selected)} sites selected, p = {instance['p']}")
    assignment: dict[str, str] = {}
    for raw_point, raw_site in pairs:
        point, site = resolve_name(raw_point, points), resolve_name(raw_site, sites)
        if point is None or site is None:
            problems.append(f"assignment {raw_point!r} -> {raw_site!r} names no demand point/site")
            continue
        if point in assignment and assignment[point] != site:
            problems.append(f"demand point {point} assigned twice")
        assignment[point] = site
    for point in points:
        site = assignment.get(point)
        if site is None:
            problems.append(f"demand point {point} is not assigned")
        elif site not in selected:
            problems.append(f"demand point {point} assigned to unselected site {site}")
    if set(assignment) != set(points):
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    objective = objective_of(instance, assignment)
    claimed = solution.get("objective_value", solution.get("objective"))
    if (
        isinstance(claimed, int | float)
        and not isinstance(claimed, bool)
        and abs(claimed - objective) > TOLERANCE
    ):
        problems.append(f"reported objective {claimed:g} != recomputed {objective:g}")
    return SolutionCheck(feasible=not problems, objective=objective, problems=tuple(problems))
