"""Minimum-cost flow under the official rules.

Official instance: ``nodes``, ``supply: {node: net supply}``, ``arcs: [{from, to, capacity,
cost}]``; arcs are named ``"u_v"``. The answer gives arc flows (``flows``, ``arc_flows`` or
``flow``) within capacity that meet every node's net supply; the objective is Σ cost × flow.

Strict additions: a flow keyed by something that names no arc of the instance is an error (the
official scorer drops it silently).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt import official_answers as read
from benchmark.suites.mmopt.official import infeasible, make_check
from benchmark.suites.mmopt.subcategories.base import OfficialCheck

REFERENCE_KEYS: tuple[str, ...] = ("objective_exact", "objective_value")
OBJECTIVE_KEYS: tuple[str, ...] = ("objective_exact", "objective", "objective_value", "total_cost")
FLOW_KEYS: tuple[str, ...] = ("flows", "arc_flows", "flow")
OPTIONAL_KEYS: frozenset[str] = frozenset()


def reads(instance: Mapping[str, Any]) -> bool:
    return isinstance(instance.get("arcs"), list) and isinstance(instance.get("supply"), Mapping)


def check(output: Any, instance: Mapping[str, Any], tolerance: float) -> OfficialCheck:
    answer = read.payload(output)
    if answer is None:
        return infeasible("the returned value is not a dict")
    if read.has_nonfinite(output):
        return infeasible("the answer holds a non-finite number")
    arcs = [a for a in instance["arcs"] if isinstance(a, Mapping)]
    supply = instance["supply"]
    ids = {(int(a["from"]), int(a["to"])): f"{int(a['from'])}_{int(a['to'])}" for a in arcs}
    flows, unread = read.arc_values(answer, FLOW_KEYS, set(ids.values()), ids)
    problems: list[str] = []
    computed = 0.0
    for arc in arcs:
        name = ids[(int(arc["from"]), int(arc["to"]))]
        flow = flows.get(name, 0.0)
        capacity, cost = read.number(arc.get("capacity")), read.number(arc.get("cost"))
        if capacity is not None and flow - capacity > tolerance:
            problems.append(f"arc {name}: flow {flow:g} exceeds capacity {capacity:g}")
        if flow < -tolerance:
            problems.append(f"arc {name}: negative flow {flow:g}")
        if cost is not None:
            computed += cost * flow
    nodes = sorted({int(n) for n in supply} | {u for u, _ in ids} | {v for _, v in ids})
    for node in nodes:
        outflow = sum(flows.get(name, 0.0) for (u, _), name in ids.items() if u == node)
        inflow = sum(flows.get(name, 0.0) for (_, v), name in ids.items() if v == node)
        target = read.number(supply.get(str(node)))
        if target is None:
            target = read.number(supply.get(node)) or 0.0
        if abs(outflow - inflow - target) > tolerance:
            problems.append(f"node {node}: flow balance {outflow - inflow:g}, net supply {target:g}")
    reported = read.reported_objective(answer, OBJECTIVE_KEYS)
    if reported is not None and abs(reported - computed) > tolerance:
        problems.append(f"reported objective {reported:g} but the flows cost {computed:g}")
    strict = [f"flow key {key!r} names no arc of the instance" for key in unread]
    return make_check(problems, reported, computed, strict)
