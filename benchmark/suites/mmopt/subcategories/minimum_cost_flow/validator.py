"""Scoring-time check of a returned minimum-cost flow."""

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
    """Feasibility of the returned flows and their cost Σ cost·flow recomputed from them.

    ``flows`` may be written in any form :mod:`~benchmark.suites.mmopt.generation.flows` accepts
    (``"u_v"``, ``"(u, v)"``, ``"u->v"``, ``"u,v"``, nested dicts, lists of from/to/flow records);
    unmentioned arcs carry 0. Checks: flow only on arcs, 0 ≤ flow ≤ capacity, net outflow equal to
    the supply at supply nodes, net inflow equal to the demand at demand nodes, inflow equal to
    outflow at transshipment nodes, and a reported objective equal to the recomputed cost.
    """
    arcs = [(str(a["from"]), str(a["to"])) for a in instance["arcs"]]
    capacity = {(str(a["from"]), str(a["to"])): float(a["capacity"]) for a in instance["arcs"]}
    cost = {(str(a["from"]), str(a["to"])): float(a["cost"]) for a in instance["arcs"]}
    raw = solution.get("flows")
    if raw is None:
        return SolutionCheck(feasible=False, objective=None, problems=("no flows returned",))
    flows, problems = parse_flows(raw, arcs)
    problems += bound_problems(flows, capacity)
    for node in (str(n) for n in instance["nodes"]):
        balance = float(instance["supply"][node])
        inflow, outflow = inflow_outflow(flows, node)
        if balance > 0 and not close(outflow - inflow, balance):
            problems.append(f"node {node}: net outflow {fmt(outflow - inflow)} != supply {fmt(balance)}")
        elif balance < 0 and not close(inflow - outflow, -balance):
            problems.append(f"node {node}: net inflow {fmt(inflow - outflow)} != demand {fmt(-balance)}")
        elif balance == 0 and not close(inflow, outflow):
            problems.append(f"node {node}: inflow {fmt(inflow)} != outflow {fmt(outflow)}")
    total = sum(cost[arc] * value for arc, value in flows.items())
    reported = reported_objective(solution)
    if reported is not None and not close(reported, total):
        problems.append(f"reported objective {fmt(reported)} != recomputed cost {fmt(total)}")
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))
