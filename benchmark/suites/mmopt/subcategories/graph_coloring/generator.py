"""Graph colouring instances by size, density, topology and target chromatic number.

Topologies: ``random_gnp`` (every pair adjacent with one probability), ``planted_partition``
(vertices split into t hidden classes, edges only between classes, so χ ≤ t by construction) and
``community_graph`` (dense communities, sparse links between them). Sizes grow from eight to ten
vertices (easy) through sixteen to twenty-six (medium) to twenty-four to forty (hard), with edge
densities near a third, centred on the official release's medians (21 vertices and 69 edges at
medium, 32 and 179.5 at hard).

Every instance is one of three task kinds: a decision with k = χ colours (feasible), a decision
with k = χ − 1 colours (infeasible, certified by CP-SAT and by HiGHS), or the optimization of the
number of colours (answer χ; at medium and hard the palette offered is the DSATUR greedy's colour
count plus two, as the release offers an upper bound, not one colour per vertex). At hard, an
infeasible decision may not be settled by a clique: the largest clique has at most k vertices, so
the proof needs more than spotting k + 1 mutually adjacent vertices. χ ≥ 3 throughout (bipartite
graphs are excluded).

References: CP-SAT on the assignment model with a clique fixed to distinct colours (symmetry
breaking, valid because a clique's vertices need distinct colours anyway); cross-check: the same
question as a HiGHS MILP. The clique number is recorded as the lower bound that certifies χ
whenever it matches.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

VARIANT = "graph_coloring"
DECISION = "decision"
OPTIMIZATION = "optimization"
FEASIBLE_DECISION, INFEASIBLE_DECISION = "decision_feasible", "decision_infeasible"
TASK_KINDS = (FEASIBLE_DECISION, INFEASIBLE_DECISION, OPTIMIZATION)
SOLVE_LIMIT_S = 30.0


@dataclass(frozen=True)
class Regime:
    vertices: tuple[int, int]
    density: tuple[float, float]
    topologies: tuple[str, ...]
    classes: tuple[int, int]  # planted colour classes
    min_chromatic: int
    clique_may_not_prove_infeasible: bool
    # Optimization instances: None offers one colour per vertex; a number offers the DSATUR greedy's
    # colour count plus that many, an upper bound like the release's ``color_upper_bound``.
    palette_slack: int | None = None
    # The HiGHS cross-check breaks colour symmetry by first use (needed from medium's sizes on).
    cross_check_first_use: bool = False


REGIMES: dict[str, Regime] = {
    "easy": Regime((8, 10), (0.3, 0.5), ("random_gnp", "planted_partition"), (3, 3), 3, False),
    "medium": Regime(
        (16, 26),
        (0.3, 0.42),
        ("random_gnp", "planted_partition", "community_graph"),
        (3, 4),
        3,
        False,
        2,
        True,
    ),
    "hard": Regime(
        (26, 40),
        (0.35, 0.48),
        ("random_gnp", "planted_partition", "community_graph"),
        (5, 6),
        4,
        True,
        2,
        True,
    ),
}


@dataclass(frozen=True)
class Structure:
    topology: str
    vertices: int
    edges: tuple[tuple[int, int], ...]
    kind: str


def _random_edges(rng: random.Random, n: int, probability: Any) -> list[tuple[int, int]]:
    return [(u, v) for u in range(1, n + 1) for v in range(u + 1, n + 1) if rng.random() < probability(u, v)]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    n = rng.randint(*regime.vertices)
    topology = rng.choice(regime.topologies)
    density = rng.uniform(*regime.density)
    if topology == "random_gnp":
        edges = _random_edges(rng, n, lambda u, v: density)
    elif topology == "planted_partition":
        classes = rng.randint(*regime.classes)
        label = {v: rng.randrange(classes) for v in range(1, n + 1)}
        edges = _random_edges(rng, n, lambda u, v: 0.0 if label[u] == label[v] else min(0.9, density * 1.5))
    else:
        communities = rng.randint(2, 3)
        label = {v: rng.randrange(communities) for v in range(1, n + 1)}
        edges = _random_edges(
            rng, n, lambda u, v: min(0.9, density * 1.6) if label[u] == label[v] else density / 3
        )
    kind = rng.choice(TASK_KINDS)
    return Structure(topology=topology, vertices=n, edges=tuple(edges), kind=kind)


def graph_of(instance: Mapping[str, Any]) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(instance["sets"]["vertices"])
    graph.add_edges_from(tuple(edge) for edge in instance["edges"])
    return graph


def max_clique(graph: nx.Graph) -> list[int]:
    """A maximum clique, the smallest in sorted order among the largest (deterministic)."""
    cliques = [sorted(c) for c in nx.find_cliques(graph)]
    size = max(len(c) for c in cliques)
    return min(c for c in cliques if len(c) == size)


def _colour_with(graph: nx.Graph, colours: int, clique: Sequence[int]) -> tuple[str, dict[int, int] | None]:
    """CP-SAT on x[v, c]; ``("feasible", colouring)``, ``("infeasible", None)`` or an error status.
    Colours are 1..colours; the clique's vertices are fixed to colours 1, 2, … in order."""
    model = cp_model.CpModel()
    vertices = sorted(graph.nodes)
    x = {(v, c): model.new_bool_var(f"x_{v}_{c}") for v in vertices for c in range(1, colours + 1)}
    for v in vertices:
        model.add_exactly_one(x[v, c] for c in range(1, colours + 1))
    for u, v in graph.edges:
        for c in range(1, colours + 1):
            model.add_bool_or([x[u, c].Not(), x[v, c].Not()])
    if len(clique) > colours:
        return "infeasible", None
    for index, v in enumerate(clique, start=1):
        model.add(x[v, index] == 1)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return "infeasible", None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return solver.status_name(status), None
    colouring = {v: next(c for c in range(1, colours + 1) if solver.boolean_value(x[v, c])) for v in vertices}
    return "feasible", colouring


def chromatic(graph: nx.Graph) -> tuple[int, dict[int, int]]:
    """χ and an optimal colouring: the smallest k from the clique size up that CP-SAT can colour,
    every smaller k proven infeasible."""
    clique = max_clique(graph)
    for colours in range(len(clique), graph.number_of_nodes() + 1):
        status, colouring = _colour_with(graph, colours, clique)
        if status == "feasible" and colouring is not None:
            return colours, colouring
        if status != "infeasible":
            raise Rejected("reference: solver did not certify optimality", status)
    raise AssertionError("every graph can be coloured with one colour per vertex")


def milp_colourable(graph: nx.Graph, colours: int, first_use: bool = False) -> bool:
    """k-colourability as a HiGHS feasibility MILP on x[v, c]. With ``first_use`` symmetry is broken
    by the order of first use, not by a clique (so it shares nothing with the CP-SAT reference): the
    i-th vertex in sorted order may take only colours 0..i, as any colouring relabelled by first
    appearance does; without it, proving χ − 1 infeasible on forty vertices took HiGHS minutes."""
    vertices = sorted(graph.nodes)
    index = {(v, c): i for i, (v, c) in enumerate((v, c) for v in vertices for c in range(colours))}
    rows, lower, upper = [], [], []
    for v in vertices:
        row = np.zeros(len(index))
        row[[index[v, c] for c in range(colours)]] = 1.0
        rows.append(row)
        lower.append(1.0)
        upper.append(1.0)
    for u, v in graph.edges:
        for c in range(colours):
            row = np.zeros(len(index))
            row[[index[u, c], index[v, c]]] = 1.0
            rows.append(row)
            lower.append(0.0)
            upper.append(1.0)
    result = milp(
        np.zeros(len(index)),
        constraints=LinearConstraint(np.array(rows), lb=lower, ub=upper),
        integrality=np.ones(len(index)),
        bounds=Bounds(
            0, [0.0 if first_use and c > i else 1.0 for i, _ in enumerate(vertices) for c in range(colours)]
        ),
    )
    if result.status not in (0, 2):
        raise Rejected("cross-check: MILP did not solve", str(result.message))
    return bool(result.status == 0)


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    vertices = list(range(1, structure.vertices + 1))
    graph = nx.Graph()
    graph.add_nodes_from(vertices)
    graph.add_edges_from(structure.edges)
    colours_needed, _ = chromatic(graph)
    decision = structure.kind != OPTIMIZATION
    available = colours_needed - (1 if structure.kind == INFEASIBLE_DECISION else 0)
    slack = REGIMES[difficulty].palette_slack
    palette = len(vertices) if slack is None else upper_bound(graph) + slack
    adjacency = [[1 if graph.has_edge(u, v) else 0 for v in vertices] for u in vertices]
    pairs = len(vertices) * (len(vertices) - 1) // 2
    return {
        "variant": VARIANT,
        "scenario": VARIANT,
        "difficulty": difficulty,
        "problem_type": "vertex_coloring",
        "objective_type": "decision_k_colorability" if decision else "minimize_number_of_colors",
        "task_variant": DECISION if decision else OPTIMIZATION,
        "sets": {
            "vertices": vertices,
            "colors": list(range(1, (available if decision else palette) + 1)),
        },
        "edges": [list(edge) for edge in sorted(structure.edges)],
        "adjacency_matrix": adjacency,
        "meta_parameters": {
            "number_of_vertices": len(vertices),
            "number_of_edges": len(structure.edges),
            "graph_density": round(len(structure.edges) / pairs, 3),
            **({"number_of_colors_available": available} if decision else {}),
            "topology_type": structure.topology,
            "task_variant": DECISION if decision else OPTIMIZATION,
        },
    }


def upper_bound(graph: nx.Graph) -> int:
    """The colour count of networkx's DSATUR greedy colouring (deterministic), never below χ."""
    colouring: dict[int, int] = nx.greedy_color(graph, strategy="DSATUR")
    return max(colouring.values()) + 1


def is_decision(instance: Mapping[str, Any]) -> bool:
    """Whether the instance asks "is it k-colourable?" rather than for the fewest colours.

    Our packages say so in ``task_variant``; the official release writes ``task_variant`` on its
    medium and hard packages (``decision``, ``precolored_decision``) and only ``objective_type``
    (``feasibility``) on its easy ones."""
    variant = instance.get("task_variant")
    if variant is not None:
        return "decision" in str(variant)
    return any(word in str(instance.get("objective_type", "")) for word in ("decision", "feasibility"))


def colours_available(instance: Mapping[str, Any]) -> int:
    return len(instance["sets"]["colors"])


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    graph = graph_of(instance)
    problems = []
    if not regime.vertices[0] <= graph.number_of_nodes() <= regime.vertices[1]:
        problems.append("structure: vertex count outside the regime")
    if not nx.is_connected(graph):
        problems.append("structure: the graph is not connected")
    vertices = instance["sets"]["vertices"]
    expected = [[1 if graph.has_edge(u, v) else 0 for v in vertices] for u in vertices]
    if expected != instance["adjacency_matrix"]:
        problems.append("structure: adjacency matrix disagrees with the edge list")
    return problems


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    graph = graph_of(instance)
    method = "ortools.sat CP-SAT (assignment model, a maximum clique fixed to distinct colours)"
    if is_decision(instance):
        k = colours_available(instance)
        status, colouring = _colour_with(graph, k, max_clique(graph))
        if status not in ("feasible", "infeasible"):
            raise Rejected("reference: solver did not certify optimality", status)
        solution: dict[str, Any] = {
            "status": status,
            "is_k_colorable": status == "feasible",
            "number_of_colors_available": k,
        }
        if colouring is not None:
            solution["color_assignment"] = {str(v): c for v, c in sorted(colouring.items())}
        return ReferenceSolution(solution=solution, method=method + ", proven " + status)
    colours, colouring = chromatic(graph)
    return ReferenceSolution(
        solution={
            "status": "optimal",
            "objective_value": colours,
            "objective_exact": colours,
            "number_of_colors_used": colours,
            "color_assignment": {str(v): c for v, c in sorted(colouring.items())},
        },
        method=method + ", every smaller count proven infeasible",
    )


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """HiGHS decides k-colourability (decision: 1.0 if colourable, else 0.0) or finds the least k
    from the clique number up (optimization)."""
    graph = graph_of(instance)
    first_use = REGIMES[instance["difficulty"]].cross_check_first_use
    method = "scipy.optimize.milp (HiGHS) k-colourability model " + (
        "with colours in order of first use" if first_use else "without symmetry breaking"
    )
    if is_decision(instance):
        return method, 1.0 if milp_colourable(graph, colours_available(instance), first_use) else 0.0
    colours = len(max_clique(graph))
    while not milp_colourable(graph, colours, first_use):
        colours += 1
    return method, float(colours)


def answer_colours(instance: Mapping[str, Any], reference: ReferenceSolution) -> int:
    """χ from the verified answer: the optimum, k when k-colourable, k + 1 when not."""
    if not is_decision(instance):
        return int(reference.solution["objective_value"])
    k = colours_available(instance)
    return k if reference.solution["status"] == "feasible" else k + 1


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    regime = REGIMES[difficulty]
    colours = answer_colours(instance, reference)
    if colours < regime.min_chromatic:
        return ["nontrivial: chromatic number below the regime"]
    if (
        regime.clique_may_not_prove_infeasible
        and reference.solution["status"] == "infeasible"
        and len(max_clique(graph_of(instance))) > colours_available(instance)
    ):
        return ["nontrivial: a clique alone proves the graph is not k-colourable"]
    return []
