"""The OpenAI-compatible chat adapter: hosted APIs, gateways, vLLM and llama.cpp servers alike.

One adapter covers every endpoint that speaks ``POST /v1/chat/completions``; what differs between
them (URL, model id, key, image support, prices) comes from the models file, never from code. Every
transport fault becomes an :class:`~adapters.base.AdapterError` carrying the HTTP status, because the
harness must tell "the endpoint failed" (re-run with ``--resume``) from "the model answered badly".

Transient faults (408/409/425/429/5xx, timeouts, broken connections, a garbled or choiceless reply)
are retried by :mod:`adapters.retry` under the alias's policy; the ``openai`` client's own retries are
switched off so that one policy, with one bound on total time, decides. Until the endpoint has
answered once in this process, a fault that says it cannot be used at all (no connection, or the key
refused) gets only :data:`UNREACHABLE_BUDGET_S` of retries: a wrong ``base_url`` or key then shows in
seconds, not after the full backoff of every case.
"""

from __future__ import annotations

import base64
import os
import threading
import time
from typing import Any

import openai

from adapters.base import AdapterError, Completion, CompletionRequest, Usage
from adapters.models_file import ModelSpec
from adapters.retry import Fault, call_with_retries, is_retryable_status, retry_after_s
from benchmark.categories import SkipCategory
from benchmark.messages import ImagePart, Message, TextPart, ToolCall

__all__ = ["OpenAIChatAdapter"]

_NO_KEY = "no-key"
"""Sent as the bearer token to keyless local servers: the client insists on some key, and using a
placeholder (rather than letting it read ``$OPENAI_API_KEY``) keeps a real key away from endpoints
that were not configured to receive one."""

_MAX_ERROR_CHARS = 500

UNREACHABLE_BUDGET_S = 5.0
"""How long a request retries "cannot connect" (refused, unknown host, TLS) before the endpoint has
ever answered: a few attempts under the default backoff (waits of 0.5-1 s, 1-2 s, 2-4 s)."""

AUTH_STATUSES = frozenset({401, 403})
"""The key is missing, wrong or not allowed this model: no retry or wait changes that."""

_CONNECT_FAILURES = frozenset({"ConnectError", "ConnectTimeout"})
"""The transport's exception names (httpx and its successors alike) for a connection that was never
made: a refused port, an unknown host, a failed TLS handshake. A connection that broke after it was
made (``ReadError``, ``RemoteProtocolError``) is a flaky endpoint, not an unreachable one."""


class OpenAIChatAdapter:
    """Sends each request to ``spec.base_url`` via the ``openai`` client's ``chat.completions``.

    The client is created on the first real call, not at construction: a run answered entirely from
    the cache (``--offline``) must work without the API key in the environment.
    """

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.name = spec.alias
        self._client: openai.OpenAI | None = None
        self._lock = threading.Lock()
        self._answered = False
        """The endpoint has answered an attempt of this process (with anything but 401/403)."""

    def describe(self) -> dict[str, object]:
        """What the run manifest records; names the key's environment variable, never the key."""
        spec = self.spec
        return {
            "adapter": "openai",
            "alias": spec.alias,
            "model_id": spec.model,
            "endpoint": spec.base_url,
            "base_url": spec.base_url,
            "api_key_env": spec.api_key_env,
            "supports_images": spec.supports_images,
            "max_output_tokens": spec.max_output_tokens,
            "context_window": spec.context_window,
            "input_price_per_mtok": spec.input_price_per_mtok,
            "output_price_per_mtok": spec.output_price_per_mtok,
            "request_timeout_s": spec.request_timeout_s,
            "extra_body": spec.extra_body,
            "max_tokens_param": spec.max_tokens_param,
            "supports_temperature": spec.supports_temperature,
            "models_file": str(spec.source),
        }

    def check_request(self, request: CompletionRequest) -> None:
        """Refuse input the model cannot take, before any cache lookup or network call.

        Raised as ``unsupported_input`` so the harness skips the case instead of scoring a text-only
        model on pictures it never saw. The response cache calls this first so that ``--offline``
        reports the skip rather than a cache miss.
        """
        if self.spec.supports_images:
            return
        images = [p.name for m in request.messages for p in m.images()]
        if images:
            raise AdapterError(
                f"model {self.spec.alias} ({self.spec.model}) does not take images "
                f"(supports_images = false in {self.spec.source}); case {request.case_key} "
                f"attaches {', '.join(images)}",
                kind=SkipCategory.UNSUPPORTED_INPUT,
            )

    def complete(self, request: CompletionRequest) -> Completion:
        self.check_request(request)
        spec = self.spec
        kwargs: dict[str, Any] = {
            "model": spec.model,
            "messages": [_to_openai(m) for m in request.messages],
        }
        max_tokens = request.decoding.max_tokens
        if spec.max_output_tokens is not None:
            max_tokens = min(max_tokens, spec.max_output_tokens)
        kwargs[spec.max_tokens_param] = max_tokens
        if spec.supports_temperature:
            kwargs["temperature"] = request.decoding.temperature
        if request.decoding.seed is not None:
            kwargs["seed"] = request.decoding.seed
        if spec.extra_body:
            kwargs["extra_body"] = spec.extra_body
        if request.tools:
            kwargs["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": dict(t.parameters),
                    },
                }
                for t in request.tools
            ]

        client = self._get_client()
        where = f"{spec.alias} ({spec.model} at {spec.base_url}), case {request.case_key}"
        retries: list[None] = []
        response, latency = call_with_retries(
            lambda: self._attempt(client, kwargs),
            self._classify,
            spec.retry,
            where=where,
            on_retry=lambda: retries.append(None),
            unreachable_budget_s=None if self._answered else UNREACHABLE_BUDGET_S,
        )
        choice = response.choices[0]
        usage = response.usage
        input_tokens = usage.prompt_tokens if usage is not None else None
        output_tokens = usage.completion_tokens if usage is not None else None
        return Completion(
            text=choice.message.content or "",
            model_id=response.model or spec.model,
            finish_reason=choice.finish_reason,
            usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens),
            # The successful attempt's own time; waits between retries show in the case's total time.
            latency_s=latency,
            cost_usd=spec.cost_usd(input_tokens, output_tokens),
            retries=len(retries),
            tool_calls=tuple(
                ToolCall(call.id, call.function.name, call.function.arguments or "")
                for call in (getattr(choice.message, "tool_calls", None) or ())
                if getattr(call, "function", None) is not None
            ),
        )

    def _attempt(self, client: openai.OpenAI, kwargs: dict[str, Any]) -> tuple[Any, float]:
        """One request; a reply without choices is a fault (retried like a garbled body)."""
        start = time.perf_counter()
        try:
            response = client.chat.completions.create(**kwargs)
        except openai.APIStatusError as exc:
            self._answered = self._answered or exc.status_code not in AUTH_STATUSES
            raise
        self._answered = True
        latency = time.perf_counter() - start
        if not response.choices:
            raise _NoChoices
        return response, latency

    def _get_client(self) -> openai.OpenAI:
        with self._lock:
            if self._client is None:
                spec = self.spec
                if spec.api_key_env is None:
                    key = _NO_KEY
                else:
                    key = os.environ.get(spec.api_key_env, "")
                    if not key:
                        raise AdapterError(
                            f"{spec.alias}: environment variable {spec.api_key_env} is not set; it must "
                            f"hold the API key for {spec.base_url} (configured in {spec.source})"
                        )
                self._client = openai.OpenAI(
                    base_url=spec.base_url,
                    api_key=key,
                    timeout=spec.request_timeout_s,
                    max_retries=0,  # ours are the only retries: one policy, one bound on total time
                )
            return self._client

    def _classify(self, exc: Exception) -> Fault | None:
        """What went wrong in one attempt, and whether trying again can help; never names the key."""
        timeout = self.spec.request_timeout_s
        # Order matters: APITimeoutError is an APIConnectionError, RateLimitError an APIStatusError.
        never_connected = type(exc.__cause__).__name__ in _CONNECT_FAILURES
        if isinstance(exc, openai.APITimeoutError):
            if never_connected:
                return Fault(f"could not connect within {timeout:g}s", retryable=True, unreachable=True)
            return Fault(f"timed out after {timeout:g}s", retryable=True)
        if isinstance(exc, openai.APIConnectionError):
            if never_connected:
                cause = _short(str(exc.__cause__))
                return Fault(f"could not connect ({cause})", retryable=True, unreachable=True)
            return Fault(f"the connection broke ({_short(str(exc))})", retryable=True)
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            label = "rate limited (HTTP 429)" if status == 429 else f"HTTP {status}"
            if status in AUTH_STATUSES:
                env = self.spec.api_key_env
                refused = f"the key in ${env} was refused" if env else "refused without a key (api_key_env)"
                label += f", {refused}"
            return Fault(
                f"{label}: {_short(exc.message)}",
                retryable=is_retryable_status(status),
                status=status,
                retry_after_s=retry_after_s(exc.response.headers),
                unreachable=status in AUTH_STATUSES,
            )
        if isinstance(exc, _NoChoices):
            return Fault("the reply had no choices", retryable=True)
        if isinstance(exc, ValueError | openai.APIResponseValidationError):
            # A body cut off in transit or garbled by a proxy: the client's JSON parse fails.
            return Fault(f"malformed reply ({type(exc).__name__}: {_short(str(exc))})", retryable=True)
        if isinstance(exc, openai.OpenAIError):
            return Fault(f"{type(exc).__name__}: {_short(str(exc))}", retryable=False)
        return None


class _NoChoices(Exception):
    """A 200 reply whose ``choices`` list is empty (some gateways send it when overloaded)."""


def _to_openai(message: Message) -> dict[str, Any]:
    """A message in the chat-completions shape.

    Text-only messages go as a plain string, which every OpenAI-compatible server accepts (some local
    servers reject a parts list on system messages); messages with images go as a parts list in the
    original order, each image as a base64 PNG data URL. Tool calls and tool results keep the
    fields the API pairs them by.
    """
    if message.role == "tool":
        text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": text}
    if message.tool_calls:
        return {
            "role": message.role,
            "content": "".join(p.text for p in message.parts if isinstance(p, TextPart)) or None,
            "tool_calls": [
                {"id": c.call_id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in message.tool_calls
            ],
        }
    if not message.images():
        return {
            "role": message.role,
            "content": "".join(p.text for p in message.parts if isinstance(p, TextPart)),
        }
    parts: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, ImagePart):
            data = base64.b64encode(part.read_bytes()).decode("ascii")
            parts.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}})
        else:
            parts.append({"type": "text", "text": part.text})
    return {"role": message.role, "content": parts}


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ERROR_CHARS else text[:_MAX_ERROR_CHARS] + "…"
