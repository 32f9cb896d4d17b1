"""Resource-constrained shortest path under the official rules (one resource bound).

Official instance: ``nodes``, ``source``, ``sink``, ``resource_bound``, ``arcs: [{from, to,
cost, resource}]``. The answer names its route by ``selected_arcs`` (pairs, or a 0/1 dict keyed
``"u_v"``), ``arc_selection``, or ``optimal_path``/``path`` (a node list or a list of arcs). The
source has one outgoing and the sink one incoming selected arc, every other node balances with
at most one of each, and the summed ``resource`` stays within ``resource_bound``; the objective
is the summed ``cost``.

Dual-resource instances (``resource_bounds``, arc ``resource_values``) have no ``resource_bound``,
so the official scorer checks no bound on them.

Strict additions: the selected arcs must form one path from the source to the sink (the
official degree test also accepts a path plus a detached cycle), a returned node path must
agree with the returned arcs, and every bound of ``resource_bounds`` holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt import official_answers as read
from benchmark.suites.mmopt.official import infeasible, make_check
from benchmark.suites.mmopt.subcategories.base import OfficialCheck

REFERENCE_KEYS: tuple[str, ...] = ("objective_exact", "objective_value")
OBJECTIVE_KEYS: tuple[str, ...] = ("objective_exact", "objective", "objective_value", "path_cost")
#: Single-resource instances lack ``resource_bounds``; dual-resource ones (e.g. the release's
#: ``rcsp_h_001``) lack ``resource_bound`` and the arcs' ``resource``, which the check looks up.
OPTIONAL_KEYS: frozenset[str] = frozenset({"resource_bounds", "resource_bound", "resource"})


def reads(instance: Mapping[str, Any]) -> bool:
    return isinstance(instance.get("arcs"), list) and (
        "resource_bound" in instance or isinstance(instance.get("resource_bounds"), Mapping)
    )


def _bound_problems(
    chosen: set[tuple[int, int]],
    by_pair: Mapping[tuple[int, int], Mapping[str, Any]],
    bounds: Any,
    tolerance: float,
) -> list[str]:
    """Every bound of a dual-resource instance (``resource_bounds``, arc ``resource_values``)."""
    if not isinstance(bounds, Mapping):
        return []
    problems = []
    for name, raw_bound in bounds.items():
        bound = read.number(raw_bound)
        used = 0.0
        for pair in chosen:
            values = by_pair[pair].get("resource_values") if pair in by_pair else None
            if isinstance(values, Mapping):
                used += read.number(values.get(name)) or 0.0
        if bound is not None and used - bound > tolerance:
            problems.append(f"{name} use {used:g} exceeds the bound {bound:g}")
    return problems


def _flagged_pairs(raw: Any) -> set[tuple[int, int]]:
    if isinstance(raw, Mapping):
        raw = [key for key, flag in raw.items() if (n := read.number(flag)) is not None and n > 0.5]
    if not isinstance(raw, list):
        return set()
    return {pair for item in raw if (pair := read.int_pair(item)) is not None}


def _node_path_arcs(path: list[Any]) -> set[tuple[int, int]]:
    try:
        return {(int(path[i]), int(path[i + 1])) for i in range(len(path) - 1)}
    except (TypeError, ValueError):
        return set()


def selected_arcs(answer: Mapping[str, Any]) -> tuple[set[tuple[int, int]], set[tuple[int, int]] | None]:
    """(the arcs the official scorer reads, the arcs of a returned node path or None)."""
    raw_path = answer.get("optimal_path") or answer.get("path")
    path = raw_path if isinstance(raw_path, list) and len(raw_path) >= 2 else None
    node_path = _node_path_arcs(path) if path is not None else None
    flags = answer.get("arc_selection")
    selected = _flagged_pairs(answer.get("selected_arcs")) | (
        _flagged_pairs(flags) if isinstance(flags, Mapping) else set()
    )
    if not selected and path is not None:
        as_arcs = [read.int_pair(item) for item in path]
        if all(pair is not None for pair in as_arcs):
            selected, node_path = set(as_arcs), None  # type: ignore[arg-type]
    if not selected and node_path is not None:
        selected = node_path
    return selected, node_path


def _one_path(arcs: set[tuple[int, int]], source: int, sink: int) -> bool:
    successor = dict(arcs)
    node, steps = source, 0
    while node != sink and node in successor and steps <= len(arcs):
        node, steps = successor[node], steps + 1
    return node == sink and steps == len(arcs)


def check(output: Any, instance: Mapping[str, Any], tolerance: float) -> OfficialCheck:
    answer = read.payload(output)
    if answer is None:
        return infeasible("the returned value is not a dict")
    arcs = [a for a in instance["arcs"] if isinstance(a, Mapping)]
    source, sink = instance.get("source"), instance.get("sink")
    bound = read.number(instance.get("resource_bound"))
    chosen, node_path = selected_arcs(answer)
    by_pair = {(int(a["from"]), int(a["to"])): a for a in arcs}
    problems: list[str] = []
    computed, used = 0.0, 0.0
    incoming: Counter[int] = Counter()
    outgoing: Counter[int] = Counter()
    for pair in sorted(chosen):
        arc = by_pair.get(pair)
        if arc is None:
            problems.append(f"selected arc {pair[0]}_{pair[1]} is not in the network")
            continue
        outgoing[pair[0]] += 1
        incoming[pair[1]] += 1
        computed += read.number(arc.get("cost")) or 0.0
        used += read.number(arc.get("resource")) or 0.0
    if source is not None and outgoing[int(source)] != 1:
        problems.append(f"source {source} must have exactly one outgoing selected arc")
    if sink is not None and incoming[int(sink)] != 1:
        problems.append(f"sink {sink} must have exactly one incoming selected arc")
    for node in sorted({u for u, _ in by_pair} | {v for _, v in by_pair}):
        if node in {source, sink}:
            continue
        if incoming[node] != outgoing[node]:
            problems.append(f"node {node}: {incoming[node]} selected arcs in, {outgoing[node]} out")
        if incoming[node] > 1 or outgoing[node] > 1:
            problems.append(f"node {node} is used more than once")
    if bound is not None and used - bound > tolerance:
        problems.append(f"resource use {used:g} exceeds the bound {bound:g}")
    reported = read.reported_objective(answer, OBJECTIVE_KEYS)
    if reported is not None and abs(reported - computed) > tolerance:
        problems.append(f"reported objective {reported:g} but the path costs {computed:g}")
    strict: list[str] = []
    if chosen and source is not None and sink is not None and not _one_path(chosen, int(source), int(sink)):
        strict.append("the selected arcs are not one path from the source to the sink")
    if node_path is not None and node_path != chosen:
        strict.append("the returned node path and the returned arcs disagree")
    strict += _bound_problems(chosen, by_pair, instance.get("resource_bounds"), tolerance)
    return make_check(problems, reported, computed if chosen else None, strict)
