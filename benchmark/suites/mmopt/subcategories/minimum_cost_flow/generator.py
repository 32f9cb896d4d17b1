"""Minimum-cost-flow instances (MM-OptBench App. E.1, the family's representative pipeline).

Supplies sit in the first column and demands in the last, joined by a layered backbone with
intra-layer and bypass arcs as difficulty rises. After parameters are drawn the candidate must be
balanced and feasible, and the verified optimum must be a real optimization result: some capacity
binds (so the capacities matter), a routing that ignores costs is strictly worse, and the most
expensive feasible routing costs clearly more (so the costs matter).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.graph.python import min_cost_flow
from scipy.optimize import linprog

from benchmark.suites.mmopt.generation.network import (
    ExtraArcMix,
    LayeredTopology,
    arc_key,
    arc_kind,
    reachable,
    recover_layers,
    require_recoverable_layers,
    sample_layered_topology,
)
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.generation.supply_network import (
    supply_ends,
    supply_network_problems,
    supply_of,
)

COST_SPREAD = 1.1  # the most expensive feasible routing must cost at least this factor × the optimum


@dataclass(frozen=True)
class Regime:
    """One difficulty regime: layer sizes (first column supplies, last column demands), inclusive
    node and arc ranges, the extra-arc mix and the parameter ranges."""

    layer_sizes: tuple[tuple[int, ...], ...]
    nodes: tuple[int, int]
    arcs: tuple[int, int]
    mix: ExtraArcMix
    supply: tuple[int, int]  # per supply node
    capacity: tuple[int, int]  # consecutive-layer arcs that the witness plan does not use
    slack: int  # arcs the witness plan uses get its flow plus up to this much spare capacity
    coupling_capacity: tuple[int, int]  # intra-layer and bypass arcs
    cost: tuple[int, int]


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        layer_sizes=((2, 2, 2),),
        nodes=(6, 6),
        arcs=(7, 9),
        mix=ExtraArcMix(intra=(0, 1), bypass=(0, 1)),
        supply=(6, 15),
        capacity=(4, 14),
        slack=6,
        coupling_capacity=(3, 9),
        cost=(1, 12),
    ),
    "medium": Regime(
        layer_sizes=((3, 3, 3, 3), (2, 3, 3, 2), (3, 3, 3, 2), (2, 3, 3, 3)),
        nodes=(10, 12),
        arcs=(19, 24),
        mix=ExtraArcMix(intra=(2, 4), bypass=(1, 2)),
        supply=(8, 20),
        capacity=(4, 16),
        slack=7,
        coupling_capacity=(3, 10),
        cost=(1, 15),
    ),
    "hard": Regime(
        layer_sizes=((4, 4, 5, 5, 4, 4), (4, 5, 5, 5, 4, 4), (4, 4, 5, 5, 5, 4), (4, 5, 5, 5, 5, 4)),
        nodes=(26, 28),
        arcs=(57, 63),
        mix=ExtraArcMix(intra=(6, 10), bypass=(2, 4)),
        supply=(10, 26),
        capacity=(4, 20),
        slack=8,
        coupling_capacity=(3, 12),
        cost=(1, 20),
    ),
}


def sample_structure(rng: random.Random, difficulty: str) -> LayeredTopology:
    regime = REGIMES[difficulty]
    return sample_layered_topology(rng, rng.choice(regime.layer_sizes), regime.arcs, regime.mix)


def _split(rng: random.Random, total: int, parts: int, minimum: int) -> list[int]:
    """``parts`` integers ≥ ``minimum`` summing to ``total`` (random composition)."""
    spare = total - parts * minimum
    cuts = sorted(rng.randint(0, spare) for _ in range(parts - 1))
    bounds = [0, *cuts, spare]
    return [minimum + bounds[i + 1] - bounds[i] for i in range(parts)]


def _witness_flow(
    rng: random.Random, topology: LayeredTopology, supplies: dict[int, int], demands: dict[int, int]
) -> dict[tuple[int, int], int]:
    """A random feasible shipment plan: chunks of supply sent along random paths to demands with
    remaining need. Capacities are then laid over it, so every candidate is feasible by construction
    (App. E.1: "the network can support at least one feasible shipment plan")."""
    nodes = topology.nodes
    flow: dict[tuple[int, int], int] = {}
    supply_left, demand_left = dict(supplies), dict(demands)
    while any(supply_left.values()):
        source = rng.choice(sorted(n for n, v in supply_left.items() if v > 0))
        downstream = reachable(nodes, topology.arcs, [source])
        open_sinks = sorted(n for n, v in demand_left.items() if v > 0 and n in downstream)
        if not open_sinks:
            raise Rejected("structure: the demand split cannot be served from the supplies")
        sink = rng.choice(open_sinks)
        can_reach = reachable(nodes, topology.arcs, [sink], reverse=True)
        chunk = min(supply_left[source], demand_left[sink], rng.randint(3, 9))
        node = source
        while node != sink:
            options = sorted(v for u, v in topology.arcs if u == node and v in can_reach)
            step = (node, rng.choice(options))
            flow[step] = flow.get(step, 0) + chunk
            node = step[1]
        supply_left[source] -= chunk
        demand_left[sink] -= chunk
    return flow


def layers_of(instance: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    """The drawing's columns, recovered from the official instance (which has no layout field)."""
    pairs = [(a["from"], a["to"]) for a in instance["arcs"]]
    sizes = REGIMES[instance["difficulty"]].layer_sizes
    layers = recover_layers(instance["nodes"], pairs, sizes, supply_ends(instance))
    if layers is None:
        raise ValueError("minimum-cost flow: the instance's arcs fit none of the regime's layerings")
    return layers


def instantiate(rng: random.Random, topology: LayeredTopology, difficulty: str) -> dict[str, Any]:
    """The official schema: ``problem_type``, ``variant``, ``difficulty``, ``nodes``, ``supply``
    (node → net supply) and ``arcs: [{from, to, capacity, cost}]``."""
    regime = REGIMES[difficulty]
    ends = (list(topology.layers[0]), list(topology.layers[-1]))
    require_recoverable_layers(topology, regime.layer_sizes, ends)
    supplies = [rng.randint(*regime.supply) for _ in topology.layers[0]]
    total = sum(supplies)
    demands = _split(rng, total, len(topology.layers[-1]), minimum=3)
    balance = dict.fromkeys(topology.nodes, 0)
    balance.update(zip(topology.layers[0], supplies, strict=True))
    balance.update({node: -d for node, d in zip(topology.layers[-1], demands, strict=True)})
    witness = _witness_flow(
        rng,
        topology,
        dict(zip(topology.layers[0], supplies, strict=True)),
        dict(zip(topology.layers[-1], demands, strict=True)),
    )
    arcs = []
    for tail, head in topology.arcs:
        kind = arc_kind(topology.layers, tail, head)
        shipped = witness.get((tail, head), 0)
        if shipped:
            capacity = shipped + rng.randint(0, regime.slack)
        else:
            capacity = rng.randint(*(regime.capacity if kind == "forward" else regime.coupling_capacity))
        arcs.append(
            {
                "from": tail,
                "to": head,
                "capacity": capacity,
                "cost": rng.randint(*regime.cost),
            }
        )
    return {
        "problem_type": "minimum_cost_flow",
        "variant": "minimum_cost_flow_single",
        "difficulty": difficulty,
        "nodes": topology.nodes,
        "supply": {str(node): balance[node] for node in topology.nodes},
        "arcs": arcs,
    }


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    return supply_network_problems(instance, regime.nodes, regime.arcs)


def _solve(instance: Mapping[str, Any], costs: list[int]) -> tuple[int, list[int]]:
    solver = min_cost_flow.SimpleMinCostFlow()
    for a, cost in zip(instance["arcs"], costs, strict=True):
        solver.add_arc_with_capacity_and_unit_cost(a["from"], a["to"], a["capacity"], cost)
    for node, value in supply_of(instance).items():
        solver.set_node_supply(node, value)
    status = solver.solve()
    if status != solver.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", str(status))
    return int(solver.optimal_cost()), [int(solver.flow(i)) for i in range(len(instance["arcs"]))]


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """OR-Tools cost-scaling min-cost flow (exact on integer data)."""
    cost, flows = _solve(instance, [a["cost"] for a in instance["arcs"]])
    solution = {
        "status": "optimal",
        "objective_value": cost,
        "objective_exact": cost,
        "flows": {arc_key(a["from"], a["to"]): flow for a, flow in zip(instance["arcs"], flows, strict=True)},
    }
    return ReferenceSolution(solution=solution, method="ortools.graph.SimpleMinCostFlow (cost scaling)")


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """The LP relaxation solved by HiGHS through SciPy: node-arc incidence equalities, capacity
    bounds. The constraint matrix is totally unimodular, so the LP optimum is the integer optimum."""
    nodes = list(instance["nodes"])
    row = {node: i for i, node in enumerate(nodes)}
    arcs = instance["arcs"]
    incidence = np.zeros((len(nodes), len(arcs)))
    for j, a in enumerate(arcs):
        incidence[row[a["from"]], j] += 1.0
        incidence[row[a["to"]], j] -= 1.0
    supply = supply_of(instance)
    result = linprog(
        c=[a["cost"] for a in arcs],
        A_eq=incidence,
        b_eq=[supply[node] for node in nodes],
        bounds=[(0, a["capacity"]) for a in arcs],
        method="highs",
    )
    if result.status != 0:
        raise Rejected("cross-check: LP did not solve", result.message)
    return "scipy.optimize.linprog (HiGHS LP)", float(result.fun)


def _true_cost(instance: Mapping[str, Any], flows: list[int]) -> int:
    return sum(a["cost"] * f for a, f in zip(instance["arcs"], flows, strict=True))


def _is_single_path(instance: Mapping[str, Any], flows: Mapping[str, int]) -> bool:
    used = [(a["from"], a["to"]) for a in instance["arcs"] if flows[arc_key(a["from"], a["to"])] > 0]
    out_degree: dict[int, int] = {}
    in_degree: dict[int, int] = {}
    for u, v in used:
        out_degree[u] = out_degree.get(u, 0) + 1
        in_degree[v] = in_degree.get(v, 0) + 1
    starts = [n for n in out_degree if n not in in_degree]
    return (
        len(starts) == 1
        and all(d == 1 for d in out_degree.values())
        and all(d == 1 for d in in_degree.values())
    )


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    flows = reference.solution["flows"]
    optimum = reference.solution["objective_exact"]
    if _is_single_path(instance, flows):
        return ["nontrivial: a single path carries all flow"]
    if not any(flows[arc_key(a["from"], a["to"])] == a["capacity"] for a in instance["arcs"]):
        return ["nontrivial: no capacity binds at the optimum"]
    _, blind = _solve(instance, [1] * len(instance["arcs"]))
    if _true_cost(instance, blind) <= optimum:
        return ["nontrivial: cost-blind routing is already optimal"]
    _, worst = _solve(instance, [-a["cost"] for a in instance["arcs"]])
    if _true_cost(instance, worst) < COST_SPREAD * optimum:
        return ["nontrivial: every feasible routing costs about the same"]
    return []


def binding_arcs(instance: Mapping[str, Any], reference: ReferenceSolution) -> list[str]:
    flows = reference.solution["flows"]
    return [
        arc_key(a["from"], a["to"])
        for a in instance["arcs"]
        if flows[arc_key(a["from"], a["to"])] == a["capacity"]
    ]
