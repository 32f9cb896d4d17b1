"""What TB-MathModel writes into a record beside the common fields: ``scores`` (O-Eval, the
multi-reference O-Eval, the BO scores against a baseline, or the official verifier's reward),
``extra`` (the task's flags, the agent's episode, the artifact, the gate, certificate, panel and
references) and ``attempt.data`` (the episode and artifact, and the run's choices that scoring
reads)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from benchmark.schema import SuiteDetail
from benchmark.suites.base import RecordDetail


class TbmathScores(SuiteDetail):
    """``scores``: ``o_eval`` and ``multi_o_eval`` on every default-scored case, ``raw`` when the
    panel scored the artifact, the BO scores when a baseline was given, ``official_reward`` alone
    under ``--scoring=official``."""

    o_eval: float | None = None
    multi_o_eval: float | None = None
    raw: float | None = None
    gated_raw: float | None = None
    robust_bo_eval: float | None = None
    multi_bo: float | None = None
    official_reward: float | None = None


class AgentRecord(SuiteDetail):
    """``extra.agent``: the agent's episode (:meth:`benchmark.suites.tbmath.agent.Episode.as_record`);
    each turn is the episode's own report (its actions with their results)."""

    end_reason: str | None = None
    turns: list[dict[str, Any]] = Field(default_factory=list)
    wall_s: float | None = None
    sandbox_note: str | None = None


class TaskFlags(SuiteDetail):
    """``extra.task_flags``: what the task's scores rest on (:func:`~.suite.task_flags`)."""

    gate: str
    references: str
    config_format: str
    unscored_metrics: dict[str, Any] = Field(default_factory=dict)
    inferred_orientation: int = 0
    missing_attachments: list[str] = Field(default_factory=list)
    environment_differences: list[str] = Field(default_factory=list)
    resources: dict[str, Any] = Field(default_factory=dict)
    network: str | None = None
    """What the agent's sandbox allows (``none``; said when ``task.toml`` asks for internet)."""


class GateRecord(SuiteDetail):
    """``extra.gate``: the feasibility gate's verdict (``passed`` None with a ``note`` when the
    task declares no checks)."""

    passed: bool | None
    note: str | None = None
    obligations: int | None = None
    verified: list[str] = Field(default_factory=list)
    recomputed: dict[str, Any] = Field(default_factory=dict)
    violations: list[dict[str, Any]] = Field(default_factory=list)
    gaps: list[dict[str, Any]] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class CertificateRecord(SuiteDetail):
    """``extra.certificate``: how the gate's obligations were discharged."""

    status: str
    obligations: int
    proved: int
    rejected: list[dict[str, Any]] = Field(default_factory=list)
    gaps: list[dict[str, Any]] = Field(default_factory=list)


class ReferencesRecord(SuiteDetail):
    """``extra.references``: the multi-reference O-Eval and its score against each reference."""

    score: float | None
    per_reference: dict[str, float | None] = Field(default_factory=dict)
    excluded: Any = None
    fallback_to_anchor: bool = False


class TbmathExtra(SuiteDetail):
    """``extra``: the task's facts, the agent's episode, the artifact as read and what scored it."""

    artifact_path: str
    literature_split: bool
    agent_limits: dict[str, Any]
    scoring: str
    task_flags: TaskFlags
    source: str
    declared_metrics: list[dict[str, Any]] | None = None
    agent: AgentRecord | None = None
    official: dict[str, Any] | None = None
    artifact: Any = None
    schema_violations: list[Any] | None = None
    gate: GateRecord | None = None
    certificate: CertificateRecord | None = None
    panel: dict[str, Any] | None = None
    excluded_metrics: dict[str, Any] | None = None
    references: ReferencesRecord | None = None
    baseline_note: str | None = None
    pass_rule: dict[str, Any] | None = None


class TbmathAttemptData(SuiteDetail):
    """``attempt.data``: the agent's limits, the run's scoring mode, pass mark and baseline, where
    the artifact came from (the episode's transcript), its bytes, and the official verifier's run."""

    agent_limits: dict[str, Any]
    scoring: str
    pass_at: float
    baseline_given: bool
    baseline: dict[str, Any] | None = None
    source: str | None = None
    agent: dict[str, Any] | None = None
    artifact_base64: str | None = None
    official: dict[str, Any] | None = None


DETAIL = RecordDetail(scores=TbmathScores, extra=TbmathExtra, attempt_data=TbmathAttemptData)
