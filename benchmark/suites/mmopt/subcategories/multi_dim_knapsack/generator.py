"""Multi-dimensional knapsack instances: items with a value and a use of each of m resources.

Difficulty grows in items and resources and in how values relate to weights: easy instances have
ten to twelve items, two resources and uncorrelated values with loose capacities (about half the
total use); medium ones thirty to thirty-eight items, three or four resources, weakly correlated
values and capacities near 40 %; hard ones forty-four to fifty-four items, four to six resources,
strongly correlated values (value ≈ mean weight + a constant, the classic hard case for branch and
bound) and capacities of 25–35 %. The medium and hard sizes centre on the official release's
medians (34 items and 3.5 resources at medium, 49 and 5 at hard). At medium and hard the
value-per-aggregate-weight greedy must be suboptimal and, at hard, at least two resources bind at
the optimum (too little slack left for the lightest item).

Reference: CP-SAT on the 0/1 model; cross-check: HiGHS through SciPy on the same model.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

VARIANT = "multi_dimensional_knapsack"
SOLVE_LIMIT_S = 30.0


@dataclass(frozen=True)
class Regime:
    items: tuple[int, int]
    resources: tuple[int, int]
    weight: tuple[int, int]
    correlation: str
    tightness: tuple[float, float]
    greedy_must_fail: bool
    binding_at_least: int


REGIMES: dict[str, Regime] = {
    "easy": Regime((10, 12), (2, 2), (2, 9), "uncorrelated", (0.45, 0.55), False, 1),
    "medium": Regime((30, 38), (3, 4), (2, 12), "weakly_correlated", (0.35, 0.45), True, 1),
    "hard": Regime((44, 54), (4, 6), (3, 15), "strongly_correlated", (0.25, 0.35), True, 2),
}


@dataclass(frozen=True)
class Structure:
    items: int
    resources: int
    weights: tuple[tuple[int, ...], ...]  # per item, per resource


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    n, m = rng.randint(*regime.items), rng.randint(*regime.resources)
    weights = tuple(tuple(rng.randint(*regime.weight) for _ in range(m)) for _ in range(n))
    return Structure(items=n, resources=m, weights=weights)


def _value(rng: random.Random, weights: tuple[int, ...], correlation: str, top: int) -> int:
    mean = sum(weights) / len(weights)
    if correlation == "uncorrelated":
        return rng.randint(5, 3 * top)
    if correlation == "weakly_correlated":
        return max(1, round(2 * mean + rng.randint(-top // 2, top // 2)))
    return round(mean) + top // 2 + rng.randint(0, 2)


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    top = regime.weight[1]
    values = [_value(rng, w, regime.correlation, top) for w in structure.weights]
    totals = [sum(w[r] for w in structure.weights) for r in range(structure.resources)]
    capacities = [max(top, round(t * rng.uniform(*regime.tightness))) for t in totals]
    return {
        "variant": VARIANT,
        "scenario": VARIANT,
        "difficulty": difficulty,
        "sets": {
            "items": list(range(1, structure.items + 1)),
            "resources": [f"R{r}" for r in range(1, structure.resources + 1)],
        },
        "values": values,
        "weights": [list(w) for w in structure.weights],
        "capacities": capacities,
        "meta_parameters": {
            "number_items": structure.items,
            "number_dimensions": structure.resources,
            "capacity_tightness_type": difficulty_tightness(difficulty),
            "profit_weight_correlation_type": regime.correlation,
        },
    }


def difficulty_tightness(difficulty: str) -> str:
    return {"easy": "loose", "medium": "moderate", "hard": "tight"}[difficulty]


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    weights = np.array(instance["weights"])
    problems = []
    if not regime.items[0] <= weights.shape[0] <= regime.items[1]:
        problems.append("structure: item count outside the regime")
    if any(weights[:, r].max() > c for r, c in enumerate(instance["capacities"])):
        problems.append("structure: an item alone exceeds a capacity")
    if len({(v, tuple(w)) for v, w in zip(instance["values"], instance["weights"], strict=True)}) < len(
        weights
    ):
        problems.append("structure: two identical items")
    return problems


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """CP-SAT, one worker and a fixed seed so the returned optimum is reproducible."""
    values, weights, capacities = instance["values"], instance["weights"], instance["capacities"]
    model = cp_model.CpModel()
    take = [model.new_bool_var(f"x_{i}") for i in instance["sets"]["items"]]
    for r, capacity in enumerate(capacities):
        model.add(sum(w[r] * x for w, x in zip(weights, take, strict=True)) <= capacity)
    model.maximize(sum(v * x for v, x in zip(values, take, strict=True)))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", solver.status_name(status))
    chosen = [i for i, x in zip(instance["sets"]["items"], take, strict=True) if solver.boolean_value(x)]
    return ReferenceSolution(
        solution=solution_of(instance, chosen), method="ortools.sat CP-SAT (0/1 model, proven optimal)"
    )


def solution_of(instance: Mapping[str, Any], chosen: list[int]) -> dict[str, Any]:
    """The official ``solution_ref.json`` shape of a selection."""
    resources = instance["sets"]["resources"]
    usage = {name: sum(instance["weights"][i - 1][r] for i in chosen) for r, name in enumerate(resources)}
    limits = dict(zip(resources, instance["capacities"], strict=True))
    value = sum(instance["values"][i - 1] for i in chosen)
    binding = binding_resources(instance, chosen)
    return {
        "status": "optimal",
        "objective_value": value,
        "objective_exact": value,
        "selected_items": chosen,
        "decision_variables": {f"x_{i}": int(i in chosen) for i in instance["sets"]["items"]},
        "resource_usage": usage,
        "resource_limits": limits,
        "resource_slack": {name: limits[name] - usage[name] for name in resources},
        "binding_constraints": binding,
        "binding_constraint_count": len(binding),
    }


def binding_resources(instance: Mapping[str, Any], chosen: list[int]) -> list[int]:
    """Resources (1-based) whose slack is below the lightest unselected item's use of them."""
    weights = instance["weights"]
    rest = [i for i in instance["sets"]["items"] if i not in chosen]
    binding = []
    for r, capacity in enumerate(instance["capacities"]):
        slack = capacity - sum(weights[i - 1][r] for i in chosen)
        if not rest or slack < min(weights[i - 1][r] for i in rest):
            binding.append(r + 1)
    return binding


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    values = np.array(instance["values"], dtype=float)
    result = milp(
        -values,
        constraints=LinearConstraint(
            np.array(instance["weights"], dtype=float).T, lb=-np.inf, ub=instance["capacities"]
        ),
        integrality=np.ones_like(values),
        bounds=Bounds(0, 1),
    )
    if result.status != 0:
        raise Rejected("cross-check: MILP did not solve", str(result.message))
    return "scipy.optimize.milp (HiGHS branch and bound)", round(-float(result.fun), 6)


def greedy_value(instance: Mapping[str, Any]) -> int:
    """Value of the greedy that takes items by value per capacity-normalised total weight."""
    capacities = instance["capacities"]
    order = sorted(
        instance["sets"]["items"],
        key=lambda i: (
            -instance["values"][i - 1]
            / sum(w / c for w, c in zip(instance["weights"][i - 1], capacities, strict=True)),
            i,
        ),
    )
    used = [0] * len(capacities)
    total = 0
    for i in order:
        w = instance["weights"][i - 1]
        if all(u + x <= c for u, x, c in zip(used, w, capacities, strict=True)):
            used = [u + x for u, x in zip(used, w, strict=True)]
            total += instance["values"][i - 1]
    return total


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    regime = REGIMES[difficulty]
    chosen = reference.solution["selected_items"]
    if len(chosen) < 2 or len(chosen) == len(instance["sets"]["items"]):
        return ["nontrivial: the optimum takes almost nothing or everything"]
    if regime.greedy_must_fail and greedy_value(instance) >= reference.solution["objective_value"]:
        return ["nontrivial: the value-per-weight greedy is optimal"]
    if reference.solution["binding_constraint_count"] < regime.binding_at_least:
        return ["nontrivial: too few resources bind at the optimum"]
    return []
