"""The adapter contract: what every model adapter takes and returns.

An adapter turns a :class:`CompletionRequest` into a :class:`Completion`. Model failures are not
adapter failures: a reply that is empty, truncated or nonsense is still a ``Completion`` and is
judged by the suite. Only infrastructure faults (the endpoint is down, the key is missing, a replay
file has no entry for the case) raise :class:`AdapterError`, which the harness records as
``api_error``: reported apart and re-run by ``--resume``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from benchmark.categories import InfrastructureCategory
from benchmark.messages import Message, ToolCall


class AdapterError(Exception):
    """An infrastructure fault while getting a completion (never a model failure)."""

    def __init__(
        self,
        message: str,
        *,
        kind: str = InfrastructureCategory.API_ERROR,
        status: int | None = None,
        retries: int = 0,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retries = retries
        """Attempts after the first that this request made before it failed."""
        self.reason = reason
        """The fault itself, without the case (what a message about the endpoint as a whole says)."""


class OracleUnavailable(Exception):
    """The suite has no runnable reference answer for this case (said per case, not as a crash)."""


@dataclass(frozen=True)
class Decoding:
    """Decoding settings of one sample. ``sample_index`` is part of the cache key, so the five
    samples of the paper's schedule are five distinct requests even at equal temperature."""

    temperature: float = 0.0
    max_tokens: int = 16384
    seed: int | None = None
    sample_index: int = 0


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: ``parameters`` is its JSON Schema (OpenAI function-tool form)."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(hash=False)


@dataclass(frozen=True)
class CompletionRequest:
    """One request. ``case_key`` names the case (replay files are keyed on it); ``reference`` gives
    the oracle the suite's reference answer without other adapters ever seeing it."""

    case_key: str
    messages: tuple[Message, ...]
    decoding: Decoding
    reference: Callable[[], str] | None = field(default=None, compare=False, repr=False)
    tools: tuple[ToolSpec, ...] = ()


@dataclass(frozen=True)
class Usage:
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True)
class Completion:
    text: str
    model_id: str
    finish_reason: str | None = None
    usage: Usage = Usage()
    latency_s: float = 0.0
    cost_usd: float | None = None
    cache_hit: bool = False
    shared_from: str | None = None
    """The case whose request stored this cached reply, when it was another case with the very
    same request content (allowed for real models only; the summary counts them)."""
    tool_calls: tuple[ToolCall, ...] = ()
    retries: int = 0
    """Attempts after the first that this request needed (0 from a cache or a replay)."""

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


@runtime_checkable
class ModelAdapter(Protocol):
    """Anything that answers completion requests. ``name`` is the alias the user typed."""

    name: str

    def describe(self) -> dict[str, object]:
        """Model id, endpoint and anything else the run manifest should record."""
        ...

    def complete(self, request: CompletionRequest) -> Completion: ...
