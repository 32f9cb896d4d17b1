"""The request ledger: one line per request actually sent to an endpoint, shared by all workers.

Records say what each *case* cost; the ledger says what each *session* sent. Both are needed: a case
answered from the cache costs nothing now, a prefetched request belongs to no case yet, and
``--max-cost`` must stop every xdist worker once the session's spend, summed across processes,
reaches the cap. The ledger lives in the run folder (``requests.jsonl``), so it is also the audit
trail of what a run spent: "a repeated run sends zero requests" is a line count.

Appends take an exclusive ``flock`` and write one whole line; readers parse only complete lines and
remember their offset, so checking the spend before each request costs a read of the new lines only.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmark.files import append_lines
from benchmark.schema import RequestLine, ValidationError

__all__ = ["LEDGER_FILE", "RequestLedger", "SessionSpend", "parse_lines", "read_request_lines"]

LEDGER_FILE = "requests.jsonl"


@dataclass(frozen=True)
class SessionSpend:
    """What one session sent: requests (failed ones included), of which failed, the retries they
    made (attempts after each request's first) and their cost."""

    requests: int = 0
    failed: int = 0
    cost_usd: float = 0.0
    retries: int = 0
    unreachable: str | None = None
    """Why the endpoint could not be used, from the first request that found it so before it ever
    answered (a line with ``unreachable``), or None."""

    @property
    def endpoint_down(self) -> bool:
        """Some request found the endpoint unusable and none of this session succeeded: the rest
        would fail the same way, so the gate sends no more (:mod:`benchmark.limiter`)."""
        return self.unreachable is not None and self.failed == self.requests


class RequestLedger:
    """Appends request lines tagged with ``session`` and sums the spend of that session."""

    def __init__(self, path: Path, session: str) -> None:
        self.path = path
        self.session = session
        self._lock = threading.Lock()
        self._offset = 0
        self._totals = SessionSpend()

    def append(self, entry: Mapping[str, Any]) -> None:
        """One line for a request sent, checked against :class:`RequestLine`: ``at`` (UTC,
        milliseconds) is when the line was written, that is when the request's answer or failure
        came back."""
        at = datetime.now(UTC).isoformat(timespec="milliseconds")
        line = RequestLine.model_validate({"session": self.session, "at": at, **entry})
        append_lines(self.path, json.dumps(line.as_json(), sort_keys=True) + "\n")

    def spend(self) -> SessionSpend:
        """This session's totals over every process's lines so far (reads only what is new)."""
        with self._lock:
            try:
                with self.path.open("rb") as fh:
                    fh.seek(self._offset)
                    chunk = fh.read()
            except FileNotFoundError:
                return self._totals
            complete = chunk[: chunk.rfind(b"\n") + 1]  # a line being written is read next time
            self._offset += len(complete)
            totals = self._totals
            requests, failed, cost, retries = totals.requests, totals.failed, totals.cost_usd, totals.retries
            unreachable = totals.unreachable
            for line in parse_lines(complete):
                if line.session != self.session:
                    continue
                requests += 1
                failed += int(not line.ok)
                cost += float(line.cost_usd or 0.0)
                retries += line.retries
                if unreachable is None and line.unreachable:
                    unreachable = line.unreachable
            self._totals = SessionSpend(
                requests=requests, failed=failed, cost_usd=cost, retries=retries, unreachable=unreachable
            )
            return self._totals


def parse_lines(chunk: bytes) -> list[RequestLine]:
    """The request lines of complete ledger text; a line that is not one (not JSON, or not of the
    schema: written by no harness of this version) is not a request this harness sent."""
    lines = []
    for raw in chunk.splitlines():
        try:
            lines.append(RequestLine.model_validate_json(raw))
        except ValidationError:
            continue
    return lines


def read_request_lines(path: Path) -> list[RequestLine]:
    """Every request line of the ledger at ``path`` (none when there is no ledger yet)."""
    return parse_lines(path.read_bytes()) if path.exists() else []
