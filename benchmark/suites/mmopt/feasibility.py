"""Scoring feasibility-type answers (DESIGN §4): instances that ask whether a solution exists.

Some graph-colouring and logical instances are decision problems: "can this graph be coloured with
k colours?", "is this model satisfiable?". Their verified answer is a status in
``solution_ref.json`` (``"feasible"`` or ``"infeasible"``), not an objective value, so they are
scored apart from the objective comparison of :mod:`.scoring`:

- the verified answer is ``infeasible``: passed exactly when ``solve()`` reports so;
- the verified answer is ``feasible``: a reported ``infeasible`` is a wrong answer; otherwise the
  returned decisions (the colouring, the assignment) must pass the subcategory's validator, which
  is the whole proof of feasibility. No objective is read.

A wrong status is a ``wrong_objective`` failure (for a decision problem the status *is* the
answer); invalid decisions are ``infeasible_solution``, as for optimization instances.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from benchmark.suites.mmopt.categories import MmoptCategory
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.verdict import Verdict

#: Statuses (lower case, spaces and hyphens as underscores) that claim no solution exists.
INFEASIBLE_CLAIMS = frozenset(
    {"infeasible", "unsat", "unsatisfiable", "no_solution", "not_colorable", "not_k_colorable", "none"}
)
#: Boolean answer keys a model may return instead of (or beside) the status.
ANSWER_KEYS = (
    "is_k_colorable",
    "k_colorable",
    "colorable",
    "satisfiable",
    "feasible",
    "is_satisfiable",
    "is_feasible",
)


def is_feasibility_type(solution_ref: Mapping[str, Any]) -> bool:
    return str(solution_ref.get("status", "")).lower() in ("feasible", "infeasible")


def claims_infeasible(result: Mapping[str, Any]) -> bool:
    """Whether the returned dict says that no solution exists (by status or a boolean answer key)."""
    status = str(result.get("status", "")).strip().lower().replace(" ", "_").replace("-", "_")
    if status in INFEASIBLE_CLAIMS:
        return True
    return any(result.get(key) is False for key in ANSWER_KEYS)


def score_feasibility(
    result: Mapping[str, Any],
    *,
    subcategory: str,
    instance: Mapping[str, Any],
    solution_ref: Mapping[str, Any],
    objective_only: bool,
    common: dict[str, Any],
    reading: Callable[[Any, Mapping[str, Any], Mapping[str, Any]], SolutionCheck] | None = None,
) -> Verdict:
    """The verdict on a normalized ``solve()`` result for a feasibility-type instance; ``reading``
    (validator, instance, result) checks the decisions in place of the validator's own check
    (``--scoring=official`` passes the release's reading)."""
    said = str(result.get("status", "")).strip().lower()
    infeasible_claim = claims_infeasible(result)
    if str(solution_ref["status"]).lower() == "infeasible":
        if infeasible_claim:
            return Verdict(passed=True, **common)
        return Verdict.fail(
            MmoptCategory.WRONG_OBJECTIVE,
            f"no solution exists, but solve() reported status {said!r}",
            **common,
        )
    if infeasible_claim:
        return Verdict.fail(
            MmoptCategory.WRONG_OBJECTIVE,
            f"a solution exists, but solve() reported status {said!r}",
            **common,
        )
    validator = None if objective_only else get_subcategory(subcategory)
    if validator is None:
        return Verdict(passed=True, extra={"decisions_checked": False}, **common)
    check = (
        validator.check_solution(instance, result)
        if reading is None
        else reading(validator, instance, result)
    )
    if not check.feasible:
        return Verdict.fail(
            MmoptCategory.INFEASIBLE_SOLUTION,
            "; ".join(check.problems) or "the returned decisions are infeasible",
            extra={"decisions_checked": True},
            **common,
        )
    return Verdict(passed=True, extra={"decisions_checked": True}, **common)
