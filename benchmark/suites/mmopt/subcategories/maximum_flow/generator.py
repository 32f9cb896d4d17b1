"""Maximum-flow instances: layered networks whose bottleneck lies inside the network.

A max-flow instance is only a modeling exercise when the answer cannot be read off one node:
if the source's outgoing arcs (or the sink's incoming arcs) form a minimum cut, the optimum is a
single sum of visible labels. Capacities therefore run larger next to the source and sink than in
the interior, and at medium and hard difficulty a candidate is rejected unless both trivial cuts
are strictly worse than the true minimum cut.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
from ortools.graph.python import max_flow

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


@dataclass(frozen=True)
class Regime:
    """One difficulty regime: layer-size options (source and sink are the singleton end layers),
    the inclusive arc-count range and the extra-arc mix."""

    layer_sizes: tuple[tuple[int, ...], ...]
    nodes: tuple[int, int]
    arcs: tuple[int, int]
    mix: ExtraArcMix
    end_capacity: tuple[int, int]  # arcs out of the source / into the sink
    inner_capacity: tuple[int, int]  # consecutive-layer arcs inside the network
    coupling_capacity: tuple[int, int]  # intra-layer and bypass arcs


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        layer_sizes=((1, 2, 2, 1),),
        nodes=(6, 6),
        arcs=(7, 9),
        mix=ExtraArcMix(intra=(0, 1), bypass=(0, 1)),
        end_capacity=(8, 20),
        inner_capacity=(3, 14),
        coupling_capacity=(2, 8),
    ),
    "medium": Regime(
        layer_sizes=((1, 3, 3, 3, 1), (1, 3, 4, 3, 1), (1, 3, 3, 2, 1), (1, 4, 4, 1)),
        nodes=(10, 12),
        arcs=(16, 24),
        mix=ExtraArcMix(intra=(1, 3), bypass=(1, 2)),
        end_capacity=(12, 28),
        inner_capacity=(3, 16),
        coupling_capacity=(2, 9),
    ),
    "hard": Regime(
        layer_sizes=((1, 4, 4, 4, 4, 1), (1, 3, 4, 4, 3, 1), (1, 4, 4, 4, 3, 1), (1, 3, 4, 4, 4, 3, 1)),
        nodes=(16, 20),
        arcs=(35, 52),
        mix=ExtraArcMix(intra=(4, 7), bypass=(2, 4)),
        end_capacity=(14, 32),
        inner_capacity=(3, 18),
        coupling_capacity=(2, 10),
    ),
}


def sample_structure(rng: random.Random, difficulty: str) -> LayeredTopology:
    regime = REGIMES[difficulty]
    return sample_layered_topology(rng, rng.choice(regime.layer_sizes), regime.arcs, regime.mix)


def layers_of(instance: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    """The drawing's columns, recovered from the official instance (which has no layout field)."""
    pairs = [(a["from"], a["to"]) for a in instance["arcs"]]
    layers = recover_layers(instance["nodes"], pairs, REGIMES[instance["difficulty"]].layer_sizes)
    if layers is None:
        raise ValueError("maximum flow: the instance's arcs fit none of the regime's layerings")
    return layers


def instantiate(rng: random.Random, topology: LayeredTopology, difficulty: str) -> dict[str, Any]:
    """The official schema: ``problem_type``, ``difficulty``, ``nodes``, ``source``, ``sink`` and
    ``arcs: [{from, to, capacity}]``."""
    regime = REGIMES[difficulty]
    require_recoverable_layers(topology, regime.layer_sizes)
    source, sink = topology.layers[0][0], topology.layers[-1][0]
    arcs = []
    for tail, head in topology.arcs:
        kind = arc_kind(topology.layers, tail, head)
        if tail == source or head == sink:
            bounds = regime.end_capacity
        elif kind == "forward":
            bounds = regime.inner_capacity
        else:
            bounds = regime.coupling_capacity
        arcs.append({"from": tail, "to": head, "capacity": rng.randint(*bounds)})
    return {
        "problem_type": "maximum_flow_minimum_cut",
        "difficulty": difficulty,
        "nodes": topology.nodes,
        "source": source,
        "sink": sink,
        "arcs": arcs,
    }


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
    if any(a["capacity"] <= 0 for a in instance["arcs"]):
        problems.append("structure: non-positive capacity")
    forward = reachable(nodes, pairs, [instance["source"]])
    backward = reachable(nodes, pairs, [instance["sink"]], reverse=True)
    if forward != set(nodes) or backward != set(nodes):
        problems.append("structure: a node is off every source-sink route")
    return problems


def _cut_capacity(instance: Mapping[str, Any], source_side: set[int]) -> int:
    return sum(
        a["capacity"] for a in instance["arcs"] if a["from"] in source_side and a["to"] not in source_side
    )


def _int_ids(instance: Mapping[str, Any]) -> dict[str, Any]:
    """The instance with every node id an int: the release writes some as digit strings
    (``mf_h_006``: ``"1"`` in ``nodes`` and the arcs, ``1`` as the source), and the official check
    reads them all as ints."""
    return {
        **instance,
        "nodes": [int(n) for n in instance["nodes"]],
        "source": int(instance["source"]),
        "sink": int(instance["sink"]),
        "arcs": [{**a, "from": int(a["from"]), "to": int(a["to"])} for a in instance["arcs"]],
    }


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """OR-Tools push-relabel; certified by a cut whose capacity equals the flow value."""
    instance = _int_ids(instance)
    solver = max_flow.SimpleMaxFlow()
    for a in instance["arcs"]:
        solver.add_arc_with_capacity(a["from"], a["to"], a["capacity"])
    status = solver.solve(instance["source"], instance["sink"])
    if status != solver.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", str(status))
    value = int(solver.optimal_flow())
    nodes = list(instance["nodes"])
    source_side = set(solver.get_source_side_min_cut()) & set(nodes)
    if _cut_capacity(instance, source_side) != value:
        raise Rejected("reference: min cut capacity differs from the flow value")
    flows = {arc_key(a["from"], a["to"]): int(solver.flow(i)) for i, a in enumerate(instance["arcs"])}
    solution = {
        "status": "optimal",
        "objective_value": value,
        "objective_exact": value,
        "max_flow_value": value,
        "min_cut_value": value,
        "flows": flows,
        "min_cut_S": sorted(source_side),
        "min_cut_T": sorted(set(nodes) - source_side),
    }
    return ReferenceSolution(solution=solution, method="ortools.graph.SimpleMaxFlow (push-relabel)")


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """networkx preflow-push on an independently built graph."""
    graph = nx.DiGraph()
    graph.add_nodes_from(instance["nodes"])
    for a in instance["arcs"]:
        graph.add_edge(a["from"], a["to"], capacity=a["capacity"])
    value = nx.maximum_flow_value(graph, instance["source"], instance["sink"])
    return "networkx.maximum_flow_value (preflow_push)", float(value)


def trivial_cuts(instance: Mapping[str, Any], reference: ReferenceSolution) -> tuple[bool, bool]:
    """Whether the source's outgoing arcs, resp. the sink's incoming arcs, form a minimum cut."""
    value = reference.objective
    nodes = set(instance["nodes"])
    source_cut = _cut_capacity(instance, {instance["source"]})
    sink_cut = _cut_capacity(instance, nodes - {instance["sink"]})
    return source_cut == value, sink_cut == value


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    if reference.objective <= 0:
        return ["nontrivial: zero maximum flow"]
    at_source, at_sink = trivial_cuts(instance, reference)
    if difficulty == "easy":
        if at_source and at_sink:
            return ["nontrivial: both end cuts are minimum cuts"]
        return []
    if at_source:
        return ["nontrivial: source arcs form a minimum cut"]
    if at_sink:
        return ["nontrivial: sink arcs form a minimum cut"]
    return []
