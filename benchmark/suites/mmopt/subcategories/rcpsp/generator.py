"""Resource-constrained project scheduling (scheduling/sequencing family, prefix ``rcpsp``).

Activities with durations and per-resource demands, precedence arcs between consecutive layers of
a project network (a dummy Start before the first layer, a dummy End after the last), renewable
resources with a capacity each; minimize the makespan. Regimes (App. D.2): easy has six activities
in three layers and two resources; medium nine or ten activities in four layers and two or three
resources; hard eleven or twelve activities in five layers, three resources and a bottleneck
resource whose capacity equals the largest single demand (durations kept short so that the
time-indexed cross-check stays exact and fast).

Rejection rules (App. D): an activity demanding more than a capacity is structural; so is an
instance in which no two activities free of a precedence path between them overload a resource
together (resource conflicts vacuous). On the verified optimum, the makespan must exceed the
critical-path length, so resources genuinely bind (the bottleneck rule at hard).

Reference: CP-SAT (intervals, cumulative per resource). The stored schedule is the serial
schedule-generation-scheme schedule in the order of the optimal start times (each activity as
early as precedence and resources allow), which starts no activity later than the solver did and
so keeps the optimum. Cross-check: a time-indexed MILP solved by HiGHS within a deterministic node
budget; when the critical-path bound meets a list schedule, the bounds alone certify the optimum.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from benchmark.suites.mmopt.generation.milp import proven_optimum
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

SOLVE_LIMIT_S = 60.0
CROSS_CHECK_NODE_LIMIT = 300  # deterministic, unlike a time limit; beyond it the candidate is rejected
START, END = "Start", "End"


@dataclass(frozen=True)
class Regime:
    layers: tuple[int, ...]  # activities per layer range is (low, high) for every layer
    per_layer: tuple[int, int]
    activities: tuple[int, int]
    resources: tuple[int, int]
    duration: tuple[int, int]
    capacity_slack: tuple[int, int]  # capacity = largest demand + slack
    bottleneck: bool


REGIMES: dict[str, Regime] = {
    "easy": Regime((3,), (2, 2), (6, 6), (2, 2), (1, 5), (1, 2), False),
    "medium": Regime((5,), (2, 3), (13, 14), (2, 3), (1, 6), (1, 2), False),
    "hard": Regime((7,), (2, 3), (21, 23), (3, 4), (1, 5), (1, 2), True),
}


@dataclass(frozen=True)
class Structure:
    layers: tuple[tuple[str, ...], ...]
    arcs: tuple[tuple[str, str], ...]
    resources: tuple[str, ...]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    count = regime.layers[0]
    total = rng.randint(*regime.activities)
    sizes = [regime.per_layer[0]] * count
    while sum(sizes) < total:
        k = rng.randrange(count)
        if sizes[k] < regime.per_layer[1] + 1:
            sizes[k] += 1
    names = iter(f"A{i}" for i in range(1, total + 1))
    layers = tuple(tuple(next(names) for _ in range(size)) for size in sizes)
    arcs: list[tuple[str, str]] = [(START, a) for a in layers[0]]
    for before, after in itertools.pairwise(layers):
        for activity in after:
            for predecessor in sorted(
                rng.sample(before, rng.randint(1, min(2, len(before)))), key=before.index
            ):
                arcs.append((predecessor, activity))
        for activity in before:  # every activity leads somewhere
            if not any(u == activity for u, _ in arcs):
                arcs.append((activity, rng.choice(after)))
    arcs += [(a, END) for a in layers[-1]]
    order = {name: k for k, name in enumerate([START, *[a for layer in layers for a in layer], END])}
    arcs.sort(key=lambda arc: (order[arc[0]], order[arc[1]]))
    resources = tuple(f"R{r}" for r in range(1, rng.randint(*regime.resources) + 1))
    return Structure(layers=layers, arcs=tuple(arcs), resources=resources)


def real_activities(instance: Mapping[str, Any]) -> list[str]:
    return list(instance["sets"]["real_activities"])


def predecessors(instance: Mapping[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {a: [] for a in instance["sets"]["activities"]}
    for u, v in instance["precedence_arcs"]:
        found[v].append(u)
    return found


def formulation_size(instance: Mapping[str, Any]) -> dict[str, int]:
    """Sizes of a time-indexed model over the sum of durations."""
    activities = real_activities(instance)
    horizon = sum(int(instance["duration"][a]) for a in activities)
    return {
        "variables": len(activities) * (horizon + 1),
        "binary_variables": len(activities) * (horizon + 1),
        "constraints": len(activities)
        + len(instance["precedence_arcs"])
        + len(instance["sets"]["resources"]) * horizon,
        "activities": len(activities),
        "resources": len(instance["sets"]["resources"]),
        "precedence_arcs": len(instance["precedence_arcs"]),
    }


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    real = [a for layer in structure.layers for a in layer]
    activities = [START, *real, END]
    duration = {START: 0, **{a: rng.randint(*regime.duration) for a in real}, END: 0}
    demand: dict[str, dict[str, int]] = {a: dict.fromkeys(structure.resources, 0) for a in activities}
    for activity in real:
        for resource in structure.resources:
            demand[activity][resource] = rng.randint(0, 4)
        if not any(demand[activity].values()):
            demand[activity][rng.choice(structure.resources)] = rng.randint(1, 4)
    capacity = {}
    for k, resource in enumerate(structure.resources):
        largest = max(demand[a][resource] for a in real)
        slack = 0 if regime.bottleneck and k == 0 else rng.randint(*regime.capacity_slack)
        capacity[resource] = max(1, largest + slack)
    layer_of = {START: 0, END: len(structure.layers) + 1}
    for k, layer in enumerate(structure.layers, 1):
        layer_of.update(dict.fromkeys(layer, k))
    instance: dict[str, Any] = {
        "variant": "single_project_renewable_rcpsp",
        "scenario": "resource_constrained_project_scheduling",
        "difficulty": difficulty,
        "sets": {"activities": activities, "real_activities": real, "resources": list(structure.resources)},
        "precedence_arcs": [list(arc) for arc in structure.arcs],
        "duration": duration,
        "resource_capacity": capacity,
        "resource_demand": demand,
        "activity_records": [
            {"activity": a, "duration": duration[a], "resource_demand": dict(demand[a]), "layer": layer_of[a]}
            for a in activities
        ],
        "visual_layout": {"layers": [[START], *[list(layer) for layer in structure.layers], [END]]},
    }
    instance["meta_parameters"] = {
        "number_activities": len(activities),
        "number_real_activities": len(real),
        "number_resources": len(structure.resources),
        "resource_capacity_regime": "bottleneck" if regime.bottleneck else "tight",
        "bottleneck_resource_flag": regime.bottleneck,
        "graph_pattern": "layered_network",
        "visual_type": "dual_visual_precedence_network_plus_resource_matrix",
        "formulation_size": formulation_size(instance)["variables"],
    }
    return instance


def critical_path(instance: Mapping[str, Any]) -> int:
    finish: dict[str, int] = {}
    preds = predecessors(instance)
    for activity in instance["sets"]["activities"]:  # listed in a topological order
        start = max((finish[p] for p in preds[activity]), default=0)
        finish[activity] = start + int(instance["duration"][activity])
    return max(finish.values())


def _related(instance: Mapping[str, Any]) -> set[tuple[str, str]]:
    """Pairs linked by a precedence path (either direction)."""
    succ: dict[str, set[str]] = {a: set() for a in instance["sets"]["activities"]}
    for u, v in instance["precedence_arcs"]:
        succ[u].add(v)
    reach: dict[str, set[str]] = {}
    for activity in reversed(instance["sets"]["activities"]):
        reach[activity] = set(succ[activity])
        for s in succ[activity]:
            reach[activity] |= reach[s]
    return {(a, b) for a in reach for b in reach[a]} | {(b, a) for a in reach for b in reach[a]}


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    real, resources = real_activities(instance), instance["sets"]["resources"]
    demand, capacity = instance["resource_demand"], instance["resource_capacity"]
    if any(demand[a][r] > capacity[r] for a in real for r in resources):
        return ["structure: an activity demands more than a capacity"]
    related = _related(instance)
    conflicting = any(
        (a, b) not in related and any(demand[a][r] + demand[b][r] > capacity[r] for r in resources)
        for i, a in enumerate(real)
        for b in real[i + 1 :]
    )
    if not conflicting:
        return ["structure: no two unordered activities overload a resource (conflicts vacuous)"]
    return []


def serial_schedule(instance: Mapping[str, Any], order: Sequence[str]) -> dict[str, int]:
    """Serial schedule-generation scheme: each activity in ``order`` (a precedence-feasible list)
    at the earliest time its predecessors have finished and every resource has room for it."""
    preds = predecessors(instance)
    resources = instance["sets"]["resources"]
    demand, capacity, duration = (
        instance["resource_demand"],
        instance["resource_capacity"],
        instance["duration"],
    )
    horizon = sum(int(duration[a]) for a in instance["sets"]["activities"]) + 1
    usage = {r: [0] * (horizon + 1) for r in resources}
    start: dict[str, int] = {START: 0}
    for activity in order:
        t = max((start[p] + int(duration[p]) for p in preds[activity]), default=0)
        length = int(duration[activity])
        while any(
            usage[r][u] + demand[activity][r] > capacity[r] for r in resources for u in range(t, t + length)
        ):
            t += 1
        start[activity] = t
        for r in resources:
            for u in range(t, t + length):
                usage[r][u] += demand[activity][r]
    return start


def solution_record(instance: Mapping[str, Any], start: Mapping[str, int]) -> dict[str, Any]:
    duration = instance["duration"]
    real = real_activities(instance)
    makespan = max(start[a] + int(duration[a]) for a in real)
    times = {**{a: int(start[a]) for a in real}, START: 0, END: makespan}
    finish = {a: times[a] + int(duration[a]) for a in times}
    resources = instance["sets"]["resources"]
    usage = {
        str(t): {
            r: sum(instance["resource_demand"][a][r] for a in real if times[a] <= t < finish[a])
            for r in resources
        }
        for t in range(makespan)
    }
    binding = [r for r in resources if any(u[r] == instance["resource_capacity"][r] for u in usage.values())]
    return {
        "status": "optimal",
        "objective_value": makespan,
        "objective_exact": makespan,
        "makespan": makespan,
        "activity_start_times": dict(sorted(times.items())),
        "activity_finish_times": dict(sorted(finish.items())),
        "schedule": [
            {"activity": a, "start": times[a], "finish": finish[a], "duration": int(duration[a])}
            for a in sorted(real, key=lambda a: (times[a], real.index(a)))
        ],
        "binding_resources": binding,
        "binding_resource_count": len(binding),
    }


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    real, resources = real_activities(instance), instance["sets"]["resources"]
    duration = instance["duration"]
    horizon = sum(int(duration[a]) for a in real)
    model = cp_model.CpModel()
    start = {a: model.new_int_var(0, horizon, f"s_{a}") for a in real}
    interval = {a: model.new_fixed_size_interval_var(start[a], int(duration[a]), f"i_{a}") for a in real}
    makespan = model.new_int_var(0, horizon, "makespan")
    for u, v in instance["precedence_arcs"]:
        if u in start and v in start:
            model.add(start[v] >= start[u] + int(duration[u]))
    for a in real:
        model.add(makespan >= start[a] + int(duration[a]))
    for r in resources:
        model.add_cumulative(
            [interval[a] for a in real],
            [int(instance["resource_demand"][a][r]) for a in real],
            int(instance["resource_capacity"][r]),
        )
    model.minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", solver.status_name(status))
    order = sorted(real, key=lambda a: (solver.value(start[a]), real.index(a)))
    solution = solution_record(instance, serial_schedule(instance, order))
    if solution["makespan"] != round(solver.objective_value):
        raise Rejected("reference: serial schedule does not reproduce the optimum")
    return ReferenceSolution(
        solution=solution, method="ortools.sat CP-SAT (cumulative model, proven optimal)"
    )


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """Time-indexed MILP (a start-time binary per activity and period) solved by HiGHS."""
    real, resources = real_activities(instance), instance["sets"]["resources"]
    duration = {a: int(instance["duration"][a]) for a in real}
    bound = critical_path(instance)
    upper = max(solution_record(instance, serial_schedule(instance, real))["makespan"], bound)
    if upper == bound:
        return "critical-path bound met by a serial schedule (no solver)", float(bound)
    horizon = upper
    slots = {a: list(range(0, horizon - duration[a] + 1)) for a in real}
    index: dict[tuple[str, int], int] = {}
    for a in real:
        for t in slots[a]:
            index[a, t] = len(index)
    n = len(index) + 1
    rows, lo, hi = [], [], []

    def row(coefficients: dict[int, float], low: float, high: float) -> None:
        line = np.zeros(n)
        for k, v in coefficients.items():
            line[k] += v
        rows.append(line)
        lo.append(low)
        hi.append(high)

    for a in real:
        row({index[a, t]: 1.0 for t in slots[a]}, 1.0, 1.0)
        coefficients = {index[a, t]: float(t + duration[a]) for t in slots[a]}
        coefficients[n - 1] = -1.0
        row(coefficients, -np.inf, 0.0)  # makespan >= finish
    for u, v in instance["precedence_arcs"]:
        if u in duration and v in duration:
            coefficients = {index[v, t]: float(t) for t in slots[v]}
            for t in slots[u]:
                coefficients[index[u, t]] = coefficients.get(index[u, t], 0.0) - float(t)
            row(coefficients, float(duration[u]), np.inf)
    for r in resources:
        for tau in range(horizon):
            coefficients = {
                index[a, t]: float(instance["resource_demand"][a][r])
                for a in real
                for t in slots[a]
                if t <= tau < t + duration[a] and instance["resource_demand"][a][r]
            }
            if coefficients:
                row(coefficients, -np.inf, float(instance["resource_capacity"][r]))
    cost = np.zeros(n)
    cost[-1] = 1.0
    integrality = np.ones(n)
    integrality[-1] = 0
    lower = np.zeros(n)
    lower[-1] = bound
    high = np.ones(n)
    high[-1] = upper
    value = proven_optimum(
        cost,
        np.array(rows),
        (lo, hi),
        (lower, high),
        integrality.astype(bool),
        time_limit_s=SOLVE_LIMIT_S,
        node_limit=CROSS_CHECK_NODE_LIMIT,
    )
    return "HiGHS MILP (time-indexed model)", value


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    if float(reference.solution["objective_value"]) <= critical_path(instance):
        return ["nontrivial: the optimum equals the critical path, resources do not bind"]
    if (
        REGIMES[difficulty].bottleneck
        and instance["sets"]["resources"][0] not in reference.solution["binding_resources"]
    ):
        return ["nontrivial: the bottleneck resource never binds"]
    return []
