"""Resource-constrained shortest-path instances: cheap routes are slow, budgets cut them off.

The network is a layered backbone from a single source to a single sink (App. E.1 topology). Every
arc has a cost and consumes one resource ("time") at easy difficulty, two ("time", "energy") at
medium and hard. Cost and time are drawn anti-correlated, so the cheapest route is a slow one;
budgets are then placed strictly between the least consumption any route achieves and what the
cheapest route consumes, which makes the unconstrained shortest path infeasible by construction.
Because the topology is a DAG every route is elementary, and the routes can be enumerated exactly;
that enumeration sets the budgets, cross-checks the MIP and judges nontriviality (each budget must
change the optimum, and several routes must remain feasible).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
from ortools.linear_solver import pywraplp

from benchmark.suites.mmopt.generation.network import (
    ExtraArcMix,
    LayeredTopology,
    arc_key,
    layers_from_positions,
    positions_record,
    reachable,
    sample_layered_topology,
)
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

RESOURCE_NAMES = ("time", "energy")
MAX_PATHS = 20000  # beyond this the enumeration cross-check would dominate generation time
MIN_FEASIBLE_PATHS = 3


@dataclass(frozen=True)
class Regime:
    """One difficulty regime: layer-size options (source and sink are the singleton end layers),
    inclusive node and arc ranges, the extra-arc mix, the number of resources and value ranges."""

    layer_sizes: tuple[tuple[int, ...], ...]
    nodes: tuple[int, int]
    arcs: tuple[int, int]
    mix: ExtraArcMix
    resources: int
    cost_spread: int  # cost = 1 + round(q · spread) + noise, q the arc's "speed"
    time_spread: int  # time = 1 + round((1 − q) · spread) + noise
    energy: tuple[int, int]


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        layer_sizes=((1, 2, 2, 1),),
        nodes=(6, 6),
        arcs=(7, 9),
        mix=ExtraArcMix(intra=(0, 1), bypass=(0, 1)),
        resources=1,
        cost_spread=12,
        time_spread=9,
        energy=(1, 9),
    ),
    "medium": Regime(
        layer_sizes=((1, 3, 3, 3, 1), (1, 3, 4, 3, 1), (1, 3, 3, 2, 1), (1, 2, 3, 3, 2, 1)),
        nodes=(10, 12),
        arcs=(15, 20),
        mix=ExtraArcMix(intra=(1, 3), bypass=(1, 2)),
        resources=2,
        cost_spread=14,
        time_spread=10,
        energy=(1, 9),
    ),
    "hard": Regime(
        layer_sizes=((1, 3, 4, 4, 3, 1), (1, 3, 4, 3, 3, 1), (1, 4, 4, 3, 3, 1), (1, 3, 3, 4, 3, 1)),
        nodes=(15, 16),
        arcs=(23, 28),
        mix=ExtraArcMix(intra=(2, 4), bypass=(1, 3)),
        resources=2,
        cost_spread=16,
        time_spread=11,
        energy=(1, 12),
    ),
}


def sample_structure(rng: random.Random, difficulty: str) -> LayeredTopology:
    regime = REGIMES[difficulty]
    return sample_layered_topology(rng, rng.choice(regime.layer_sizes), regime.arcs, regime.mix)


def resources_of(instance: Mapping[str, Any]) -> list[str]:
    """The resource names: ``resource_name`` of a single-resource instance, else ``resource_names``."""
    if "resource_names" in instance:
        return list(instance["resource_names"])
    return [instance["resource_name"]]


def budgets_of(instance: Mapping[str, Any]) -> dict[str, int]:
    """Resource name → bound: ``resource_bound`` or the dual-resource ``resource_bounds``."""
    if "resource_bounds" in instance:
        return {name: int(instance["resource_bounds"][name]) for name in resources_of(instance)}
    return {instance["resource_name"]: int(instance["resource_bound"])}


def consumption(arc: Mapping[str, Any], name: str) -> int:
    """What ``arc`` consumes of resource ``name``: ``resource`` on a single-resource instance,
    ``resource_values[name]`` on a dual-resource one."""
    return int(arc["resource_values"][name] if "resource_values" in arc else arc["resource"])


def layers_of(instance: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    return layers_from_positions(instance["positions"])


def official_instance(
    difficulty: str,
    topology: LayeredTopology,
    names: list[str],
    arcs: list[dict[str, Any]],
    budgets: list[int] | None,
) -> dict[str, Any]:
    """The official schema: one resource (``resource_name``, ``resource_bound``, arc ``resource``)
    or two (``resource_names``, ``resource_bounds``, ``resource_1_…``/``resource_2_…`` and arc
    ``resource_values``), with the layout in ``positions``. ``arcs`` hold ``from``, ``to``,
    ``cost`` and ``use`` (resource name → consumption)."""
    instance: dict[str, Any] = {
        "problem_type": "resource_constrained_shortest_path",
        "difficulty": difficulty,
        "nodes": topology.nodes,
        "source": topology.layers[0][0],
        "sink": topology.layers[-1][0],
        "positions": positions_record(topology.layers),
    }
    records = []
    for a in arcs:
        arc_row = {"from": a["from"], "to": a["to"], "cost": a["cost"]}
        if len(names) == 1:
            arc_row["resource"] = a["use"][names[0]]
        else:
            arc_row.update({f"resource_{k + 1}": a["use"][name] for k, name in enumerate(names)})
            arc_row["resource_values"] = dict(a["use"])
        records.append(arc_row)
    instance["arcs"] = records
    if len(names) == 1:
        instance["variant"] = "single_visual_single_resource_rcsp"
        instance["resource_name"] = names[0]
        if budgets is not None:
            instance["resource_bound"] = budgets[0]
    else:
        instance["variant"] = "single_visual_dual_resource_rcsp"
        instance["resource_names"] = names
        instance.update({f"resource_{k + 1}_name": name for k, name in enumerate(names)})
        if budgets is not None:
            instance["resource_bounds"] = dict(zip(names, budgets, strict=True))
            instance.update({f"resource_{k + 1}_bound": b for k, b in enumerate(budgets)})
    return instance


@dataclass(frozen=True)
class Route:
    """One source–sink path with its total cost and resource use (in ``resources`` order)."""

    nodes: tuple[int, ...]
    cost: int
    use: tuple[int, ...]


def enumerate_routes(instance: Mapping[str, Any]) -> list[Route]:
    """Every simple source–sink path (networkx), with totals; raises :class:`Rejected` past
    :data:`MAX_PATHS`."""
    graph = nx.DiGraph()
    graph.add_nodes_from(instance["nodes"])
    names = resources_of(instance)
    for a in instance["arcs"]:
        graph.add_edge(a["from"], a["to"], cost=a["cost"], use=[consumption(a, k) for k in names])
    routes: list[Route] = []
    for path in nx.all_simple_paths(graph, instance["source"], instance["sink"]):
        if len(routes) >= MAX_PATHS:
            raise Rejected("structure: too many source-sink paths to enumerate")
        steps = [graph.edges[u, v] for u, v in itertools.pairwise(path)]
        routes.append(
            Route(
                nodes=tuple(path),
                cost=sum(step["cost"] for step in steps),
                use=tuple(sum(step["use"][k] for step in steps) for k in range(len(names))),
            )
        )
    return routes


def best_route(routes: list[Route], budgets: Mapping[int, int]) -> Route | None:
    """The cheapest route within ``budgets`` (resource index → budget); ties to the earlier route."""
    feasible = [r for r in routes if all(r.use[k] <= b for k, b in budgets.items())]
    return min(feasible, key=lambda r: r.cost) if feasible else None


def _excluded(route: Route, budgets: list[int]) -> bool:
    return any(use > budget for use, budget in zip(route.use, budgets, strict=True))


def _only_violates(route: Route, budgets: list[int], k: int) -> bool:
    return all(
        (use > budget) == (j == k) for j, (use, budget) in enumerate(zip(route.use, budgets, strict=True))
    )


def _intended_optimum(route: Route, routes: list[Route]) -> bool:
    """With budgets equal to ``route``'s consumption, every cheaper route is excluded, each budget
    alone excludes some cheaper route, and at least one other route stays within the budgets."""
    budgets = list(route.use)
    cheaper = [r for r in routes if r.cost < route.cost]
    if not cheaper or not all(_excluded(r, budgets) for r in cheaper):
        return False
    if not all(any(_only_violates(r, budgets, k) for r in cheaper) for k in range(len(budgets))):
        return False
    return sum(1 for r in routes if not _excluded(r, budgets)) >= MIN_FEASIBLE_PATHS


def choose_budgets(rng: random.Random, routes: list[Route]) -> list[int]:
    """Budgets that make a randomly chosen non-dominated route the optimum.

    The budgets start at that route's consumption; then each is loosened by a random part of the
    slack that still keeps every cheaper route out, so the budgets do not all sit exactly on the
    optimal path's consumption.
    """
    candidates = [r for r in routes if _intended_optimum(r, routes)]
    if not candidates:
        raise Rejected("structure: no route is optimal only because of the budgets")
    target = rng.choice(candidates)
    budgets = list(target.use)
    cheaper = [r for r in routes if r.cost < target.cost]
    order = list(range(len(budgets)))
    rng.shuffle(order)
    for k in order:
        blocking = [r.use[k] - 1 - budgets[k] for r in cheaper if _only_violates(r, budgets, k)]
        budgets[k] += rng.randint(0, min(blocking))
    return budgets


def instantiate(rng: random.Random, topology: LayeredTopology, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    names = list(RESOURCE_NAMES[: regime.resources])
    arcs = []
    for tail, head in topology.arcs:
        speed = rng.random()
        use = {"time": 1 + round((1 - speed) * regime.time_spread) + rng.randint(0, 2)}
        if "energy" in names:
            use["energy"] = rng.randint(*regime.energy)
        arcs.append(
            {
                "from": tail,
                "to": head,
                "cost": 1 + round(speed * regime.cost_spread) + rng.randint(0, 3),
                "use": use,
            }
        )
    budgets = choose_budgets(
        rng, enumerate_routes(official_instance(difficulty, topology, names, arcs, None))
    )
    return official_instance(difficulty, topology, names, arcs, budgets)


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
    names = resources_of(instance)
    if any(a["cost"] <= 0 or min(consumption(a, k) for k in names) <= 0 for a in instance["arcs"]):
        problems.append("structure: non-positive cost or consumption")
    forward = reachable(nodes, pairs, [instance["source"]])
    backward = reachable(nodes, pairs, [instance["sink"]], reverse=True)
    if forward != set(nodes) or backward != set(nodes):
        problems.append("structure: a node is off every source-sink route")
    return problems


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """Arc-based MIP solved to proven optimality by SCIP (OR-Tools linear solver wrapper)."""
    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:
        raise RuntimeError("OR-Tools was built without SCIP")
    arcs = instance["arcs"]
    x = {arc_key(a["from"], a["to"]): solver.BoolVar(f"x_{a['from']}_{a['to']}") for a in arcs}
    for node in instance["nodes"]:
        out = [x[arc_key(a["from"], a["to"])] for a in arcs if a["from"] == node]
        into = [x[arc_key(a["from"], a["to"])] for a in arcs if a["to"] == node]
        rhs = 1 if node == instance["source"] else -1 if node == instance["sink"] else 0
        solver.Add(sum(out) - sum(into) == rhs)
    for name, budget in budgets_of(instance).items():
        solver.Add(sum(consumption(a, name) * x[arc_key(a["from"], a["to"])] for a in arcs) <= budget)
    solver.Minimize(sum(a["cost"] * x[arc_key(a["from"], a["to"])] for a in arcs))
    status = solver.Solve()
    if status == pywraplp.Solver.INFEASIBLE:
        raise Rejected("structure: no path within the budgets")
    if status != pywraplp.Solver.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", str(status))
    chosen = {(a["from"], a["to"]) for a in arcs if x[arc_key(a["from"], a["to"])].solution_value() > 0.5}
    successor = dict(chosen)
    path = [instance["source"]]
    while path[-1] != instance["sink"]:
        path.append(successor[path[-1]])
    cost = sum(a["cost"] for a in arcs if (a["from"], a["to"]) in chosen)
    solution = {
        "status": "optimal",
        "objective_value": cost,
        "objective_exact": cost,
        "optimal_path": path,
        "selected_arcs": [[u, v] for u, v in itertools.pairwise(path)],
    }
    return ReferenceSolution(solution=solution, method="OR-Tools pywraplp + SCIP (arc-flow MIP)")


def _budget_index(instance: Mapping[str, Any]) -> dict[int, int]:
    names = resources_of(instance)
    return {names.index(name): budget for name, budget in budgets_of(instance).items()}


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """Exhaustive enumeration of all simple source-sink paths (networkx.all_simple_paths)."""
    best = best_route(enumerate_routes(instance), _budget_index(instance))
    if best is None:
        raise Rejected("structure: no path within the budgets")
    return "exhaustive path enumeration (networkx.all_simple_paths)", float(best.cost)


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    routes = enumerate_routes(instance)
    budgets = _budget_index(instance)
    optimum = reference.objective
    if min(r.cost for r in routes) >= optimum:
        return ["nontrivial: the unconstrained shortest path is within budget"]
    for dropped in budgets:
        relaxed = best_route(routes, {k: b for k, b in budgets.items() if k != dropped})
        if relaxed is not None and relaxed.cost >= optimum:
            return ["nontrivial: a budget does not change the optimum"]
    feasible = [r for r in routes if all(r.use[k] <= b for k, b in budgets.items())]
    if len(feasible) < MIN_FEASIBLE_PATHS:
        return ["nontrivial: too few paths within the budgets"]
    return []


def path_count(instance: Mapping[str, Any]) -> int:
    return len(enumerate_routes(instance))
