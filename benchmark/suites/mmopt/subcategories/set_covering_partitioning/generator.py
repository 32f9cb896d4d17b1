"""Set covering and set partitioning instances (location/covering/assignment family).

An instance is a family of subsets of a ground set, each with a selection cost. The *covering*
variant asks for a cheapest selection that contains every element at least once; the
*partitioning* variant asks for every element exactly once. Easy instances are small covering
problems; medium and hard ones draw either variant. Partitioning instances plant a few disjoint
block partitions of the ground set among random subsets, so a feasible selection exists by
construction while the planted blocks compete with the random ones on cost.

Costs grow with subset size plus noise, which makes large subsets look cheap per element. The
verified optimum must then be a real optimization result: more than one subset but not all of
them, every element a choice of at least two subsets, and at medium and hard the cheapest-per-new-
element greedy must not reach the optimum (or, for partitioning, get stuck).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

COVERING = "covering"
PARTITIONING = "partitioning"
SOLVE_LIMIT_S = 30.0


@dataclass(frozen=True)
class Regime:
    """Ground-set size, subset count and size ranges (inclusive), variants drawn, cost model."""

    elements: tuple[int, int]
    subsets: tuple[int, int]
    subset_size: tuple[int, int]
    variants: tuple[str, ...]
    unit_cost: tuple[int, int]  # cost per element of a subset, before noise
    noise: tuple[int, int]
    planted_partitions: int  # partitioning only
    greedy_must_fail: bool


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        elements=(7, 8),
        subsets=(7, 9),
        subset_size=(2, 4),
        variants=(COVERING,),
        unit_cost=(3, 6),
        noise=(-3, 6),
        planted_partitions=0,
        greedy_must_fail=False,
    ),
    "medium": Regime(
        elements=(18, 22),
        subsets=(16, 20),
        subset_size=(3, 7),
        variants=(COVERING, PARTITIONING),
        unit_cost=(3, 7),
        noise=(-4, 8),
        planted_partitions=3,
        greedy_must_fail=True,
    ),
    "hard": Regime(
        elements=(34, 42),
        subsets=(27, 34),
        subset_size=(4, 10),
        variants=(COVERING, PARTITIONING),
        unit_cost=(3, 7),
        noise=(-5, 9),
        planted_partitions=3,
        greedy_must_fail=True,
    ),
}


@dataclass(frozen=True)
class Structure:
    variant: str
    elements: tuple[str, ...]
    members: tuple[tuple[str, ...], ...]  # one tuple of element names per subset, in subset order


def element_name(index: int) -> str:
    return f"e{index}"


def subset_name(index: int) -> str:
    return f"S{index}"


def _planted_blocks(
    rng: random.Random, elements: Sequence[str], size: tuple[int, int]
) -> list[frozenset[str]]:
    """A random partition of ``elements`` into blocks of the regime's subset sizes."""
    order = list(elements)
    rng.shuffle(order)
    blocks = []
    while order:
        take = min(len(order), rng.randint(*size))
        if len(order) - take == 1:  # never leave a singleton block behind
            take += 1
        blocks.append(frozenset(order[:take]))
        order = order[take:]
    return blocks


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    variant = rng.choice(regime.variants)
    elements = [element_name(i) for i in range(1, rng.randint(*regime.elements) + 1)]
    count = rng.randint(*regime.subsets)
    family: list[frozenset[str]] = []
    if variant == PARTITIONING:
        for _ in range(regime.planted_partitions):
            family += [b for b in _planted_blocks(rng, elements, regime.subset_size) if b not in family]
    while len(family) < count:
        candidate = frozenset(rng.sample(elements, rng.randint(*regime.subset_size)))
        if candidate not in family:
            family.append(candidate)
    family = family[:count] if variant == COVERING else family
    rng.shuffle(family)
    position = {e: i for i, e in enumerate(elements)}
    members = tuple(tuple(sorted(block, key=position.__getitem__)) for block in family)
    return Structure(variant=variant, elements=tuple(elements), members=members)


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    unit = rng.randint(*regime.unit_cost)
    subsets = []
    for index, members in enumerate(structure.members, start=1):
        cost = max(2, unit * len(members) + rng.randint(*regime.noise))
        subsets.append({"id": subset_name(index), "cost": cost, "elements": list(members)})
    return official_instance(structure.variant, list(structure.elements), subsets)


def official_instance(variant: str, elements: list[str], subsets: list[dict[str, Any]]) -> dict[str, Any]:
    """The official schema: ``variant_type`` (``set_covering``/``set_partitioning``), ``sets.E``
    and ``sets.S``, ``candidate_subsets: {name: {covered_elements, cost, cardinality}}``,
    ``subset_costs`` and ``element_to_subsets``."""
    return {
        "problem_type": "set_covering_partitioning",
        "variant_type": f"set_{variant}",
        "sets": {"E": elements, "S": [s["id"] for s in subsets]},
        "candidate_subsets": {
            s["id"]: {"covered_elements": s["elements"], "cost": s["cost"], "cardinality": len(s["elements"])}
            for s in subsets
        },
        "subset_costs": {s["id"]: s["cost"] for s in subsets},
        "element_to_subsets": {e: [s["id"] for s in subsets if e in s["elements"]] for e in elements},
    }


def variant_of(instance: Mapping[str, Any]) -> str:
    """``covering`` or ``partitioning``, from the official ``variant_type``."""
    return str(instance["variant_type"]).removeprefix("set_")


def elements_of(instance: Mapping[str, Any]) -> list[str]:
    return list(instance["sets"]["E"])


def subsets_of(instance: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The candidate subsets in order, each as ``{id, cost, elements}``."""
    return [
        {"id": name, "cost": instance["candidate_subsets"][name]["cost"],
         "elements": list(instance["candidate_subsets"][name]["covered_elements"])}
        for name in instance["sets"]["S"]
    ]  # fmt: skip


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    elements = list(elements_of(instance))
    subsets = subsets_of(instance)
    problems = []
    if not regime.elements[0] <= len(elements) <= regime.elements[1]:
        problems.append("structure: element count outside the regime")
    if not regime.subsets[0] <= len(subsets) <= regime.subsets[1]:
        problems.append("structure: subset count outside the regime")
    if len({frozenset(s["elements"]) for s in subsets}) != len(subsets):
        problems.append("structure: two subsets hold the same elements")
    for element in elements:
        if sum(element in s["elements"] for s in subsets) < 2:
            problems.append("structure: an element lies in fewer than two subsets")
            break
    return problems


def _incidence(instance: Mapping[str, Any]) -> np.ndarray:
    """Elements × subsets 0/1 matrix."""
    row = {e: i for i, e in enumerate(elements_of(instance))}
    matrix = np.zeros((len(row), len(subsets_of(instance))), dtype=int)
    for j, subset in enumerate(subsets_of(instance)):
        for element in subset["elements"]:
            matrix[row[element], j] = 1
    return matrix


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """CP-SAT on the 0/1 model, one worker and a fixed seed so the returned optimum is reproducible."""
    subsets = subsets_of(instance)
    matrix = _incidence(instance)
    model = cp_model.CpModel()
    chosen = [model.new_bool_var(s["id"]) for s in subsets]
    for i in range(matrix.shape[0]):
        covering = sum(chosen[j] for j in np.flatnonzero(matrix[i]))
        model.add(covering == 1 if variant_of(instance) == PARTITIONING else covering >= 1)
    model.minimize(sum(s["cost"] * x for s, x in zip(subsets, chosen, strict=True)))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", solver.status_name(status))
    selected = [s["id"] for s, x in zip(subsets, chosen, strict=True) if solver.boolean_value(x)]
    cost = round(solver.objective_value)
    solution = {
        "status": "optimal",
        "objective_value": cost,
        "objective_exact": cost,
        "selected_subsets": selected,
    }
    return ReferenceSolution(solution=solution, method="ortools.sat CP-SAT (0/1 model, proven optimal)")


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """The same 0/1 program solved by HiGHS branch and bound through SciPy."""
    matrix = _incidence(instance)
    costs = np.array([s["cost"] for s in subsets_of(instance)], dtype=float)
    upper = 1.0 if variant_of(instance) == PARTITIONING else np.inf
    result = milp(
        c=costs,
        constraints=LinearConstraint(matrix, lb=1.0, ub=upper),
        integrality=np.ones_like(costs),
        bounds=Bounds(0.0, 1.0),
    )
    if result.status != 0:
        raise Rejected("cross-check: MILP did not solve", str(result.message))
    return "scipy.optimize.milp (HiGHS branch and bound)", round(float(result.fun), 6)


def greedy_cost(instance: Mapping[str, Any]) -> int | None:
    """Cost of the cheapest-per-newly-covered-element greedy; ``None`` when it gets stuck (only
    possible in the partitioning variant, where a pick may not overlap earlier picks)."""
    partition = variant_of(instance) == PARTITIONING
    uncovered = set(elements_of(instance))
    covered: set[str] = set()
    total = 0
    while uncovered:
        best: tuple[float, int, Mapping[str, Any]] | None = None
        for index, subset in enumerate(subsets_of(instance)):
            members = set(subset["elements"])
            new = members & uncovered
            if not new or (partition and members & covered):
                continue
            ratio = subset["cost"] / len(new)
            if best is None or (ratio, index) < best[:2]:
                best = (ratio, index, subset)
        if best is None:
            return None
        members = set(best[2]["elements"])
        uncovered -= members
        covered |= members
        total += int(best[2]["cost"])
    return total


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    selected = reference.solution["selected_subsets"]
    if len(selected) < 2:
        return ["nontrivial: a single subset covers everything"]
    if len(selected) == len(subsets_of(instance)):
        return ["nontrivial: every subset is selected"]
    if REGIMES[difficulty].greedy_must_fail:
        greedy = greedy_cost(instance)
        if greedy is not None and greedy <= reference.solution["objective_exact"]:
            return ["nontrivial: the cheapest-per-element greedy is optimal"]
    return []
