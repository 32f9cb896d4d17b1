"""What NLData2Opt writes into a record beside the common fields: ``scores`` (EBC on the shown
and the unseen data, EF1, the judge's LLM-ES), ``extra`` (the task's facts, the entities found,
the backend's run and the held-out check) and ``attempt.data`` (the backend's runs that scoring
reads)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from benchmark.schema import SuiteDetail
from benchmark.suites.base import RecordDetail


class NldataScores(SuiteDetail):
    """``scores``: ``ebc`` is the strict EBC (the lowest of the shown and every unseen instance's);
    records written before the held-out check have no ``ebc_shown`` and their ``ebc`` is shown."""

    ebc: float | None = None
    ebc_shown: float | None = None
    ebc_unseen: float | None = None
    ef1: float | None = None
    ef1_types: float | None = None
    llm_es: float | None = None


class UnseenRun(SuiteDetail):
    """One unseen data instance of ``extra.heldout.runs``."""

    instance: str
    sizes: dict[str, int]
    expected_objective: float | None
    objective: float | None
    status: str | None
    category: str | None
    error: str | None
    ebc: float
    passed: bool


class Heldout(SuiteDetail):
    """``extra.heldout``: the model run on the unseen data instances of the task's schema."""

    instances: int
    run: bool
    reason: str | None = None
    backend: str | None = None
    mapping: dict[str, Any] | None = None
    runs: list[UnseenRun] = Field(default_factory=list)


class NldataExtra(SuiteDetail):
    """``extra``: the task's facts (where, derived, predictions, gold entities), what the answer
    declared, the backend's run, the held-out check and the judge's reply."""

    backend: str
    where: str
    derived: str | None
    predictions: list[dict[str, str]]
    gold_entities: dict[str, int]
    truncated: bool
    entities: dict[str, int] | None = None
    ef1_roles: dict[str, Any] | None = None
    execution: dict[str, Any] | None = None
    heldout: Heldout | None = None
    judge: dict[str, Any] | None = None


class NldataAttemptData(SuiteDetail):
    """``attempt.data``: the backend, its run on the shown data (with glpsol's display of the data
    and the model's listing), its runs on the unseen data, and the judge's model."""

    backend: str
    execution: dict[str, Any] | None = None
    dumped: dict[str, Any] | None = None
    listing: str | None = None
    unseen_runs: list[dict[str, Any]] | None = None
    judge_model: str | None = None


DETAIL = RecordDetail(scores=NldataScores, extra=NldataExtra, attempt_data=NldataAttemptData)
