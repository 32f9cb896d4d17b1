"""p-median and p-center instances on a spatial map (location_covering_assignment family).

Candidate sites and demand points sit on an integer grid; exactly ``p`` sites are selected and every
demand point is assigned to a selected site. The variant is part of the instance (``variant`` in
``instance_data.json`` and named in the task text):

* ``p-median`` (easy, medium): minimize the total weighted distance, weight × distance summed over
  the demand points;
* ``p-center`` (hard): minimize the largest distance from a demand point to its assigned site
  (weights play no role and are not drawn).

Distances are exact Euclidean distances; the objective is rounded to four decimals at the end (see
:mod:`~benchmark.suites.mmopt.generation.spatial`). The reference is a MILP; the cross-check
enumerates every p-subset of sites, which also judges nontriviality: no other selection comes within
the scoring tolerance without being equally good, the weights matter for p-median (the best
unweighted selection is worse under the weights), and the minimax matters for p-center (the best
total-distance selection has a larger maximum distance).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.generation.spatial import distance, min_separation, round_objective, sample_points

P_MEDIAN, P_CENTER = "p-median", "p-center"
TIE_WINDOW = 2e-3  # a worse selection this close to the optimum would be accepted by the scorer
MATTERS_BY = 1e-3


@dataclass(frozen=True)
class Regime:
    variant: str
    sites: tuple[int, int]
    points: tuple[int, int]
    p: int
    grid: int
    separation: float
    weight: tuple[int, int]


REGIMES: dict[str, Regime] = {
    "easy": Regime(P_MEDIAN, sites=(5, 5), points=(8, 9), p=2, grid=12, separation=2.0, weight=(1, 9)),
    "medium": Regime(P_MEDIAN, sites=(8, 8), points=(13, 15), p=3, grid=16, separation=2.0, weight=(1, 9)),
    "hard": Regime(P_CENTER, sites=(10, 10), points=(18, 20), p=4, grid=20, separation=2.0, weight=(1, 1)),
}


@dataclass(frozen=True)
class Layout:
    sites: tuple[tuple[int, int], ...]
    points: tuple[tuple[int, int], ...]


def sample_structure(rng: random.Random, difficulty: str) -> Layout:
    regime = REGIMES[difficulty]
    sites = sample_points(rng, rng.randint(*regime.sites), 1, regime.grid - 1, regime.separation + 1.0)
    points = sample_points(
        rng, rng.randint(*regime.points), 1, regime.grid - 1, regime.separation, avoid=sites
    )
    return Layout(sites=tuple(sites), points=tuple(points))


def instantiate(rng: random.Random, layout: Layout, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    points = []
    for index, (x, y) in enumerate(layout.points):
        record: dict[str, Any] = {"name": f"D{index + 1}", "x": x, "y": y}
        if regime.variant == P_MEDIAN:
            record["weight"] = rng.randint(*regime.weight)
        points.append(record)
    return {
        "problem": "p_median_center",
        "variant": regime.variant,
        "objective": (
            "sum of weight * distance to the assigned site"
            if regime.variant == P_MEDIAN
            else "maximum distance from a demand point to its assigned site"
        ),
        "p": regime.p,
        "grid_size": regime.grid,
        "sites": [{"name": f"S{i + 1}", "x": x, "y": y} for i, (x, y) in enumerate(layout.sites)],
        "demand_points": points,
        "distance": "euclidean",
        "objective_decimals": 4,
    }


# --------------------------------------------------------------------------------------------------
# Shared instance arithmetic (the validator uses the same functions)


def dist(site: Mapping[str, Any], point: Mapping[str, Any]) -> float:
    return distance((site["x"], site["y"]), (point["x"], point["y"]))


def weight(instance: Mapping[str, Any], point: Mapping[str, Any]) -> int:
    return int(point["weight"]) if instance["variant"] == P_MEDIAN else 1


def objective_of(instance: Mapping[str, Any], assignment: Mapping[str, str]) -> float:
    """The variant's objective of an assignment (point name → site name), rounded."""
    site = {s["name"]: s for s in instance["sites"]}
    terms = [weight(instance, d) * dist(site[assignment[d["name"]]], d) for d in instance["demand_points"]]
    return round_objective(sum(terms) if instance["variant"] == P_MEDIAN else max(terms))


def nearest_assignment(instance: Mapping[str, Any], selected: Sequence[str]) -> dict[str, str]:
    """Each demand point to its nearest selected site (ties to the earlier site in the list); this is
    optimal for both variants once the selection is fixed."""
    site = {s["name"]: s for s in instance["sites"]}
    return {d["name"]: min(selected, key=lambda name: dist(site[name], d)) for d in instance["demand_points"]}


def _all_selections(
    instance: Mapping[str, Any], weighted: bool = True
) -> list[tuple[float, tuple[str, ...]]]:
    """(objective, selection) for every p-subset of sites, best first (exhaustive enumeration)."""
    names = [s["name"] for s in instance["sites"]]
    scored = []
    view = instance if weighted else {**instance, "variant": P_MEDIAN, "demand_points": [
        {**d, "weight": 1} for d in instance["demand_points"]
    ]}  # fmt: skip
    for chosen in itertools.combinations(names, instance["p"]):
        scored.append((objective_of(view, nearest_assignment(view, chosen)), chosen))
    scored.sort()
    return scored


# --------------------------------------------------------------------------------------------------
# Stage checks and solves


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    sites, points = instance["sites"], instance["demand_points"]
    if not regime.sites[0] <= len(sites) <= regime.sites[1]:
        return ["structure: site count outside the regime"]
    if not regime.points[0] <= len(points) <= regime.points[1]:
        return ["structure: demand point count outside the regime"]
    if not 1 < instance["p"] < len(sites):
        return ["structure: p must leave a real choice"]
    coordinates = [(q["x"], q["y"]) for q in (*sites, *points)]
    if min_separation(coordinates) < regime.separation or not all(
        0 <= v <= regime.grid for q in coordinates for v in q
    ):
        return ["structure: points overlap or leave the grid"]
    return []


def _milp(instance: Mapping[str, Any]) -> tuple[list[str], dict[str, str]]:
    """HiGHS (through SciPy): y_s select, x_ds assign; p-center adds the bound variable z."""
    sites, points = instance["sites"], instance["demand_points"]
    n_s, n_d = len(sites), len(points)
    center = instance["variant"] == P_CENTER
    n = n_s + n_s * n_d + (1 if center else 0)

    def x(d: int, s: int) -> int:
        return n_s + d * n_s + s

    cost = np.zeros(n)
    if center:
        cost[-1] = 1.0
    else:
        for d, point in enumerate(points):
            for s, site in enumerate(sites):
                cost[x(d, s)] = weight(instance, point) * dist(site, point)
    rows, lower, upper = [], [], []

    def add(row: np.ndarray, low: float, high: float) -> None:
        rows.append(row)
        lower.append(low)
        upper.append(high)

    row = np.zeros(n)
    row[:n_s] = 1.0
    add(row, instance["p"], instance["p"])
    for d, point in enumerate(points):
        row = np.zeros(n)
        row[[x(d, s) for s in range(n_s)]] = 1.0
        add(row, 1.0, 1.0)
        for s in range(n_s):
            row = np.zeros(n)
            row[x(d, s)], row[s] = 1.0, -1.0
            add(row, -np.inf, 0.0)
        if center:
            row = np.zeros(n)
            for s, site in enumerate(sites):
                row[x(d, s)] = dist(site, point)
            row[-1] = -1.0
            add(row, -np.inf, 0.0)
    integrality = np.ones(n)
    bounds_upper = np.ones(n)
    if center:
        integrality[-1] = 0
        bounds_upper[-1] = np.inf
    result = milp(
        cost,
        constraints=LinearConstraint(np.array(rows), lower, upper),
        integrality=integrality,
        bounds=(np.zeros(n), bounds_upper),
        options={"mip_rel_gap": 0.0},
    )
    if result.status != 0 or result.x is None:
        raise Rejected("reference: solver did not certify optimality", str(result.message))
    selected = [sites[s]["name"] for s in range(n_s) if result.x[s] > 0.5]
    return selected, nearest_assignment(instance, selected)


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    selected, assignment = _milp(instance)
    solution = {
        "status": "optimal",
        "objective_value": objective_of(instance, assignment),
        "selected": selected,
        "assignment": assignment,
    }
    return ReferenceSolution(
        solution=solution,
        method="scipy.optimize.milp (HiGHS branch-and-cut, zero gap), nearest selected site per point",
    )


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    best, _ = _all_selections(instance)[0]
    return "exhaustive enumeration of all p-subsets of sites, nearest selected site per point", best


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    optimum = reference.objective
    assignment = reference.solution["assignment"]
    if set(assignment.values()) != set(reference.solution["selected"]):
        return ["nontrivial: a selected site serves no demand point"]
    ranked = _all_selections(instance)
    if any(optimum < value < optimum + TIE_WINDOW for value, _ in ranked):
        return ["nontrivial: a different selection is within the scoring tolerance"]
    if instance["variant"] == P_MEDIAN:
        _, unweighted_best = _all_selections(instance, weighted=False)[0]
        if objective_of(instance, nearest_assignment(instance, unweighted_best)) < optimum + MATTERS_BY:
            return ["nontrivial: the weights do not change the optimal selection"]
    else:
        _, median_best = _all_selections({**instance, "variant": P_MEDIAN}, weighted=False)[0]
        if objective_of(instance, nearest_assignment(instance, median_best)) < optimum + MATTERS_BY:
            return ["nontrivial: minimizing total distance already minimizes the maximum"]
    return []
