"""Stage-1 scoring: the returned objective against the verified optimum, and the returned decisions
against the instance (MM-OptBench §3.3, App. F.1; DESIGN §4).

Objective tolerance is absolute: 1e-6 by default, with the official release's per-subcategory
floors. Unless ``objective_only`` is set, the subcategory's validator checks the decisions for
feasibility and recomputes the objective from them; a reported objective that disagrees with the
recomputed one makes the answer ``infeasible_solution`` even when the number is right.

Accepted result shapes (documented for model authors):

- keys may sit at the top level or inside a nested ``solution`` or ``decisions`` dict (lifted out;
  top-level keys win);
- the objective is read from the first of :data:`OBJECTIVE_KEYS` present;
- decision keys are renamed to their canonical names by :data:`DECISION_ALIASES`.

Two modes (``--scoring``). On an instance in the official release's schema, the subcategory's
``official`` rules (:mod:`benchmark.suites.mmopt.official`) check the decisions; ``official``
then gives the official verdict, and ``strict`` (default) adds the rules common to every
subcategory (a failure status is wrong, an objective must be reported, the objective recomputed
from the decisions must match the optimum) and the subcategory's own stricter findings. Our own
packages still use the project's earlier schema and its validators; on them ``official`` drops
the status rule (except for maximum flow), treats an unparsable objective as absent and falls
back to the next objective key or the recomputed objective, and passes over a decision field of
the wrong shape (:func:`official_reading`), as the official scorer does.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping
from typing import Any

from benchmark.categories import ExecutionCategory
from benchmark.sandbox import ExecutionResult, Outcome
from benchmark.suites.mmopt import official_objective, tolerances
from benchmark.suites.mmopt.categories import MmoptCategory
from benchmark.suites.mmopt.feasibility import is_feasibility_type, score_feasibility
from benchmark.suites.mmopt.official import DEFAULT_SCORING, ScoringMode, official_schema
from benchmark.suites.mmopt.package import REFERENCE_OBJECTIVE_KEYS
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import OfficialCheck, SolutionCheck, Subcategory
from benchmark.verdict import Verdict

DEFAULT_TOLERANCE = tolerances.DEFAULT_OBJECTIVE
#: The official release's absolute-tolerance floors (DESIGN §4): the table itself, not a copy.
TOLERANCE_FLOORS: dict[str, float] = tolerances.OBJECTIVE_FLOORS
OBJECTIVE_KEYS: tuple[str, ...] = (
    "objective_value",
    "objective",
    "objective_exact",
    "total_cost",
    "cost",
    "value",
    "makespan",
    "optimal_value",
    "obj_value",
    "max_flow_value",
    "max_flow",
    "flow_value",
    "min_cost",
)
NESTED_KEYS: tuple[str, ...] = ("solution", "decisions")
DECISION_ALIASES: dict[str, str] = {
    "flow": "flows",
    "arc_flows": "flows",
    "flow_values": "flows",
    "x": "flows",
    "min_cut_s": "min_cut_S",
    "min_cut_t": "min_cut_T",
    "cut_S": "min_cut_S",
    "cut_T": "min_cut_T",
    "source_side": "min_cut_S",
    "sink_side": "min_cut_T",
    "selected_subsets": "selected",
    "matching": "assignment",
}
_FAILED_STATUSES = {"infeasible", "unbounded", "error", "failed", "failure", "not_solved", "no_solution"}


def tolerance_for(subcategory: str) -> float:
    return tolerances.objective_tolerance(subcategory)


def lift_nested(value: Mapping[str, Any]) -> dict[str, Any]:
    """Lift nested ``solution``/``decisions`` keys to the top level (top-level keys win)."""
    result: dict[str, Any] = {}
    for nested in NESTED_KEYS:
        inner = value.get(nested)
        if isinstance(inner, Mapping):
            result.update(inner)
    result.update({k: v for k, v in value.items() if k not in NESTED_KEYS or not isinstance(v, Mapping)})
    return result


def normalize_result(value: Mapping[str, Any]) -> dict[str, Any]:
    """Lift nested ``solution``/``decisions`` keys and rename decision aliases."""
    result = lift_nested(value)
    for alias, canonical in DECISION_ALIASES.items():
        if alias in result and canonical not in result:
            result[canonical] = result.pop(alias)
    return result


def read_objective(result: Mapping[str, Any]) -> tuple[str | None, float | None, str | None]:
    """(key used, objective, problem). A present but non-numeric objective is a problem."""
    for key in OBJECTIVE_KEYS:
        if key in result and result[key] is not None:
            raw = result[key]
            if isinstance(raw, bool):
                return key, None, f"{key} is a boolean, not a number"
            try:
                number = float(raw)
            except (TypeError, ValueError):
                return key, None, f"{key}={_shown(raw)} is not a number"
            except OverflowError:  # an int beyond float range, e.g. 10**400
                return key, None, f"{key}={_shown(raw)} is too large for a float"
            if not math.isfinite(number):
                return key, None, f"{key}={_shown(raw)} is not finite"
            return key, number, None
    return (
        None,
        None,
        "no objective in the returned dict (looked for " + ", ".join(OBJECTIVE_KEYS[:7]) + " …)",
    )


def _shown(raw: object, limit: int = 80) -> str:
    """repr of a returned value for a message, cut (an int of 400 digits, a huge string)."""
    try:
        text = repr(raw)
    except ValueError:  # an int past Python's digit limit for conversion to text
        return f"<an int of {raw.bit_length() if isinstance(raw, int) else '?'} bits>"
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _misshapen(value: Any, reference: Any) -> bool:
    """A field the official scorer cannot read: the reference holds a table or list there, the
    answer something else (a string, a number, null)."""
    return isinstance(reference, Mapping | list) and not isinstance(value, Mapping | list)


def official_reading(
    validator: Subcategory,
    instance: Mapping[str, Any],
    result: Mapping[str, Any],
    solution_ref: Mapping[str, Any],
) -> SolutionCheck:
    """The validator's check as the official scorer reads the answer: a decision field it cannot
    read counts as absent (its extractors return nothing for it and it reads the same decisions
    from another key, or skips a consistency check), so an answer rejected only for such a field
    is checked again without it; where the subcategory declares ``official_answer``, the answer
    is first narrowed to the fields the release reads (workforce planning: one roster source, no
    reported counts); and where it declares ``official_problems`` (inventory routing's dispatch
    reading), what the release also rejects."""
    if validator.official_answer is not None:
        result = validator.official_answer(result)
    check: SolutionCheck = validator.check_solution(instance, result)
    readable = {k: v for k, v in result.items() if not _misshapen(v, solution_ref.get(k))}
    if not check.feasible and len(readable) < len(result):
        try:
            retry: SolutionCheck = validator.check_solution(instance, readable)
        except Exception:  # without the field the answer is unreadable: the first verdict stands
            retry = check
        check = retry if retry.feasible else check
    extra = validator.official_problems
    if check.feasible and extra is not None:  # a rule of the release's reading our check lacks
        found = tuple(extra(instance, result))
        if found:
            return SolutionCheck(feasible=False, objective=check.objective, problems=found)
    return check


def reference_objective(
    subcategory: str, instance: Mapping[str, Any], solution_ref: Mapping[str, Any]
) -> float | None:
    """The verified optimum: from the official reference keys (``objective_exact`` first) on an
    official-schema instance, else ``objective_value`` (or the release's aliases where it has none)."""
    rules = official_schema(subcategory, instance)
    keys = rules.REFERENCE_KEYS if rules is not None else REFERENCE_OBJECTIVE_KEYS
    for key in keys:
        raw = solution_ref.get(key)
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            return float(raw)
    return None


def check_decisions(
    subcategory: str, instance: Mapping[str, Any], value: Mapping[str, Any]
) -> SolutionCheck | None:
    """The strict feasibility check of returned decisions (None when no check exists): the
    official rules plus the strict findings on an official-schema instance, else the project's
    validator."""
    rules = official_schema(subcategory, instance)
    if rules is not None:
        check: OfficialCheck = rules.check(lift_nested(value), instance, tolerance_for(subcategory))
        problems = check.problems + check.strict_problems
        return SolutionCheck(feasible=not problems, objective=check.computed, problems=problems)
    validator = get_subcategory(subcategory)
    return None if validator is None else validator.check_solution(instance, normalize_result(value))


def _score_with_official_rules(
    value: Mapping[str, Any],
    rules: Any,
    *,
    subcategory: str,
    instance: Mapping[str, Any],
    expected: float,
    scoring: str,
    common: dict[str, Any],
) -> Verdict:
    """An official-schema instance: the official verdict, plus the strict rules unless ``official``."""
    tolerance = tolerance_for(subcategory)
    strict = scoring != ScoringMode.OFFICIAL
    extra: dict[str, Any] = {"tolerance": tolerance, "decisions_checked": True, "schema": "official"}
    returned: float | None = None
    if strict:
        result = lift_nested(value)
        status = str(result.get("status", "")).strip().lower()
        if status in _FAILED_STATUSES:
            return Verdict.fail(
                MmoptCategory.WRONG_OBJECTIVE,
                f"solve() reported status {status!r}, but the instance has an optimum",
                **common,
            )
        key, returned, problem = read_objective(result)
        if problem is not None:
            return Verdict.fail(ExecutionCategory.OUTPUT_FORMAT, problem, **common)
        extra["objective_key"] = key
        check: OfficialCheck = rules.check(result, instance, tolerance)
    else:
        check = rules.check(value, instance, tolerance)
        returned = check.objective
    problems = check.problems + (check.strict_problems if strict else ())
    if check.computed is not None and returned is not None and abs(check.computed - returned) > tolerance:
        problems += (f"reported objective {returned:g} but the returned decisions give {check.computed:g}",)
    if problems:
        return Verdict.fail(
            MmoptCategory.INFEASIBLE_SOLUTION,
            "; ".join(problems),
            returned_objective=returned,
            recomputed_objective=check.computed,
            extra=extra,
            **common,
        )
    compared = check.computed if strict else check.objective
    if compared is None:
        return Verdict.fail(
            ExecutionCategory.OUTPUT_FORMAT, "no objective could be read or recomputed", extra=extra, **common
        )
    if abs(compared - expected) > tolerance:
        return Verdict.fail(
            MmoptCategory.WRONG_OBJECTIVE,
            f"objective {compared:g} differs from the verified optimum {expected:g} "
            f"(tolerance {tolerance:g})",
            returned_objective=returned,
            recomputed_objective=check.computed,
            extra=extra,
            **common,
        )
    return Verdict(
        passed=True, returned_objective=returned, recomputed_objective=check.computed, extra=extra, **common
    )


def score_execution(
    execution: ExecutionResult,
    *,
    subcategory: str,
    instance: Mapping[str, Any],
    solution_ref: Mapping[str, Any],
    objective_only: bool,
    scoring: str = DEFAULT_SCORING,
) -> Verdict:
    exec_info = {"outcome": str(execution.outcome), "wall_s": round(execution.wall_s, 4)}
    if execution.outcome is not Outcome.OK or execution.value is None:
        return Verdict.fail(str(execution.outcome), execution.error, execution=exec_info)
    result = normalize_result(execution.value)
    expected = reference_objective(subcategory, instance, solution_ref)
    common: dict[str, Any] = {"valid_code": True, "execution": exec_info, "expected_objective": expected}
    rules = official_schema(subcategory, instance)
    if rules is not None and not objective_only and expected is not None:
        return _score_with_official_rules(
            execution.value,
            rules,
            subcategory=subcategory,
            instance=instance,
            expected=expected,
            scoring=scoring,
            common=common,
        )
    lenient = scoring == ScoringMode.OFFICIAL
    status = str(result.get("status", "")).strip().lower()
    if is_feasibility_type(solution_ref):  # a decision instance: scored on its status and decisions
        return score_feasibility(
            result,
            subcategory=subcategory,
            instance=instance,
            solution_ref=solution_ref,
            objective_only=objective_only,
            common=common,
            reading=(lambda v, i, r: official_reading(v, i, r, solution_ref)) if lenient else None,
        )
    status_counts = not lenient or subcategory == "maximum_flow"  # the official scorer reads it there only
    if (
        status_counts
        and status in _FAILED_STATUSES
        and str(solution_ref.get("status", "")).lower() == "optimal"
    ):
        return Verdict.fail(
            MmoptCategory.WRONG_OBJECTIVE,
            f"solve() reported status {status!r}, but the instance has an optimum",
            **common,
        )
    fallback = False
    if lenient:  # the release's keys, an unparsable value passed over (official_objective)
        key, returned, problem = official_objective.reported(result, subcategory, instance)
        fallback = key is None and problem is None
        if fallback:
            problem = "no objective reported, and none could be recomputed from the decisions"
    else:
        key, returned, problem = read_objective(result)
    validator = None if objective_only else get_subcategory(subcategory)
    check = None
    if fallback and validator is not None:
        with contextlib.suppress(Exception):  # an unreadable answer is reported below
            check = official_reading(validator, instance, result, solution_ref)
        if check is not None and check.objective is not None:  # the official fallback
            key, returned, problem = "recomputed", check.objective, None
    if problem is not None:
        return Verdict.fail(ExecutionCategory.OUTPUT_FORMAT, problem, **common)
    assert returned is not None
    tolerance = tolerance_for(subcategory)
    extra: dict[str, Any] = {"objective_key": key, "tolerance": tolerance}
    recomputed: float | None = None
    if validator is not None:
        try:
            check = check or (
                official_reading(validator, instance, result, solution_ref)
                if lenient
                else validator.check_solution(instance, result)
            )
        except Exception as exc:
            # the validator reads the reference solution: if that works, the answer is unreadable
            validator.check_solution(instance, normalize_result(solution_ref))
            return Verdict.fail(
                ExecutionCategory.OUTPUT_FORMAT,
                f"the returned decisions cannot be read ({type(exc).__name__}: {exc})",
                returned_objective=returned,
                extra=extra,
                **common,
            )
        recomputed = check.objective
        extra["decisions_checked"] = True
        if not check.feasible:
            return Verdict.fail(
                MmoptCategory.INFEASIBLE_SOLUTION,
                "; ".join(check.problems) or "the returned decisions are infeasible",
                returned_objective=returned,
                recomputed_objective=recomputed,
                extra=extra,
                **common,
            )
        if recomputed is not None and abs(recomputed - returned) > tolerance:
            return Verdict.fail(
                MmoptCategory.INFEASIBLE_SOLUTION,
                f"reported objective {returned:g} but the returned decisions give {recomputed:g}",
                returned_objective=returned,
                recomputed_objective=recomputed,
                extra=extra,
                **common,
            )
    else:
        extra["decisions_checked"] = False
        if not objective_only:
            extra["note"] = f"no decision validator for {subcategory}; scored on the objective alone"
    if expected is None:  # load_package guarantees a numeric optimum unless the status is infeasible
        raise ValueError("solution_ref.json has no numeric objective_value")
    if abs(returned - expected) > tolerance:
        return Verdict.fail(
            MmoptCategory.WRONG_OBJECTIVE,
            f"objective {returned:g} differs from the verified optimum {expected:g} "
            f"(tolerance {tolerance:g})",
            returned_objective=returned,
            recomputed_objective=recomputed,
            extra=extra,
            **common,
        )
    return Verdict(
        passed=True, returned_objective=returned, recomputed_objective=recomputed, extra=extra, **common
    )
