"""The outcome of one case: model failures are values, harness faults are exceptions.

A :class:`Verdict` says whether the case passed and, if not, which failure category applies: one
the suite declares in ``failure_categories`` (the harness checks it). Infrastructure faults
(:class:`InfrastructureError` and its kinds) are raised, never folded into a verdict, because they
say nothing about the model: the harness records them apart and ``--resume`` runs those cases
again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmark.categories import InfrastructureCategory

#: Faults that are not the model's (:class:`InfrastructureCategory`), as the strings records carry.
INFRASTRUCTURE_CATEGORIES: tuple[str, ...] = tuple(InfrastructureCategory)


class InfrastructureError(Exception):
    """A fault of the harness, the dataset or the model endpoint; the case is not scored."""

    def __init__(self, category: str, message: str) -> None:
        if category not in INFRASTRUCTURE_CATEGORIES:
            raise ValueError(f"not an infrastructure category: {category}")
        super().__init__(message)
        self.category = category


class NotEvaluable(Exception):
    """The case cannot be scored under its setting (e.g. verified-extraction when the extraction
    does not match): recorded as skipped with its reason and details, never a failure."""

    def __init__(self, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.extra = dict(extra or {})


class DatasetError(Exception):
    """A damaged instance package: names the file and the problem."""

    def __init__(self, path: object, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = str(path)
        self.problem = problem


@dataclass
class Verdict:
    """How a case was scored. ``valid_code`` feeds Valid Code Rate: the code ran and returned a
    JSON dict, whatever its objective."""

    passed: bool
    category: str | None = None
    detail: str = ""
    valid_code: bool = False
    expected_objective: float | None = None
    returned_objective: float | None = None
    recomputed_objective: float | None = None
    scores: dict[str, float] = field(default_factory=dict)
    execution: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    artifact: dict[str, str] = field(default_factory=dict)
    """What was extracted from the response and run, by name (``solve.py``, ``model.lp``, …)."""
    output: dict[str, str] = field(default_factory=dict)
    """What running it printed (``stdout``, ``stderr``); the record keeps bounded tails."""

    def __post_init__(self) -> None:
        if self.passed and self.category is not None:
            raise ValueError("a passed verdict has no failure category")
        if not self.passed and not self.category:
            raise ValueError("a failed verdict needs a failure category")

    @classmethod
    def fail(cls, category: str, detail: str, **fields: Any) -> Verdict:
        return cls(passed=False, category=category, detail=detail, **fields)
