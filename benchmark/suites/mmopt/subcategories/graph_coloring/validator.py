"""Scoring-time check of a returned vertex colouring (official key ``color_assignment``)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from benchmark.suites.mmopt.generation import decisions
from benchmark.suites.mmopt.generation.flows import reported_objective
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.graph_coloring.generator import is_decision

ASSIGNMENT_KEYS = ("color_assignment", "coloring", "colouring", "colors", "vertex_colors", "assignment")
#: Instance keys an official instance may lack: ``task_variant`` (easy packages give only
#: ``objective_type``), ``precolored_vertices`` (only the precoloured-decision variant has it) and
#: ``color_weights`` (only the weighted variant, whose objective is the weight of the colours used).
OPTIONAL_KEYS = ("task_variant", "precolored_vertices", "color_weights")


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


def _labelled_colour_problems(instance: Mapping[str, Any], colouring: Mapping[int, Hashable]) -> list[str]:
    """Where colour labels matter (precoloured vertices, or colours with weights), every colour
    must be one of ``sets.colors`` and each precoloured vertex keeps its colour (compared as
    text, so ``"2"`` and ``2`` agree)."""
    fixed = instance.get("precolored_vertices")
    fixed = fixed if isinstance(fixed, Mapping) else {}
    if not fixed and instance.get("color_weights") is None:
        return []
    palette = {str(c) for c in instance["sets"]["colors"]}
    problems = [
        f"vertex {v}: colour {c!r} is not one of the available colours"
        for v, c in colouring.items()
        if str(c) not in palette
    ]
    for vertex, colour in fixed.items():
        given = next((c for v, c in colouring.items() if str(v) == str(vertex)), None)
        if given is not None and str(given) != str(colour):
            problems.append(f"vertex {vertex} is precoloured {colour}, but has colour {given!r}")
    return problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Every vertex coloured, no edge with both ends of one colour; for a decision instance at most
    k distinct colours, and precoloured vertices keep their colours. The objective (optimization
    instances) is the number (or total weight) of the colours used, recomputed, and a reported
    value must equal it."""
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
    decision = is_decision(instance)
    if decision and used > len(instance["sets"]["colors"]):
        problems.append(f"{used} colours used, only {len(instance['sets']['colors'])} available")
    problems += _labelled_colour_problems(instance, colouring)
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    objective = _objective(instance, set(colouring.values()))
    claimed = reported_objective(solution)
    if not decision and claimed is not None and abs(claimed - objective) > 1e-6:
        problems.append(f"reported objective {claimed:g} != recomputed {objective:g}")
    return SolutionCheck(feasible=not problems, objective=objective, problems=tuple(problems))


def _objective(instance: Mapping[str, Any], used: set[Hashable]) -> float:
    """The number of colours used, or with ``color_weights`` (aligned with ``sets.colors``) the
    total weight of the colours used."""
    weights = instance.get("color_weights")
    if weights is None:
        return float(len(used))
    weight_of = {str(c): w for c, w in zip(instance["sets"]["colors"], weights, strict=True)}
    return float(sum(weight_of[str(c)] for c in used))
