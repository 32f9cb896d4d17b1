"""The generation phase: many model requests in flight, whatever ``-n`` is.

Model calls are I/O-bound (seconds to minutes of waiting each), sandboxed execution is CPU-bound.
xdist workers are the right unit for the second and the wrong one for the first: with ``-n 2`` a run
would have two requests in flight, and 780 cases × 5 samples would take days. So each process of
the run (each xdist worker, or the single process without xdist) starts, right after collection, a
pool of daemon threads that fills the response cache with the *first* request of its share of the
selected cases, while the main thread runs the cases in pytest's order:

- The share: the selected items are listed in the same order in every worker; worker ``w`` of
  ``W`` takes the items at positions ``p`` with ``p % W == w`` (:class:`Share`) and runs up to
  ``--max-in-flight`` threads. The permits they send under are the run's, shared by its workers
  (:mod:`benchmark.inflight`): the run as a whole keeps ``--max-in-flight`` requests in flight for
  any ``-n``, and the first worker up uses all of them until the others come.
- A worker done with its share helps the others: its threads take the other shares' cases from
  their ends backwards (each share's owner works from its front), and stop on a share at its first
  case that is already cached or being fetched. Workers come up at different times (each starts
  an interpreter and collects the whole dataset), so without this a late worker's share started
  late and the model side ended with it; the per-key lock (below) keeps a request from being sent
  twice.
- A case whose request is being fetched (by this or another process) waits for that answer on the
  cache's per-key lock instead of sending it again; a case that comes before its prefetch sends it
  itself and the prefetch then finds it cached. Either way each request is sent once.
- Follow-up turns (suites that call the model again after seeing a result) and a case that overtook
  its prefetch go through the same per-process limit (:class:`~benchmark.limiter.GatedAdapter`), so
  the bound holds for them too.

The first request of a case is taken from the suite without running the case: its ``evaluate`` is
run with a model that captures the first request and stops the evaluation right there
(:func:`first_request`), or, when the suite has one, its optional ``first_request(case, context)``,
which makes only that first call through ``context``, skipping what ``evaluate`` does before it
that does not shape the request (MM-OptBench's instance check, whose first use in a process
imports a subcategory's scoring stack for seconds while every prefetch thread waits on the import
lock). Both go through :meth:`CaseContext.complete`, so the request, and hence the cache key, is
byte for byte the one the case will make. A suite for which neither works (it needs the sandbox
before its first model call) simply gets no prefetch: its cases still run, through the limiter.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.base import Completion, CompletionRequest
from adapters.cache import CachedAdapter
from benchmark.cases import Case
from benchmark.sandbox import Limits
from benchmark.suites.base import CaseContext, Suite

__all__ = ["GenerationPhase", "Share", "first_request"]


@dataclass(frozen=True)
class Share:
    """Which part of the run this process prefetches: worker ``index`` of ``count``."""

    index: int = 0
    count: int = 1

    def owns(self, position: int) -> bool:
        return position % self.count == self.index


class _Captured(BaseException):
    """Carries the captured request out of ``evaluate``. A BaseException so that a suite's own
    ``except Exception`` around its model call cannot swallow it."""

    def __init__(self, request: CompletionRequest) -> None:
        super().__init__(request.case_key)
        self.request = request


class _CaptureModel:
    name = "first-request-capture"

    def describe(self) -> dict[str, object]:
        return {"adapter": self.name}

    def complete(self, request: CompletionRequest) -> Completion:
        raise _Captured(request)


class _NoSandbox:
    """Stands in for the sandbox while capturing: a suite that executes code before its first model
    call cannot be prefetched, and touching this says so by raising."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError("the sandbox is not available while capturing a first request")


def first_request(
    suite: Suite, case: Case, *, max_tokens: int, objective_only: bool
) -> CompletionRequest | None:
    """The first request ``case`` will send, or None when it cannot be known without running it."""
    context = CaseContext(
        case=case,
        adapter=_CaptureModel(),
        sandbox=_NoSandbox(),  # type: ignore[arg-type]
        limits=Limits(),
        objective_only=objective_only,
        max_tokens=max_tokens,
    )
    first_call = getattr(suite, "first_request", None)
    try:
        if callable(first_call):
            first_call(case, context)
        else:
            suite.evaluate(case, context)
    except _Captured as captured:
        return captured.request
    except Exception:
        return None  # a damaged package, a suite that needs the sandbox first: the case reports it
    return None


class GenerationPhase:
    """Daemon threads that prefetch first requests into the cache; see the module docstring.

    Threads are daemons so that an interrupted run exits without waiting for requests in flight;
    the cache writes entries atomically, so nothing half-written is left behind.
    """

    def __init__(
        self, adapter: CachedAdapter, suite: Suite, threads: int, *, max_tokens: int, objective_only: bool
    ) -> None:
        self.adapter = adapter
        self.suite = suite
        self.threads = threads
        self.max_tokens = max_tokens
        self.objective_only = objective_only
        self._queue: queue.Queue[Case] = queue.Queue()
        self._others: list[list[Case]] = []
        self._others_lock = threading.Lock()
        self._stop = threading.Event()
        self._workers: list[threading.Thread] = []

    def start(self, cases: Iterable[Case], others: Iterable[Sequence[Case]] = ()) -> None:
        """Prefetch ``cases`` (this process's share), then help with ``others`` (the other shares,
        each in the order its owner prefetches it)."""
        for case in cases:
            self._queue.put(case)
        self._others = [list(share) for share in others if share]
        for number in range(self.threads):
            worker = threading.Thread(target=self._work, name=f"optbench-prefetch-{number}", daemon=True)
            worker.start()
            self._workers.append(worker)

    def stop(self) -> None:
        """Send nothing new; requests already in flight finish (or die with the process)."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every queued case was handled (for tools that time the phase); True when done."""
        for worker in self._workers:
            worker.join(timeout)
        return not any(worker.is_alive() for worker in self._workers)

    def _work(self) -> None:
        while not self._stop.is_set():
            try:
                case = self._queue.get_nowait()
            except queue.Empty:
                break
            self._prefetch(case)
        while not self._stop.is_set():
            taken = self._take_other()
            if taken is None:
                return
            share, case = taken
            if not self._prefetch(case):  # its owner (or another helper) got here first
                with self._others_lock:
                    share.clear()

    def _take_other(self) -> tuple[list[Case], Case] | None:
        """The last case of the other share with the most left, or None when none is left."""
        with self._others_lock:
            share = max(self._others, key=len, default=None)
            if not share:
                return None
            return share, share.pop()

    def _prefetch(self, case: Case) -> bool:
        """Whether the case's first request was sent from here."""
        request = first_request(
            self.suite, case, max_tokens=self.max_tokens, objective_only=self.objective_only
        )
        return request is not None and not self._stop.is_set() and self.adapter.prefetch(request)
