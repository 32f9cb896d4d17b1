"""The run log's schema: one typed model per file format the harness writes or reads.

``CaseRecord`` (a line of ``results.jsonl``), ``Turn`` (one model call inside it), ``RunManifest``
(``manifest.json``) and ``ReplayLine`` (a line of a replay or ``--record`` file). Every writer
validates what it writes and every reader what it reads, so a record that a later tool cannot
read is caught where it is made. ``schema_version`` is written into records and manifests and is
raised when a field changes meaning; readers accept every version up to theirs.

These are data contracts between the harness and the adapters (a replay line is what the replay
adapter reads), so like :mod:`benchmark.messages` this module imports nothing of the harness.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

__all__ = ["SCHEMA_VERSION", "CaseRecord", "ReplayLine", "RunManifest", "Turn", "ValidationError", "problems"]

SCHEMA_VERSION = 1


class Turn(BaseModel):
    """One model call of a case: the request key it was asked under and the raw response."""

    model_config = ConfigDict(extra="forbid")

    key: str
    response: str
    finish_reason: str | None = None
    usage: dict[str, int | None] = Field(default_factory=dict)
    model_id: str | None = None
    cache_hit: bool = False


class CaseRecord(BaseModel):
    """One case's result. The named fields are what reports, resume and rescoring rely on; a suite
    may add its own (``extra`` and ``scores`` are the intended places), which are kept as they are."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = Field(default=SCHEMA_VERSION, le=SCHEMA_VERSION)
    suite: str
    case: str = Field(min_length=1)
    outcome: Literal["passed", "failed", "error", "skipped"]
    passed: bool
    category: str | None = None
    detail: str = ""
    setting: str
    sample: int = Field(ge=0)
    model: str | None = None
    turns: list[Turn] = Field(default_factory=list)
    artifact: dict[str, str] = Field(default_factory=dict)
    output: dict[str, str] = Field(default_factory=dict)
    traceback: str | None = None


class RunManifest(BaseModel):
    """``manifest.json``: how the run was made (model, dataset, decoding, sandbox, sessions)."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = Field(default=SCHEMA_VERSION, le=SCHEMA_VERSION)
    harness_version: str
    suite: str
    sessions: list[dict[str, Any]] = Field(default_factory=list)


class ReplayUsage(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    input_tokens: StrictInt | None = Field(default=None, ge=0)
    output_tokens: StrictInt | None = Field(default=None, ge=0)


class ReplayLine(BaseModel):
    """A recorded response for the request key ``case``; other fields (a recorder's ``of_case``,
    ``model_id``, timestamps from other tools) are ignored so such files replay as they are."""

    model_config = ConfigDict(extra="ignore", strict=True)

    case: StrictStr = Field(min_length=1)
    response: StrictStr
    finish_reason: StrictStr | None = None
    usage: ReplayUsage | None = None


def problems(error: ValidationError) -> str:
    """A validation error as one line naming each bad field, e.g. ``'usage.input_tokens': …``."""
    return "; ".join(
        f"'{'.'.join(str(part) for part in item['loc'])}': {item['msg']}" for item in error.errors()
    )
