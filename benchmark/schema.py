"""The run log's schema: one typed model per file format the harness writes or reads.

``CaseRecord`` (a line of ``results.jsonl``), ``Turn`` (one model call inside it), ``RunManifest``
(``manifest.json``), ``ReplayLine`` (a line of a replay or ``--record`` file) and ``ModelsFile``
(the models file of model aliases, ``models.toml``). Every writer
validates what it writes and every reader what it reads, so a record that a later tool cannot
read is caught where it is made. ``schema_version`` is written into records and manifests and is
raised when a field changes meaning; readers accept every version up to theirs.

These are data contracts between the harness and the adapters (a replay line is what the replay
adapter reads), so like :mod:`benchmark.messages` this module imports nothing of the harness.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

__all__ = [
    "SCHEMA_VERSION",
    "CaseRecord",
    "ModelEntry",
    "ModelsFile",
    "ReplayLine",
    "RunManifest",
    "SentMessage",
    "Turn",
    "ValidationError",
    "problems",
]

SCHEMA_VERSION = 1


class SentMessage(BaseModel):
    """A message of a request as it was sent: its text (an ``[image: NAME]`` marker where an image
    sat), the images by name, hash and path, and the tool calls or tool answer it carried."""

    model_config = ConfigDict(extra="forbid")

    role: str
    text: str
    images: list[dict[str, str]] = Field(default_factory=list)
    tool_calls: list[dict[str, str]] = Field(default_factory=list)
    tool_call_id: str | None = None


class Turn(BaseModel):
    """One model call of a case: the request key it was asked under, what was sent (the messages
    after the ``context_messages`` it shares with the case's previous call, so a long agent episode
    is not stored once per turn) and the raw response with its tool calls, usage, time and cost."""

    model_config = ConfigDict(extra="forbid")

    key: str
    response: str
    finish_reason: str | None = None
    usage: dict[str, int | None] = Field(default_factory=dict)
    model_id: str | None = None
    cache_hit: bool = False
    context_messages: int = Field(default=0, ge=0)
    messages: list[SentMessage] = Field(default_factory=list)
    tool_calls: list[dict[str, str]] = Field(default_factory=list)
    latency_s: float | None = None
    cost_usd: float | None = None
    prompt_warning: str | None = None
    """Set when the server counted implausibly few prompt tokens for what was sent, so the model
    answered a prompt it did not fully get (see :mod:`benchmark.prompt_size`)."""


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


class ModelEntry(BaseModel):
    """One ``[models.<alias>]`` table: an OpenAI-compatible endpoint and how to talk to it.

    Strict types (``"yes"`` is no boolean, ``"3"`` no number) because a typo here otherwise
    surfaces as a confusing HTTP error deep inside a run. The API key never sits in the file: it
    names the environment variable that holds it.
    """

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    base_url: StrictStr
    """The endpoint's ``/v1`` root (``http://`` or ``https://``)."""
    model: StrictStr = Field(pattern=r"\S")
    """The model name the endpoint expects."""
    api_key_env: StrictStr | None = None
    """Name of the environment variable holding the key (none for a local server)."""
    supports_images: StrictBool = True
    """False for text-only models: image cases are skipped without a request."""
    max_output_tokens: StrictInt | None = Field(default=None, gt=0)
    context_window: StrictInt | None = Field(default=None, gt=0)
    input_price_per_mtok: float | None = Field(default=None, ge=0)
    """USD per million input tokens (both prices are needed for costs and ``--max-cost``)."""
    output_price_per_mtok: float | None = Field(default=None, ge=0)
    request_timeout_s: float = Field(default=600.0, gt=0)
    extra_body: dict[str, Any] | None = None
    """Sent as is with every request (vendor options)."""
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    """Reasoning models want ``max_completion_tokens``."""
    supports_temperature: StrictBool = True
    """False for models that reject any temperature but the default."""
    max_retries: StrictInt | None = Field(default=None, ge=0)
    retry_base_delay_s: float | None = Field(default=None, ge=0)
    retry_max_delay_s: float | None = Field(default=None, ge=0)
    retry_max_total_s: float | None = Field(default=None, ge=0)

    @field_validator("base_url")
    @classmethod
    def _is_http(cls, value: str) -> str:
        if not re.fullmatch(r"https?://\S+", value):
            raise ValueError("must start with http:// or https://")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _is_variable_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            raise ValueError("must be the name of an environment variable (like OPENAI_API_KEY)")
        return value


class ModelsFile(BaseModel):
    """The models file: ``[models.<alias>]`` tables and nothing else."""

    model_config = ConfigDict(extra="forbid")

    models: dict[str, ModelEntry] = Field(default_factory=dict)


def problems(error: ValidationError) -> str:
    """A validation error as one line naming each bad field, e.g. ``'usage.input_tokens': …``."""
    return "; ".join(
        f"'{'.'.join(str(part) for part in item['loc'])}': {item['msg']}" for item in error.errors()
    )
