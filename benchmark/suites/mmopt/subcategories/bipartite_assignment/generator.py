"""Bipartite assignment instances (location/covering/assignment family).

Workers are assigned one-to-one to tasks. Easy instances are balanced, fully compatible and
minimize cost. Medium and hard instances are unbalanced matchings with forbidden worker–task pairs
(a sparse compatibility graph) that either minimize total cost or maximize total value; the
instance records which. The smaller side must be covered completely: with more tasks than workers
every worker gets exactly one task (a task at most one worker), with more workers than tasks every
task goes to exactly one worker (a worker at most one task). Medium instances draw either side as
the spare one; hard ones, like the release's unbalanced hard packages, have spare workers.

Weights are a worker effect plus a task effect plus noise, so workers tend to agree on which tasks
are good and compete for them. The verified optimum must then be a real optimization result: the
"best remaining pair first" greedy must be strictly worse (or get stuck on the forbidden pairs).

``instance_data.json`` is in the official schema: ``sets.left`` (workers) / ``sets.right`` (tasks),
``cost_matrix: {worker: {task: weight}}`` for the allowed pairs only, ``feasible_assignments:
{worker: [tasks]}``, and ``variant_type``: ``assignment`` when the sides are equal (every worker and
every task used), ``matching`` with ``matching_requirement.required_side`` (``"left"``: every
worker used; ``"right"``: every task used) otherwise. The official release only minimizes; our
maximizing instances, which it lacks, say ``"objective_sense": "maximize"`` (the key of the
official p-median/center instances) and keep their values in ``cost_matrix``, where the official
scorer reads the weight it sums.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment, linprog

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

MINIMIZE = "minimize"
MAXIMIZE = "maximize"
SPARE_TASKS = "tasks"  # more tasks than workers: every worker covered (required side "left")
SPARE_WORKERS = "workers"  # more workers than tasks: every task covered (required side "right")


@dataclass(frozen=True)
class Regime:
    """Side sizes (inclusive), forbidden-pair share, senses drawn, weight model."""

    covered: tuple[int, int]  # size of the side every node of which is matched (the smaller one)
    extra: tuple[int, int]  # nodes of the other side beyond that
    spare_sides: tuple[str, ...]  # which side holds the extra nodes (drawn when there are two)
    forbidden_share: tuple[float, float]
    senses: tuple[str, ...]
    worker_effect: tuple[int, int]
    task_effect: tuple[int, int]
    noise: tuple[int, int]


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        covered=(5, 5),
        extra=(0, 0),
        spare_sides=(SPARE_TASKS,),
        forbidden_share=(0.0, 0.0),
        senses=(MINIMIZE,),
        worker_effect=(0, 8),
        task_effect=(2, 14),
        noise=(0, 25),
    ),
    "medium": Regime(
        covered=(22, 26),
        extra=(1, 4),
        spare_sides=(SPARE_TASKS, SPARE_WORKERS),
        forbidden_share=(0.12, 0.22),
        senses=(MINIMIZE, MAXIMIZE),
        worker_effect=(0, 10),
        task_effect=(2, 18),
        noise=(0, 35),
    ),
    "hard": Regime(
        covered=(36, 46),
        extra=(6, 16),
        spare_sides=(SPARE_WORKERS,),
        forbidden_share=(0.18, 0.28),
        senses=(MINIMIZE, MAXIMIZE),
        worker_effect=(0, 12),
        task_effect=(2, 20),
        noise=(0, 45),
    ),
}


@dataclass(frozen=True)
class Structure:
    sense: str
    workers: tuple[str, ...]
    tasks: tuple[str, ...]
    forbidden: frozenset[tuple[str, str]]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    covered = rng.randint(*regime.covered)
    spare = covered + rng.randint(*regime.extra)
    side = rng.choice(regime.spare_sides) if len(regime.spare_sides) > 1 else regime.spare_sides[0]
    n_workers, n_tasks = (covered, spare) if side == SPARE_TASKS else (spare, covered)
    workers = tuple(f"W{i}" for i in range(1, n_workers + 1))
    tasks = tuple(f"T{j}" for j in range(1, n_tasks + 1))
    pairs = [(w, t) for w in workers for t in tasks]
    share = rng.uniform(*regime.forbidden_share)
    forbidden = frozenset(rng.sample(pairs, round(share * len(pairs))))
    return Structure(sense=rng.choice(regime.senses), workers=workers, tasks=tasks, forbidden=forbidden)


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    worker_effect = {w: rng.randint(*regime.worker_effect) for w in structure.workers}
    task_effect = {t: rng.randint(*regime.task_effect) for t in structure.tasks}
    matrix: dict[str, dict[str, int]] = {}
    for w in structure.workers:
        matrix[w] = {
            t: worker_effect[w] + task_effect[t] + rng.randint(*regime.noise)
            for t in structure.tasks
            if (w, t) not in structure.forbidden
        }
    balanced = len(structure.tasks) == len(structure.workers)
    instance: dict[str, Any] = {
        "scenario_name": f"worker_task_{'cost' if structure.sense == MINIMIZE else 'value'}_assignment",
        "variant_type": "assignment" if balanced else "matching",
        "sets": {"left": list(structure.workers), "right": list(structure.tasks)},
        "cost_matrix": matrix,
        "feasible_assignments": {w: list(row) for w, row in matrix.items()},
    }
    if not balanced:
        required = "left" if len(structure.workers) < len(structure.tasks) else "right"
        instance["matching_requirement"] = {"required_side": required}
    if structure.sense == MAXIMIZE:
        instance["objective_sense"] = MAXIMIZE
    return instance


# --------------------------------------------------------------------------------------------------
# Reading the official instance (templates and renderer use the same accessors)


def _sides(instance: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The two sides: ``sets.left``/``sets.right``, or, where a release package names them by
    role (``sets.drivers``/``sets.routes``), its first and second list."""
    sets = instance["sets"]
    if "left" in sets:
        return list(sets["left"]), list(sets["right"])
    lists = [list(value) for value in sets.values() if isinstance(value, list)]
    if len(lists) != 2:
        raise KeyError("sets.left")
    return lists[0], lists[1]


def workers(instance: Mapping[str, Any]) -> list[str]:
    return _sides(instance)[0]


def tasks(instance: Mapping[str, Any]) -> list[str]:
    return _sides(instance)[1]


def weights(instance: Mapping[str, Any]) -> Mapping[str, Mapping[str, int]]:
    """worker → task → weight, for the allowed pairs only."""
    matrix: Mapping[str, Mapping[str, int]] = instance["cost_matrix"]
    return matrix


def allowed_weights(instance: Mapping[str, Any]) -> Mapping[str, Mapping[str, int]]:
    """The weights the solvers may use: those of pairs in ``feasible_assignments`` (a release
    package gives weights for every pair and restricts them there; ours give only allowed ones)."""
    allowed = instance.get("feasible_assignments")
    if not isinstance(allowed, Mapping):
        return weights(instance)
    return {
        w: {t: v for t, v in row.items() if t in allowed.get(w, row)} for w, row in weights(instance).items()
    }


def sense(instance: Mapping[str, Any]) -> str:
    return str(instance.get("objective_sense", MINIMIZE))


def measure(instance: Mapping[str, Any]) -> str:
    """What a weight is: a cost to minimize or a value to maximize."""
    return "value" if sense(instance) == MAXIMIZE else "cost"


def spare_workers(instance: Mapping[str, Any]) -> bool:
    """More workers than tasks: every task is covered and some workers stay without one."""
    return len(workers(instance)) > len(tasks(instance))


def forbidden(instance: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The pairs outside ``feasible_assignments``, worker by worker in task order."""
    allowed = instance["feasible_assignments"]
    return [(w, t) for w in workers(instance) for t in tasks(instance) if t not in allowed[w]]


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    workers_, tasks_, weights_ = workers(instance), tasks(instance), weights(instance)
    problems = []
    spare = SPARE_WORKERS if spare_workers(instance) else SPARE_TASKS
    covered, other = sorted((len(workers_), len(tasks_)))
    if (
        not regime.covered[0] <= covered <= regime.covered[1]
        or not regime.extra[0] <= other - covered <= regime.extra[1]
        or (covered < other and spare not in regime.spare_sides)
    ):
        problems.append("structure: worker or task count outside the regime")
    if any(len(weights_[w]) < 2 for w in workers_):
        problems.append("structure: a worker has fewer than two compatible tasks")
    partners = {t: sum(t in weights_[w] for w in workers_) for t in tasks_}
    if any(count < (2 if spare == SPARE_WORKERS else 1) for count in partners.values()):
        problems.append("structure: a task has too few compatible workers")
    if any(value < 1 for row in weights_.values() for value in row.values()):
        problems.append("structure: a weight is not positive")
    return problems


def weight_matrix(instance: Mapping[str, Any], blocked: float) -> np.ndarray:
    """Workers × tasks weights with ``blocked`` in the cells of forbidden pairs."""
    matrix = np.full((len(workers(instance)), len(tasks(instance))), blocked, dtype=float)
    column = {t: j for j, t in enumerate(tasks(instance))}
    for i, w in enumerate(workers(instance)):
        for t, value in allowed_weights(instance)[w].items():
            matrix[i, column[t]] = value
    return matrix


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """The Hungarian-type shortest augmenting path algorithm of SciPy (exact); forbidden pairs
    carry an infinite cost (minus infinity when maximizing), which it never selects."""
    maximize = sense(instance) == MAXIMIZE
    matrix = weight_matrix(instance, -np.inf if maximize else np.inf)
    try:
        rows, cols = linear_sum_assignment(matrix, maximize=maximize)
    except ValueError as exc:
        raise Rejected("structure: no matching covers the smaller side", str(exc)) from None
    left, right = workers(instance), tasks(instance)
    assignment = {left[i]: right[j] for i, j in zip(rows, cols, strict=True)}
    total = int(sum(weights(instance)[w][t] for w, t in assignment.items()))
    solution = {
        "status": "optimal",
        "objective_value": total,
        "objective_exact": total,
        "assignments": assignment,
    }
    return ReferenceSolution(
        solution=solution, method="scipy.optimize.linear_sum_assignment (shortest augmenting paths)"
    )


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """The LP over the assignment polytope (HiGHS through SciPy) on the compatible pairs only: each
    node of the covered side exactly one partner, each node of the other side at most one. The
    constraint matrix is the incidence matrix of a bipartite graph, totally unimodular, so the LP
    optimum is the integer optimum."""
    left, right, weights_ = workers(instance), tasks(instance), allowed_weights(instance)
    pairs = [(i, j, weights_[w][t]) for i, w in enumerate(left) for j, t in enumerate(right)
             if t in weights_[w]]  # fmt: skip
    sign = -1.0 if sense(instance) == MAXIMIZE else 1.0
    worker_rows = np.zeros((len(left), len(pairs)))
    task_rows = np.zeros((len(right), len(pairs)))
    for k, (i, j, _) in enumerate(pairs):
        worker_rows[i, k] = 1.0
        task_rows[j, k] = 1.0
    exact, at_most = (task_rows, worker_rows) if spare_workers(instance) else (worker_rows, task_rows)
    result = linprog(
        c=[sign * value for _, _, value in pairs],
        A_eq=exact,
        b_eq=np.ones(exact.shape[0]),
        A_ub=at_most,
        b_ub=np.ones(at_most.shape[0]),
        bounds=(0.0, 1.0),
        method="highs",
    )
    if result.status != 0:
        raise Rejected("cross-check: LP did not solve", str(result.message))
    return "scipy.optimize.linprog (HiGHS LP over the assignment polytope)", round(
        sign * float(result.fun), 6
    )


def greedy_total(instance: Mapping[str, Any]) -> int | None:
    """Best remaining compatible pair first (cheapest, or most valuable); ``None`` if it strands a
    node of the covered side with no free compatible partner."""
    maximize = sense(instance) == MAXIMIZE
    pairs = sorted(
        (-value if maximize else value, w, t)
        for w, row in weights(instance).items()
        for t, value in row.items()
    )
    used_workers: set[str] = set()
    used_tasks: set[str] = set()
    total = 0
    for _, w, t in pairs:
        if w not in used_workers and t not in used_tasks:
            used_workers.add(w)
            used_tasks.add(t)
            total += weights(instance)[w][t]
    complete = len(used_workers) == min(len(workers(instance)), len(tasks(instance)))
    return total if complete else None


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    greedy = greedy_total(instance)
    if greedy is not None and greedy == reference.solution["objective_exact"]:
        return ["nontrivial: the best-pair-first greedy is optimal"]
    return []
