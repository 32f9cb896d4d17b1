"""Capacitated network design instances: which arcs to open, and how to route through them.

Single commodity, several supply and demand nodes (App. E.1 layered topology, supplies in the first
column, demands in the last). Every arc has a capacity, a unit flow cost and a fixed cost paid when
the arc is opened; flow may only use open arcs. Capacities are drawn below the total supply so that
one route cannot carry everything, and a candidate is feasible only when all arcs together can ship
the supply (a max-flow test). The verified optimum must show that the design decisions matter: some
arcs stay closed, routing by unit costs alone (then opening what it uses) is strictly worse, opening
by fixed costs alone is strictly worse, and at medium and hard difficulty some capacity binds.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.graph.python import min_cost_flow
from ortools.linear_solver import pywraplp
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.network import (
    ExtraArcMix,
    LayeredTopology,
    arc_key,
    layers_from_positions,
    positions_record,
    sample_layered_topology,
)
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.generation.supply_network import supply_network_problems, supply_of


@dataclass(frozen=True)
class Regime:
    """One difficulty regime: layer sizes (first column supplies, last column demands), inclusive
    node and arc ranges, the extra-arc mix and the parameter ranges."""

    layer_sizes: tuple[tuple[int, ...], ...]
    nodes: tuple[int, int]
    arcs: tuple[int, int]
    mix: ExtraArcMix
    supply: tuple[int, int]  # per supply node
    capacity_share: tuple[float, float]  # arc capacity as a share of the total supply
    cost: tuple[int, int]
    fixed: tuple[int, int]
    binding_capacity: bool  # whether the optimum must saturate some open arc


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        layer_sizes=((2, 2, 2),),
        nodes=(6, 6),
        arcs=(7, 9),
        mix=ExtraArcMix(intra=(0, 1), bypass=(0, 1)),
        supply=(5, 12),
        capacity_share=(0.35, 0.9),
        cost=(1, 8),
        fixed=(8, 40),
        binding_capacity=False,
    ),
    "medium": Regime(
        layer_sizes=((3, 3, 3, 3), (2, 3, 3, 2), (3, 3, 3, 2), (2, 3, 3, 3)),
        nodes=(10, 12),
        arcs=(16, 22),
        mix=ExtraArcMix(intra=(1, 3), bypass=(1, 2)),
        supply=(5, 14),
        capacity_share=(0.25, 0.7),
        cost=(1, 9),
        fixed=(10, 60),
        binding_capacity=True,
    ),
    "hard": Regime(
        layer_sizes=((3, 4, 4, 4), (3, 3, 3, 3, 3), (4, 4, 4, 3), (3, 4, 3, 3, 3)),
        nodes=(15, 16),
        arcs=(22, 27),
        mix=ExtraArcMix(intra=(2, 4), bypass=(1, 3)),
        supply=(5, 15),
        capacity_share=(0.2, 0.55),
        cost=(1, 10),
        fixed=(10, 80),
        binding_capacity=True,
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


def instantiate(rng: random.Random, topology: LayeredTopology, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    supplies = [rng.randint(*regime.supply) for _ in topology.layers[0]]
    total = sum(supplies)
    demands = _split(rng, total, len(topology.layers[-1]), minimum=3)
    balance = dict.fromkeys(topology.nodes, 0)
    balance.update(zip(topology.layers[0], supplies, strict=True))
    balance.update({node: -d for node, d in zip(topology.layers[-1], demands, strict=True)})
    arcs = []
    for k, (tail, head) in enumerate(topology.arcs):
        share = rng.uniform(*regime.capacity_share)
        arcs.append(
            {
                "id": f"e{k + 1}",
                "from": tail,
                "to": head,
                "capacity": max(3, round(share * total)),
                "variable_cost": rng.randint(*regime.cost),
                "fixed_cost": rng.randint(*regime.fixed),
            }
        )
    return official_instance(difficulty, topology, balance, arcs)


def official_instance(
    difficulty: str, topology: LayeredTopology, balance: Mapping[int, int], arcs: list[dict[str, Any]]
) -> dict[str, Any]:
    """The official schema: arcs with ids ``e1…`` (``arcs``, ``arc_ids``, ``sets``,
    ``indices.arc_to_endpoints``), ``capacities``, ``fixed_costs`` and ``variable_costs`` keyed by
    arc id, ``demands`` (``required_flow``, ``node_balance``) and the layout in ``positions``.
    Several supply and demand nodes, so the single ``source``/``sink`` fields are not used."""
    ids = [a["id"] for a in arcs]
    return {
        "problem_type": "capacitated_network_design",
        "variant": "single_visual_single_commodity_cnd",
        "difficulty": difficulty,
        "nodes": topology.nodes,
        "arc_ids": ids,
        "sets": {"nodes": topology.nodes, "arcs": ids},
        "indices": {"arc_to_endpoints": {a["id"]: [a["from"], a["to"]] for a in arcs}},
        "positions": positions_record(topology.layers),
        "demands": {
            "required_flow": sum(v for v in balance.values() if v > 0),
            "node_balance": {str(node): balance[node] for node in topology.nodes},
        },
        "capacities": {a["id"]: a["capacity"] for a in arcs},
        "fixed_costs": {a["id"]: a["fixed_cost"] for a in arcs},
        "variable_costs": {a["id"]: a["variable_cost"] for a in arcs},
        "arcs": arcs,
    }


def layers_of(instance: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    return layers_from_positions(instance["positions"])


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    return supply_network_problems(instance, regime.nodes, regime.arcs)


def _integral(value: float) -> int:
    rounded = round(value)
    if abs(value - rounded) > 1e-6:
        raise Rejected("reference: fractional flow at the optimum")
    return int(rounded)


def solve_design(
    instance: Mapping[str, Any], costs: list[int], fixed: list[int], *, flows_needed: bool = True
) -> tuple[int, list[int], list[int] | None]:
    """(objective, open 0/1 per arc, flow per arc) of the design MIP with the given cost vectors,
    solved to proven optimality by SCIP.

    Without ``flows_needed`` (the nontriviality checks use only the designs and their costs) no
    flows are returned and the objective is SCIP's optimum: with alternative optimal flows SCIP may
    report a fractional one, and which one it reports differed between the generating process and
    a later `validate` of the same package, which then failed as "fractional flow at the optimum"."""
    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:
        raise RuntimeError("OR-Tools was built without SCIP")
    arcs = instance["arcs"]
    x = [solver.NumVar(0.0, a["capacity"], f"x_{a['id']}") for a in arcs]
    y = [solver.BoolVar(f"y_{a['id']}") for a in arcs]
    for j, a in enumerate(arcs):
        solver.Add(x[j] <= a["capacity"] * y[j])
    for node, value in supply_of(instance).items():
        out = [x[j] for j, a in enumerate(arcs) if a["from"] == node]
        into = [x[j] for j, a in enumerate(arcs) if a["to"] == node]
        solver.Add(sum(out) - sum(into) == value)
    solver.Minimize(sum(c * x[j] + f * y[j] for j, (c, f) in enumerate(zip(costs, fixed, strict=True))))
    status = solver.Solve()
    if status != pywraplp.Solver.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", str(status))
    opened = [round(v.solution_value()) for v in y]
    if not flows_needed:
        return _integral(solver.Objective().Value()), opened, None
    flows = [_integral(v.solution_value()) for v in x]
    total = sum(c * f for c, f in zip(costs, flows, strict=True)) + sum(
        f * o for f, o in zip(fixed, opened, strict=True)
    )
    return total, opened, flows


def _costs(instance: Mapping[str, Any]) -> tuple[list[int], list[int]]:
    return [a["variable_cost"] for a in instance["arcs"]], [a["fixed_cost"] for a in instance["arcs"]]


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """Fixed-charge MIP (binary open variables, capacity linking) solved by SCIP via OR-Tools."""
    costs, fixed = _costs(instance)
    total, opened, flows = solve_design(instance, costs, fixed)
    assert flows is not None
    arcs = instance["arcs"]
    solution = {
        "status": "optimal",
        "objective_value": total,
        "objective_exact": total,
        "fixed_cost_total": sum(a["fixed_cost"] for a, o in zip(arcs, opened, strict=True) if o),
        "variable_cost_total": sum(a["variable_cost"] * f for a, f in zip(arcs, flows, strict=True)),
        "installed_arc_ids": [a["id"] for a, o in zip(arcs, opened, strict=True) if o],
        "installation_indicator": {a["id"]: int(o) for a, o in zip(arcs, opened, strict=True)},
        "arc_flow_by_id": {a["id"]: f for a, f in zip(arcs, flows, strict=True)},
    }
    return ReferenceSolution(solution=solution, method="OR-Tools pywraplp + SCIP (fixed-charge MIP)")


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """The same model built independently as a dense MILP for HiGHS (scipy.optimize.milp).

    HiGHS reports the optimum within its feasibility tolerance (988 comes back as 987.999996); the
    data are integral, so the optimum is an integer and the reported value is rounded to it.
    """
    arcs = instance["arcs"]
    nodes = list(instance["nodes"])
    m = len(arcs)
    costs, fixed = _costs(instance)
    supply = supply_of(instance)
    balance = np.zeros((len(nodes), 2 * m))
    row = {node: i for i, node in enumerate(nodes)}
    for j, a in enumerate(arcs):
        balance[row[a["from"]], j] += 1.0
        balance[row[a["to"]], j] -= 1.0
    linking = np.hstack([np.eye(m), -np.diag([float(a["capacity"]) for a in arcs])])
    b = np.array([float(supply[node]) for node in nodes])
    result = milp(
        c=np.array([*costs, *fixed], dtype=float),
        constraints=[LinearConstraint(balance, b, b), LinearConstraint(linking, -np.inf, 0.0)],
        integrality=np.array([0] * m + [1] * m),
        bounds=Bounds(np.zeros(2 * m), np.array([float(a["capacity"]) for a in arcs] + [1.0] * m)),
        options={"mip_rel_gap": 0.0},
    )
    if result.status != 0:
        raise Rejected("cross-check: HiGHS MILP did not solve", str(result.message))
    if abs(result.fun - round(result.fun)) > 1e-4:
        raise Rejected("cross-check: HiGHS optimum is not integral", str(result.fun))
    return "scipy.optimize.milp (HiGHS branch-and-cut, zero gap)", float(round(result.fun))


def _routing_by_unit_cost(instance: Mapping[str, Any]) -> int:
    """Total cost of routing by unit costs alone (all arcs available) and opening what that uses."""
    solver = min_cost_flow.SimpleMinCostFlow()
    for a in instance["arcs"]:
        solver.add_arc_with_capacity_and_unit_cost(a["from"], a["to"], a["capacity"], a["variable_cost"])
    for node, value in supply_of(instance).items():
        solver.set_node_supply(node, value)
    if solver.solve() != solver.OPTIMAL:
        raise Rejected("nontrivial: unit-cost routing failed")
    flows = [solver.flow(j) for j in range(len(instance["arcs"]))]
    opening: int = sum(a["fixed_cost"] for a, f in zip(instance["arcs"], flows, strict=True) if f > 0)
    return int(solver.optimal_cost()) + opening


def _opening_by_fixed_cost(instance: Mapping[str, Any]) -> int:
    """Total cost of the cheapest design by fixed costs alone, then routed at least unit cost."""
    costs, fixed = _costs(instance)
    _, opened, _ = solve_design(instance, [0] * len(costs), fixed, flows_needed=False)
    restricted = dict(instance)
    restricted["arcs"] = [a for a, o in zip(instance["arcs"], opened, strict=True) if o]
    total, _, _ = solve_design(
        restricted,
        [a["variable_cost"] for a in restricted["arcs"]],
        [0] * len(restricted["arcs"]),
        flows_needed=False,
    )
    opening: int = sum(a["fixed_cost"] for a in restricted["arcs"])
    return total + opening


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    solution = reference.solution
    optimum = solution["objective_exact"]
    if len(solution["installed_arc_ids"]) == len(instance["arcs"]):
        return ["nontrivial: every arc opens"]
    if _routing_by_unit_cost(instance) <= optimum:
        return ["nontrivial: routing by unit costs is already optimal"]
    if _opening_by_fixed_cost(instance) <= optimum:
        return ["nontrivial: opening by fixed costs is already optimal"]
    if REGIMES[difficulty].binding_capacity and not binding_arcs(instance, reference):
        return ["nontrivial: no capacity binds at the optimum"]
    return []


def binding_arcs(instance: Mapping[str, Any], reference: ReferenceSolution) -> list[str]:
    flows = reference.solution["arc_flow_by_id"]
    return [arc_key(a["from"], a["to"]) for a in instance["arcs"] if flows[a["id"]] == a["capacity"]]
