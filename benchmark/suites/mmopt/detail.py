"""What MM-OptBench writes into a record beside the common fields: no ``scores`` (a case passes
or fails on the verified optimum), ``extra`` (how the answer was scored and, for a failure, its
attribution) and ``attempt.data`` (the run's choices that scoring reads)."""

from __future__ import annotations

from pydantic import Field

from benchmark.schema import SuiteDetail
from benchmark.suites.base import RecordDetail


class MmoptScores(SuiteDetail):
    """None: MM-OptBench scores a case by pass/fail alone."""


class Stage2Record(SuiteDetail):
    """``extra.stage2``: how the Stage-2 extraction compared with the public record
    (:meth:`benchmark.suites.mmopt.stage2.Stage2Check.as_record`)."""

    status: str
    differences: list[str] = Field(default_factory=list)
    unresolved: str | None = None
    detail: str | None = None
    notes: list[str] = Field(default_factory=list)


class MmoptExtra(SuiteDetail):
    """``extra``: the scoring's own facts (objective key, tolerance, whether decisions were
    checked), the failure's class and attribution, the Stage-2 check and the oracle's answer."""

    scoring: str | None = None
    objective_key: str | None = None
    tolerance: float | None = None
    decisions_checked: bool | None = None
    schema_: str | None = Field(default=None, alias="schema")
    """``official`` when the package is on the release's schema (its own rules scored it)."""
    note: str | None = None
    parse_notes: list[str] = Field(default_factory=list)
    truncated: bool = False
    failure_class: str | None = None
    failure_evidence: str | None = None
    attribution: str | None = None
    stage2: Stage2Record | None = None
    oracle_answer: str | None = None
    """How the oracle answered a package without a runnable ``solver_ref.py``."""


class MmoptAttemptData(SuiteDetail):
    """``attempt.data``: the run's scoring mode and objective-only flag, and the oracle's note."""

    scoring: str
    objective_only: bool
    oracle_answer: str | None = None


DETAIL = RecordDetail(scores=MmoptScores, extra=MmoptExtra, attempt_data=MmoptAttemptData)
