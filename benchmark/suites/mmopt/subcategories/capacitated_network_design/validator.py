"""Scoring-time check of a returned network design (open arcs and the flow routed through them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.flows import (
    TOLERANCE,
    bound_problems,
    close,
    fmt,
    inflow_outflow,
    parse_flows,
    reported_objective,
)
from benchmark.suites.mmopt.generation.network_extras import parse_arc_selection
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

OPEN_KEYS = ("open_arcs", "opened_arcs", "arcs_open", "open", "design", "y", "selected_arcs", "built_arcs")


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Feasibility of the returned design and flows, and their total cost recomputed from them.

    ``open_arcs`` (aliases: ``opened_arcs``, ``arcs_open``, ``open``, ``design``, ``y``,
    ``selected_arcs``, ``built_arcs``) lists the opened arcs as keys ``"u_v"`` (or any form
    :func:`~benchmark.suites.mmopt.generation.network_extras.parse_arc_selection` reads, such as a
    0/1 dict); when it is missing, the arcs carrying flow count as opened. ``flows`` is read by
    :mod:`~benchmark.suites.mmopt.generation.flows` (``"u_v"`` and the other key forms; unmentioned
    arcs carry 0). Checks: 0 ≤ flow ≤ capacity, no flow on an arc that is not open, every node's net
    supply met exactly, and a reported objective equal to the recomputed cost: the fixed cost of
    every opened arc plus unit cost times flow.
    """
    pairs = [(str(a["from"]), str(a["to"])) for a in instance["arcs"]]
    by_pair = dict(zip(pairs, instance["arcs"], strict=True))
    raw_flows = solution.get("flows")
    if raw_flows is None:
        return SolutionCheck(feasible=False, objective=None, problems=("no flows returned",))
    flows, problems = parse_flows(raw_flows, pairs)
    raw_open = next((solution[key] for key in OPEN_KEYS if solution.get(key) is not None), None)
    if raw_open is None:
        opened = {pair for pair, value in flows.items() if value > TOLERANCE}
    else:
        opened, open_problems = parse_arc_selection(raw_open, pairs, "open_arcs")
        problems += open_problems
    problems += bound_problems(flows, {pair: float(a["capacity"]) for pair, a in by_pair.items()})
    for (u, v), value in flows.items():
        if value > TOLERANCE and (u, v) not in opened:
            problems.append(f"arc {u}_{v}: flow {fmt(value)} but the arc is not open")
    for node in (str(n) for n in instance["nodes"]):
        balance = float(instance["supply"][node])
        inflow, outflow = inflow_outflow(flows, node)
        if balance > 0 and not close(outflow - inflow, balance):
            problems.append(f"node {node}: net outflow {fmt(outflow - inflow)} != supply {fmt(balance)}")
        elif balance < 0 and not close(inflow - outflow, -balance):
            problems.append(f"node {node}: net inflow {fmt(inflow - outflow)} != demand {fmt(-balance)}")
        elif balance == 0 and not close(inflow, outflow):
            problems.append(f"node {node}: inflow {fmt(inflow)} != outflow {fmt(outflow)}")
    total = sum(float(by_pair[pair]["fixed_cost"]) for pair in opened)
    total += sum(float(by_pair[pair]["cost"]) * value for pair, value in flows.items())
    reported = reported_objective(solution)
    if reported is not None and not close(reported, total):
        problems.append(f"reported objective {fmt(reported)} != recomputed cost {fmt(total)}")
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))
