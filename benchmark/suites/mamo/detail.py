"""What Mamo writes into a record beside the common fields: ``scores`` (the answer's correctness
and execution before and after the code modifier, Tables 4 and 5), ``extra`` (the question's
answer and tolerance, each run, the modifier's passes) and ``attempt.data`` (the runs that
scoring reads)."""

from __future__ import annotations

from typing import Any

from benchmark.schema import SuiteDetail
from benchmark.suites.base import RecordDetail


class MamoScores(SuiteDetail):
    """``scores``: 1.0 or 0.0 each; ``modified`` is the raw result when no modifier ran."""

    raw: float
    modified: float
    executed_raw: float
    executed_modified: float


class MamoExtra(SuiteDetail):
    """``extra``: the question's answer and the tolerance it is compared with, where it came from,
    the LP solver, and the raw and final runs (:meth:`benchmark.suites.mamo.execution.Run.as_record`)."""

    answer: str
    absolute_tolerance: float
    where: str
    lp_solver: str | None
    truncated: bool
    source: str | None = None
    modifier: dict[str, Any] | None = None
    raw: dict[str, Any] | None = None
    modified: dict[str, Any] | None = None


class MamoAttemptData(SuiteDetail):
    """``attempt.data``: the LP solver, where an answer file came from, why no artifact could be
    read, the raw run, and the modifier's passes and final run (each a
    :class:`~benchmark.suites.mamo.execution.Run` as a dict)."""

    lp_solver: str | None
    source: str | None = None
    violation: str | None = None
    raw: dict[str, Any] | None = None
    modifier: dict[str, Any] | None = None
    final: dict[str, Any] | None = None


DETAIL = RecordDetail(scores=MamoScores, extra=MamoExtra, attempt_data=MamoAttemptData)
