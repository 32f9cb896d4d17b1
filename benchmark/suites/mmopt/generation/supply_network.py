"""Checks shared by subcategories whose instances are supply/demand networks (minimum-cost flow,
capacitated network design): balances, reachability, and whether the arcs can carry the supply.

``instance`` has ``nodes``, ``arcs`` (``from``, ``to``, ``capacity``) and the node balances (node
label → net supply, positive for supply and negative for demand), see :func:`supply_of`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ortools.graph.python import max_flow

from benchmark.suites.mmopt.generation.network import reachable


def supply_of(instance: Mapping[str, Any]) -> dict[int, int]:
    """Node → net supply: ``supply`` (minimum-cost flow) or ``demands.node_balance`` (network design)."""
    balance = instance["supply"] if "supply" in instance else instance["demands"]["node_balance"]
    return {int(node): int(value) for node, value in balance.items()}


def total_supply(instance: Mapping[str, Any]) -> int:
    return sum(value for value in supply_of(instance).values() if value > 0)


def supply_ends(instance: Mapping[str, Any]) -> tuple[list[int], list[int]]:
    """(supply nodes, demand nodes): the first and the last column of the drawing."""
    supply = supply_of(instance)
    return [n for n, v in supply.items() if v > 0], [n for n, v in supply.items() if v < 0]


def max_shippable(instance: Mapping[str, Any]) -> int:
    """How much of the supply can reach the demands at all (max flow through a super source/sink)."""
    supply = supply_of(instance)
    solver = max_flow.SimpleMaxFlow()
    super_source, super_sink = 0, max(supply) + 1
    for a in instance["arcs"]:
        solver.add_arc_with_capacity(a["from"], a["to"], a["capacity"])
    for node, value in supply.items():
        if value > 0:
            solver.add_arc_with_capacity(super_source, node, value)
        elif value < 0:
            solver.add_arc_with_capacity(node, super_sink, -value)
    if solver.solve(super_source, super_sink) != solver.OPTIMAL:
        return -1
    return int(solver.optimal_flow())


def supply_network_problems(
    instance: Mapping[str, Any], node_range: tuple[int, int], arc_range: tuple[int, int]
) -> list[str]:
    """Structural problems of a candidate: sizes outside the regime, duplicate or antiparallel arcs,
    unbalanced supply, fewer than two supply or demand nodes, a node on no supply-demand route, or
    capacities that cannot carry the supply."""
    nodes = list(instance["nodes"])
    pairs = [(a["from"], a["to"]) for a in instance["arcs"]]
    supply = supply_of(instance)
    problems = []
    if not node_range[0] <= len(nodes) <= node_range[1]:
        problems.append("structure: node count outside the regime")
    if not arc_range[0] <= len(pairs) <= arc_range[1]:
        problems.append("structure: arc count outside the regime")
    if len(set(pairs)) != len(pairs) or any((v, u) in set(pairs) for u, v in pairs):
        problems.append("structure: duplicate or antiparallel arcs")
    if sum(supply.values()) != 0:
        problems.append("structure: total supply differs from total demand")
    sources = [n for n, b in supply.items() if b > 0]
    sinks = [n for n, b in supply.items() if b < 0]
    if len(sources) < 2 or len(sinks) < 2:
        problems.append("structure: fewer than two supply or demand nodes")
    on_routes = reachable(nodes, pairs, sources) == set(nodes) == reachable(nodes, pairs, sinks, reverse=True)
    if not on_routes:
        problems.append("structure: a node is off every supply-demand route")
    if not problems and max_shippable(instance) != total_supply(instance):
        problems.append("structure: capacities cannot carry the supply")
    return problems
