"""Scoring-time check of a returned truth assignment (official key ``assignment``).

Reads the official release's instance schema directly: ``clauses`` (literals with sign ``+`` or
``−``), ``implications`` (``if_variable`` → ``then_variable``), ``at_most_one_groups`` and
``cardinality_constraints`` (at most ``rhs`` of ``variables`` true). The last three may be absent
from an official instance (easy ones have no cardinality rows), so they are read with ``.get``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.suites.mmopt.generation import decisions
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

ASSIGNMENT_KEYS = ("assignment", "variable_assignment", "variable_values", "values", "truth_assignment")
TRUE_LIST_KEYS = ("true_variables", "variables_true", "true_vars")
#: Instance keys an official instance may lack (read with ``.get``; see tests/test_official_parity.py).
OPTIONAL_KEYS = ("implications", "at_most_one_groups", "cardinality_constraints")
NEGATIVE_SIGNS = frozenset({"-", "−", "－", "neg", "negative"})
_TRUE_WORDS = {"true": 1, "false": 0, "1": 1, "0": 0, "t": 1, "f": 0, "yes": 1, "no": 0}


def is_negative(sign: Any) -> bool:
    return str(sign).strip().lower() in NEGATIVE_SIGNS or sign == -1


def literal_text(literal: Mapping[str, Any]) -> str:
    return ("¬" if is_negative(literal["sign"]) else "") + str(literal["variable"])


def _bit(value: Any) -> int | None:
    """0 or 1 from a bool, an integral number 0/1 (1.0 counts) or a word; None otherwise."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float) and value in (0, 1):
        return int(value)
    if isinstance(value, str):
        return _TRUE_WORDS.get(value.strip().lower())
    return None


def read_assignment(
    solution: Mapping[str, Any], variables: Sequence[str]
) -> tuple[dict[str, int], list[str]]:
    """Variable → 0/1 from a dict keyed by variable name, a list in variable order, or a list of
    the true variables (every other variable then false)."""
    known = {v.lower(): v for v in variables}
    raw = decisions.first_present(solution, ASSIGNMENT_KEYS)
    if raw is None:
        listed = decisions.first_present(solution, TRUE_LIST_KEYS)
        if not isinstance(listed, list | tuple):
            return {}, ["no assignment returned"]
        true = {known.get(str(name).strip().lower()) for name in listed}
        unknown = [
            f"unknown variable {name!r}" for name in listed if known.get(str(name).strip().lower()) is None
        ]
        return {v: int(v in true) for v in variables}, unknown
    if isinstance(raw, list | tuple) and len(raw) == len(variables):
        raw = dict(zip(variables, raw, strict=True))
    if not isinstance(raw, Mapping):
        return {}, ["assignment is neither a dict variable -> 0/1 nor a list in variable order"]
    assignment: dict[str, int] = {}
    problems = []
    named: set[str] = set()
    for key, value in raw.items():
        variable = known.get(str(key).strip().lower())
        bit = _bit(value)
        if variable is not None:
            named.add(variable)
        if variable is None:
            problems.append(f"unknown variable {key!r}")
        elif bit is None:
            problems.append(f"variable {variable}: value {value!r} is not 0/1 or true/false")
        else:
            assignment[variable] = bit
    problems += [f"variable {v} has no value" for v in variables if v not in named]
    return assignment, problems


def violations(instance: Mapping[str, Any], assignment: Mapping[str, int]) -> list[str]:
    """Every row of the model that ``assignment`` (complete, 0/1) violates, named as in the figure."""
    problems = []
    for clause in instance["clauses"]:
        if not any(
            assignment[lit["variable"]] == (0 if is_negative(lit["sign"]) else 1)
            for lit in clause["literals"]
        ):
            literals = " ∨ ".join(literal_text(lit) for lit in clause["literals"])
            problems.append(f"clause {clause['name']} ({literals}) is not satisfied")
    for rule in instance.get("implications", []):
        if assignment[rule["if_variable"]] == 1 and assignment[rule["then_variable"]] == 0:
            problems.append(
                f"implication {rule['name']} ({rule['if_variable']} -> {rule['then_variable']}) is violated"
            )
    for group in instance.get("at_most_one_groups", []):
        true = [v for v in group["variables"] if assignment[v] == 1]
        if len(true) > 1:
            problems.append(
                f"at-most-one group {group['name']} has {len(true)} true variables ({', '.join(true)})"
            )
    for row in instance.get("cardinality_constraints", []):
        true = [v for v in row["variables"] if assignment[v] == 1]
        if len(true) > row["rhs"]:
            problems.append(
                f"cardinality row {row['name']} has {len(true)} true variables, at most {row['rhs']} allowed"
            )
    return problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """A complete 0/1 assignment of the instance's variables that satisfies every clause,
    implication, at-most-one group and cardinality row. There is no objective to recompute."""
    assignment, problems = read_assignment(solution, list(instance["sets"]["variables"]))
    if not problems:
        problems = violations(instance, assignment)
    return SolutionCheck(feasible=not problems, objective=None, problems=tuple(problems))
