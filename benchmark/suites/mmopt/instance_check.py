"""Telling a malformed instance from a wrong answer, for every subcategory at once.

A validator that meets an instance lacking a key it needs (a maximum-flow instance without
``source``), or holding a value of the wrong type, either raises or reports the answer
infeasible: both would blame the model for the dataset. The package's own reference solution
settles which it is: scored against its instance by the same check that scores the model, it
must pass. When it does not, the instance (or its reference) is damaged, and the case is a
``dataset_error`` naming ``instance_data.json`` and the instance keys the check looked up and did
not find (or, when none is missing, both files: a mistyped value, or a reference that does not
fit), and the check's own complaint — before any model is asked.

The keys are found by reading the instance through :class:`AuditedInstance`, a ``dict`` that
records every absent key looked up with ``[]`` or ``.get`` (at any depth); a subcategory's
``OPTIONAL_KEYS`` (keys an official instance may legitimately lack) are not reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from benchmark.suites.mmopt.feasibility import is_feasibility_type
from benchmark.suites.mmopt.official import official_rules, official_schema
from benchmark.suites.mmopt.scoring import lift_nested, normalize_result, tolerance_for
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.verdict import DatasetError

INSTANCE_FILE = "ground_truth/instance_data.json"
REFERENCE_FILE = "ground_truth/solution_ref.json"
LACKS = "the instance lacks "


class AuditedInstance(dict):  # type: ignore[type-arg]
    """A read-only view of an instance that records the keys looked up and absent."""

    def __init__(self, data: Mapping[str, Any], absent: set[str]) -> None:
        super().__init__(data)
        self._absent = absent

    def _wrap(self, value: Any) -> Any:
        if isinstance(value, dict) and not isinstance(value, AuditedInstance):
            return AuditedInstance(value, self._absent)
        if isinstance(value, list):
            return [self._wrap(item) for item in value]
        return value

    def __getitem__(self, key: Any) -> Any:
        if not super().__contains__(key):
            self._absent.add(str(key))
        return self._wrap(super().__getitem__(key))

    def get(self, key: Any, default: Any = None) -> Any:
        if not super().__contains__(key):
            self._absent.add(str(key))
            return default
        return self._wrap(super().__getitem__(key))

    def values(self) -> Iterator[Any]:  # type: ignore[override]
        return (self._wrap(v) for v in super().values())

    def items(self) -> Iterator[tuple[Any, Any]]:  # type: ignore[override]
        return ((k, self._wrap(v)) for k, v in super().items())


def _optional_keys(subcategory: str) -> set[str]:
    rules = official_rules(subcategory)
    keys = set(getattr(rules, "OPTIONAL_KEYS", ())) if rules is not None else set()
    validator = getattr(get_subcategory(subcategory), "validator", None)
    return keys | set(getattr(validator, "OPTIONAL_KEYS", ()))


def _reference_problems(
    subcategory: str, instance: Mapping[str, Any], solution_ref: Mapping[str, Any]
) -> tuple[str, ...]:
    """What the scoring check finds wrong with the reference solution on ``instance``: the
    official problems where the official rules read the instance (the strict additions are the
    project's, not the dataset's), else the project validator's."""
    rules = official_schema(subcategory, instance)
    if rules is not None:
        return tuple(rules.check(lift_nested(solution_ref), instance, tolerance_for(subcategory)).problems)
    validator = get_subcategory(subcategory)
    if validator is None:
        return ()
    return tuple(validator.check_solution(instance, normalize_result(solution_ref)).problems)


def instance_problem(
    subcategory: str, instance: Mapping[str, Any], solution_ref: Mapping[str, Any]
) -> str | None:
    """Why ``instance`` cannot be scored, or None when its reference solution passes on it.

    A feasibility-type reference that says no solution exists has no decisions to check."""
    if str(solution_ref.get("status", "")).lower() == "infeasible" and is_feasibility_type(solution_ref):
        return None
    absent: set[str] = set()
    try:
        problems = _reference_problems(subcategory, AuditedInstance(instance, absent), solution_ref)
    except Exception as exc:  # a check that cannot read the instance at all
        problems = (f"the check raised {type(exc).__name__}: {exc}",)
    if not problems:
        return None
    missing = sorted(absent - _optional_keys(subcategory))
    lacks = f"{LACKS}{', '.join(repr(k) for k in missing)}; " if missing else ""
    return f"{lacks}its own reference solution fails the check on it: {'; '.join(problems[:3])}"


def check_instance(
    directory: Path, subcategory: str, instance: Mapping[str, Any], solution_ref: Mapping[str, Any]
) -> None:
    """Raise :class:`DatasetError` naming the package's instance file when it cannot be scored."""
    problem = instance_problem(subcategory, instance, solution_ref)
    if problem is None:
        return
    if problem.startswith(LACKS):
        raise DatasetError(directory / INSTANCE_FILE, problem)
    # nothing absent: a mistyped instance value, or a reference that does not fit its instance
    raise DatasetError(directory / "ground_truth", f"{INSTANCE_FILE} or {REFERENCE_FILE}: {problem}")
