"""The replay adapter: answers from a JSONL file of recorded responses.

Replay makes runs reproducible without an endpoint: responses recorded once (from a real model, or
written by hand to plant a specific failure) are re-scored by any later harness version. Each line
is ``{"case": "<case key>", "response": "<text>"}`` with optional ``"finish_reason"`` and
``"usage": {"input_tokens": int, "output_tokens": int}``; other fields (a recorder's timestamps,
model names) are ignored so that files written by other tools replay as they are.

The whole file is validated when the adapter is created, so a typo on line 812 fails the run at
start-up with ``FILE:812`` rather than as a scattered per-case error hours later.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from adapters.base import AdapterError, Completion, CompletionRequest, Usage
from benchmark.files import split_lines
from benchmark.schema import ReplayLine, ValidationError, problems

__all__ = ["ReplayAdapter", "ReplayFileError"]


class ReplayFileError(ValueError):
    """The replay file is missing or one of its lines is malformed (the message names FILE:LINE)."""


@dataclass(frozen=True)
class _Recorded:
    text: str
    finish_reason: str | None
    usage: Usage


class ReplayAdapter:
    """Looks a request up by ``case_key``; falls back to the key without its last path segment.

    The fallback lets one recorded response (keyed ``.../stage1``) serve every sample
    (``.../stage1/s0``, ``.../stage1/s1``, ...), which is what a hand-written planted response wants.
    """

    def __init__(self, path: Path, name: str | None = None) -> None:
        self.path = path
        self.name = name if name is not None else f"replay:{path}"
        self._records, self._digest = _load(path)

    def describe(self) -> dict[str, object]:
        # The endpoint is the file's content hash so the response cache in front of a replay adapter
        # never serves a response from an older version of the file.
        return {
            "adapter": "replay",
            "alias": self.name,
            "model_id": "replay",
            "endpoint": f"replay:sha256:{self._digest}",
            "file": str(self.path),
            "records": len(self._records),
        }

    def complete(self, request: CompletionRequest) -> Completion:
        start = time.perf_counter()
        record = self._records.get(request.case_key)
        if record is None and "/" in request.case_key:
            record = self._records.get(request.case_key.rsplit("/", 1)[0])
        if record is None:
            raise AdapterError(f"no recorded response for case {request.case_key} in {self.path}")
        return Completion(
            text=record.text,
            model_id="replay",
            finish_reason=record.finish_reason,
            usage=record.usage,
            latency_s=time.perf_counter() - start,
        )


def _load(path: Path) -> tuple[dict[str, _Recorded], str]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ReplayFileError(f"cannot read replay file {path}: {exc}") from exc
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReplayFileError(f"replay file {path} is not UTF-8: {exc}") from exc

    records: dict[str, _Recorded] = {}
    first_line: dict[str, int] = {}
    for lineno, line in enumerate(split_lines(content), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReplayFileError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
        except RecursionError:
            raise ReplayFileError(f"{where}: nested too deeply to be a replay line") from None
        if not isinstance(obj, dict):
            raise ReplayFileError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        try:
            entry = ReplayLine.model_validate(obj)
        except ValidationError as exc:
            raise ReplayFileError(f"{where}: {problems(exc)}") from None
        case = entry.case
        if case in records:
            raise ReplayFileError(f"{where}: case {case} was already recorded on line {first_line[case]}")
        first_line[case] = lineno
        usage = Usage() if entry.usage is None else Usage(entry.usage.input_tokens, entry.usage.output_tokens)
        records[case] = _Recorded(text=entry.response, finish_reason=entry.finish_reason, usage=usage)
    return records, hashlib.sha256(raw).hexdigest()
