"""Retrying transient endpoint faults: which faults, how long to wait, when to give up.

A run of thousands of requests against a hosted API meets rate limits (429), overloaded or restarting
servers (5xx), dropped connections and the odd garbled reply. Retrying those is what keeps a run from
ending in a wall of ``api_error`` records; retrying forever is what turns an outage into a hung run.
So every retry here is bounded three ways: a number of attempts, a per-wait cap and a total time.

The wait before retry *k* is exponential with jitter (half fixed, half random: ``cap/2 + U(0, cap/2)``
with ``cap = min(max_delay, base * 2**k)``), so many workers that were throttled together do not
come back together. A ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms`` header from the
server replaces the computed wait: the server knows when it will take the request. A wait that would
end past the total budget is not taken; the call fails at once with the last fault.

An endpoint that cannot be used at all (no connection: refused, unknown host, TLS; or credentials
refused: 401/403) is another matter when it has never answered: backing off for minutes only delays
"nothing works". Such a fault is marked ``unreachable``; the caller passes ``unreachable_budget_s``
while its endpoint has not answered yet, and then a few attempts within that budget decide, and the
error's kind is ``endpoint_unreachable`` (the request gate stops the session's other requests on it,
:mod:`benchmark.limiter`). Rate limits and 5xx keep the full policy.

This module knows nothing about HTTP clients: the adapter classifies its own exceptions into
:class:`Fault` values and hands :func:`call_with_retries` one attempt as a callable.
"""

from __future__ import annotations

import email.utils
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from adapters.base import AdapterError
from benchmark.categories import InfrastructureCategory

__all__ = [
    "RETRYABLE_STATUSES",
    "UNREACHABLE",
    "Fault",
    "RetryPolicy",
    "call_with_retries",
    "is_retryable_status",
    "retry_after_s",
]

RETRYABLE_STATUSES = frozenset({408, 409, 425, 429})
"""Request timeout, conflict (a concurrent request on the same resource), too early, too many
requests; every 5xx is retryable as well (:func:`is_retryable_status`)."""

UNREACHABLE = "endpoint_unreachable"
"""The :class:`AdapterError` kind of a request that found the endpoint unusable before it ever answered."""

T = TypeVar("T")

_log = logging.getLogger("optbench.retry")


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES or 500 <= status <= 599


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try. ``max_retries`` counts retries after the first attempt."""

    max_retries: int = 8
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0
    max_total_s: float = 900.0

    def backoff_s(self, retry_index: int, rng: random.Random) -> float:
        """The jittered wait before retry number ``retry_index`` (0-based)."""
        cap = min(self.max_delay_s, self.base_delay_s * 2.0**retry_index)
        return cap / 2 + rng.uniform(0.0, cap / 2)


@dataclass(frozen=True)
class Fault:
    """One failed attempt, classified. ``retry_after_s`` is the server's own wait, if it gave one."""

    description: str
    retryable: bool
    status: int | None = None
    retry_after_s: float | None = None
    unreachable: bool = False
    """No connection could be made, or the credentials were refused: the endpoint is unusable as
    configured (as opposed to busy or failing now and then)."""


def retry_after_s(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The server's requested wait in seconds from ``retry-after-ms`` or ``Retry-After`` (delta
    seconds or an HTTP date), or None when absent or unreadable. Negative waits become 0."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT by definition
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def call_with_retries(
    attempt: Callable[[], T],
    classify: Callable[[Exception], Fault | None],
    policy: RetryPolicy,
    *,
    where: str,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    rng: random.Random | None = None,
    on_retry: Callable[[], None] | None = None,
    unreachable_budget_s: float | None = None,
) -> T:
    """``attempt()`` until it returns, a fault is not retryable, or the policy is spent.

    ``classify`` turns an exception into a :class:`Fault` (None: not ours, re-raised as is). The final
    fault becomes an :class:`AdapterError` (``api_error``) whose message says ``where``, how many
    attempts were made over how long, and what the last fault was, and carries the retry count;
    ``on_retry`` is called before each retry (an adapter counts them for the completion).
    ``unreachable_budget_s``: the total time an ``unreachable`` fault may be retried (the caller
    gives it while its endpoint never answered); the error's kind is then :data:`UNREACHABLE`.
    """
    rng = rng if rng is not None else random.Random()
    started = clock()
    attempts = 0
    while True:
        attempts += 1
        try:
            return attempt()
        except Exception as exc:
            fault = classify(exc)
            if fault is None:
                raise
            elapsed = clock() - started
            retries_left = attempts <= policy.max_retries
            wait = fault.retry_after_s
            if wait is None:
                wait = policy.backoff_s(attempts - 1, rng)
            fail_fast = fault.unreachable and unreachable_budget_s is not None
            budget = policy.max_total_s
            if fault.unreachable and unreachable_budget_s is not None:  # fail_fast, narrowed for mypy
                budget = min(budget, unreachable_budget_s)
            fits = elapsed + wait <= budget
            if not (fault.retryable and retries_left and fits):
                if not fault.retryable:
                    why = "not retryable"
                elif not retries_left:
                    why = f"gave up after {attempts} attempts in {elapsed:.1f}s"
                else:
                    why = (
                        f"gave up after {attempts} attempts in {elapsed:.1f}s: the next wait ({wait:.1f}s) "
                        f"would pass the {budget:g}s "
                        + ("budget for an endpoint that never answered" if fail_fast else "retry budget")
                    )
                _log.warning("%s: %s: %s", where, fault.description, why)
                raise AdapterError(
                    f"{where}: {fault.description} ({why})",
                    kind=UNREACHABLE if fail_fast else InfrastructureCategory.API_ERROR,
                    status=fault.status,
                    retries=attempts - 1,
                    reason=fault.description,
                ) from exc
            _log.info("%s: %s; retry %d in %.1fs", where, fault.description, attempts, wait)
            if on_retry is not None:
                on_retry()
            sleep(wait)
