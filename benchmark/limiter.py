"""The gate in front of the network: a bound on requests in flight, the spend cap, the ledger.

Every request that leaves this process for an endpoint passes :class:`GatedAdapter`, which sits
between the response cache and the real adapter (a cache hit never reaches it). It

- holds one of ``slots`` permits for the duration of the call, whether the request comes from the
  generation phase or from a case's own follow-up turns; under xdist the permits are the run's,
  shared by its workers (:class:`benchmark.inflight.RunPermits`), so the run as a whole never has
  more than ``--max-in-flight`` requests in flight and any worker may use all of them;
- under ``--max-cost``, reserves each request's worst-case cost before sending it and refuses it
  when the session's spend plus what requests in flight hold could pass the cap
  (:mod:`benchmark.budget`): the case becomes ``api_error`` ("budget exhausted") and ``--resume``
  runs it later;
- appends each request it sent, succeeded or not, to the ledger, with a warning when the server
  counted implausibly few prompt tokens for what was sent (:mod:`benchmark.prompt_size`);
- stops sending once a request of the session found the endpoint unusable before any succeeded
  (``endpoint_unreachable``: no connection, or the key refused; see :mod:`adapters.retry`): the
  ledger carries the reason to every xdist worker, and each later case becomes ``api_error`` with
  that one reason, in seconds rather than after every case's full backoff.

It keeps the inner adapter's ``describe()`` unchanged: the cache key is built from it.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import AbstractContextManager

from adapters.base import AdapterError, Completion, CompletionRequest, ModelAdapter
from adapters.retry import UNREACHABLE
from benchmark.budget import BUDGET_FILE, Budget, worst_case_usd
from benchmark.ledger import RequestLedger, SessionSpend
from benchmark.prompt_size import implausible_prompt_tokens

__all__ = ["GatedAdapter", "endpoint_down_line"]

_log = logging.getLogger("optbench.limiter")


class GatedAdapter:
    def __init__(
        self,
        inner: ModelAdapter,
        slots: int,
        ledger: RequestLedger | None = None,
        max_cost_usd: float | None = None,
        permits: AbstractContextManager[object] | None = None,
    ) -> None:
        """``permits``: held around each request (by default ``slots`` of this gate's own); the
        same object for the gates of every model a case asks (the model under test, a modifier,
        a judge) makes them share one in-flight bound, and :class:`~benchmark.inflight.RunPermits`
        shares it with the run's other processes."""
        if slots < 1:
            raise ValueError(f"a gate needs at least one slot, got {slots}")
        self.inner = inner
        self.name = inner.name
        self.slots = slots
        self.ledger = ledger
        self.max_cost_usd = max_cost_usd
        self.permits: AbstractContextManager[object] = (
            permits if permits is not None else threading.BoundedSemaphore(slots)
        )
        self.budget = (
            Budget(ledger.path.parent / BUDGET_FILE, ledger, max_cost_usd)
            if ledger is not None and max_cost_usd is not None
            else None
        )

    def describe(self) -> dict[str, object]:
        return self.inner.describe()

    def check_request(self, request: CompletionRequest) -> None:
        check = getattr(self.inner, "check_request", None)
        if callable(check):
            check(request)

    def complete(self, request: CompletionRequest) -> Completion:
        self._check_sendable(request)
        with self.permits:
            self._check_sendable(request)  # the wait for a slot may have been long
            reservation = self._reserve(request)
            started = time.perf_counter()
            try:
                completion = self.inner.complete(request)
                # Logged before the slot is released, so the next request's checks see this cost.
                wall_s = time.perf_counter() - started
                self._log(request, ok=True, wall_s=wall_s, completion=completion, retries=completion.retries)
            except AdapterError as exc:
                wall_s = time.perf_counter() - started
                unreachable = None
                if exc.kind == UNREACHABLE:
                    described = self.inner.describe()
                    where = described.get("endpoint") or described.get("adapter")
                    unreachable = f"{self.name} at {where}: {exc.reason or exc}"
                self._log(
                    request,
                    ok=False,
                    wall_s=wall_s,
                    error=str(exc),
                    retries=exc.retries,
                    unreachable=unreachable,
                )
                raise
            finally:
                # After the ledger line: for a moment the cost counts twice, never not at all.
                if reservation is not None and self.budget is not None:
                    self.budget.release(reservation)
        return completion

    def _reserve(self, request: CompletionRequest) -> str | None:
        if self.budget is None:
            return None
        estimate = worst_case_usd(request, self.inner.describe())
        if estimate is None:  # the run checked at start that the model has prices
            raise AdapterError(f"--max-cost: model {self.name} has no prices", kind="budget_exhausted")
        return self.budget.reserve(request, estimate)

    def _check_sendable(self, request: CompletionRequest) -> None:
        """Refuse to send when the session found the endpoint down (the cap: :meth:`_reserve`)."""
        if self.ledger is None:
            return
        spend = self.ledger.spend()
        if spend.endpoint_down:
            raise AdapterError(
                f"not sent: {endpoint_down_line(spend)} (case {request.case_key})", kind=UNREACHABLE
            )

    def _log(
        self,
        request: CompletionRequest,
        *,
        ok: bool,
        wall_s: float,
        completion: Completion | None = None,
        error: str | None = None,
        retries: int = 0,
        unreachable: str | None = None,
    ) -> None:
        if self.ledger is None:
            return
        model_id = completion.model_id if completion is not None else self.describe().get("model_id")
        entry: dict[str, object] = {
            "case": request.case_key,
            "model_id": model_id,
            "ok": ok,
            "wall_s": round(wall_s, 4),
            "retries": retries,
        }
        if completion is not None:
            entry.update(
                {
                    "cost_usd": completion.cost_usd,
                    "input_tokens": completion.usage.input_tokens,
                    "output_tokens": completion.usage.output_tokens,
                    "finish_reason": completion.finish_reason,
                }
            )
            warning = implausible_prompt_tokens(completion.usage.input_tokens, request.messages)
            if warning is not None:
                _log.warning("%s, case %s: %s", self.name, request.case_key, warning)
                entry["prompt_warning"] = warning
        if error is not None:
            entry["error"] = error
        if unreachable is not None:
            entry["unreachable"] = unreachable
        self.ledger.append(entry)


def endpoint_down_line(spend: SessionSpend) -> str:
    """The one reason every unsent case gives, and the terminal prints at the top and the bottom."""
    return (
        f"the endpoint cannot be used ({spend.unreachable}); no request of this session succeeded, so "
        "no more are sent and the remaining cases are api_error: fix base_url or the key in the models "
        "file, then run again with --resume"
    )
