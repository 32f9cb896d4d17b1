"""Scoring-time check of a returned vertex colouring (official key ``color_assignment``)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from benchmark.suites.mmopt.generation import decisions
from benchmark.suites.mmopt.generation.flows import reported_objective
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

ASSIGNMENT_KEYS = ("color_assignment", "coloring", "colouring", "colors", "vertex_colors", "assignment")


def read_colouring(raw: Any, vertices: list[int]) -> tuple[dict[int, Hashable], list[str]]:
    """Vertex → colour from a dict keyed by vertex (int or its string) or a list in vertex order."""
    if isinstance(raw, list | tuple) and len(raw) == len(vertices):
        raw = dict(zip(vertices, raw, strict=True))
    if not isinstance(raw, Mapping):
        return {}, ["color_assignment is neither a dict vertex -> colour nor a list in vertex order"]
    known = {str(v): v for v in vertices}
    colouring: dict[int, Hashable] = {}
    problems = []
    for key, colour in raw.items():
        vertex = known.get(str(key).strip())
        if vertex is None:
            problems.append(f"unknown vertex {key!r}")
        elif isinstance(colour, bool) or not isinstance(colour, int | str):
            problems.append(f"vertex {vertex}: colour {colour!r} is not an integer or a name")
        else:
            colouring[vertex] = colour
    return colouring, problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Every vertex coloured, no edge with both ends of one colour; for a decision instance at most
    k distinct colours. The objective (optimization instances) is the number of distinct colours
    used, recomputed, and a reported value must equal it."""
    vertices = list(instance["sets"]["vertices"])
    raw = decisions.first_present(solution, ASSIGNMENT_KEYS)
    if raw is None:
        return SolutionCheck(feasible=False, objective=None, problems=("no color_assignment returned",))
    colouring, problems = read_colouring(raw, vertices)
    problems += [f"vertex {v} has no colour" for v in vertices if v not in colouring]
    for u, v in instance["edges"]:
        if u in colouring and v in colouring and colouring[u] == colouring[v]:
            problems.append(f"edge {u}-{v}: both ends have colour {colouring[u]!r}")
    used = len(set(colouring.values()))
    if instance["task_variant"] == "decision" and used > len(instance["sets"]["colors"]):
        problems.append(f"{used} colours used, only {len(instance['sets']['colors'])} available")
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    claimed = reported_objective(solution)
    if instance["task_variant"] != "decision" and claimed is not None and claimed != used:
        problems.append(f"reported objective {claimed:g} != {used} colours used")
    return SolutionCheck(feasible=not problems, objective=float(used), problems=tuple(problems))
