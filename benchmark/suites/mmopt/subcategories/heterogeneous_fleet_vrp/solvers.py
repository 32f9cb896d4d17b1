"""Exact solvers for the heterogeneous-fleet VRP, in integer cost units.

A route of vehicle type ``t`` through the customer set ``S`` costs ``fixed_t + m_t · d(S)``, where
``d(S)`` is the cheapest closed path from the depot through ``S`` in base-distance units. Because
the multiplier scales every leg alike, the best order of ``S`` is the same for every type, so one
Held–Karp table (:func:`~benchmark.suites.mmopt.generation.routing.subset_paths`) prices every
(type, subset) route exactly. Inputs are integers (base legs in ``10^-d``, multipliers in
hundredths, fixed costs in the same final units), so the two methods compare exactly.

:func:`column_milp`: HiGHS chooses (type, subset) columns that cover every customer once, with
exactly ``n_t ≤ available_t`` columns of type ``t``, for every fleet mix ``(n_t)``.
:func:`partition_dp`: solver-free; per type, a dynamic program over partitions into at most
``available_t`` feasible routes, then the types are combined by min-plus convolution over
customer subsets. :func:`state_dp`: solver-free as well, for the larger tiers: one dynamic program over
(served subset, vehicles used per type) that peels off the route of the subset's lowest customer,
vectorised over the capacity-feasible routes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation import routing


@dataclass(frozen=True)
class VehicleType:
    """One vehicle type: how many are available, their capacity, and route cost
    ``fixed + multiplier · distance`` (both integers in the solvers' units)."""

    name: str
    available: int
    capacity: int
    fixed: int
    multiplier: int


@dataclass(frozen=True)
class FleetRoute:
    type_index: int
    customers: tuple[int, ...]  # customer nodes in travel order (depot excluded)
    distance: int  # closed-path length in base units
    cost: int


def fleet_mixes(types: Sequence[VehicleType], demand: int) -> list[tuple[int, ...]]:
    """Every number of vehicles per type, within availability, whose capacity covers the demand."""
    ranges = [range(kind.available + 1) for kind in types]
    return [
        counts
        for counts in itertools.product(*ranges)
        if sum(c * kind.capacity for c, kind in zip(counts, types, strict=True)) >= demand
    ]


def column_milp(
    cost: np.ndarray, demands: Sequence[int], types: Sequence[VehicleType]
) -> tuple[int, list[FleetRoute]] | None:
    """The cheapest fleet plan (total, routes) or ``None`` when the fleet cannot serve everyone.

    One HiGHS solve per fleet mix (the number of vehicles of each type fixed, see
    :func:`fleet_mixes`), the cheapest over all mixes: with the counts fixed the fixed costs are
    constants, so each linear relaxation is much tighter than the one of the free-count model,
    whose fractional vehicles make branch and bound slow (seconds instead of tenths)."""
    m = cost.shape[0] - 1
    paths = routing.subset_paths(cost)
    totals, lasts = paths.closed()
    loads = routing.subset_loads(demands)
    columns = [
        (t, mask) for t, kind in enumerate(types) for mask in range(1, 1 << m) if loads[mask] <= kind.capacity
    ]
    if not columns:
        return None
    prices = np.array([types[t].fixed + types[t].multiplier * float(totals[mask]) for t, mask in columns])
    cover = np.array([[(mask >> j) & 1 for _, mask in columns] for j in range(m)], dtype=float)
    fleet = np.array([[1.0 if t == k else 0.0 for t, _ in columns] for k in range(len(types))])
    best: tuple[float, np.ndarray] | None = None
    for counts in fleet_mixes(types, int(sum(demands))):
        mix = np.array(counts, dtype=float)
        result = milp(
            prices,
            constraints=[LinearConstraint(cover, lb=1.0, ub=1.0), LinearConstraint(fleet, lb=mix, ub=mix)],
            integrality=np.ones(len(columns)),
            bounds=Bounds(0, 1),
        )
        if result.status == 2:
            continue
        if result.status != 0 or result.x is None:
            raise RuntimeError(f"HiGHS did not solve the fleet model: {result.message}")
        if best is None or result.fun < best[0] - 0.5:  # integer costs: a real improvement
            best = (float(result.fun), result.x)
    if best is None:
        return None
    routes = []
    for (t, mask), value in zip(columns, best[1], strict=True):
        if value > 0.5:
            distance = int(totals[mask])
            order = tuple(paths.order(mask, int(lasts[mask])))
            routes.append(FleetRoute(t, order, distance, types[t].fixed + types[t].multiplier * distance))
    routes.sort(key=lambda r: (r.type_index, r.customers))
    return sum(r.cost for r in routes), routes


def partition_dp(cost: np.ndarray, demands: Sequence[int], types: Sequence[VehicleType]) -> int | None:
    """The cheapest fleet plan's total by dynamic programming, no solver; ``None`` if infeasible."""
    m = int(cost.shape[0]) - 1
    totals, _ = routing.subset_paths(cost).closed()
    loads = routing.subset_loads(demands)
    full = (1 << m) - 1
    combined: list[float] | None = None
    for kind in types:
        route = [
            kind.fixed + kind.multiplier * float(totals[mask]) if loads[mask] <= kind.capacity else math.inf
            for mask in range(1 << m)
        ]
        route[0] = math.inf
        best = [0.0] + [math.inf] * full  # at most k routes of this type, k = 0 so far
        for _ in range(kind.available):
            step = list(best)
            for mask in range(1, full + 1):
                low = mask & -mask
                rest = mask ^ low
                sub = rest
                while True:
                    part = sub | low
                    value = route[part] + best[mask ^ part]
                    if value < step[mask]:
                        step[mask] = value
                    if sub == 0:
                        break
                    sub = (sub - 1) & rest
            best = step
        if combined is None:
            combined = best
            continue
        merged = [math.inf] * (full + 1)
        for mask in range(full + 1):
            sub = mask
            while True:
                value = combined[sub] + best[mask ^ sub]
                if value < merged[mask]:
                    merged[mask] = value
                if sub == 0:
                    break
                sub = (sub - 1) & mask
        combined = merged
    if combined is None or math.isinf(combined[full]):
        return None
    return round(combined[full])


def state_dp(cost: np.ndarray, demands: Sequence[int], types: Sequence[VehicleType]) -> int | None:
    """The cheapest fleet plan's total by dynamic programming, no solver; ``None`` if infeasible.

    The state is a served customer subset together with the number of vehicles used per type
    (within the availability); a subset's plan peels off the route that serves its lowest
    customer, over the capacity-feasible (type, subset) routes only, vectorised per subset."""
    m = int(cost.shape[0]) - 1
    totals, _ = routing.subset_paths(cost).closed()
    loads = routing.subset_loads(demands)
    full = (1 << m) - 1
    states = list(itertools.product(*(range(kind.available + 1) for kind in types)))
    index = {state: s for s, state in enumerate(states)}
    blank = len(states)  # an always-infinite column for "no vehicle of this type left"
    previous = [
        np.array(
            [index.get(tuple(c - (k == t) for k, c in enumerate(state)), blank) for state in states],
            dtype=np.int64,
        )
        for t in range(len(types))
    ]
    masks = np.arange(1 << m, dtype=np.int64)
    routes: list[list[tuple[np.ndarray, np.ndarray]]] = []  # [lowest customer][type]: masks, prices
    for j in range(m):
        lowest = masks[((masks >> j) & 1 == 1) & ((masks & ((1 << j) - 1)) == 0)]
        routes.append(
            [
                (
                    lowest[loads[lowest] <= kind.capacity],
                    kind.fixed + kind.multiplier * totals[lowest[loads[lowest] <= kind.capacity]],
                )
                for kind in types
            ]
        )
    best = np.full((1 << m, blank + 1), np.inf)
    best[0, index[tuple(0 for _ in types)]] = 0.0
    for mask in range(1, full + 1):
        low = (mask & -mask).bit_length() - 1
        row = best[mask]
        for t, (candidates, prices) in enumerate(routes[low]):
            inside = (candidates & ~mask) == 0
            if not inside.any():
                continue
            rest = best[mask ^ candidates[inside]][:, previous[t]] + prices[inside][:, None]
            np.minimum(row[:blank], rest.min(axis=0), out=row[:blank])
    value = float(best[full, :blank].min())
    if math.isinf(value):
        return None
    return round(value)
