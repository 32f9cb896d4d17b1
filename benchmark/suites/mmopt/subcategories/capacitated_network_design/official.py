"""Capacitated network design under the official rules (single commodity, arc ids).

Official instance: ``nodes``, ``arcs: [{id, from, to, capacity, ...}]``, ``capacities``,
``fixed_costs`` and ``variable_costs`` keyed by arc id, ``demands.node_balance``. The answer
gives arc flows (by id or ``"u_v"``) and, optionally, the installed arcs (an indicator dict or a
list of ids); an arc carrying flow counts as installed. Flows must respect capacities and the
node balances; the objective is Σ fixed cost of installed arcs + Σ variable cost × flow.

Strict additions: positive flow on an arc the answer itself reports as not installed is an error
(the official scorer installs it silently and charges its fixed cost), and so is a flow keyed by
something that names no arc.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt import official_answers as read
from benchmark.suites.mmopt.official import infeasible, make_check
from benchmark.suites.mmopt.subcategories.base import OfficialCheck

REFERENCE_KEYS: tuple[str, ...] = ("objective_exact", "objective_value")
OBJECTIVE_KEYS: tuple[str, ...] = ("objective_exact", "objective", "objective_value", "total_cost")
FLOW_KEYS: tuple[str, ...] = ("arc_flow_by_id", "arc_flows", "arc_flow", "flow", "flows")
INSTALL_KEYS: tuple[str, ...] = ("installation_indicator", "installation", "installed_arcs", "arc_installed")
INSTALLED_LIST_KEYS: tuple[str, ...] = ("installed_arc_ids", "used_arc_ids", "open_arcs")
OPTIONAL_KEYS: frozenset[str] = frozenset()


def reads(instance: Mapping[str, Any]) -> bool:
    arcs = instance.get("arcs")
    return isinstance(arcs, list) and all(isinstance(a, Mapping) and "id" in a for a in arcs)


def check(output: Any, instance: Mapping[str, Any], tolerance: float) -> OfficialCheck:
    answer = read.payload(output)
    if answer is None:
        return infeasible("the returned value is not a dict")
    arcs = [a for a in instance["arcs"] if isinstance(a, Mapping)]
    ids = {str(a["id"]) for a in arcs}
    endpoints = {(int(a["from"]), int(a["to"])): str(a["id"]) for a in arcs}
    flows, unread = read.arc_values(answer, FLOW_KEYS, ids, endpoints)
    install, _ = read.arc_values(answer, INSTALL_KEYS, ids, endpoints)
    listed = set(read.selection(answer, INSTALLED_LIST_KEYS))
    balances = (instance.get("demands") or {}).get("node_balance") or {}
    capacities = instance.get("capacities") or {}
    fixed_costs = instance.get("fixed_costs") or {}
    variable_costs = instance.get("variable_costs") or {}
    problems: list[str] = []
    strict = [f"flow key {key!r} names no arc of the instance" for key in unread]
    said_installed = bool(install) or bool(listed)
    computed = 0.0
    for arc in arcs:
        name = str(arc["id"])
        flow = flows.get(name, 0.0)
        marked = install.get(name, 0.0) > 0.5 or name in listed
        installed = marked or flow > tolerance
        capacity = read.number(
            capacities.get(name) if isinstance(capacities, Mapping) else arc.get("capacity")
        )
        if capacity is not None and flow - capacity > tolerance:
            problems.append(f"arc {name}: flow {flow:g} exceeds capacity {capacity:g}")
        if flow < -tolerance:
            problems.append(f"arc {name}: negative flow {flow:g}")
        if said_installed and flow > tolerance and not marked:
            strict.append(f"arc {name} carries flow {flow:g} but the answer does not install it")
        fixed, variable = read.number(fixed_costs.get(name)), read.number(variable_costs.get(name))
        if fixed is not None and installed:
            computed += fixed
        if variable is not None:
            computed += variable * flow
    nodes = [int(n) for n in instance.get("nodes", [])] or sorted(
        {u for u, _ in endpoints} | {v for _, v in endpoints}
    )
    for node in nodes:
        outflow = sum(flows.get(name, 0.0) for (u, _), name in endpoints.items() if u == node)
        inflow = sum(flows.get(name, 0.0) for (_, v), name in endpoints.items() if v == node)
        target = read.number(balances.get(str(node)))
        if target is None:
            target = read.number(balances.get(node)) or 0.0
        if abs(outflow - inflow - target) > tolerance:
            problems.append(f"node {node}: flow balance {outflow - inflow:g}, required {target:g}")
    reported = read.reported_objective(answer, OBJECTIVE_KEYS)
    if reported is not None and abs(reported - computed) > tolerance:
        problems.append(f"reported objective {reported:g} but the design costs {computed:g}")
    return make_check(problems, reported, computed, strict)
