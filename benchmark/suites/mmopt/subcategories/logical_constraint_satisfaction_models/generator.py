"""Logical constraint satisfaction instances, satisfiable and unsatisfiable, by size and clause mix.

Variables ``x1 … xn`` fall into clusters (contiguous index ranges); a clause draws its variables
from one cluster, or across clusters with a small probability, so the clause-variable matrix shows
coupled blocks as in the official release. Clauses mix two- and three-literal rows (and a few
four-literal rows at hard); implications form one chain ``u1 → u2 → …``; at-most-one groups and,
from medium on, at-most-k cardinality rows couple further variables. Hard instances embed an
all-different block: three tasks each take one of three slots (one-hot variables, a clause "some
slot" per task, at most one slot per task) and no two tasks share a slot, both "at most one"
written as binary clauses ¬a ∨ ¬b, so the at-most-one groups (two to four) and the clause count
(about 66) centre on the official release's hard medians.

Each candidate is drawn as satisfiable or unsatisfiable. A satisfiable one is kept when CP-SAT
finds an assignment and neither the all-false nor the all-true assignment works. For an
unsatisfiable one, clauses from the same distribution are added one at a time until the model
becomes infeasible (a near-critical formula, not a planted contradiction); its infeasibility is
certified by CP-SAT and, independently, by a HiGHS MILP.

Reference: CP-SAT; a satisfiable instance's assignment is the lexicographically smallest one
(weights 2^(n-j) on x_j), so the shipped answer does not depend on the solver's search.
Cross-check: the same model as a HiGHS feasibility MILP (1.0 feasible, 0.0 infeasible).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.subcategories.logical_constraint_satisfaction_models.validator import (
    is_negative,
    violations,
)

VARIANT = "logical_constraint_satisfaction"
POSITIVE, NEGATIVE = "+", "−"  # the official release's signs (U+2212 for negative)
SATISFIABLE, UNSATISFIABLE = "satisfiable", "unsatisfiable"
SOLVE_LIMIT_S = 30.0
BLOCK_TASKS = BLOCK_SLOTS = 3


@dataclass(frozen=True)
class Regime:
    variables: tuple[int, int]
    density: tuple[float, float]  # base clauses per variable
    lengths: tuple[tuple[int, float], ...]  # (literals, weight)
    clusters: tuple[int, int]
    cross_cluster: float
    chain: tuple[int, int]  # implication chain length
    at_most_one: tuple[int, int]
    cardinality: tuple[int, int]
    all_different: bool
    unsat_share: float


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        (14, 16), (1.3, 1.6), ((2, 0.55), (3, 0.45)), (2, 3), 0.2, (3, 4), (2, 2), (0, 0), False, 0.3
    ),
    "medium": Regime(
        (22, 26), (1.5, 1.8), ((2, 0.4), (3, 0.6)), (2, 3), 0.3, (5, 7), (2, 3), (1, 1), False, 0.3
    ),
    "hard": Regime(
        (32, 36),
        (1.6, 1.9),
        ((2, 0.3), (3, 0.62), (4, 0.08)),
        (3, 4),
        0.35,
        (8, 11),
        (2, 4),
        (2, 2),
        True,
        0.35,
    ),
}
MAX_ADDED_PER_VARIABLE = 1.5  # an unsatisfiable candidate may grow by at most this many clauses per variable


@dataclass(frozen=True)
class Structure:
    variables: tuple[str, ...]
    clauses: tuple[tuple[tuple[str, str], ...], ...]  # (variable, sign) literals
    implications: tuple[tuple[str, str], ...]
    at_most_one: tuple[tuple[str, ...], ...]
    cardinality: tuple[tuple[tuple[str, ...], int], ...]
    block: tuple[tuple[str, ...], ...]  # all-different block: one row of slot variables per task
    kind: str
    added_clauses: int


class _ClauseSampler:
    """Random clauses over clustered variables (no repeated variable in a clause, none twice)."""

    def __init__(self, rng: random.Random, regime: Regime, free: list[str]) -> None:
        self.rng, self.regime, self.free = rng, regime, free
        count = rng.randint(*regime.clusters)
        size = -(-len(free) // count)
        self.clusters = [free[i : i + size] for i in range(0, len(free), size)]
        self.seen: set[frozenset[tuple[str, str]]] = set()

    def draw(self) -> tuple[tuple[str, str], ...]:
        lengths, weights = zip(*self.regime.lengths, strict=True)
        while True:
            length = self.rng.choices(lengths, weights)[0]
            pool = (
                self.free if self.rng.random() < self.regime.cross_cluster else self.rng.choice(self.clusters)
            )
            if len(pool) < length:
                pool = self.free
            chosen = sorted(self.rng.sample(pool, length), key=_index)
            clause = tuple((v, self.rng.choice((POSITIVE, NEGATIVE))) for v in chosen)
            if frozenset(clause) not in self.seen:
                self.seen.add(frozenset(clause))
                return clause


def _index(variable: str) -> int:
    return int(variable[1:])


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    n = rng.randint(*regime.variables)
    variables = [f"x{j}" for j in range(1, n + 1)]
    block: list[tuple[str, ...]] = []
    if regime.all_different:
        start = rng.randint(0, n - BLOCK_TASKS * BLOCK_SLOTS)
        cells = variables[start : start + BLOCK_TASKS * BLOCK_SLOTS]
        block = [tuple(cells[t * BLOCK_SLOTS : (t + 1) * BLOCK_SLOTS]) for t in range(BLOCK_TASKS)]
    in_block = {v for row in block for v in row}
    free = [v for v in variables if v not in in_block]
    sampler = _ClauseSampler(rng, regime, free)
    clauses = [tuple((v, POSITIVE) for v in row) for row in block]  # each task takes some slot
    # At most one slot per task and one task per slot, as binary clauses (¬a ∨ ¬b): the release
    # counts two to four at-most-one groups at hard, none of them a block's.
    lines = [*block, *zip(*block, strict=True)]
    clauses += [((a, NEGATIVE), (b, NEGATIVE)) for line in lines for a, b in itertools.combinations(line, 2)]
    clauses += [sampler.draw() for _ in range(round(rng.uniform(*regime.density) * len(free)))]
    chain = rng.sample(free, rng.randint(*regime.chain) + 1)
    implications = list(itertools.pairwise(chain))
    at_most_one: list[tuple[str, ...]] = []
    for _ in range(rng.randint(*regime.at_most_one)):
        at_most_one.append(tuple(sorted(rng.sample(free, rng.randint(2, 3)), key=_index)))
    cardinality = []
    for _ in range(rng.randint(*regime.cardinality)):
        members = tuple(sorted(rng.sample(free, rng.randint(4, 6)), key=_index))
        cardinality.append((members, rng.randint(2, 3)))
    kind = UNSATISFIABLE if rng.random() < regime.unsat_share else SATISFIABLE
    structure = Structure(
        variables=tuple(variables),
        clauses=tuple(clauses),
        implications=tuple(implications),
        at_most_one=tuple(at_most_one),
        cardinality=tuple(cardinality),
        block=tuple(block),
        kind=kind,
        added_clauses=0,
    )
    if kind == SATISFIABLE:
        return structure
    added = 0
    while _status(_as_instance(structure)) != "infeasible":  # grow to the edge of satisfiability
        if added >= MAX_ADDED_PER_VARIABLE * n:
            raise Rejected("structure: no infeasibility within the added-clause budget")
        clauses.append(sampler.draw())
        added += 1
        structure = replace(structure, clauses=tuple(clauses), added_clauses=added)
    return structure


def _as_instance(structure: Structure) -> dict[str, Any]:
    return instantiate(random.Random(0), structure, "")


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    variables = list(structure.variables)
    column = {v: j for j, v in enumerate(variables)}
    clauses = [
        {"name": f"C{i}", "literals": [{"variable": v, "sign": s} for v, s in clause]}
        for i, clause in enumerate(structure.clauses, start=1)
    ]
    matrix = []
    for clause in structure.clauses:
        row = [0] * len(variables)
        for v, s in clause:
            row[column[v]] = -1 if s == NEGATIVE else 1
        matrix.append(row)
    lengths = [len(c) for c in structure.clauses]
    instance: dict[str, Any] = {
        "variant": VARIANT,
        "scenario": VARIANT,
        "difficulty": difficulty,
        "problem_type": VARIANT,
        "objective_type": "pure_feasibility",
        "sets": {"variables": variables, "clauses": [c["name"] for c in clauses]},
        "clauses": clauses,
        "implications": [
            {"name": f"I{i}", "if_variable": u, "then_variable": v}
            for i, (u, v) in enumerate(structure.implications, start=1)
        ],
        "at_most_one_groups": [
            {"name": f"A{i}", "variables": list(group)}
            for i, group in enumerate(structure.at_most_one, start=1)
        ],
    }
    if structure.cardinality:
        instance["cardinality_constraints"] = [
            {"name": f"K{i}", "variables": list(members), "rhs": bound}
            for i, (members, bound) in enumerate(structure.cardinality, start=1)
        ]
    instance["clause_variable_matrix"] = matrix
    instance["meta_parameters"] = {
        "number_of_variables": len(variables),
        "number_of_clauses": len(clauses)
        + len(structure.implications)
        + len(structure.at_most_one)
        + len(structure.cardinality),
        "clause_count": len(clauses),
        "implication_count": len(structure.implications),
        "at_most_one_group_count": len(structure.at_most_one),
        "cardinality_constraint_count": len(structure.cardinality),
        "clause_density": round(len(clauses) / len(variables), 4),
        "clause_type_distribution": {f"{k}_sat": lengths.count(k) for k in (2, 3, 4)},
        "implication_chain_depth": len(structure.implications),
        "all_different_block": [list(row) for row in structure.block],
        "satisfiable_flag": structure.kind == SATISFIABLE,
        "visual_type": "clause_variable_matrix",
        "matrix_height": len(clauses),
        "matrix_width": len(variables),
        "matrix_fill_ratio": round(sum(lengths) / (len(clauses) * len(variables)), 4),
    }
    return instance


def _cp_model(instance: Mapping[str, Any]) -> tuple[cp_model.CpModel, dict[str, cp_model.IntVar]]:
    model = cp_model.CpModel()
    x = {v: model.new_bool_var(v) for v in instance["sets"]["variables"]}
    for clause in instance["clauses"]:
        model.add_bool_or(
            [
                x[lit["variable"]].Not() if is_negative(lit["sign"]) else x[lit["variable"]]
                for lit in clause["literals"]
            ]
        )
    for rule in instance.get("implications", []):
        model.add_implication(x[rule["if_variable"]], x[rule["then_variable"]])
    for group in instance.get("at_most_one_groups", []):
        model.add_at_most_one(x[v] for v in group["variables"])
    for row in instance.get("cardinality_constraints", []):
        model.add(sum(x[v] for v in row["variables"]) <= row["rhs"])
    return model, x


def _solve(instance: Mapping[str, Any], lexicographic: bool) -> tuple[str, dict[str, int] | None]:
    model, x = _cp_model(instance)
    variables = list(instance["sets"]["variables"])
    if lexicographic:
        model.minimize(sum((1 << (len(variables) - j)) * x[v] for j, v in enumerate(variables, start=1)))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return "infeasible", None
    if status == cp_model.OPTIMAL or (status == cp_model.FEASIBLE and not lexicographic):
        return "feasible", {v: int(solver.boolean_value(x[v])) for v in variables}
    return solver.status_name(status), None


def _status(instance: Mapping[str, Any]) -> str:
    return _solve(instance, lexicographic=False)[0]


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    variables = instance["sets"]["variables"]
    problems = []
    if not regime.variables[0] <= len(variables) <= regime.variables[1]:
        problems.append("structure: variable count outside the regime")
    used = {lit["variable"] for c in instance["clauses"] for lit in c["literals"]}
    used |= {v for r in instance["implications"] for v in (r["if_variable"], r["then_variable"])}
    used |= {v for g in instance["at_most_one_groups"] for v in g["variables"]}
    used |= {v for r in instance.get("cardinality_constraints", []) for v in r["variables"]}
    if used != set(variables):
        problems.append("structure: a variable appears in no row")
    column = {v: j for j, v in enumerate(variables)}
    for clause, row in zip(instance["clauses"], instance["clause_variable_matrix"], strict=True):
        expected = [0] * len(variables)
        for lit in clause["literals"]:
            expected[column[lit["variable"]]] = -1 if is_negative(lit["sign"]) else 1
        if expected != row:
            problems.append("structure: clause-variable matrix disagrees with the clauses")
            break
    return problems


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    status, assignment = _solve(instance, lexicographic=True)
    if status == "infeasible":
        solution: dict[str, Any] = {"status": "infeasible", "is_feasible": False}
    elif status == "feasible" and assignment is not None:
        solution = {
            "status": "feasible",
            "is_feasible": True,
            "assignment": assignment,
            "true_variables": [v for v, b in assignment.items() if b],
            "false_variables": [v for v, b in assignment.items() if not b],
        }
    else:
        raise Rejected("reference: solver did not certify optimality", status)
    method = "ortools.sat CP-SAT (Boolean model; infeasibility proven, or the lexicographically least model)"
    return ReferenceSolution(solution=solution, method=method)


def milp_feasible(instance: Mapping[str, Any]) -> bool:
    """The same rows as a HiGHS feasibility MILP: a clause Σ_pos x − Σ_neg x ≥ 1 − |neg|, an
    implication x_u − x_v ≤ 0, an at-most-one or cardinality row Σ x ≤ bound."""
    variables = list(instance["sets"]["variables"])
    column = {v: j for j, v in enumerate(variables)}
    rows, lower, upper = [], [], []

    def add(coefficients: dict[str, float], lo: float, hi: float) -> None:
        row = np.zeros(len(variables))
        for v, a in coefficients.items():
            row[column[v]] += a
        rows.append(row)
        lower.append(lo)
        upper.append(hi)

    for clause in instance["clauses"]:
        negatives = sum(1 for lit in clause["literals"] if is_negative(lit["sign"]))
        add(
            {lit["variable"]: -1.0 if is_negative(lit["sign"]) else 1.0 for lit in clause["literals"]},
            1.0 - negatives,
            np.inf,
        )
    for rule in instance.get("implications", []):
        add({rule["if_variable"]: 1.0, rule["then_variable"]: -1.0}, -np.inf, 0.0)
    for group in instance.get("at_most_one_groups", []):
        add(dict.fromkeys(group["variables"], 1.0), -np.inf, 1.0)
    for row in instance.get("cardinality_constraints", []):
        add(dict.fromkeys(row["variables"], 1.0), -np.inf, float(row["rhs"]))
    result = milp(
        np.zeros(len(variables)),
        constraints=LinearConstraint(np.array(rows), lb=lower, ub=upper),
        integrality=np.ones(len(variables)),
        bounds=Bounds(0, 1),
    )
    if result.status not in (0, 2):
        raise Rejected("cross-check: MILP did not solve", str(result.message))
    return bool(result.status == 0)


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    return "scipy.optimize.milp (HiGHS feasibility MILP)", 1.0 if milp_feasible(instance) else 0.0


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    """The verified answer must be the kind the candidate was drawn as, and a satisfiable instance
    may not be satisfied by the all-false or the all-true assignment."""
    variables = instance["sets"]["variables"]
    drawn_as = instance["meta_parameters"]["satisfiable_flag"]
    if drawn_as != (reference.solution["status"] == "feasible"):
        return ["structure: the solver's answer differs from the drawn kind"]
    if reference.solution["status"] == "feasible":
        for value in (0, 1):
            if not violations(instance, dict.fromkeys(variables, value)):
                return [f"nontrivial: the all-{'true' if value else 'false'} assignment is satisfying"]
    return []
