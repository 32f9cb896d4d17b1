"""The content-addressed response cache in front of every real model call.

Model calls are slow and cost money, and a benchmark is re-run constantly (new scorer, new harness
version, an interrupted run). The cache makes a repeated request free and makes ``--offline`` runs
possible: with a warm cache the whole benchmark re-scores without an endpoint or a key.

The key is the *content* of the request: model id and endpoint, the messages (text verbatim, images
by their sha256 so a renamed copy of a picture is the same request and no bytes are hashed twice),
and the decoding settings including ``sample_index`` (the five samples of one case are five distinct
requests even at equal temperature). The case key is not part of it: two cases asking the same thing
get the same answer (the completion says which case stored it, and the summary counts them); it
is stored in the entry to make that visible and the cache directory readable.

Modes (``--cache``): ``readwrite`` (default) reads and stores; ``read`` answers from stored
entries but stores nothing new; ``write`` ignores entries of earlier sessions (a refresh) and
stores; ``off`` is no cache at all (the registry then leaves this class out).

Entries are written atomically (temp file + ``os.replace``) so concurrent xdist workers and killed
runs never leave a half-written entry; an unreadable entry counts as a miss and is overwritten.

A miss is fetched under a per-key ``flock`` (``<key>.lock`` beside the entry), so when the generation
phase (:mod:`benchmark.prefetch`) or another worker is already fetching a request, a case that needs
it waits for that answer instead of sending the request a second time. Entries remember the session
that fetched them: for that session an entry is the answer it paid for (``cache_hit`` false), for
every later session it is a hit. A request that failed for good in this session leaves a
``<key>.failed.json`` marker, so the case that needs it reports that failure at once rather than
retrying an outage a second time; later sessions ignore the marker and try again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from adapters.base import AdapterError, Completion, CompletionRequest, ModelAdapter, Usage
from benchmark.categories import InfrastructureCategory
from benchmark.files import locked, write_atomically
from benchmark.messages import ImagePart, ToolCall

__all__ = ["CACHE_FORMAT", "CACHE_MODES", "CachedAdapter", "cache_key"]

CACHE_MODES: tuple[str, ...] = ("readwrite", "read", "write", "off")

_log = logging.getLogger("optbench.cache")

CACHE_FORMAT = 1
"""Bumped when the key recipe or the entry layout changes, so old entries simply stop matching."""

_IDENTITY_FIELDS = ("model_id", "endpoint", "extra_body")
"""The parts of ``describe()`` that change what a request returns. ``extra_body`` is included because
it carries provider options (reasoning effort and the like) that change the answer."""


def cache_key(identity: Mapping[str, object], request: CompletionRequest) -> str:
    """sha256 hex of the canonical JSON of (format, adapter identity, messages, decoding)."""
    messages: list[dict[str, object]] = [
        {
            "role": m.role,
            "parts": [
                {"type": "image", "sha256": p.sha256}
                if isinstance(p, ImagePart)
                else {"type": "text", "text": p.text}
                for p in m.parts
            ],
        }
        for m in request.messages
    ]
    # Tool-calling conversations (agent suites) key their calls too; plain chats keep their old keys.
    for entry, m in zip(messages, request.messages, strict=True):
        if m.tool_calls or m.tool_call_id:
            entry["tool_calls"] = [dataclasses.asdict(c) for c in m.tool_calls]
            entry["tool_call_id"] = m.tool_call_id
    # Every Decoding field is keyed (new fields join the key by themselves); the temperature is
    # normalised so that 0 and 0.0 are the same request.
    decoding = dataclasses.asdict(request.decoding)
    decoding["temperature"] = float(decoding["temperature"])
    material = {
        "format": CACHE_FORMAT,
        "adapter": {k: identity.get(k) for k in _IDENTITY_FIELDS},
        "messages": messages,
        "decoding": decoding,
    }
    if request.tools:
        material["tools"] = [dataclasses.asdict(t) for t in request.tools]
    # default=str: TOML dates in extra_body are the only non-JSON values an identity can carry.
    canonical = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CachedAdapter:
    """Wraps ``inner``: a hit returns the stored completion; a miss calls ``inner`` and stores the
    result. ``AdapterError`` is never cached (faults are transient and must be retried by ``--resume``),
    and with ``offline=True`` a miss is an ``AdapterError(kind="cache_miss")``.

    ``session`` names the current run session (shared by its xdist workers); ``cache_hit`` is true
    for entries fetched by an earlier session. A hit keeps the stored ``latency_s`` and ``cost_usd``
    of the original call, so reports can still show what the run would cost; ``cache_hit`` says
    that nothing was spent this time.
    """

    def __init__(
        self,
        inner: ModelAdapter,
        cache_dir: Path,
        offline: bool = False,
        session: str | None = None,
        mode: str = "readwrite",
    ) -> None:
        if mode not in ("readwrite", "read", "write"):
            raise ValueError(f"cache mode {mode!r} is not one of readwrite, read, write")
        if offline and mode == "write":
            raise ValueError("--offline answers from the cache, which --cache=write does not read")
        self.inner = inner
        self.name = inner.name
        self.cache_dir = cache_dir
        self.offline = offline
        self.session = session
        self.mode = mode
        self._identity = inner.describe()

    @property
    def prefetches(self) -> bool:
        """Whether a generation phase can fill this cache ahead of the cases (it must store)."""
        return self.mode != "read"

    def describe(self) -> dict[str, object]:
        return {
            **self.inner.describe(),
            "cache_dir": str(self.cache_dir),
            "offline": self.offline,
            "cache_mode": self.mode,
        }

    def _entry(self, path: Path, key: str, request: CompletionRequest) -> Completion | None:
        """The usable stored answer: any session's, or under ``write`` only this session's own."""
        completion = _read_entry(path, key, self.session, request.case_key)
        if completion is None or (self.mode == "write" and completion.cache_hit):
            return None
        return completion

    def path_for(self, request: CompletionRequest) -> Path:
        """Where the entry for ``request`` lives (whether or not it exists)."""
        key = cache_key(self._identity, request)
        return self.cache_dir / key[:2] / f"{key}.json"

    def complete(self, request: CompletionRequest) -> Completion:
        # Input the model cannot take is a skip, not a miss, even offline.
        self._check(request)
        key = cache_key(self._identity, request)
        path = self.cache_dir / key[:2] / f"{key}.json"
        cached = self._entry(path, key, request)
        if cached is not None:
            _log.debug(
                "cache %s for %s (%s)", "hit" if cached.cache_hit else "own entry", request.case_key, key[:12]
            )
            return cached
        _log.debug("cache miss for %s (%s, mode %s)", request.case_key, key[:12], self.mode)
        if self.mode == "read" and not self.offline:
            return self.inner.complete(request)  # nothing is stored in read mode
        if self.offline:
            raise AdapterError(
                f"offline: no cached response for case {request.case_key} (model {self.name}) "
                f"in cache dir {self.cache_dir} (key {key}); run without --offline to fetch it",
                kind="cache_miss",
            )
        with _key_lock(path, wait=True):
            cached = self._entry(path, key, request)  # fetched while we waited for the lock
            if cached is not None:
                return cached
            self._raise_recorded_failure(path, request)
            return self._fetch(path, key, request)

    def prefetch(self, request: CompletionRequest) -> bool:
        """Fetch ``request`` into the cache unless it is there or being fetched; never raises.

        Returns whether a request was sent. Used by the generation phase, which must never block on a
        key another process holds (that process is already fetching it) and never fails a run: a
        fault is left for the case itself to report (see the failure marker above).
        """
        if self.offline or not self.prefetches:
            return False
        try:
            self._check(request)
        except AdapterError:
            return False
        key = cache_key(self._identity, request)
        path = self.cache_dir / key[:2] / f"{key}.json"
        if self._entry(path, key, request) is not None:
            return False
        with _key_lock(path, wait=False) as held:
            if not held or self._entry(path, key, request) is not None:
                return False
            if self._recorded_failure(path) is not None:
                return False
            with contextlib.suppress(AdapterError):
                self._fetch(path, key, request)
            return True

    def _check(self, request: CompletionRequest) -> None:
        check = getattr(self.inner, "check_request", None)
        if callable(check):
            check(request)

    def _fetch(self, path: Path, key: str, request: CompletionRequest) -> Completion:
        try:
            completion = self.inner.complete(request)
        except AdapterError as exc:
            if self.session is not None:
                _write_json(
                    _failure_path(path),
                    {"session": self.session, "message": str(exc), "kind": exc.kind, "status": exc.status},
                )
            raise
        _write_entry(path, key, request, self._identity, completion, self.session)
        with contextlib.suppress(OSError):
            _failure_path(path).unlink()
        return completion

    def _recorded_failure(self, path: Path) -> AdapterError | None:
        """The failure this session already met for this key, if any."""
        if self.session is None:
            return None
        try:
            marker = json.loads(_failure_path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(marker, dict) or marker.get("session") != self.session:
            return None
        return AdapterError(
            str(marker.get("message")),
            kind=str(marker.get("kind", InfrastructureCategory.API_ERROR)),
            status=marker.get("status"),
        )

    def _raise_recorded_failure(self, path: Path, request: CompletionRequest) -> None:
        failure = self._recorded_failure(path)
        if failure is not None:
            raise AdapterError(
                f"{failure} (this request already failed earlier in this session; not retried again "
                f"for case {request.case_key})",
                kind=failure.kind,
                status=failure.status,
            )


def _key_lock(entry: Path, *, wait: bool) -> contextlib.AbstractContextManager[bool]:
    """An exclusive ``flock`` on ``<key>.lock``; yields False when ``wait`` is off and it is taken."""
    return locked(entry.with_suffix(".lock"), wait=wait)


def _failure_path(entry: Path) -> Path:
    return entry.with_suffix(".failed.json")


def _read_entry(path: Path, key: str, session: str | None, case_key: str | None = None) -> Completion | None:
    """The stored completion, or None when absent or unreadable in any way (treated as a miss).
    ``cache_hit`` is false only for an entry that ``session`` itself fetched; ``shared_from`` names
    the case that stored it when that is not ``case_key``."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        if entry.get("format") != CACHE_FORMAT or entry.get("key") != key:
            return None
        c = entry["completion"]
        usage = c.get("usage") or {}
        completion = Completion(
            text=c["text"],
            model_id=c["model_id"],
            finish_reason=c.get("finish_reason"),
            usage=Usage(input_tokens=usage.get("input_tokens"), output_tokens=usage.get("output_tokens")),
            latency_s=float(c.get("latency_s", 0.0)),
            cost_usd=c.get("cost_usd"),
            cache_hit=session is None or entry.get("session") != session,
            shared_from=entry.get("case_key") if case_key and entry.get("case_key") != case_key else None,
            tool_calls=tuple(ToolCall(**call) for call in c.get("tool_calls", ())),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not isinstance(completion.text, str) or not isinstance(completion.model_id, str):
        return None
    return completion


def _write_entry(
    path: Path,
    key: str,
    request: CompletionRequest,
    identity: dict[str, object],
    completion: Completion,
    session: str | None,
) -> None:
    entry: dict[str, Any] = {
        "format": CACHE_FORMAT,
        "key": key,
        "case_key": request.case_key,
        "session": session,
        "stored_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "model_id": identity.get("model_id"),
        "endpoint": identity.get("endpoint"),
        "decoding": dataclasses.asdict(request.decoding),
        "completion": {
            "text": completion.text,
            "model_id": completion.model_id,
            "finish_reason": completion.finish_reason,
            "usage": dataclasses.asdict(completion.usage),
            "latency_s": completion.latency_s,
            "cost_usd": completion.cost_usd,
            "tool_calls": [dataclasses.asdict(call) for call in completion.tool_calls],
        },
    }
    _write_json(path, entry)


def _write_json(path: Path, value: dict[str, Any]) -> None:
    """Atomically and durably: a reader sees the old file or the whole new one, never a part."""
    write_atomically(path, json.dumps(value, ensure_ascii=False, indent=1), fsync=True)
