"""p-median and p-center instances on a spatial map (location_covering_assignment family).

Candidate sites and demand points sit on an integer grid; exactly ``p`` sites are selected and every
demand point is assigned to a selected site. The variant is part of the instance (``variant_type``
in ``instance_data.json`` and named in the task text):

* ``p_median`` (easy, medium): minimize the total weighted distance, weight × distance summed over
  the demand points;
* ``p_center`` (hard): minimize the largest distance from a demand point to its assigned site
  (weights play no role and are not drawn). The official release has only p-median instances; ours
  name the variant ``p_center`` in the same field.

``instance_data.json`` is in the official schema: ``sets.I`` (demand points) / ``sets.J``
(candidate sites), ``candidate_sites`` and ``demand_points`` as ``{name: {"xy": [x, y]}}``,
``distance_matrix: {point: {site: distance}}``, ``demand_weights`` (p-median only) and ``p_value``.
Distances are exact Euclidean distances (``distance_metric: "euclidean_exact"``, where the official
instances round them to two decimals); the objective is rounded to four decimals at the end (see
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

P_MEDIAN, P_CENTER = "p_median", "p_center"
#: How the task text and the documents name each variant.
TITLES = {P_MEDIAN: "p-median", P_CENTER: "p-center"}
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
    "medium": Regime(P_MEDIAN, sites=(8, 10), points=(13, 15), p=3, grid=16, separation=2.0, weight=(1, 9)),
    "hard": Regime(P_CENTER, sites=(13, 14), points=(21, 24), p=4, grid=22, separation=2.0, weight=(1, 1)),
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
    sites = {f"S{i + 1}": {"xy": [x, y]} for i, (x, y) in enumerate(layout.sites)}
    points = {f"D{i + 1}": {"xy": [x, y]} for i, (x, y) in enumerate(layout.points)}
    instance: dict[str, Any] = {
        "problem_type": "p_median_center",
        "variant_type": regime.variant,
        "difficulty": difficulty,
        "objective_sense": "minimize",
        "distance_metric": "euclidean_exact",
        "p_value": regime.p,
        "sets": {"I": list(points), "J": list(sites)},
        "indices": {"demand_points": "I", "candidate_sites": "J"},
        "candidate_sites": sites,
        "demand_points": points,
        "distance_matrix": {
            d: {s: distance(site["xy"], point["xy"]) for s, site in sites.items()}
            for d, point in points.items()
        },
    }
    if regime.variant == P_MEDIAN:
        instance["demand_weights"] = {d: rng.randint(*regime.weight) for d in points}
    return instance


# --------------------------------------------------------------------------------------------------
# Reading the official instance, and the arithmetic the templates, renderer and checks share


def site_names(instance: Mapping[str, Any]) -> list[str]:
    return list(instance["sets"]["J"])


def point_names(instance: Mapping[str, Any]) -> list[str]:
    return list(instance["sets"]["I"])


def sites(instance: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    """(name, x, y) of every candidate site, in order."""
    return [(name, *instance["candidate_sites"][name]["xy"]) for name in site_names(instance)]


def points(instance: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    """(name, x, y) of every demand point, in order."""
    return [(name, *instance["demand_points"][name]["xy"]) for name in point_names(instance)]


def is_median(instance: Mapping[str, Any]) -> bool:
    return bool(instance["variant_type"] == P_MEDIAN)


def grid_size(instance: Mapping[str, Any]) -> int:
    """The side of the drawn grid, fixed by the difficulty."""
    return REGIMES[instance["difficulty"]].grid


def dist(instance: Mapping[str, Any], point: str, site: str) -> float:
    return float(instance["distance_matrix"][point][site])


def weight(instance: Mapping[str, Any], point: str) -> int:
    return int(instance["demand_weights"][point]) if is_median(instance) else 1


def objective_of(instance: Mapping[str, Any], assignment: Mapping[str, str]) -> float:
    """The variant's objective of an assignment (point name → site name), rounded."""
    terms = [weight(instance, d) * dist(instance, d, assignment[d]) for d in point_names(instance)]
    return round_objective(sum(terms) if is_median(instance) else max(terms))


def nearest_assignment(instance: Mapping[str, Any], selected: Sequence[str]) -> dict[str, str]:
    """Each demand point to its nearest selected site (ties to the earlier site in the list); this is
    optimal for both variants once the selection is fixed."""
    return {d: min(selected, key=lambda s: dist(instance, d, s)) for d in point_names(instance)}


def _all_selections(
    instance: Mapping[str, Any], weighted: bool = True
) -> list[tuple[float, tuple[str, ...]]]:
    """(objective, selection) for every p-subset of sites, best first (exhaustive enumeration)."""
    scored = []
    view = instance if weighted else {
        **instance, "variant_type": P_MEDIAN, "demand_weights": dict.fromkeys(point_names(instance), 1)
    }  # fmt: skip
    for chosen in itertools.combinations(site_names(instance), instance["p_value"]):
        scored.append((objective_of(view, nearest_assignment(view, chosen)), chosen))
    scored.sort()
    return scored


# --------------------------------------------------------------------------------------------------
# Stage checks and solves


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    site_list, point_list = sites(instance), points(instance)
    if not regime.sites[0] <= len(site_list) <= regime.sites[1]:
        return ["structure: site count outside the regime"]
    if not regime.points[0] <= len(point_list) <= regime.points[1]:
        return ["structure: demand point count outside the regime"]
    if not 1 < instance["p_value"] < len(site_list):
        return ["structure: p must leave a real choice"]
    coordinates = [(x, y) for _, x, y in (*site_list, *point_list)]
    if min_separation(coordinates) < regime.separation or not all(
        0 <= v <= regime.grid for q in coordinates for v in q
    ):
        return ["structure: points overlap or leave the grid"]
    return []


def _milp(instance: Mapping[str, Any]) -> tuple[list[str], dict[str, str]]:
    """HiGHS (through SciPy): y_s select, x_ds assign; p-center adds the bound variable z."""
    sites_, points_ = site_names(instance), point_names(instance)
    n_s, n_d = len(sites_), len(points_)
    center = not is_median(instance)
    n = n_s + n_s * n_d + (1 if center else 0)

    def x(d: int, s: int) -> int:
        return n_s + d * n_s + s

    cost = np.zeros(n)
    if center:
        cost[-1] = 1.0
    else:
        for d, point in enumerate(points_):
            for s, site in enumerate(sites_):
                cost[x(d, s)] = weight(instance, point) * dist(instance, point, site)
    rows, lower, upper = [], [], []

    def add(row: np.ndarray, low: float, high: float) -> None:
        rows.append(row)
        lower.append(low)
        upper.append(high)

    row = np.zeros(n)
    row[:n_s] = 1.0
    add(row, instance["p_value"], instance["p_value"])
    for d, point in enumerate(points_):
        row = np.zeros(n)
        row[[x(d, s) for s in range(n_s)]] = 1.0
        add(row, 1.0, 1.0)
        for s in range(n_s):
            row = np.zeros(n)
            row[x(d, s)], row[s] = 1.0, -1.0
            add(row, -np.inf, 0.0)
        if center:
            row = np.zeros(n)
            for s, site in enumerate(sites_):
                row[x(d, s)] = dist(instance, point, site)
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
    selected = [sites_[s] for s in range(n_s) if result.x[s] > 0.5]
    return selected, nearest_assignment(instance, selected)


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    selected, assignment = _milp(instance)
    objective = objective_of(instance, assignment)
    solution = {
        "status": "optimal",
        "objective_exact": objective,
        "objective_value": objective,
        "open_sites": selected,
        "assignments": assignment,
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
    assignment = reference.solution["assignments"]
    if set(assignment.values()) != set(reference.solution["open_sites"]):
        return ["nontrivial: a selected site serves no demand point"]
    ranked = _all_selections(instance)
    if any(optimum < value < optimum + TIE_WINDOW for value, _ in ranked):
        return ["nontrivial: a different selection is within the scoring tolerance"]
    if is_median(instance):
        _, unweighted_best = _all_selections(instance, weighted=False)[0]
        if objective_of(instance, nearest_assignment(instance, unweighted_best)) < optimum + MATTERS_BY:
            return ["nontrivial: the weights do not change the optimal selection"]
    else:
        _, median_best = _all_selections(instance, weighted=False)[0]
        if objective_of(instance, nearest_assignment(instance, median_best)) < optimum + MATTERS_BY:
            return ["nontrivial: minimizing total distance already minimizes the maximum"]
    return []
