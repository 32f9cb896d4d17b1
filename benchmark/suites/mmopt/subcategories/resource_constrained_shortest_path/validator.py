"""Scoring-time check of a returned resource-constrained shortest path."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.flows import close, fmt, reported_objective
from benchmark.suites.mmopt.generation.network_extras import parse_arc_selection
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

PATH_KEYS = ("path", "route", "path_nodes", "node_path", "node_sequence", "nodes")
ARC_KEYS = ("arcs", "path_arcs", "selected_arcs", "used_arcs", "arcs_used", "flows")


def _first_present(solution: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if solution.get(key) is not None:
            return solution[key]
    return None


def _chain(selected: set[tuple[str, str]], source: str) -> tuple[list[str] | None, str | None]:
    """The node sequence the selected arcs form from ``source``, or why they form no single path."""
    successor: dict[str, str] = {}
    for u, v in sorted(selected):
        if u in successor:
            return None, f"arcs leave node {u} twice"
        successor[u] = v
    path = [source]
    while path[-1] in successor:
        path.append(successor.pop(path[-1]))
        if path[-1] in path[:-1]:
            return None, f"arcs revisit node {path[-1]}"
    if successor:
        return None, f"arcs out of node {sorted(successor)[0]} are not on the path from the source"
    return path, None


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Feasibility of the returned path and its cost recomputed from it.

    The path is read from ``path`` (aliases: ``route``, ``path_nodes``, ``node_path``,
    ``node_sequence``, ``nodes``), a list of node names from the source to the sink; or, when no
    path is given, from ``arcs`` (aliases: ``path_arcs``, ``selected_arcs``, ``used_arcs``,
    ``arcs_used``, ``flows``), a list of arc keys ``"u_v"`` (or any form
    :func:`~benchmark.suites.mmopt.generation.network_extras.parse_arc_selection` reads, such as a
    0/1 dict). When both are given they must name the same arcs. Checks: the path starts at the
    source, ends at the sink, uses only existing arcs, visits no node twice, consumes no more of
    each resource than its budget, and the reported objective equals the recomputed cost.
    """
    source, sink = str(instance["source"]), str(instance["sink"])
    by_pair = {(str(a["from"]), str(a["to"])): a for a in instance["arcs"]}
    raw_path = _first_present(solution, PATH_KEYS)
    raw_arcs = _first_present(solution, ARC_KEYS)
    problems: list[str] = []
    selected: set[tuple[str, str]] | None = None
    if raw_arcs is not None:
        selected, problems = parse_arc_selection(raw_arcs, list(by_pair), "arcs")
        if problems:
            return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    if raw_path is not None:
        if not isinstance(raw_path, list | tuple) or not raw_path:
            return SolutionCheck(feasible=False, objective=None, problems=("path is not a list of nodes",))
        path = [str(node) for node in raw_path]
    elif selected is not None:
        chained, problem = _chain(selected, source)
        if chained is None:
            return SolutionCheck(feasible=False, objective=None, problems=(problem or "arcs form no path",))
        path = chained
    else:
        return SolutionCheck(feasible=False, objective=None, problems=("no path returned",))

    steps = list(itertools.pairwise(path))
    if path[0] != source:
        problems.append(f"path starts at {path[0]}, not at the source {source}")
    if path[-1] != sink:
        problems.append(f"path ends at {path[-1]}, not at the sink {sink}")
    repeated = sorted({node for node in path if path.count(node) > 1})
    if repeated:
        problems.append(f"path visits node {repeated[0]} more than once")
    missing = [f"{u}_{v}" for u, v in steps if (u, v) not in by_pair]
    if missing:
        problems.append(f"path uses non-existent arc {missing[0]}")
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    if selected is not None and selected != set(steps):
        problems.append("arcs do not match the path")
    cost = float(sum(by_pair[step]["cost"] for step in steps))
    for name, budget in instance["budgets"].items():
        used = sum(by_pair[step]["consumption"][name] for step in steps)
        if used > budget:
            problems.append(f"{name} used {fmt(used)} exceeds budget {fmt(budget)}")
    reported = reported_objective(solution)
    if reported is not None and not close(reported, cost):
        problems.append(f"reported objective {fmt(reported)} != recomputed cost {fmt(cost)}")
    return SolutionCheck(feasible=not problems, objective=cost, problems=tuple(problems))
