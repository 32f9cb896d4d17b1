"""Time-expanded multi-period network flow under the official rules.

Official instance: ``nodes``, ``periods`` (``t1``, ``t2`` …), ``arc_ids`` with
``indices.arc_to_endpoints``, ``capacities_by_arc_period`` and ``routing_costs_by_arc_period``
keyed arc → period, ``net_supply_by_node_period``, ``storage_nodes`` and ``storage: {node:
{initial_inventory, capacity, holding_cost_by_period}}``. The answer gives flows per period and
arc (``flows_by_period`` and aliases; period → arc, arc → period, or flat ``"e1@t1"`` keys) and
end-of-period inventory per storage node (``inventory_by_node`` and aliases). In each period arc
flows stay within capacity, every node balances (storage nodes carry inventory from the previous
period, starting from the initial inventory), and inventory stays within storage capacity; the
objective is routing cost plus holding cost of end-of-period inventory.

Strict additions: negative inventory is an error (the official scorer does not check its
sign), and so is inventory reported at a node that cannot store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt import official_answers as read
from benchmark.suites.mmopt.official import infeasible, make_check
from benchmark.suites.mmopt.subcategories.base import OfficialCheck

REFERENCE_KEYS: tuple[str, ...] = ("objective_exact", "objective_value")
OBJECTIVE_KEYS: tuple[str, ...] = ("objective_exact", "objective", "objective_value", "total_cost")
FLOW_KEYS: tuple[str, ...] = (
    "flows_by_period",
    "flow_by_period",
    "arc_flows_by_period",
    "arc_flows",
    "flows",
    "flow",
    "flow_solution",
    "optimal_flow",
    "optimal_flow_on_arcs",
)
INVENTORY_KEYS: tuple[str, ...] = (
    "inventory_by_node",
    "inventory_by_period",
    "inventory_levels_by_node",
    "inventory_levels",
    "inventory_solution",
    "inventory",
)
OPTIONAL_KEYS: frozenset[str] = frozenset()

Grid = dict[str, dict[str, float]]


def reads(instance: Mapping[str, Any]) -> bool:
    return isinstance(instance.get("indices"), Mapping) and "capacities_by_arc_period" in instance


def _numbers(raw: Mapping[str, Any]) -> dict[str, float]:
    return {str(k): n for k, v in raw.items() if (n := read.number(v)) is not None}


def _arc(key: Any, arc_ids: set[str], endpoints: Mapping[tuple[int, int], str]) -> str | None:
    text = str(key).strip()
    if text in arc_ids:
        return text
    pair = read.int_pair(text)
    return endpoints.get(pair) if pair is not None else None


def period_flows(
    answer: Mapping[str, Any], periods: list[str], arc_ids: set[str], endpoints: Mapping[tuple[int, int], str]
) -> Grid:
    """period → arc id → flow, from the first flow key that yields any."""
    for key in FLOW_KEYS:
        raw = answer.get(key)
        if not isinstance(raw, Mapping):
            continue
        by_period: Grid = {}
        if raw and all(isinstance(v, Mapping) for v in raw.values()):
            if all(isinstance(k, str) and k.startswith("t") for k in raw):
                nested = {str(p): _numbers(row) for p, row in raw.items()}
            else:
                nested = {}
                for arc_key, row in raw.items():
                    for period, value in _numbers(row).items():
                        nested.setdefault(period, {})[str(arc_key)] = value
            for period, row in nested.items():
                for arc_key, value in row.items():
                    if (name := _arc(arc_key, arc_ids, endpoints)) is not None:
                        by_period.setdefault(period, {})[name] = value
            if by_period:
                return by_period
        for flat_key, raw_value in raw.items():
            flow = read.number(raw_value)
            if flow is None:
                continue
            text = str(flat_key).strip()
            for period in sorted(periods, key=len, reverse=True):
                found = next(
                    (text[: -len(s) - len(period)] for s in ("@", "_") if text.endswith(s + period)), None
                )
                if found is not None and (name := _arc(found, arc_ids, endpoints)) is not None:
                    by_period.setdefault(period, {})[name] = flow
                    break
        if by_period:
            return by_period
    return {}


def _flat_inventory_key(key: Any, periods: list[str], storage: set[str]) -> tuple[str, str] | None:
    text = str(key).strip()
    if text.startswith("I"):
        text = text[1:]
    text = text.lstrip("_")
    for period in sorted(periods, key=len, reverse=True):
        suffixes = [s + period for s in ("@", "_")] + ([f"_{period[1:]}"] if period.startswith("t") else [])
        for suffix in suffixes:
            if text.endswith(suffix) and (node := text[: -len(suffix)].strip("_")) in storage:
                return node, period
    return None


def inventories(answer: Mapping[str, Any], storage_nodes: list[str], periods: list[str]) -> Grid:
    """node → period → end-of-period inventory, from the first inventory key that yields any."""
    storage, period_set = set(storage_nodes), set(periods)
    for key in INVENTORY_KEYS:
        raw = answer.get(key)
        if not isinstance(raw, Mapping):
            continue
        values = list(raw.values())
        if raw and all(isinstance(v, Mapping) for v in values) and all(str(k) in period_set for k in raw):
            by_node: Grid = {}
            for period, row in raw.items():
                for node, value in _numbers(row).items():
                    if not storage or node in storage:
                        by_node.setdefault(node, {})[str(period)] = value
            if by_node:
                return by_node
        nested = {str(node): _numbers(row) for node, row in raw.items() if isinstance(row, Mapping)}
        nested = {node: row for node, row in nested.items() if row}
        if nested:
            return nested
        if len(storage_nodes) == 1:
            single = {p: v for p, v in _numbers(raw).items() if p in period_set}
            if single:
                return {storage_nodes[0]: single}
        flat: Grid = {}
        for flat_key, raw_value in raw.items():
            amount, place = read.number(raw_value), _flat_inventory_key(flat_key, periods, storage)
            if amount is not None and place is not None:
                flat.setdefault(place[0], {})[place[1]] = amount
        if flat:
            return flat
    prefixed: Grid = {}
    for key, row in answer.items():
        if isinstance(key, str) and key.startswith("inventory_at_node_") and isinstance(row, Mapping):
            node = key[len("inventory_at_node_") :].strip()
            parsed = {p: v for p, v in _numbers(row).items() if p in period_set}
            if node and (not storage or node in storage) and parsed:
                prefixed[node] = parsed
    return prefixed


def check(output: Any, instance: Mapping[str, Any], tolerance: float) -> OfficialCheck:
    answer = read.payload(output)
    if answer is None:
        return infeasible("the returned value is not a dict")
    periods = [str(p) for p in read.named_list(instance, "periods")]
    arc_ends = instance["indices"].get("arc_to_endpoints") or {}
    if not periods or not isinstance(arc_ends, Mapping):
        return infeasible("the instance has no periods or arc endpoints")
    ends = {
        str(a): (int(e[0]), int(e[1])) for a, e in arc_ends.items() if isinstance(e, list) and len(e) == 2
    }
    endpoints = {pair: name for name, pair in ends.items()}
    arc_ids = {str(a) for a in instance.get("arc_ids", [])}
    capacities = instance.get("capacities_by_arc_period") or {}
    costs = instance.get("routing_costs_by_arc_period") or {}
    supply = instance.get("net_supply_by_node_period") or {}
    storage_nodes = [str(n) for n in instance.get("storage_nodes", [])]
    storage = instance.get("storage") or {}
    flows = period_flows(answer, periods, arc_ids, endpoints)
    stock = inventories(answer, storage_nodes, periods)
    problems: list[str] = []
    strict = [
        f"inventory reported at node {node}, which cannot store"
        for node in stock
        if node not in storage_nodes
    ]
    computed = 0.0
    for index, period in enumerate(periods):
        row = flows.get(period, {})
        for name in ends:
            flow = row.get(name, 0.0)
            cap = read.number((capacities.get(name) or {}).get(period))
            cost = read.number((costs.get(name) or {}).get(period))
            if cap is not None and flow - cap > tolerance:
                problems.append(f"arc {name}@{period}: flow {flow:g} exceeds capacity {cap:g}")
            if flow < -tolerance:
                problems.append(f"arc {name}@{period}: negative flow {flow:g}")
            if cost is not None:
                computed += cost * flow
        for node in sorted({int(n) for n in instance.get("nodes", [])}):
            outflow = sum(row.get(name, 0.0) for name, (u, _) in ends.items() if u == node)
            inflow = sum(row.get(name, 0.0) for name, (_, v) in ends.items() if v == node)
            target = read.number((supply.get(str(node)) or {}).get(period)) or 0.0
            if str(node) in storage_nodes:
                store = storage.get(str(node))
                store = store if isinstance(store, Mapping) else {}
                levels = stock.get(str(node), {})
                previous = (
                    (read.number(store.get("initial_inventory")) or 0.0)
                    if index == 0
                    else levels.get(periods[index - 1], 0.0)
                )
                current = levels.get(period, 0.0)
                cap = read.number(store.get("capacity"))
                if cap is not None and current - cap > tolerance:
                    problems.append(f"node {node}@{period}: inventory {current:g} exceeds storage {cap:g}")
                if current < -tolerance:
                    strict.append(f"node {node}@{period}: negative inventory {current:g}")
                holding = read.number((store.get("holding_cost_by_period") or {}).get(period))
                if holding is not None:
                    computed += holding * current
                target += previous - current
            if abs(outflow - inflow - target) > tolerance:
                problems.append(
                    f"node {node}@{period}: flow balance {outflow - inflow:g}, required {target:g}"
                )
    reported = read.reported_objective(answer, OBJECTIVE_KEYS)
    if reported is not None and abs(reported - computed) > tolerance:
        problems.append(f"reported objective {reported:g} but the plan costs {computed:g}")
    return make_check(problems, reported, computed, strict)
