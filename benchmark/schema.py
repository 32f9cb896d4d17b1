"""The run log's schema: one typed model per file format the harness writes or reads.

``CaseRecord`` (a line of ``results.jsonl``), ``Turn`` (one model call inside it), ``RunManifest``
(``manifest.json``), ``RunSummary`` (``summary.json``), ``RequestLine`` (a line of the request
ledger ``requests.jsonl``), ``ReplayLine`` (a line of a replay or ``--record`` file) and
``ModelsFile`` (the models file of model aliases, ``models.toml``). Every writer validates what it
writes and every reader what it reads, so a record that a later tool cannot read is caught where
it is made. ``schema_version`` is written into records and manifests and is raised when a field
changes meaning; readers accept every version up to theirs.

These are data contracts between the harness and the adapters (a replay line is what the replay
adapter reads), so like :mod:`benchmark.messages` this module imports nothing of the harness but
the leaf :mod:`benchmark.categories`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from benchmark.categories import CaseOutcome

__all__ = [
    "SCHEMA_VERSION",
    "AttemptRecord",
    "CaseRecord",
    "ExecutionRecord",
    "ExecutionSummary",
    "ModelEntry",
    "ModelsFile",
    "ReplayLine",
    "ReplyRecord",
    "RequestLine",
    "RunManifest",
    "RunSummary",
    "SchemaVersionError",
    "SentMessage",
    "SuiteDetail",
    "SummaryCounts",
    "Turn",
    "ValidationError",
    "problems",
    "upgraded",
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


Number = StrictInt | StrictFloat
"""A number as it was written: an integer stays an integer (``5``, not ``5.0``), so a record read
and written again is the same JSON."""


class ReplyRecord(BaseModel):
    """One reply of a stored attempt: its text, or ``turn``, the number of the record's model call
    whose response it is (a reply can be megabytes and the record already holds it once)."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    turn: int | None = Field(default=None, ge=0)
    truncated: bool = False
    error: str | None = None


class ExecutionRecord(BaseModel):
    """One sandbox run of a stored attempt (:class:`benchmark.attempt.Execution`)."""

    model_config = ConfigDict(extra="forbid")

    outcome: str
    value: dict[str, Any] | None
    stdout: str
    stderr: str
    error: str
    wall_s: Number
    sandbox: str


class ExecutionSummary(BaseModel):
    """``record.execution``: how the case's main run ended (``ok`` or a failure category), in
    how many seconds, and the solver status or error when the suite reports one."""

    model_config = ConfigDict(extra="forbid")

    outcome: str
    wall_s: Number | None = None
    status: str | None = None
    error: str | None = None


class SuiteDetail(BaseModel):
    """The base of a suite's typed detail of a record: the keys its verdicts write into
    ``scores`` or ``extra``, or its solving into ``attempt.data`` (each suite declares one model
    per part, :class:`benchmark.suites.base.RecordDetail`). Writing is checked strictly: an
    undeclared key is refused, so a misspelt key fails where it is written (the harness checks
    every verdict and attempt against its suite's models) rather than reading back as a silent
    ``None``. Readers get attributes (``MmoptExtra.read(record.extra).attribution``); a key that
    an older harness wrote and this one no longer declares is passed over when reading, so the
    reports of an older run still open. The stored JSON is the suite's dict as written: the
    model checks and reads it, it does not rewrite it."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def check(cls, values: Mapping[str, Any]) -> None:
        """Refuse (:class:`ValidationError`, naming the key) an undeclared, missing or mistyped key."""
        cls.model_validate(dict(values))

    @classmethod
    def read(cls, values: Mapping[str, Any] | None) -> Self:
        """The detail as this model; undeclared keys, at any depth, are passed over."""
        return cls.model_validate(dict(values or {}), context={_READING: True})

    @model_validator(mode="before")
    @classmethod
    def _pass_over_undeclared_when_reading(cls, values: Any, info: ValidationInfo) -> Any:
        if not (info.context or {}).get(_READING) or not isinstance(values, Mapping):
            return values
        declared = {field.alias or name for name, field in cls.model_fields.items()}
        return {key: value for key, value in values.items() if key in declared}


#: The validation context of :meth:`SuiteDetail.read`.
_READING = "reading"


class AttemptRecord(BaseModel):
    """``record.attempt``: what solving the case produced (:class:`benchmark.attempt.Attempt` as
    JSON), from which ``rescore`` scores it again. ``data`` is the suite's own facts of solving."""

    model_config = ConfigDict(extra="forbid")

    replies: dict[str, ReplyRecord] = Field(default_factory=dict)
    artifacts: dict[str, str] = Field(default_factory=dict)
    executions: dict[str, ExecutionRecord] = Field(default_factory=dict)
    data: dict[str, Any] = Field(default_factory=dict)


class CaseRecord(BaseModel):
    """One case's result: a line of ``results.jsonl``.

    Every field the harness writes is declared here; a record holds those it was given (an error
    record has no verdict fields), and is written back with exactly those (``exclude_unset``), so
    reading and writing a record keeps its JSON. The only undeclared keys are the suite's labels
    (``Suite.labels``: MM-OptBench's ``family``, ``subcategory`` …), which the core does not name:
    :meth:`label` reads them. ``scores``, ``extra``, ``execution`` and ``attempt.data`` are the
    suite's own detail."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    suite: str
    case: str = Field(min_length=1)
    test_id: str | None = None
    setting: str
    sample: int = Field(ge=0)
    temperature: Number | None = None
    model: str | None = None
    harness_version: str | None = None
    dataset_version: str | None = None
    dataset_sha256: str | None = None
    sandbox: str | None = None
    outcome: CaseOutcome
    passed: bool
    category: str | None = None
    detail: str = ""
    valid_code: bool = False
    expected_objective: Number | None = None
    returned_objective: Number | None = None
    recomputed_objective: Number | None = None
    scores: dict[str, Any] = Field(default_factory=dict)
    execution: ExecutionSummary | None = None
    execution_time_s: Number | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    artifact: dict[str, str] = Field(default_factory=dict)
    output: dict[str, str] = Field(default_factory=dict)
    attempt: AttemptRecord | None = None
    """Absent when solving did not finish (an error or skip before the attempt was complete)."""
    model_ids: list[str] = Field(default_factory=list)
    model_calls: int = Field(default=0, ge=0)
    cache_hits: int = Field(default=0, ge=0)
    cache_hit: bool = False
    shared_reply_from: list[str] = Field(default_factory=list)
    turns: list[Turn] = Field(default_factory=list)
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: Number | None = None
    model_time_s: Number | None = None
    truncated: bool = False
    total_time_s: Number | None = None
    finished_at: str | None = None
    end_reason: str | None = None
    traceback: str | None = None

    def label(self, name: str) -> str | None:
        """The value of one of the suite's labels (``None`` when the record does not carry it)."""
        value = (self.model_extra or {}).get(name)
        return None if value is None else str(value)

    def as_json(self) -> dict[str, Any]:
        """The record as it is written: the fields it was given, with their JSON values."""
        body = self.model_dump(mode="json", exclude_unset=True)
        return {"schema_version": self.schema_version, **body}


#: How a record of an older schema version becomes one of this version, by version (none yet:
#: version 1 is the first). A reader upgrades what it can and refuses what it cannot.
UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


class SchemaVersionError(ValueError):
    """A record or manifest of a schema version this harness cannot read."""


def upgraded(value: dict[str, Any], where: str) -> dict[str, Any]:
    """``value`` (a record or manifest as read) in this schema version, or the reason it cannot
    be, naming ``where`` (the file and line) and the version it carries."""
    version = value.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or isinstance(version, bool):
        raise SchemaVersionError(f"{where}: schema_version {version!r} is not a number")
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{where}: schema_version {version} is newer than this harness reads ({SCHEMA_VERSION}); "
            "update the harness"
        )
    while version < SCHEMA_VERSION:
        step = UPGRADES.get(version)
        if step is None:
            raise SchemaVersionError(
                f"{where}: schema_version {version} is older than this harness reads and has no "
                f"upgrade to {SCHEMA_VERSION}"
            )
        value = step(value)
        version = int(value["schema_version"])
    return value


class RunManifest(BaseModel):
    """``manifest.json``: how the run was made. Every section the harness writes is declared; the
    contents of most sections are a tool's own report (``git``, ``packages``, ``sandbox``) and stay
    open mappings. The undeclared keys are the suite's ``run_info()`` (mmopt's scoring mode …)."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    harness_version: str
    suite: str
    sessions: list[dict[str, Any]] = Field(default_factory=list)
    model: dict[str, Any] | None = None
    dataset: dict[str, Any] | None = None
    decoding: dict[str, Any] | None = None
    execution: dict[str, Any] | None = None
    sandbox: dict[str, Any] | None = None
    accounting: dict[str, Any] | None = None
    requests: dict[str, Any] | None = None
    git: dict[str, Any] | None = None
    packages: dict[str, Any] | None = None
    setting: str | None = None
    scoring: str | None = None
    objective_only: bool | None = None
    oracle_for_unrunnable_references: str | None = None
    shard: Any = None


class SummaryCounts(BaseModel):
    """``summary.counts``: every case of the run by what became of it (``selected`` is None when
    the selection is unknown, e.g. a summary rebuilt from old records)."""

    model_config = ConfigDict(extra="forbid")

    selected: int | None
    recorded: int
    not_recorded: int
    cases: int
    scored: int
    passed: int
    failed: int
    infrastructure_errors: int
    skipped: int


class RunSummary(BaseModel):
    """``summary.json`` (:func:`benchmark.reporting.summary.build_summary`). The metric blocks are
    the summary's own computed numbers and stay mappings; the undeclared keys are the ``by_<label>``
    tables of the suite's groupings, which the core does not name."""

    model_config = ConfigDict(extra="allow")

    run: dict[str, Any]
    counts: SummaryCounts
    metrics: dict[str, Any]
    failure_categories: dict[str, int]
    groupings: list[str]
    infrastructure: dict[str, int]
    not_scored: dict[str, int]
    not_recorded_cases: list[str]
    skipped_reasons: dict[str, int]
    accounting: dict[str, Any]
    suite_tables: list[dict[str, Any]]
    by_setting: dict[str, dict[str, Any]] | None = None


class RequestLine(BaseModel):
    """A line of the request ledger (``requests.jsonl``, :mod:`benchmark.ledger`): one request
    sent to an endpoint, by the session that sent it, when its answer or failure came back (``at``,
    UTC), whether it succeeded, its retries and, for an answer, its usage and cost."""

    model_config = ConfigDict(extra="forbid")

    session: str
    at: str
    case: str | None = None
    model_id: str | None = None
    ok: bool
    wall_s: Number
    retries: int = Field(default=0, ge=0)
    cost_usd: Number | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    prompt_warning: str | None = None
    error: str | None = None
    unreachable: str | None = None
    """Why the endpoint could not be used at all (a refused connection, an unknown model)."""

    def as_json(self) -> dict[str, Any]:
        """The line as it is written: the fields it was given."""
        return self.model_dump(mode="json", exclude_unset=True)


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
