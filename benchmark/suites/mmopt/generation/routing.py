"""Shared pieces of the routing family: the travel-cost rule, exact tour solvers and reading tours back.

**Cost rule.** Routing instances place cities at integer coordinates and price a leg by the Euclidean
distance between its ends. How that distance is rounded is part of the instance (the official
release's ``cost_matrix_type``): ``euclidean_rounded_<d>dp`` rounds every leg to ``d`` decimals
before summing, ``euclidean_exact`` sums exact distances. The task text states the rule in words,
and the generator, the generated ``solver_ref.py`` and the validator all apply :func:`leg_cost` and
:func:`finish_total`, so no two of them can disagree on a rounding. Rounded rules are solved in
integer units of ``10^-d`` (exact arithmetic); the exact rule reports the total rounded to four
decimals, which the official tolerance floor of 1e-3 absorbs.

**Exact solvers.** :func:`held_karp` is the Held–Karp dynamic program over subsets, vectorised
over all subsets of one size at a time (16 cities: 2^15 × 15 states, well under a second).
:func:`subtour_milp` is the symmetric degree-2 integer program solved by HiGHS with subtour
elimination cuts added until the integer optimum is one cycle; it is optimal because every cut is
valid and the final solution satisfies all of them. The two share nothing but the cost matrix, so
one cross-checks the other.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

EXACT = "euclidean_exact"
EXACT_DECIMALS = 4  # the exact rule reports its total to four decimals (official release)
COST_RULES: dict[str, int | None] = {
    "euclidean_rounded_0dp": 0,
    "euclidean_rounded_1dp": 1,
    "euclidean_rounded_2dp": 2,
    EXACT: None,
}
_DECIMAL_WORDS = {0: "the nearest whole number", 1: "one decimal place", 2: "two decimal places"}


def rule_decimals(rule: str) -> int | None:
    """Decimals each leg is rounded to, or ``None`` for exact legs; unknown rules are a data error."""
    if rule not in COST_RULES:
        raise ValueError(f"unknown cost rule {rule!r}; known: {', '.join(COST_RULES)}")
    return COST_RULES[rule]


def rule_sentence(rule: str) -> str:
    """The rule in words (no digits: the task text may not repeat numbers the figures carry)."""
    decimals = rule_decimals(rule)
    if decimals is None:
        return (
            "The travel cost between two cities is the exact Euclidean distance between their "
            "coordinates (do not round the distances); the total cost is compared after rounding it "
            "to four decimal places, and answers within one thousandth of the verified optimum are "
            "accepted."
        )
    return (
        "The travel cost between two cities is the Euclidean distance between their coordinates, "
        f"rounded to {_DECIMAL_WORDS[decimals]}; the total cost is the sum of these rounded costs."
    )


def leg_cost(a: Sequence[float], b: Sequence[float], rule: str) -> float:
    """The cost of travelling between points ``a`` and ``b`` under ``rule``."""
    decimals = rule_decimals(rule)
    exact = math.dist(a, b)
    return exact if decimals is None else round(exact, decimals)


def finish_total(total: float, rule: str) -> float:
    """A summed route cost as reported: float noise removed at the rule's precision (never -0.0)."""
    decimals = rule_decimals(rule)
    return round(total, EXACT_DECIMALS if decimals is None else decimals) + 0.0


def cost_matrix(coordinates: Mapping[str, Sequence[float]], nodes: Sequence[str], rule: str) -> np.ndarray:
    """Leg costs between ``nodes`` in the given order, in the solvers' units: integer multiples of
    ``10^-d`` (as int64) for a rounded rule, float distances for the exact rule."""
    decimals = rule_decimals(rule)
    points = [coordinates[name] for name in nodes]
    size = len(points)
    if decimals is None:
        return np.array([[math.dist(points[i], points[j]) for j in range(size)] for i in range(size)])
    scale = 10**decimals
    return np.array(
        [
            [round(round(math.dist(points[i], points[j]), decimals) * scale) for j in range(size)]
            for i in range(size)
        ],
        dtype=np.int64,
    )


def from_units(total: float, rule: str) -> float:
    """A total in :func:`cost_matrix` units back to the reported cost."""
    decimals = rule_decimals(rule)
    return finish_total(float(total) if decimals is None else float(total) / 10**decimals, rule)


def distance_table(
    coordinates: Mapping[str, Sequence[float]], nodes: Sequence[str], rule: str
) -> dict[str, Any]:
    """The official ``distance_matrix`` shape: ``{from: {to: cost}}`` under the rule."""
    return {a: {b: leg_cost(coordinates[a], coordinates[b], rule) for b in nodes} for a in nodes}


def tour_units(cost: np.ndarray, tour: Sequence[int]) -> float:
    """Cost of a closed tour given as node indices (the first node not repeated at the end)."""
    return float(sum(cost[tour[k], tour[(k + 1) % len(tour)]] for k in range(len(tour))))


# --------------------------------------------------------------------------------------------------
# exact solvers


@dataclass(frozen=True)
class SubsetPaths:
    """Held–Karp tables from node 0: ``best[mask, j]`` is the cheapest path that starts at node 0,
    visits exactly the nodes ``1..n-1`` whose bits (node ``i`` is bit ``i - 1``) are in ``mask`` and
    ends at node ``j + 1``; ``parent`` holds the previous end for path reconstruction."""

    weights: np.ndarray
    best: np.ndarray
    parent: np.ndarray

    def closed(self) -> tuple[np.ndarray, np.ndarray]:
        """Per mask: the cheapest cost of a cycle from node 0 through exactly that subset and back,
        and the last node before the return (``inf`` and ``-1`` for the empty mask)."""
        closing = self.best + self.weights[1:, 0]
        return closing.min(axis=1), closing.argmin(axis=1)

    def order(self, mask: int, last: int) -> list[int]:
        """The nodes of the subset ``mask`` in travel order of the best path ending at ``last + 1``."""
        path, end = [], last
        while end >= 0:
            path.append(end + 1)
            before = int(self.parent[mask, end])
            mask &= ~(1 << end)
            end = before
        return list(reversed(path))


def subset_paths(cost: np.ndarray) -> SubsetPaths:
    """The Held–Karp dynamic program over every subset of nodes ``1..n-1``, processed by subset
    size with every subset of one size at once (2^15 × 15 states for 16 nodes, under a second)."""
    m = cost.shape[0] - 1
    weights = cost.astype(float)
    best = np.full((1 << m, m), np.inf)
    parent = np.full((1 << m, m), -1, dtype=np.int64)
    for j in range(m):
        best[1 << j, j] = weights[0, j + 1]
    masks = np.arange(1 << m)
    popcount = np.array([bin(x).count("1") for x in range(1 << m)])
    legs = weights[1:, 1:]  # legs[k, j]: from node k+1 to node j+1
    for size in range(1, m):
        layer = masks[popcount == size]
        for j in range(m):
            free = layer[(layer >> j) & 1 == 0]
            if free.size == 0:
                continue
            candidates = best[free] + legs[:, j]  # (masks, previous end k)
            previous = np.argmin(candidates, axis=1)
            target = free | (1 << j)
            best[target, j] = candidates[np.arange(free.size), previous]
            parent[target, j] = previous
    return SubsetPaths(weights=weights, best=best, parent=parent)


def held_karp(cost: np.ndarray) -> tuple[float, list[int]]:
    """Optimal closed tour through all nodes (node 0 first) and its cost, by dynamic programming."""
    if cost.shape[0] < 3:
        raise ValueError("a tour needs at least three nodes")
    paths = subset_paths(cost)
    full = (1 << (cost.shape[0] - 1)) - 1
    totals, lasts = paths.closed()
    return float(totals[full]), [0, *paths.order(full, int(lasts[full]))]


def _edge_components(n: int, chosen: Sequence[tuple[int, int]]) -> list[list[int]]:
    neighbours: dict[int, list[int]] = {i: [] for i in range(n)}
    for i, j in chosen:
        neighbours[i].append(j)
        neighbours[j].append(i)
    seen: set[int] = set()
    parts = []
    for start in range(n):
        if start in seen:
            continue
        part, stack = [], [start]
        seen.add(start)
        while stack:
            node = stack.pop()
            part.append(node)
            for other in neighbours[node]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        parts.append(sorted(part))
    return parts


def subtour_milp(cost: np.ndarray, max_rounds: int = 200) -> tuple[float, list[int]]:
    """Optimal closed tour (node 0 first) of a symmetric cost matrix by HiGHS branch and bound on
    the degree-2 edge model, adding ``Σ_{e ⊆ S} x_e ≤ |S| − 1`` for every subtour found."""
    n = cost.shape[0]
    edges = list(itertools.combinations(range(n), 2))
    weights = np.array([float(cost[i, j]) for i, j in edges])
    degree = np.zeros((n, len(edges)))
    for e, (i, j) in enumerate(edges):
        degree[i, e] = degree[j, e] = 1.0
    rows: list[np.ndarray] = []
    bounds: list[float] = []
    for _ in range(max_rounds):
        constraints = [LinearConstraint(degree, lb=2.0, ub=2.0)]
        if rows:
            constraints.append(LinearConstraint(np.array(rows), lb=-np.inf, ub=np.array(bounds)))
        result = milp(weights, constraints=constraints, integrality=np.ones(len(edges)), bounds=Bounds(0, 1))
        if result.status != 0 or result.x is None:
            raise RuntimeError(f"HiGHS did not solve the tour model: {result.message}")
        chosen = [edges[e] for e in range(len(edges)) if result.x[e] > 0.5]
        parts = _edge_components(n, chosen)
        if len(parts) == 1:
            return float(result.fun), _order_cycle(n, chosen)
        for part in parts:
            inside = set(part)
            rows.append(np.array([1.0 if i in inside and j in inside else 0.0 for i, j in edges]))
            bounds.append(len(part) - 1.0)
    raise RuntimeError("subtour elimination did not converge")


def _order_cycle(n: int, chosen: Sequence[tuple[int, int]]) -> list[int]:
    """The nodes of a single cycle in travel order from node 0, towards its smaller neighbour."""
    neighbours: dict[int, list[int]] = {i: [] for i in range(n)}
    for i, j in chosen:
        neighbours[i].append(j)
        neighbours[j].append(i)
    order, previous, node = [0], 0, min(neighbours[0])
    while node != 0:
        order.append(node)
        node, previous = next(x for x in neighbours[node] if x != previous), node
    return order


def nearest_neighbour(cost: np.ndarray) -> list[int]:
    """The greedy tour from node 0 that always moves to the cheapest unvisited node."""
    n = cost.shape[0]
    tour, free = [0], set(range(1, n))
    while free:
        here = tour[-1]
        step = min(free, key=lambda j: (cost[here, j], j))
        tour.append(step)
        free.remove(step)
    return tour


def two_opt(cost: np.ndarray, tour: Sequence[int]) -> list[int]:
    """A 2-opt local optimum reached from ``tour`` (first improvement, deterministic order)."""
    best = list(tour)
    n = len(best)
    improved = True
    while improved:
        improved = False
        for i in range(1, n - 1):
            for k in range(i + 1, n):
                a, b = best[i - 1], best[i]
                c, d = best[k], best[(k + 1) % n]
                if cost[a, c] + cost[b, d] < cost[a, b] + cost[c, d] - 1e-9:
                    best[i : k + 1] = reversed(best[i : k + 1])
                    improved = True
    return best


# --------------------------------------------------------------------------------------------------
# reading tours back from generated code


def resolve_city(raw: Any, names: Sequence[str]) -> str | None:
    """The city a returned label means: its name in any case, spaces trimmed; ``None`` otherwise."""
    if isinstance(raw, bool) or not isinstance(raw, str):
        return None
    folded = {name.lower(): name for name in names}
    return folded.get(raw.strip().lower())


def read_sequence(raw: Any, names: Sequence[str]) -> tuple[list[str] | None, list[str]]:
    """A list of city labels as instance names, and the problems found (unknown labels)."""
    if not isinstance(raw, list | tuple):
        return None, [f"route is a {type(raw).__name__}, not a list of city names"]
    cities, problems = [], []
    for item in raw:
        name = resolve_city(item, names)
        if name is None:
            problems.append(f"unknown city {item!r}")
        else:
            cities.append(name)
    return cities, problems


def depot_route(
    raw: Any, names: Sequence[str], depot: str, number: int
) -> tuple[list[str] | None, list[str]]:
    """The customers of returned route ``number`` in travel order, the depot dropped at either end
    (an empty list: the vehicle stays home), and the problems found; ``None`` when the route is
    unreadable or returns to the depot in the middle."""
    sequence, unknown = read_sequence(raw, names)
    problems = [f"route {number}: {problem}" for problem in unknown]
    if sequence is None:
        return None, problems
    while sequence and sequence[0] == depot:
        sequence = sequence[1:]
    while sequence and sequence[-1] == depot:
        sequence = sequence[:-1]
    if depot in sequence:
        return None, [*problems, f"route {number} returns to the depot in the middle"]
    return sequence, problems


def sequence_from_arcs(raw: Any, names: Sequence[str], start: str) -> tuple[list[str] | None, list[str]]:
    """The closed sequence of a list of ``[from, to]`` arcs followed from ``start``; problems when
    an arc is unreadable or a city has more than one successor."""
    if not isinstance(raw, list | tuple):
        return None, ["selected_arcs is not a list of [from, to] pairs"]
    successor: dict[str, str] = {}
    problems = []
    for item in raw:
        if not isinstance(item, list | tuple) or len(item) != 2:
            problems.append(f"unreadable arc {str(item)[:40]!r}")
            continue
        tail, head = resolve_city(item[0], names), resolve_city(item[1], names)
        if tail is None or head is None:
            problems.append(f"arc {item!r} names an unknown city")
            continue
        if tail in successor:
            problems.append(f"city {tail} is left more than once")
            continue
        successor[tail] = head
    if problems:
        return None, problems
    sequence, node = [start], successor.get(start)
    while node is not None and node != start and len(sequence) <= len(successor):
        sequence.append(node)
        node = successor.get(node)
    if node != start or len(sequence) != len(successor):
        return None, ["selected_arcs do not form one closed tour through the start city"]
    return [*sequence, start], []


def vehicle_arc_routes(
    raw: Any, names: Sequence[str], depot: str
) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """``(vehicle, customers in travel order)`` per vehicle of ``[from, to, vehicle]`` arc records
    (the official routing solutions' ``active_arcs``; a record without a vehicle belongs to ``""``),
    each vehicle's arcs followed as one closed tour from the depot, in order of first appearance;
    and the problems found. The official scorer reads routes from these when an answer has no
    readable route list."""
    if not isinstance(raw, list | tuple):
        return [], ["active_arcs is not a list of [from, to, vehicle] records"]
    by_vehicle: dict[str, list[list[Any]]] = {}
    problems = []
    for item in raw:
        if not isinstance(item, list | tuple) or len(item) not in (2, 3):
            problems.append(f"unreadable arc record {str(item)[:40]!r}")
            continue
        by_vehicle.setdefault(str(item[2]) if len(item) == 3 else "", []).append(list(item[:2]))
    routes = []
    for number, (vehicle, arcs) in enumerate(by_vehicle.items(), start=1):
        closed, found = sequence_from_arcs(arcs, names, depot)
        if closed is None:
            label = f"route {number}" + (f" ({vehicle})" if vehicle else "")
            problems += [f"{label}: {problem}" for problem in found]
            continue
        routes.append((vehicle, closed[1:-1]))
    return routes, problems


# --------------------------------------------------------------------------------------------------
# capacitated routes from one depot (node 0)


def subset_loads(demands: Sequence[int]) -> np.ndarray:
    """Total demand of every subset of nodes ``1..n-1`` (bit ``i - 1`` for node ``i``)."""
    m = len(demands) - 1
    loads = np.zeros(1 << m, dtype=np.int64)
    masks = np.arange(1 << m)
    for j in range(m):
        loads[(masks >> j) & 1 == 1] += int(demands[j + 1])
    return loads


def _mask_nodes(mask: int, m: int) -> list[int]:
    return [j + 1 for j in range(m) if (mask >> j) & 1]


def set_partitioning_routes(
    cost: np.ndarray, demands: Sequence[int], capacity: int, max_routes: int
) -> tuple[float, list[list[int]]] | None:
    """Optimal capacitated routes (each a list of customer nodes in travel order, depot excluded)
    and their total cost, or ``None`` when no set of at most ``max_routes`` routes serves everyone.

    Every customer subset whose demand fits one vehicle is a candidate route priced by its optimal
    closed path from the depot (:func:`subset_paths`); HiGHS then picks candidates that cover each
    customer exactly once. Exact, because every feasible route's best order is a candidate.
    """
    m = cost.shape[0] - 1
    paths = subset_paths(cost)
    totals, lasts = paths.closed()
    loads = subset_loads(demands)
    columns = [mask for mask in range(1, 1 << m) if loads[mask] <= capacity]
    if not columns:
        return None
    cover = np.array([[(mask >> j) & 1 for mask in columns] for j in range(m)], dtype=float)
    constraints = [
        LinearConstraint(cover, lb=1.0, ub=1.0),
        LinearConstraint(np.ones((1, len(columns))), lb=1.0, ub=float(max_routes)),
    ]
    weights = np.array([totals[mask] for mask in columns])
    result = milp(weights, constraints=constraints, integrality=np.ones(len(columns)), bounds=Bounds(0, 1))
    if result.status == 2:  # infeasible
        return None
    if result.status != 0 or result.x is None:
        raise RuntimeError(f"HiGHS did not solve the set-partitioning model: {result.message}")
    chosen = [mask for mask, value in zip(columns, result.x, strict=True) if value > 0.5]
    routes = sorted(paths.order(mask, int(lasts[mask])) for mask in chosen)
    return float(sum(totals[mask] for mask in chosen)), routes


def partition_dp_routes(
    cost: np.ndarray, demands: Sequence[int], capacity: int, max_routes: int
) -> float | None:
    """The set-partitioning optimum by a second method: dynamic programming over partitions of the
    customers into at most ``max_routes`` capacity-feasible subsets (each priced by its best closed
    path), ``best_k[mask] = min over feasible sub ∋ lowest(mask) of route[sub] + best_{k-1}[mask − sub]``.
    No solver involved; ``None`` when the fleet cannot serve everyone."""
    m = cost.shape[0] - 1
    totals, _ = subset_paths(cost).closed()
    loads = subset_loads(demands)
    route = [float(totals[mask]) if loads[mask] <= capacity else math.inf for mask in range(1 << m)]
    full = (1 << m) - 1
    previous = [0.0] + [math.inf] * full  # at most zero routes
    for _ in range(max_routes):
        current = [0.0] + [math.inf] * full
        for mask in range(1, full + 1):
            low = mask & -mask
            rest = mask ^ low
            best = math.inf
            sub = rest
            while True:  # every subset of ``rest``, joined with the lowest customer
                part = sub | low
                value = route[part] + previous[mask ^ part]
                if value < best:
                    best = value
                if sub == 0:
                    break
                sub = (sub - 1) & rest
            current[mask] = best
        previous = current
    return None if math.isinf(previous[full]) else previous[full]


def nearest_feasible_routes(cost: np.ndarray, demands: Sequence[int], capacity: int) -> list[list[int]]:
    """The greedy that drives to the cheapest unserved customer that still fits in the vehicle and
    returns to the depot when none does (any number of routes)."""
    free = set(range(1, cost.shape[0]))
    routes: list[list[int]] = []
    while free:
        route, load, here = [], 0, 0
        while True:
            fits = [j for j in free if load + demands[j] <= capacity]
            if not fits:
                break
            step = min(fits, key=lambda j: (cost[here, j], j))
            route.append(step)
            load += demands[step]
            free.remove(step)
            here = step
        routes.append(route)
    return routes


def routes_units(cost: np.ndarray, routes: Sequence[Sequence[int]]) -> float:
    """Total cost of depot-to-depot routes given as customer node lists."""
    return float(sum(tour_units(cost, [0, *route]) for route in routes if route))


@dataclass(frozen=True)
class FeasibleRoutes:
    """Held–Karp restricted to the customer subsets whose demand fits one vehicle: ``masks`` (sorted)
    are those subsets (customer node ``i`` is bit ``i - 1``), ``best[r, j]`` the cheapest path from
    the depot through exactly ``masks[r]`` ending at node ``j + 1`` and ``parent`` its previous end.
    Demands are positive, so every subset of a feasible subset is feasible and the recursion never
    leaves the table; the table has one row per feasible subset instead of ``2^m``."""

    weights: np.ndarray
    masks: np.ndarray
    best: np.ndarray
    parent: np.ndarray

    def row(self, mask: int) -> int:
        return int(np.searchsorted(self.masks, mask))

    def closed(self) -> tuple[np.ndarray, np.ndarray]:
        """Per feasible subset: its cheapest closed route from the depot and the last customer
        index before the return."""
        closing = self.best + self.weights[1:, 0]
        return closing.min(axis=1), closing.argmin(axis=1)

    def order(self, mask: int, last: int) -> list[int]:
        """The customer nodes of ``mask`` in travel order of its best path ending at ``last + 1``."""
        path, end = [], last
        while end >= 0:
            path.append(end + 1)
            before = int(self.parent[self.row(mask), end])
            mask &= ~(1 << end)
            end = before
        return list(reversed(path))


def capacity_feasible_masks(demands: Sequence[int], capacity: int) -> np.ndarray:
    """Every non-empty subset of customers ``1..n-1`` whose total demand is at most ``capacity``,
    as sorted bit masks (depth-first over customers in index order)."""
    m = len(demands) - 1
    found: list[int] = []
    stack = [(0, 0, 0)]  # (mask, load, next customer index)
    while stack:
        mask, load, start = stack.pop()
        for j in range(start, m):
            total = load + int(demands[j + 1])
            if total <= capacity:
                found.append(mask | 1 << j)
                stack.append((mask | 1 << j, total, j + 1))
    return np.array(sorted(found), dtype=np.int64)


def feasible_subset_paths(cost: np.ndarray, demands: Sequence[int], capacity: int) -> FeasibleRoutes:
    """:func:`subset_paths` over the capacity-feasible subsets only, vectorised by subset size."""
    m = cost.shape[0] - 1
    weights = cost.astype(float)
    masks = capacity_feasible_masks(demands, capacity)
    best = np.full((masks.size, m), np.inf)
    parent = np.full((masks.size, m), -1, dtype=np.int64)
    if masks.size == 0:
        return FeasibleRoutes(weights, masks, best, parent)
    sizes = np.zeros(masks.size, dtype=np.int64)
    for j in range(m):
        sizes += (masks >> j) & 1
    singles = np.searchsorted(masks, [1 << j for j in range(m)])
    for j in range(m):
        if singles[j] < masks.size and masks[singles[j]] == 1 << j:
            best[singles[j], j] = weights[0, j + 1]
    legs = weights[1:, 1:]
    for size in range(2, int(sizes.max()) + 1):
        layer = masks[sizes == size]
        for j in range(m):
            chosen = layer[(layer >> j) & 1 == 1]
            if chosen.size == 0:
                continue
            before = np.searchsorted(masks, chosen ^ (1 << j))
            candidates = best[before] + legs[:, j]
            previous = np.argmin(candidates, axis=1)
            rows = np.searchsorted(masks, chosen)
            best[rows, j] = candidates[np.arange(chosen.size), previous]
            parent[rows, j] = previous
    return FeasibleRoutes(weights, masks, best, parent)
