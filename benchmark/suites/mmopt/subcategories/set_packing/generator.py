"""Weighted set packing instances over incidence structures.

Items are letters, candidate groups are random subsets of them; weights grow with group size plus
noise, so large groups look attractive per group but block many others. Sizes grow from eight
items and ten groups (easy) through fourteen items and about twenty groups (medium) to twenty-two
items and twenty-six to thirty-one groups (hard; the release's median is 28.5), and overlap grows
with the group sizes. At medium and hard the weight-per-item greedy must be suboptimal; everywhere
the optimum picks at least two groups.

Reference: CP-SAT on the 0/1 model; cross-check: HiGHS through SciPy.
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

VARIANT = "set_packing"
SOLVE_LIMIT_S = 30.0


@dataclass(frozen=True)
class Regime:
    items: tuple[int, int]
    groups: tuple[int, int]
    size: tuple[int, int]
    noise: tuple[int, int]
    greedy_must_fail: bool


REGIMES: dict[str, Regime] = {
    "easy": Regime((8, 8), (10, 11), (2, 3), (-2, 3), False),
    "medium": Regime((13, 15), (19, 23), (2, 4), (-3, 5), True),
    "hard": Regime((21, 23), (26, 31), (2, 5), (-4, 7), True),
}


@dataclass(frozen=True)
class Structure:
    items: tuple[str, ...]
    members: tuple[tuple[str, ...], ...]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    items = list(string.ascii_uppercase[: rng.randint(*regime.items)])
    count = rng.randint(*regime.groups)
    family: list[frozenset[str]] = []
    while len(family) < count:
        candidate = frozenset(rng.sample(items, rng.randint(*regime.size)))
        if candidate not in family:
            family.append(candidate)
    return Structure(items=tuple(items), members=tuple(tuple(sorted(group)) for group in family))


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    names = [f"G{j}" for j in range(1, len(structure.members) + 1)]
    weights = [max(1, 3 * len(m) + rng.randint(*regime.noise)) for m in structure.members]
    incidence = [[int(item in m) for m in structure.members] for item in structure.items]
    sizes = [len(m) for m in structure.members]
    return {
        "variant": VARIANT,
        "scenario": VARIANT,
        "difficulty": difficulty,
        "problem_type": VARIANT,
        "objective_type": "maximize_total_weight",
        "sets": {"items": list(structure.items), "candidate_groups": names},
        "weights": weights,
        "subsets": {
            name: {"elements": list(m), "weight": w}
            for name, m, w in zip(names, structure.members, weights, strict=True)
        },
        "incidence_matrix": incidence,
        "meta_parameters": {
            "number_of_elements": len(structure.items),
            "number_of_subsets": len(names),
            "average_subset_size": round(sum(sizes) / len(sizes), 2),
            "weight_distribution_type": "size_correlated_with_noise",
        },
    }


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    problems = []
    if not regime.groups[0] <= len(instance["sets"]["candidate_groups"]) <= regime.groups[1]:
        problems.append("structure: group count outside the regime")
    covered = {e for s in instance["subsets"].values() for e in s["elements"]}
    if covered != set(instance["sets"]["items"]):
        problems.append("structure: an item lies in no group")
    return problems


def _matrix(instance: Mapping[str, Any]) -> np.ndarray:
    return np.array(instance["incidence_matrix"], dtype=float)


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    names = instance["sets"]["candidate_groups"]
    model = cp_model.CpModel()
    take = {name: model.new_bool_var(name) for name in names}
    for item in instance["sets"]["items"]:
        model.add_at_most_one(take[n] for n in names if item in instance["subsets"][n]["elements"])
    model.maximize(sum(instance["subsets"][n]["weight"] * take[n] for n in names))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", solver.status_name(status))
    chosen = [n for n in names if solver.boolean_value(take[n])]
    value = sum(instance["subsets"][n]["weight"] for n in chosen)
    solution = {
        "status": "optimal",
        "objective_value": value,
        "objective_exact": value,
        "selected_groups": chosen,
        "selected_group_count": len(chosen),
    }
    return ReferenceSolution(solution=solution, method="ortools.sat CP-SAT (0/1 model, proven optimal)")


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    weights = np.array(instance["weights"], dtype=float)
    result = milp(
        -weights,
        constraints=LinearConstraint(_matrix(instance), lb=-np.inf, ub=1.0),
        integrality=np.ones_like(weights),
        bounds=Bounds(0, 1),
    )
    if result.status != 0:
        raise Rejected("cross-check: MILP did not solve", str(result.message))
    return "scipy.optimize.milp (HiGHS branch and bound)", round(-float(result.fun), 6)


def greedy_weight(instance: Mapping[str, Any]) -> int:
    """Weight of the greedy that takes groups by weight per item while they stay disjoint."""
    subsets = instance["subsets"]
    order = sorted(subsets, key=lambda n: (-subsets[n]["weight"] / len(subsets[n]["elements"]), n))
    used: set[str] = set()
    total = 0
    for name in order:
        members = set(subsets[name]["elements"])
        if not members & used:
            used |= members
            total += subsets[name]["weight"]
    return total


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    if reference.solution["selected_group_count"] < 2:
        return ["nontrivial: a single group is optimal"]
    if (
        REGIMES[difficulty].greedy_must_fail
        and greedy_weight(instance) >= reference.solution["objective_value"]
    ):
        return ["nontrivial: the weight-per-item greedy is optimal"]
    return []
