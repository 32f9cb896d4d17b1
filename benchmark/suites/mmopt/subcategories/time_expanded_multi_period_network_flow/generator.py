"""Time-expanded multi-period network flow: ship, or store and ship later, over several periods.

A small layered base network (App. E.1 topology: supply nodes in the first column, demand nodes in
the last) is copied once per period; transport arcs have a capacity and a unit cost that change
from period to period. Stock is held only at warehouse nodes (``storage_nodes``, drawn from the
inner columns, as in the official release): each starts with an initial inventory and holds at
most its storage capacity at the end of every period, at a holding cost that changes by period.
Supplies run ahead of demands (some supply of each later period is moved to an earlier one), so
stock must be carried, and transport costs vary by period, so *when* to ship is a real decision.
The initial inventories are added to the demands, so nothing is left at the end. A candidate is
kept only when the whole horizon is feasible (max flow on the time-expanded graph), storage is
used and some capacity binds at the optimum, and a cost-blind plan is strictly worse.

The instance is in the official schema: ``periods`` ``t1…``, arcs ``e1…`` with
``capacity_by_period``/``cost_by_period`` (also as ``capacities_by_arc_period`` and
``routing_costs_by_arc_period``), ``net_supply_by_node_period``, ``storage_nodes`` and
``storage: {node: {initial_inventory, capacity, holding_cost_by_period}}``, the layout in
``positions``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.graph.python import max_flow, min_cost_flow
from scipy.optimize import linprog

from benchmark.suites.mmopt.generation.network import (
    ExtraArcMix,
    LayeredTopology,
    layers_from_positions,
    positions_record,
    reachable,
    sample_layered_topology,
)
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected


@dataclass(frozen=True)
class Regime:
    """One difficulty regime: layer sizes, inclusive node and arc ranges, extra-arc mix, number of
    periods and parameter ranges."""

    layer_sizes: tuple[tuple[int, ...], ...]
    nodes: tuple[int, int]
    arcs: tuple[int, int]
    mix: ExtraArcMix
    periods: tuple[int, ...]  # period-count options, one drawn per instance
    demand: tuple[int, int]  # per demand node and period
    shift: float  # at most this share of a period's supply is moved to an earlier period
    capacity_share: tuple[float, float]  # arc capacity as a share of the mean per-period supply
    storage_share: tuple[float, float]  # storage capacity as a share of the mean per-period supply
    cost: tuple[int, int]  # an arc's base unit cost
    cost_swing: int  # per-period deviation from the base cost
    holding: tuple[int, int]  # holding cost per unit in one period
    warehouses: tuple[int, ...]  # storage-node-count options; the nodes are drawn from the inner columns
    initial: tuple[int, int]  # initial inventory of a warehouse


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        layer_sizes=((2, 2, 2),),
        nodes=(6, 6),
        arcs=(6, 8),
        mix=ExtraArcMix(intra=(0, 1), bypass=(0, 1)),
        periods=(3,),
        demand=(0, 9),
        shift=0.6,
        capacity_share=(0.45, 0.9),
        storage_share=(0.3, 0.7),
        cost=(2, 8),
        cost_swing=3,
        holding=(1, 3),
        warehouses=(1,),
        initial=(0, 2),
    ),
    "medium": Regime(
        layer_sizes=((2, 4, 2), (3, 3, 2), (2, 3, 3), (3, 3, 3)),
        nodes=(8, 9),
        arcs=(12, 15),
        mix=ExtraArcMix(intra=(1, 2), bypass=(1, 1)),
        periods=(4, 5),
        demand=(0, 10),
        shift=0.6,
        capacity_share=(0.45, 0.8),
        storage_share=(0.25, 0.6),
        cost=(2, 9),
        cost_swing=3,
        holding=(1, 3),
        warehouses=(1, 1, 2),
        initial=(0, 3),
    ),
    "hard": Regime(
        layer_sizes=((3, 4, 3), (3, 4, 4), (4, 4, 3), (3, 5, 3), (4, 4, 4)),
        nodes=(10, 12),
        arcs=(14, 18),
        mix=ExtraArcMix(intra=(2, 3), bypass=(1, 2)),
        periods=(4, 4, 5),
        demand=(0, 10),
        shift=0.6,
        capacity_share=(0.5, 0.85),
        storage_share=(0.2, 0.5),
        cost=(2, 10),
        cost_swing=4,
        holding=(1, 4),
        warehouses=(1, 2, 2),
        initial=(0, 4),
    ),
}


def sample_structure(rng: random.Random, difficulty: str) -> LayeredTopology:
    regime = REGIMES[difficulty]
    return sample_layered_topology(rng, rng.choice(regime.layer_sizes), regime.arcs, regime.mix)


def _split(rng: random.Random, total: int, parts: int) -> list[int]:
    """``parts`` non-negative integers summing to ``total`` (random composition)."""
    cuts = sorted(rng.randint(0, total) for _ in range(parts - 1))
    bounds = [0, *cuts, total]
    return [bounds[i + 1] - bounds[i] for i in range(parts)]


def _supply_schedule(rng: random.Random, demand_totals: list[int], shift: float) -> list[int]:
    """Per-period total supply: the demand of each period, with part of every later period's
    amount moved to a random earlier period; cumulative supply therefore never trails demand."""
    supply = list(demand_totals)
    for t in range(len(supply) - 1, 0, -1):
        moved = rng.randint(0, int(supply[t] * shift))
        supply[t] -= moved
        supply[rng.randrange(t)] += moved
    return supply


def _option(rng: random.Random, options: tuple[int, ...]) -> int:
    """One of ``options``; a single option draws nothing, so that regime's random stream (and its
    shipped packages) stays as it was before counts could vary."""
    return options[0] if len(options) == 1 else rng.choice(options)


def period_names(count: int) -> list[str]:
    return [f"t{t}" for t in range(1, count + 1)]


def instantiate(rng: random.Random, topology: LayeredTopology, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    periods = _option(rng, regime.periods)
    sources, sinks = topology.layers[0], topology.layers[-1]
    inner = [node for layer in topology.layers[1:-1] for node in layer]
    warehouses = sorted(rng.sample(inner, min(_option(rng, regime.warehouses), len(inner))))
    demand = {node: [rng.randint(*regime.demand) for _ in range(periods)] for node in sinks}
    totals = [sum(demand[node][t] for node in sinks) for t in range(periods)]
    schedule = _supply_schedule(rng, totals, regime.shift)
    split = [_split(rng, amount, len(sources)) for amount in schedule]
    initial = {node: rng.randint(*regime.initial) for node in warehouses}
    for amount in initial.values():  # the initial stock is delivered too: nothing is left at the end
        demand[rng.choice(sinks)][rng.randrange(periods)] += amount
    balance = {node: [0] * periods for node in topology.nodes}
    for k, node in enumerate(sources):
        balance[node] = [split[t][k] for t in range(periods)]
    for node in sinks:
        balance[node] = [-d for d in demand[node]]
    mean_supply = max(1.0, sum(schedule) / periods)
    names = period_names(periods)

    arcs = []
    for index, (tail, head) in enumerate(topology.arcs):
        base_capacity = rng.uniform(*regime.capacity_share) * mean_supply
        base_cost = rng.randint(*regime.cost)
        capacity = [max(2, round(base_capacity * rng.uniform(0.7, 1.3))) for _ in range(periods)]
        cost = [
            max(1, base_cost + rng.randint(-regime.cost_swing, regime.cost_swing)) for _ in range(periods)
        ]
        arcs.append(
            {
                "id": f"e{index + 1}",
                "from": tail,
                "to": head,
                "capacity_by_period": dict(zip(names, capacity, strict=True)),
                "cost_by_period": dict(zip(names, cost, strict=True)),
            }
        )
    storage = {
        str(node): {
            "initial_inventory": initial[node],
            "capacity": max(2, round(rng.uniform(*regime.storage_share) * mean_supply), initial[node]),
            "holding_cost_by_period": {t: rng.randint(*regime.holding) for t in names},
        }
        for node in warehouses
    }
    supply = {str(node): dict(zip(names, balance[node], strict=True)) for node in topology.nodes}
    return {
        "problem_type": "time_expanded_multi_period_network_flow",
        "variant": "single_visual_single_commodity_mpnf",
        "difficulty": difficulty,
        "nodes": topology.nodes,
        "periods": names,
        "arc_ids": [a["id"] for a in arcs],
        "storage_nodes": warehouses,
        "sets": {
            "nodes": topology.nodes,
            "periods": names,
            "arcs": [a["id"] for a in arcs],
            "storage_nodes": warehouses,
        },
        "indices": {
            "period_order": names,
            "arc_to_endpoints": {a["id"]: [a["from"], a["to"]] for a in arcs},
        },
        "positions": positions_record(topology.layers),
        "demands": {"node_period_balance": supply},
        "net_supply_by_node_period": supply,
        "capacities_by_arc_period": {a["id"]: a["capacity_by_period"] for a in arcs},
        "routing_costs_by_arc_period": {a["id"]: a["cost_by_period"] for a in arcs},
        "arcs": arcs,
        "storage": storage,
    }


def layers_of(instance: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    return layers_from_positions(instance["positions"])


# --------------------------------------------------------------------------------------------------
# The time-expanded graph


@dataclass(frozen=True)
class ExpandedArc:
    """One arc of the time-expanded graph: transport of base arc ``arc`` in ``period`` (1-based), or
    storage at warehouse ``node`` from ``period`` to ``period + 1``."""

    tail: int  # expanded node index
    head: int
    capacity: int
    cost: int
    arc: str | None = None
    node: str | None = None
    period: int = 0


def expanded_index(instance: Mapping[str, Any], node: int | str, period: int) -> int:
    """Index of node copy (``node``, ``period``) with 1-based periods; 0 is left free for helpers."""
    nodes = [str(n) for n in instance["nodes"]]
    return 1 + (period - 1) * len(nodes) + nodes.index(str(node))


def expanded_arcs(instance: Mapping[str, Any]) -> list[ExpandedArc]:
    names = list(instance["periods"])
    result = []
    for t, name in enumerate(names, start=1):
        for a in instance["arcs"]:
            result.append(
                ExpandedArc(
                    tail=expanded_index(instance, a["from"], t),
                    head=expanded_index(instance, a["to"], t),
                    capacity=a["capacity_by_period"][name],
                    cost=a["cost_by_period"][name],
                    arc=a["id"],
                    period=t,
                )
            )
    for t, name in enumerate(names[:-1], start=1):
        for node, store in instance["storage"].items():
            result.append(
                ExpandedArc(
                    tail=expanded_index(instance, node, t),
                    head=expanded_index(instance, node, t + 1),
                    capacity=store["capacity"],
                    cost=store["holding_cost_by_period"][name],
                    node=node,
                    period=t,
                )
            )
    return result


def expanded_supply(instance: Mapping[str, Any]) -> dict[int, int]:
    """Net supply of every node copy; a warehouse's initial inventory enters at its first copy."""
    names = list(instance["periods"])
    supply = {
        expanded_index(instance, node, t): int(values[name])
        for node, values in instance["net_supply_by_node_period"].items()
        for t, name in enumerate(names, start=1)
    }
    for node, store in instance["storage"].items():
        supply[expanded_index(instance, node, 1)] += int(store["initial_inventory"])
    return supply


def _total_supply(instance: Mapping[str, Any]) -> int:
    return sum(v for v in expanded_supply(instance).values() if v > 0)


def _max_shippable(instance: Mapping[str, Any]) -> int:
    supply = expanded_supply(instance)
    solver = max_flow.SimpleMaxFlow()
    super_source, super_sink = 0, max(supply) + 1
    for e in expanded_arcs(instance):
        solver.add_arc_with_capacity(e.tail, e.head, e.capacity)
    for index, value in supply.items():
        if value > 0:
            solver.add_arc_with_capacity(super_source, index, value)
        elif value < 0:
            solver.add_arc_with_capacity(index, super_sink, -value)
    if solver.solve(super_source, super_sink) != solver.OPTIMAL:
        return -1
    return int(solver.optimal_flow())


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    nodes = list(instance["nodes"])
    pairs = [(a["from"], a["to"]) for a in instance["arcs"]]
    problems = []
    if not regime.nodes[0] <= len(nodes) <= regime.nodes[1]:
        problems.append("structure: node count outside the regime")
    if not regime.arcs[0] <= len(pairs) <= regime.arcs[1]:
        problems.append("structure: arc count outside the regime")
    if len(set(pairs)) != len(pairs) or any((v, u) in set(pairs) for u, v in pairs):
        problems.append("structure: duplicate or antiparallel arcs")
    if sum(expanded_supply(instance).values()) != 0:
        problems.append("structure: supply and initial stock differ from demand over the horizon")
    supply = {int(n): list(values.values()) for n, values in instance["net_supply_by_node_period"].items()}
    sources = [n for n, values in supply.items() if any(v > 0 for v in values)]
    sinks = [n for n, values in supply.items() if any(v < 0 for v in values)]
    if len(sources) < 2 or len(sinks) < 2:
        problems.append("structure: fewer than two supply or demand nodes")
    if reachable(nodes, pairs, sources) != set(nodes) or reachable(nodes, pairs, sinks, reverse=True) != set(
        nodes
    ):
        problems.append("structure: a node is off every supply-demand route")
    if not problems and _max_shippable(instance) != _total_supply(instance):
        problems.append("structure: capacities cannot carry the supply over the horizon")
    return problems


def _solve(instance: Mapping[str, Any], arcs: list[ExpandedArc], costs: list[int]) -> tuple[int, list[int]]:
    solver = min_cost_flow.SimpleMinCostFlow()
    for e, cost in zip(arcs, costs, strict=True):
        solver.add_arc_with_capacity_and_unit_cost(e.tail, e.head, e.capacity, cost)
    for index, value in expanded_supply(instance).items():
        solver.set_node_supply(index, value)
    status = solver.solve()
    if status != solver.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", str(status))
    return int(solver.optimal_cost()), [int(solver.flow(i)) for i in range(len(arcs))]


def decisions(instance: Mapping[str, Any], arcs: list[ExpandedArc], flows: list[int]) -> dict[str, Any]:
    """The official decision keys: ``flows_by_period`` (period → arc id → flow) and
    ``inventory_by_node`` (warehouse → period → end-of-period inventory; none is left after the
    last period), with the routing and holding parts of the cost."""
    names = list(instance["periods"])
    by_period: dict[str, dict[str, int]] = {name: {} for name in names}
    inventory = {node: dict.fromkeys(names, 0) for node in instance["storage"]}
    routing = holding = 0
    for e, value in zip(arcs, flows, strict=True):
        if e.arc is not None:
            by_period[names[e.period - 1]][e.arc] = value
            routing += e.cost * value
        elif e.node is not None:
            inventory[e.node][names[e.period - 1]] = value
            holding += e.cost * value
    return {
        "routing_cost_total": routing,
        "holding_cost_total": holding,
        "flows_by_period": by_period,
        "inventory_by_node": inventory,
    }


def cost_scale(costs: list[float]) -> int:
    """The least power of ten (up to 10^6) that makes every cost an integer: the release writes
    costs such as 0.4, and the cost-scaling solver takes integers only."""
    for digits in range(7):
        scale: int = 10**digits
        if all(abs(c * scale - round(c * scale)) < 1e-9 for c in costs):
            return scale
    raise Rejected("reference: arc costs need more than six decimals")


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """OR-Tools cost-scaling min-cost flow on the time-expanded graph (exact on integer data,
    decimal costs scaled to integers)."""
    arcs = expanded_arcs(instance)
    scale = cost_scale([e.cost for e in arcs])
    scaled, flows = _solve(instance, arcs, [round(e.cost * scale) for e in arcs])
    cost: float = scaled if scale == 1 else round(scaled / scale, 6)
    solution = {"status": "optimal", "objective_value": cost, "objective_exact": cost}
    solution.update(decisions(instance, arcs, flows))
    return ReferenceSolution(
        solution=solution, method="ortools.graph.SimpleMinCostFlow on the time-expanded graph"
    )


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """The multi-period LP in period-indexed variables (transport x[a,t], end-of-period inventory
    I[w,t] at warehouses, I[w,0] the initial inventory, I[w,T] = 0) solved by HiGHS through SciPy;
    the constraint matrix is a network matrix, so the LP optimum is integral."""
    nodes = [str(n) for n in instance["nodes"]]
    names = list(instance["periods"])
    periods = len(names)
    arcs = instance["arcs"]
    stores = list(instance["storage"])
    n, m, w = len(nodes), len(arcs), len(stores)
    x_index = {(j, t): t * m + j for t in range(periods) for j in range(m)}
    s_index = {(k, t): periods * m + t * w + k for t in range(periods - 1) for k in range(w)}
    size = periods * m + (periods - 1) * w
    cost = np.zeros(size)
    upper = np.zeros(size)
    equality = np.zeros((n * periods, size))
    rhs = np.zeros(n * periods)
    for t, name in enumerate(names):
        for j, a in enumerate(arcs):
            col = x_index[(j, t)]
            cost[col], upper[col] = a["cost_by_period"][name], a["capacity_by_period"][name]
            equality[t * n + nodes.index(str(a["from"])), col] += 1.0
            equality[t * n + nodes.index(str(a["to"])), col] -= 1.0
        for i, node in enumerate(nodes):
            rhs[t * n + i] = instance["net_supply_by_node_period"][node][name]
        for k, node in enumerate(stores):
            store = instance["storage"][node]
            if t == 0:
                rhs[nodes.index(node)] += store["initial_inventory"]
            if t < periods - 1:  # inventory at the end of period t enters period t + 1
                col = s_index[(k, t)]
                cost[col], upper[col] = store["holding_cost_by_period"][name], store["capacity"]
                equality[t * n + nodes.index(node), col] += 1.0
                equality[(t + 1) * n + nodes.index(node), col] -= 1.0
    result = linprog(c=cost, A_eq=equality, b_eq=rhs, bounds=list(zip([0.0] * size, upper, strict=True)))
    if result.status != 0:
        raise Rejected("cross-check: LP did not solve", result.message)
    return "scipy.optimize.linprog (HiGHS LP, period-indexed model)", float(result.fun)


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    solution = reference.solution
    names = list(instance["periods"])
    carried = [levels[name] > 0 for levels in solution["inventory_by_node"].values() for name in names[:-1]]
    if not any(carried):
        return ["nontrivial: no stock is carried between periods"]
    if not binding_capacities(instance, reference):
        return ["nontrivial: no capacity binds at the optimum"]
    arcs = expanded_arcs(instance)
    _, blind = _solve(instance, arcs, [1] * len(arcs))
    if sum(e.cost * f for e, f in zip(arcs, blind, strict=True)) <= solution["objective_exact"]:
        return ["nontrivial: a cost-blind plan is already optimal"]
    return []


def binding_capacities(instance: Mapping[str, Any], reference: ReferenceSolution) -> list[str]:
    """Saturated transport arcs (``"e3@t2"``) and warehouses (``"stock 4@t1"``) at the optimum."""
    solution = reference.solution
    found = []
    for t, flows in solution["flows_by_period"].items():
        for a in instance["arcs"]:
            if flows[a["id"]] == a["capacity_by_period"][t]:
                found.append(f"{a['id']}@{t}")
    for node, levels in solution["inventory_by_node"].items():
        for t, value in levels.items():
            if value == instance["storage"][node]["capacity"]:
                found.append(f"stock {node}@{t}")
    return found
