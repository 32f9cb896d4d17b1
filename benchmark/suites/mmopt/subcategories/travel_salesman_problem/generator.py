"""Travelling salesman instances: cities on an integer grid, one closed tour through all of them.

Easy instances are a handful of uniformly scattered cities with legs rounded to two decimals.
Medium ones have ten to twelve cities, uniform or in two or three clusters, with legs rounded to one
decimal or to whole numbers, and the nearest-neighbour tour from the start city must not be optimal.
Hard ones have fourteen to sixteen clustered cities with exact or two-decimal legs, and neither the
nearest-neighbour tour nor its 2-opt local optimum may be optimal: the clusters make the order in
which they are joined the real decision, which greedy construction gets wrong.

The reference is HiGHS on the degree-2 edge model with subtour cuts
(:func:`~benchmark.suites.mmopt.generation.routing.subtour_milp`); the Held–Karp dynamic program
cross-checks it.
"""

from __future__ import annotations

import math
import random
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmark.suites.mmopt.generation import routing
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.generation.spatial import Point, distance, min_separation, sample_points

VARIANT = "traveling_salesman_problem"
UNIFORM = "uniform_random_euclidean"
CLUSTERED = "clustered_euclidean"
MIN_SEPARATION = 2.0  # grid units between cities, so every name fits beside its marker


@dataclass(frozen=True)
class Regime:
    cities: tuple[int, int]
    grid: int
    layouts: tuple[str, ...]
    clusters: tuple[int, int]
    rules: tuple[str, ...]
    nearest_neighbour_must_fail: bool
    two_opt_must_fail: bool


REGIMES: dict[str, Regime] = {
    "easy": Regime((7, 8), 10, (UNIFORM,), (1, 1), ("euclidean_rounded_2dp",), False, False),
    "medium": Regime(
        (10, 12),
        14,
        (UNIFORM, CLUSTERED),
        (2, 3),
        ("euclidean_rounded_1dp", "euclidean_rounded_0dp"),
        True,
        False,
    ),
    "hard": Regime((14, 16), 20, (CLUSTERED,), (3, 4), (routing.EXACT, "euclidean_rounded_2dp"), True, True),
}


def grid_size(instance: Mapping[str, Any]) -> int:
    """The side of the square map the instance is drawn on: its difficulty's regime grid (kept out
    of ``instance_data.json``, whose official schema has no such key)."""
    return REGIMES[str(instance["difficulty"])].grid


@dataclass(frozen=True)
class Layout:
    kind: str
    clusters: int
    points: tuple[Point, ...]


def city_names(count: int) -> list[str]:
    return list(string.ascii_uppercase[:count])


def sample_structure(rng: random.Random, difficulty: str) -> Layout:
    regime = REGIMES[difficulty]
    count = rng.randint(*regime.cities)
    kind = rng.choice(regime.layouts)
    if kind == UNIFORM:
        points = sample_points(rng, count, 1, regime.grid - 1, MIN_SEPARATION)
        return Layout(kind, 1, tuple(points))
    clusters = rng.randint(*regime.clusters)
    margin = max(2, regime.grid // 7)
    centres = sample_points(rng, clusters, margin, regime.grid - margin, regime.grid / 2.2)
    radius = regime.grid / 7
    points = sample_points(
        rng,
        count,
        1,
        regime.grid - 1,
        MIN_SEPARATION,
        accept=lambda p: any(distance(p, c) <= radius for c in centres),
    )
    return Layout(kind, clusters, tuple(points))


def instantiate(rng: random.Random, layout: Layout, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    rule = rng.choice(regime.rules)
    names = city_names(len(layout.points))
    coordinates = {name: [x, y] for name, (x, y) in zip(names, layout.points, strict=True)}
    return {
        "variant": VARIANT,
        "scenario": VARIANT,
        "difficulty": difficulty,
        "sets": {"nodes": names, "directed_arcs": [[a, b] for a in names for b in names if a != b]},
        "coordinates": coordinates,
        "distance_matrix": routing.distance_table(coordinates, names, rule),
        "root_city": names[0],
        "meta_parameters": {
            "number_nodes": len(names),
            "layout_type": layout.kind,
            "cluster_count": layout.clusters,
            "cost_matrix_type": rule,
        },
    }


def cost_rule(instance: Mapping[str, Any]) -> str:
    return str(instance["meta_parameters"]["cost_matrix_type"])


def nodes(instance: Mapping[str, Any]) -> list[str]:
    """Cities with the start city first (the solvers' node 0)."""
    names = list(instance["sets"]["nodes"])
    root = instance.get("root_city", names[0])
    return [root, *(n for n in names if n != root)]


def units(instance: Mapping[str, Any]) -> np.ndarray:
    return routing.cost_matrix(instance["coordinates"], nodes(instance), cost_rule(instance))


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    names = list(instance["sets"]["nodes"])
    problems = []
    if not regime.cities[0] <= len(names) <= regime.cities[1]:
        problems.append("structure: city count outside the regime")
    points = [tuple(instance["coordinates"][n]) for n in names]
    if any(not 0 <= c <= grid_size(instance) for p in points for c in p):
        problems.append("structure: a city lies off the grid")
    if min_separation(points) < MIN_SEPARATION:
        problems.append("structure: two cities too close to label")
    if (
        routing.distance_table(instance["coordinates"], names, cost_rule(instance))
        != instance["distance_matrix"]
    ):
        problems.append("structure: distance matrix disagrees with the cost rule")
    if instance["root_city"] not in names:
        problems.append("structure: the start city is not a city")
    return problems


def solution_of(instance: Mapping[str, Any], order: Sequence[int], total_units: float) -> dict[str, Any]:
    """The ``solution_ref.json`` shape (official keys) of a tour given as node indices from the root."""
    names = nodes(instance)
    tour = [names[i] for i in order] + [names[order[0]]]
    return {
        "status": "optimal",
        "objective_value": routing.from_units(total_units, cost_rule(instance)),
        "tour": tour,
        "selected_arcs": [[tour[k], tour[k + 1]] for k in range(len(tour) - 1)],
        "visit_order": {name: position for position, name in enumerate(tour[:-1])},
    }


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    try:
        total, order = routing.subtour_milp(units(instance))
    except RuntimeError as exc:
        raise Rejected("reference: solver did not certify optimality", str(exc)) from None
    return ReferenceSolution(
        solution=solution_of(instance, order, total),
        method="scipy.optimize.milp (HiGHS) on the degree-2 edge model with subtour elimination cuts",
    )


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    total, _ = routing.held_karp(units(instance))
    return "Held-Karp dynamic programming over city subsets", routing.from_units(total, cost_rule(instance))


def heuristic_costs(instance: Mapping[str, Any]) -> tuple[float, float]:
    """(nearest-neighbour tour, its 2-opt local optimum) as reported costs."""
    cost = units(instance)
    greedy = routing.nearest_neighbour(cost)
    improved = routing.two_opt(cost, greedy)
    rule = cost_rule(instance)
    return (
        routing.from_units(routing.tour_units(cost, greedy), rule),
        routing.from_units(routing.tour_units(cost, improved), rule),
    )


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    regime = REGIMES[difficulty]
    optimum = float(reference.solution["objective_value"])
    greedy, improved = heuristic_costs(instance)
    if regime.nearest_neighbour_must_fail and math.isclose(greedy, optimum, abs_tol=1e-6):
        return ["nontrivial: the nearest-neighbour tour is optimal"]
    if regime.two_opt_must_fail and math.isclose(improved, optimum, abs_tol=1e-6):
        return ["nontrivial: 2-opt from the nearest-neighbour tour is optimal"]
    return []
