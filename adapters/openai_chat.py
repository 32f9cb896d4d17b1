"""The OpenAI-compatible chat adapter: hosted APIs, gateways, vLLM and llama.cpp servers alike.

One adapter covers every endpoint that speaks ``POST /v1/chat/completions``; what differs between
them (URL, model id, key, image support, prices) comes from the models file, never from code. Every
transport fault becomes an :class:`~adapters.base.AdapterError` carrying the HTTP status, because the
harness must tell "the endpoint failed" (re-run with ``--resume``) from "the model answered badly".
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
from benchmark.messages import ImagePart, Message, TextPart

__all__ = ["OpenAIChatAdapter"]

_NO_KEY = "no-key"
"""Sent as the bearer token to keyless local servers: the client insists on some key, and using a
placeholder (rather than letting it read ``$OPENAI_API_KEY``) keeps a real key away from endpoints
that were not configured to receive one."""

_MAX_ERROR_CHARS = 500


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
                kind="unsupported_input",
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

        client = self._get_client()
        start = time.perf_counter()
        try:
            response = client.chat.completions.create(**kwargs)
        except openai.OpenAIError as exc:
            raise self._translate(exc, request) from exc
        latency = time.perf_counter() - start

        if not response.choices:
            raise AdapterError(
                f"{spec.alias}: {spec.base_url} returned no choices for case {request.case_key}"
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
            latency_s=latency,
            cost_usd=spec.cost_usd(input_tokens, output_tokens),
        )

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
                    max_retries=2,
                )
            return self._client

    def _translate(self, exc: openai.OpenAIError, request: CompletionRequest) -> AdapterError:
        """One message per failure class, naming the alias, endpoint and case; never the key."""
        spec = self.spec
        where = f"{spec.alias} ({spec.model} at {spec.base_url}), case {request.case_key}"
        # Order matters: APITimeoutError is an APIConnectionError, RateLimitError an APIStatusError.
        if isinstance(exc, openai.APITimeoutError):
            return AdapterError(f"{where}: timed out after {spec.request_timeout_s:g}s (and 2 retries)")
        if isinstance(exc, openai.APIConnectionError):
            return AdapterError(f"{where}: could not connect ({exc}) after 2 retries")
        if isinstance(exc, openai.RateLimitError):
            return AdapterError(
                f"{where}: rate limited (HTTP 429) after 2 retries: {_short(exc.message)}", status=429
            )
        if isinstance(exc, openai.APIStatusError):
            return AdapterError(
                f"{where}: HTTP {exc.status_code}: {_short(exc.message)}", status=exc.status_code
            )
        return AdapterError(f"{where}: {type(exc).__name__}: {_short(str(exc))}")


def _to_openai(message: Message) -> dict[str, Any]:
    """A message in the chat-completions shape.

    Text-only messages go as a plain string, which every OpenAI-compatible server accepts (some local
    servers reject a parts list on system messages); messages with images go as a parts list in the
    original order, each image as a base64 PNG data URL.
    """
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
