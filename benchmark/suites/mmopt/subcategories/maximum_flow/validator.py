"""Scoring-time check of a returned maximum flow (and, when given, its minimum cut)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.flows import (
    bound_problems,
    close,
    fmt,
    inflow_outflow,
    parse_flows,
    reported_objective,
)
from benchmark.suites.mmopt.subcategories.base import SolutionCheck


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Feasibility of the returned flows and the flow value recomputed from them.

    ``flows`` may be written in any form :mod:`~benchmark.suites.mmopt.generation.flows` accepts
    (``"u_v"``, ``"(u, v)"``, ``"u->v"``, ``"u,v"``, nested dicts, lists of from/to/flow records);
    unmentioned arcs carry 0. Checks: flow only on arcs, 0 ≤ flow ≤ capacity, conservation at every
    node but the source and sink, a reported objective equal to the source's net outflow, and, when
    ``min_cut_S`` (or only ``min_cut_T``) is returned, a cut that separates source from sink with
    capacity equal to the flow value. A missing cut is not required.
    """
    nodes = [str(n) for n in instance["nodes"]]
    source, sink = str(instance["source"]), str(instance["sink"])
    arcs = [(str(a["from"]), str(a["to"])) for a in instance["arcs"]]
    capacity = {(str(a["from"]), str(a["to"])): float(a["capacity"]) for a in instance["arcs"]}
    raw = solution.get("flows")
    if raw is None:
        return SolutionCheck(feasible=False, objective=None, problems=("no flows returned",))
    flows, problems = parse_flows(raw, arcs)
    problems += bound_problems(flows, capacity)
    for node in nodes:
        if node in (source, sink):
            continue
        inflow, outflow = inflow_outflow(flows, node)
        if not close(inflow, outflow):
            problems.append(f"node {node}: inflow {fmt(inflow)} != outflow {fmt(outflow)}")
    inflow, outflow = inflow_outflow(flows, source)
    value = outflow - inflow
    reported = reported_objective(solution)
    if reported is not None and not close(reported, value):
        problems.append(f"reported objective {fmt(reported)} != flow value {fmt(value)}")
    problems += _cut_problems(solution, nodes, source, sink, capacity, value)
    return SolutionCheck(feasible=not problems, objective=value, problems=tuple(problems))


def _labels(raw: Any, name: str, nodes: list[str]) -> tuple[set[str] | None, list[str]]:
    if not isinstance(raw, list | tuple | set):
        return None, [f"{name} is not a list of node labels"]
    labels = {str(item) for item in raw}
    unknown = sorted(labels - set(nodes))
    if unknown:
        return None, [f"{name}: unknown node {unknown[0]}"]
    return labels, []


def _cut_problems(
    solution: Mapping[str, Any],
    nodes: list[str],
    source: str,
    sink: str,
    capacity: Mapping[tuple[str, str], float],
    value: float,
) -> list[str]:
    raw_s, raw_t = solution.get("min_cut_S"), solution.get("min_cut_T")
    if raw_s is None and raw_t is None:
        return []
    side_s: set[str] | None = None
    if raw_s is not None:
        side_s, problems = _labels(raw_s, "min_cut_S", nodes)
        if problems:
            return problems
    if raw_t is not None:
        side_t, problems = _labels(raw_t, "min_cut_T", nodes)
        if problems:
            return problems
        assert side_t is not None
        if side_s is None:
            side_s = set(nodes) - side_t
        elif side_t != set(nodes) - side_s:
            return ["min_cut_T is not the complement of min_cut_S"]
    assert side_s is not None
    if source not in side_s:
        return [f"min_cut_S does not contain the source {source}"]
    if sink in side_s:
        return [f"min_cut_S contains the sink {sink}"]
    cut = sum(cap for (u, v), cap in capacity.items() if u in side_s and v not in side_s)
    if not close(cut, value):
        return [f"min cut capacity {fmt(cut)} != flow value {fmt(value)}"]
    return []
