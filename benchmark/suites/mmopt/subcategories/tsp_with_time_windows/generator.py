"""TSP with time windows: one vehicle leaves the depot at time zero, serves every customer once,
starting service inside the customer's window (waiting when early), and returns by the depot's close.

Layouts are integer points on a grid; the travel time of a leg is its Euclidean length rounded to
the instance's stated precision, and it is also the leg's cost (the objective is the total travel
time; waiting and service are not counted). Windows and service times are whole numbers.

Windows are planted around a random visiting order, so a feasible tour always exists, and then
must bind: an instance is rejected when the cheapest tour without windows (Held–Karp) already
costs as little as the windowed optimum, i.e. when some windowless optimal tour is feasible, and
when any customer's window is vacuous (opens no later than the customer can first be reached and
closes no earlier than the last moment from which the vehicle can still get home). Regimes grow
from six or seven customers with wide windows through fifteen to seventeen (windows a quarter to
almost half of the tour's duration) to 27–31 clustered customers whose windows are a tenth to a
sixth of it, the sizes and tightness of the official release's medium and hard packages (medians
16 and 29 customers); at medium and hard, the greedy that always drives to the nearest customer
whose window can still be met must fail or be suboptimal.

Up to fourteen nodes the reference is HiGHS on the big-M arc model and the cross-check a
solver-free label-setting dynamic program; beyond, the DP is the reference and CP-SAT on a circuit
model the cross-check (:mod:`.solvers`), all in integer time units.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmark.suites.mmopt.generation import routing
from benchmark.suites.mmopt.generation.depot_layouts import (
    DEPOT,
    Clustering,
    Layout,
    coordinates_of,
    customer_names,
    layout_problems,
    nodes,
    sample_layout,
)
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.subcategories.tsp_with_time_windows import solvers

VARIANT = "traveling_salesman_problem_with_time_windows"
UNIFORM = "uniform"
CLUSTERED = "clustered"


@dataclass(frozen=True)
class Regime:
    customers: tuple[int, int]
    grid: int
    layouts: tuple[str, ...]
    rules: tuple[str, ...]
    width: tuple[float, float]  # window width as a fraction of the planted tour's duration
    service: tuple[int, ...]  # service times drawn from these
    tightness: str
    greedy_must_fail: bool


REGIMES: dict[str, Regime] = {
    "easy": Regime((6, 7), 10, (UNIFORM,), ("euclidean_rounded_2dp",), (0.35, 0.6), (1,), "wide", False),
    "medium": Regime(
        (15, 17),
        18,
        (UNIFORM, CLUSTERED),
        ("euclidean_rounded_1dp", "euclidean_rounded_0dp"),
        (0.25, 0.45),
        (0, 1, 2),
        "moderate",
        True,
    ),
    "hard": Regime(
        (27, 31),
        24,
        (CLUSTERED,),
        ("euclidean_rounded_2dp", "euclidean_rounded_1dp"),
        (0.1, 0.18),
        (1, 2, 3),
        "tight",
        True,
    ),
}


CLUSTERING = Clustering(centres=(3, 4), spacing=2.6, reach=5)


def grid_size(instance: Mapping[str, Any]) -> int:
    """The side of the square map the instance is drawn on: its difficulty's regime grid (kept out
    of ``instance_data.json``, whose official schema has no such key)."""
    return REGIMES[str(instance["difficulty"])].grid


def sample_structure(rng: random.Random, difficulty: str) -> Layout:
    regime = REGIMES[difficulty]
    count = rng.randint(*regime.customers)
    kind = rng.choice(regime.layouts)
    return sample_layout(rng, kind, count, regime.grid, None if kind == UNIFORM else CLUSTERING)


def _scale(rule: str) -> int:
    decimals = routing.rule_decimals(rule)
    assert decimals is not None, "time windows need a rounded travel-time rule"
    return int(10**decimals)


def instantiate(rng: random.Random, layout: Layout, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    rule = rng.choice(regime.rules)
    customers = customer_names(len(layout.customers))
    nodes = [DEPOT, *customers]
    coordinates = coordinates_of(layout, customers)
    service = {DEPOT: 0} | {name: rng.choice(regime.service) for name in customers}
    # plant the windows around a random visiting order, timed without waiting
    planted = rng.sample(customers, len(customers))
    starts: dict[str, float] = {}
    time, here = 0.0, DEPOT
    for name in planted:
        time += service[here] + routing.leg_cost(coordinates[here], coordinates[name], rule)
        starts[name] = time
        here = name
    back = time + service[here] + routing.leg_cost(coordinates[here], coordinates[DEPOT], rule)
    windows: dict[str, list[int]] = {DEPOT: [0, math.ceil(back * rng.uniform(1.1, 1.3))]}
    for name in customers:
        width = back * rng.uniform(*regime.width)
        before = rng.uniform(0.2, 0.8) * width
        windows[name] = [max(0, math.floor(starts[name] - before)), math.ceil(starts[name] + width - before)]
    return {
        "variant": VARIANT,
        "scenario": VARIANT,
        "difficulty": difficulty,
        "sets": {
            "nodes": nodes,
            "customers": customers,
            "directed_arcs": [[a, b] for a in nodes for b in nodes if a != b],
        },
        "depot": DEPOT,
        "coordinates": coordinates,
        "travel_time_matrix": routing.distance_table(coordinates, nodes, rule),
        "service_times": service,
        "time_windows": {name: windows[name] for name in nodes},
        "meta_parameters": {
            "number_customers": len(customers),
            "layout_type": layout.kind,
            "window_tightness_type": regime.tightness,
            "service_time_type": "constant" if len(regime.service) == 1 else "heterogeneous",
            "travel_time_rule": rule,
        },
    }


def travel_rule(instance: Mapping[str, Any]) -> str:
    return str(instance["meta_parameters"]["travel_time_rule"])


def _units(value: Any, scale: int) -> int:
    """``value`` in units of ``1/scale``, exactly: an official package's service times (0.5) and
    windows (3.91) are fractional, and truncating them (``int(value)``) solved another instance."""
    units = round(float(value) * scale)
    if abs(float(value) * scale - units) > 1e-6:
        raise Rejected(f"a time {value} is finer than the travel-time rule's precision 1/{scale}")
    return units


def window_data(instance: Mapping[str, Any]) -> solvers.WindowData:
    """The instance in integer time units of the travel-time rule's precision."""
    names = nodes(instance)
    scale = _scale(travel_rule(instance))
    windows = instance["time_windows"]
    return solvers.WindowData(
        cost=routing.cost_matrix(instance["coordinates"], names, travel_rule(instance)),
        service=tuple(_units(instance["service_times"][n], scale) for n in names),
        windows=tuple((_units(windows[n][0], scale), _units(windows[n][1], scale)) for n in names),
    )


def vacuous_windows(instance: Mapping[str, Any]) -> list[str]:
    """Customers whose window constrains nothing: it opens no later than the direct arrival from
    the depot and closes no earlier than the last start that still allows the direct way home."""
    data = window_data(instance)
    names = nodes(instance)
    found = []
    for j in range(1, data.size):
        opens, closes = data.windows[j]
        latest = data.windows[0][1] - data.service[j] - int(data.cost[j, 0])
        if opens <= int(data.cost[0, j]) and closes >= latest:
            found.append(names[j])
    return found


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    problems = layout_problems(instance, regime.customers)
    points = [tuple(instance["coordinates"][n]) for n in nodes(instance)]
    if any(not 0 <= c <= grid_size(instance) for p in points for c in p):
        problems.append("structure: a node lies off the grid")
    if any(a > b for a, b in instance["time_windows"].values()):
        problems.append("structure: a window closes before it opens")
    if (
        routing.distance_table(instance["coordinates"], nodes(instance), travel_rule(instance))
        != instance["travel_time_matrix"]
    ):
        problems.append("structure: travel-time matrix disagrees with the rule")
    if vacuous_windows(instance):
        problems.append("structure: a customer's time window is vacuous")
    return problems


def solution_of(instance: Mapping[str, Any], order: Sequence[int], total_units: int) -> dict[str, Any]:
    """The official ``solution_ref.json`` shape of a tour given as node indices from the depot."""
    names = nodes(instance)
    data = window_data(instance)
    timed = solvers.schedule(data, order)
    if timed is None:
        raise Rejected("reference: the solver's tour misses a window")
    starts, back = timed
    rule = travel_rule(instance)
    scale = _scale(rule)

    def as_time(units: int) -> float:
        return routing.finish_total(units / scale, rule)

    tour = [names[i] for i in order] + [names[0]]
    arrivals = {names[0]: 0.0}
    waiting = {names[0]: 0.0}
    for k in range(1, len(order)):
        previous, node = order[k - 1], order[k]
        arrive = starts[k - 1] + data.service[previous] + int(data.cost[previous, node])
        arrivals[names[node]] = as_time(arrive)
        waiting[names[node]] = as_time(starts[k] - arrive)
    arrivals[f"{names[0]}_return"] = as_time(back)
    binding = [
        names[node]
        for k, node in enumerate(order[1:], start=1)
        if waiting[names[node]] > 0 or starts[k] == data.windows[node][1]
    ]
    return {
        "status": "optimal",
        "objective_value": routing.from_units(total_units, rule),
        "tour": tour,
        "selected_arcs": [[tour[k], tour[k + 1]] for k in range(len(tour) - 1)],
        "service_start_times": {names[node]: as_time(starts[k]) for k, node in enumerate(order)},
        "arrival_times": arrivals,
        "waiting_times": waiting,
        "visit_order": {name: position for position, name in enumerate(tour[:-1])},
        "binding_time_window_nodes": binding,
    }


BIG_M_MAX_NODES = 14
"""Up to this many nodes (our easy tier) the reference is HiGHS on the big-M arc model, which closes
in milliseconds there, and the label-setting DP cross-checks it. Beyond, the big-M LP bound is too
weak (5–10 s at 28–31 nodes; an official 25-customer package is open after 15 minutes): the DP,
which tight windows keep at a fraction of a second, is the reference, and CP-SAT's circuit model
the cross-check."""

MILP_METHOD = "scipy.optimize.milp (HiGHS) on the arc model with big-M time propagation"
DP_METHOD = "label-setting dynamic program over (visited set, last node) with (cost, time) dominance"
CPSAT_METHOD = "OR-Tools CP-SAT (one worker) on a circuit constraint with conditional time propagation"


def uses_big_m(instance: Mapping[str, Any]) -> bool:
    """Whether the reference (and the shipped solver_ref.py) is the big-M MILP, else the label DP."""
    return len(nodes(instance)) <= BIG_M_MAX_NODES


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    big_m = uses_big_m(instance)
    data = window_data(instance)
    try:
        found = solvers.windows_milp(data) if big_m else solvers.label_dp(data)
    except RuntimeError as exc:
        raise Rejected("reference: solver did not certify optimality", str(exc)) from None
    if found is None:
        raise Rejected("reference: no tour meets every window")
    total, order = found
    return ReferenceSolution(
        solution=solution_of(instance, order, total), method=MILP_METHOD if big_m else DP_METHOD
    )


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    data = window_data(instance)
    if uses_big_m(instance):
        method, found = DP_METHOD, solvers.label_dp(data)
    else:
        try:
            method, found = CPSAT_METHOD, solvers.circuit_cpsat(data)
        except RuntimeError as exc:
            raise Rejected("cross-check: CP-SAT did not prove the optimum", str(exc)) from None
    if found is None:
        raise Rejected("cross-check: the second method finds no feasible tour")
    return method, routing.from_units(found[0], travel_rule(instance))


HELD_KARP_MAX_NODES = 16
"""Held–Karp's tables hold 2^(n-1) × (n-1) entries: 0.5 GiB at 16 nodes, 56 GiB at 29 customers.
Larger tours are solved by subtour elimination instead (the same optimum, legs being symmetric)."""


def windowless_optimum(instance: Mapping[str, Any]) -> float:
    """The cheapest tour when the windows are ignored, as a reported cost: Held–Karp up to
    :data:`HELD_KARP_MAX_NODES` nodes, HiGHS with subtour cuts beyond."""
    cost = window_data(instance).cost
    if cost.shape[0] <= HELD_KARP_MAX_NODES:
        total, _ = routing.held_karp(cost)
    else:
        total, _ = routing.subtour_milp(cost)
        total = round(total)  # the legs are integer units: HiGHS's sum carries float noise
    return routing.from_units(total, travel_rule(instance))


def nearest_feasible_tour(data: solvers.WindowData) -> list[int] | None:
    """The greedy that drives to the nearest unvisited customer whose window can still be met;
    ``None`` when it gets stuck or comes home too late."""
    order, time, here = [0], 0, 0
    free = set(range(1, data.size))
    while free:
        leave = time + data.service[here]
        reachable = [j for j in free if leave + int(data.cost[here, j]) <= data.windows[j][1]]
        if not reachable:
            return None
        step = min(reachable, key=lambda j: (int(data.cost[here, j]), j))
        time = max(leave + int(data.cost[here, step]), data.windows[step][0])
        order.append(step)
        free.remove(step)
        here = step
    return order if solvers.schedule(data, order) is not None else None


def greedy_cost(instance: Mapping[str, Any]) -> float | None:
    data = window_data(instance)
    order = nearest_feasible_tour(data)
    return (
        None if order is None else routing.from_units(solvers.tour_cost(data, order), travel_rule(instance))
    )


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    optimum = float(reference.solution["objective_value"])
    if windowless_optimum(instance) >= optimum - 1e-9:
        return ["nontrivial: an optimal tour without windows meets every window"]
    if not reference.solution["binding_time_window_nodes"]:
        return ["nontrivial: no window binds on the optimal tour"]
    if REGIMES[difficulty].greedy_must_fail:
        greedy = greedy_cost(instance)
        if greedy is not None and math.isclose(greedy, optimum, abs_tol=1e-9):
            return ["nontrivial: the nearest-feasible-customer greedy is optimal"]
    return []


def heuristic_summary(instance: Mapping[str, Any]) -> tuple[float, float | None]:
    """(windowless optimum, nearest-feasible greedy cost or None) for the notes and tags."""
    return windowless_optimum(instance), greedy_cost(instance)
