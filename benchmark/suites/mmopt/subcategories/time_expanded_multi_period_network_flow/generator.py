"""Time-expanded multi-period network flow: ship, or store and ship later, over several periods.

A small layered base network (App. E.1 topology: supply nodes in the first column, demand nodes in
the last) is copied once per period; transport arcs have a capacity and a unit cost that change
from period to period, and every node can hold stock from one period to the next up to a storage
capacity at a holding cost per unit and period. Supplies run ahead of demands (some supply of each
later period is moved to an earlier one), so stock must be carried, and transport costs vary by
period, so *when* to ship is a real decision. A candidate is kept only when the whole horizon is
feasible (max flow on the time-expanded graph), storage is used and some capacity binds at the
optimum, and a cost-blind plan is strictly worse.
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.graph.python import max_flow, min_cost_flow
from scipy.optimize import linprog

from benchmark.suites.mmopt.generation.network import (
    ExtraArcMix,
    LayeredTopology,
    arc_key,
    reachable,
    sample_layered_topology,
)
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

ARC_NAMES = string.ascii_uppercase


@dataclass(frozen=True)
class Regime:
    """One difficulty regime: layer sizes, inclusive node and arc ranges, extra-arc mix, number of
    periods and parameter ranges."""

    layer_sizes: tuple[tuple[int, ...], ...]
    nodes: tuple[int, int]
    arcs: tuple[int, int]
    mix: ExtraArcMix
    periods: int
    demand: tuple[int, int]  # per demand node and period
    shift: float  # at most this share of a period's supply is moved to an earlier period
    capacity_share: tuple[float, float]  # arc capacity as a share of the mean per-period supply
    storage_share: tuple[float, float]  # storage capacity as a share of the mean per-period supply
    cost: tuple[int, int]  # an arc's base unit cost
    cost_swing: int  # per-period deviation from the base cost
    holding: tuple[int, int]


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        layer_sizes=((2, 2, 2),),
        nodes=(6, 6),
        arcs=(6, 8),
        mix=ExtraArcMix(intra=(0, 1), bypass=(0, 1)),
        periods=3,
        demand=(0, 9),
        shift=0.6,
        capacity_share=(0.45, 0.9),
        storage_share=(0.3, 0.7),
        cost=(2, 8),
        cost_swing=3,
        holding=(1, 3),
    ),
    "medium": Regime(
        layer_sizes=((2, 3, 2), (3, 2, 3), (3, 3, 2)),
        nodes=(7, 8),
        arcs=(10, 14),
        mix=ExtraArcMix(intra=(1, 2), bypass=(1, 1)),
        periods=4,
        demand=(0, 10),
        shift=0.6,
        capacity_share=(0.35, 0.75),
        storage_share=(0.25, 0.6),
        cost=(2, 9),
        cost_swing=3,
        holding=(1, 3),
    ),
    "hard": Regime(
        layer_sizes=((3, 3, 3), (3, 4, 3), (3, 3, 4)),
        nodes=(9, 10),
        arcs=(14, 20),
        mix=ExtraArcMix(intra=(2, 3), bypass=(1, 2)),
        periods=6,
        demand=(0, 10),
        shift=0.6,
        capacity_share=(0.3, 0.65),
        storage_share=(0.2, 0.5),
        cost=(2, 10),
        cost_swing=4,
        holding=(1, 4),
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


def instantiate(rng: random.Random, topology: LayeredTopology, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    periods = regime.periods
    sources, sinks = topology.layers[0], topology.layers[-1]
    demand = {node: [rng.randint(*regime.demand) for _ in range(periods)] for node in sinks}
    totals = [sum(demand[node][t] for node in sinks) for t in range(periods)]
    schedule = _supply_schedule(rng, totals, regime.shift)
    split = [_split(rng, amount, len(sources)) for amount in schedule]
    balance = {node: [0] * periods for node in topology.nodes}
    for k, node in enumerate(sources):
        balance[node] = [split[t][k] for t in range(periods)]
    for node in sinks:
        balance[node] = [-d for d in demand[node]]
    mean_supply = max(1.0, sum(schedule) / periods)

    arcs = []
    for index, (tail, head) in enumerate(topology.arcs):
        base_capacity = rng.uniform(*regime.capacity_share) * mean_supply
        base_cost = rng.randint(*regime.cost)
        arcs.append(
            {
                "id": arc_key(tail, head),
                "name": ARC_NAMES[index],
                "from": tail,
                "to": head,
                "capacity": [max(2, round(base_capacity * rng.uniform(0.7, 1.3))) for _ in range(periods)],
                "cost": [
                    max(1, base_cost + rng.randint(-regime.cost_swing, regime.cost_swing))
                    for _ in range(periods)
                ],
            }
        )
    return {
        "problem": "time-expanded_multi-period_network_flow",
        "nodes": topology.nodes,
        "layers": [list(layer) for layer in topology.layers],
        "periods": periods,
        "arcs": arcs,
        "supply": {str(node): balance[node] for node in topology.nodes},
        "storage_capacity": {
            str(node): max(2, round(rng.uniform(*regime.storage_share) * mean_supply))
            for node in topology.nodes
        },
        "holding_cost": {str(node): rng.randint(*regime.holding) for node in topology.nodes},
    }


# --------------------------------------------------------------------------------------------------
# The time-expanded graph


@dataclass(frozen=True)
class ExpandedArc:
    """One arc of the time-expanded graph: transport of base arc ``arc`` in ``period`` (1-based), or
    storage at ``node`` from ``period`` to ``period + 1``."""

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
    periods = int(instance["periods"])
    result = []
    for t in range(1, periods + 1):
        for a in instance["arcs"]:
            result.append(
                ExpandedArc(
                    tail=expanded_index(instance, a["from"], t),
                    head=expanded_index(instance, a["to"], t),
                    capacity=a["capacity"][t - 1],
                    cost=a["cost"][t - 1],
                    arc=a["id"],
                    period=t,
                )
            )
    for t in range(1, periods):
        for node in instance["nodes"]:
            result.append(
                ExpandedArc(
                    tail=expanded_index(instance, node, t),
                    head=expanded_index(instance, node, t + 1),
                    capacity=instance["storage_capacity"][str(node)],
                    cost=instance["holding_cost"][str(node)],
                    node=str(node),
                    period=t,
                )
            )
    return result


def expanded_supply(instance: Mapping[str, Any]) -> dict[int, int]:
    return {
        expanded_index(instance, node, t + 1): int(values[t])
        for node, values in instance["supply"].items()
        for t in range(int(instance["periods"]))
    }


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
    supply = {int(n): values for n, values in instance["supply"].items()}
    if sum(sum(values) for values in supply.values()) != 0:
        problems.append("structure: total supply differs from total demand over the horizon")
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
    """``flows`` per period (``{"t": {"u_v": x}}``) and ``storage`` per period (``{"t": {"i": s}}``,
    the stock node ``i`` carries from period t into t + 1, for t before the last period)."""
    periods = int(instance["periods"])
    by_period: dict[str, dict[str, int]] = {str(t): {} for t in range(1, periods + 1)}
    storage: dict[str, dict[str, int]] = {str(t): {} for t in range(1, periods)}
    for e, value in zip(arcs, flows, strict=True):
        if e.arc is not None:
            by_period[str(e.period)][e.arc] = value
        elif e.node is not None:
            storage[str(e.period)][e.node] = value
    return {"flows": by_period, "storage": storage}


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """OR-Tools cost-scaling min-cost flow on the time-expanded graph (exact on integer data)."""
    arcs = expanded_arcs(instance)
    cost, flows = _solve(instance, arcs, [e.cost for e in arcs])
    solution = {"status": "optimal", "objective_value": cost, "objective_exact": cost}
    solution.update(decisions(instance, arcs, flows))
    return ReferenceSolution(
        solution=solution, method="ortools.graph.SimpleMinCostFlow on the time-expanded graph"
    )


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """The multi-period LP in period-indexed variables (transport x[a,t], stock s[i,t]) solved by
    HiGHS through SciPy; the constraint matrix is a network matrix, so the LP optimum is integral."""
    nodes = [str(n) for n in instance["nodes"]]
    periods = int(instance["periods"])
    arcs = instance["arcs"]
    n, m = len(nodes), len(arcs)
    x_index = {(j, t): t * m + j for t in range(periods) for j in range(m)}
    s_index = {(i, t): periods * m + t * n + i for t in range(periods - 1) for i in range(n)}
    size = periods * m + (periods - 1) * n
    cost = np.zeros(size)
    upper = np.zeros(size)
    equality = np.zeros((n * periods, size))
    rhs = np.zeros(n * periods)
    for t in range(periods):
        for j, a in enumerate(arcs):
            col = x_index[(j, t)]
            cost[col], upper[col] = a["cost"][t], a["capacity"][t]
            equality[t * n + nodes.index(str(a["from"])), col] += 1.0
            equality[t * n + nodes.index(str(a["to"])), col] -= 1.0
        for i, node in enumerate(nodes):
            rhs[t * n + i] = instance["supply"][node][t]
            if t < periods - 1:  # stock leaving period t enters period t + 1
                col = s_index[(i, t)]
                cost[col], upper[col] = instance["holding_cost"][node], instance["storage_capacity"][node]
                equality[t * n + i, col] += 1.0
                equality[(t + 1) * n + i, col] -= 1.0
    result = linprog(c=cost, A_eq=equality, b_eq=rhs, bounds=list(zip([0.0] * size, upper, strict=True)))
    if result.status != 0:
        raise Rejected("cross-check: LP did not solve", result.message)
    return "scipy.optimize.linprog (HiGHS LP, period-indexed model)", float(result.fun)


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    solution = reference.solution
    if not any(value > 0 for stock in solution["storage"].values() for value in stock.values()):
        return ["nontrivial: no stock is carried between periods"]
    if not binding_capacities(instance, reference):
        return ["nontrivial: no capacity binds at the optimum"]
    arcs = expanded_arcs(instance)
    _, blind = _solve(instance, arcs, [1] * len(arcs))
    if sum(e.cost * f for e, f in zip(arcs, blind, strict=True)) <= solution["objective_exact"]:
        return ["nontrivial: a cost-blind plan is already optimal"]
    return []


def binding_capacities(instance: Mapping[str, Any], reference: ReferenceSolution) -> list[str]:
    """Saturated transport arcs (``"u_v@t"``) and storages (``"stock i@t"``) at the reference optimum."""
    solution = reference.solution
    found = []
    for t, flows in solution["flows"].items():
        for a in instance["arcs"]:
            if flows[a["id"]] == a["capacity"][int(t) - 1]:
                found.append(f"{a['id']}@{t}")
    for t, stock in solution["storage"].items():
        for node, value in stock.items():
            if value == instance["storage_capacity"][node]:
                found.append(f"stock {node}@{t}")
    return found
