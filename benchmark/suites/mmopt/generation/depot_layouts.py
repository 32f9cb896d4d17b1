"""Depot-and-customers layouts, the common ground of the single-depot routing generators.

The capacitated VRP, the heterogeneous-fleet VRP and the TSP with time windows all place one depot
near the middle of an integer grid and customers named ``C1, C2, …`` around it, either uniformly or
near a few cluster centres, at least :data:`MIN_SEPARATION` apart so markers and labels have room
on the map. Only the cluster shape differs between them (:class:`Clustering`), so one sampler
serves all three; the draws happen in one fixed order, which is part of every seed's instance.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchmark.suites.mmopt.generation.spatial import Point, distance, min_separation, sample_points

DEPOT = "Depot"
MIN_SEPARATION = 2.0


@dataclass(frozen=True)
class Clustering:
    """Clustered customers: ``centres`` is the range of the number of cluster centres, which lie at
    least ``grid / spacing`` apart; every customer lies within ``grid / reach`` of some centre."""

    centres: tuple[int, int]
    spacing: float
    reach: float


@dataclass(frozen=True)
class Layout:
    kind: str
    depot: Point
    customers: tuple[Point, ...]


def customer_names(count: int) -> list[str]:
    return [f"C{i}" for i in range(1, count + 1)]


def sample_layout(
    rng: random.Random, kind: str, count: int, grid: int, clustering: Clustering | None
) -> Layout:
    """A depot within two cells of the grid's middle and ``count`` customers inside the grid's
    border, uniform when ``clustering`` is ``None`` and clustered as it says otherwise."""
    middle = grid // 2
    depot = (rng.randint(middle - 2, middle + 2), rng.randint(middle - 2, middle + 2))
    if clustering is None:
        points = sample_points(rng, count, 1, grid - 1, MIN_SEPARATION, avoid=[depot])
        return Layout(kind, depot, tuple(points))
    centres = sample_points(
        rng, rng.randint(*clustering.centres), 3, grid - 3, grid / clustering.spacing, avoid=[depot]
    )
    radius = grid / clustering.reach
    points = sample_points(
        rng,
        count,
        1,
        grid - 1,
        MIN_SEPARATION,
        avoid=[depot],
        accept=lambda p: any(distance(p, c) <= radius for c in centres),
    )
    return Layout(kind, depot, tuple(points))


def coordinates_of(layout: Layout, customers: list[str]) -> dict[str, list[int]]:
    """The instance's ``coordinates``: the depot first, then each named customer."""
    return {DEPOT: list(layout.depot)} | {
        name: [x, y] for name, (x, y) in zip(customers, layout.customers, strict=True)
    }


def nodes(instance: Mapping[str, Any]) -> list[str]:
    """Depot first (the solvers' node 0), then the customers."""
    return [instance["depot"], *instance["sets"]["customers"]]


def demand_vector(instance: Mapping[str, Any]) -> list[int]:
    """Demands in :func:`nodes` order (the depot's is zero)."""
    return [int(instance["demands"].get(name, 0)) for name in nodes(instance)]


def layout_problems(instance: Mapping[str, Any], customers: tuple[int, int]) -> list[str]:
    """The structural checks every layout passes: a customer count within the regime's range and
    no two nodes closer than :data:`MIN_SEPARATION`."""
    problems = []
    if not customers[0] <= len(instance["sets"]["customers"]) <= customers[1]:
        problems.append("structure: customer count outside the regime")
    points = [tuple(instance["coordinates"][n]) for n in nodes(instance)]
    if min_separation(points) < MIN_SEPARATION:
        problems.append("structure: two nodes too close to label")
    return problems
