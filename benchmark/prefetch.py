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

The first request of a case comes from the suite's ``first_request(case, max_tokens)``, built from
the case alone with :func:`benchmark.suites.base.case_request`, the very function the case's own
call goes through, so the request, and hence the cache key, is byte for byte the one the case will
make. It skips what solving does before that call and does not shape it (MM-OptBench's instance
check, whose first use in a process imports a subcategory's scoring stack for seconds while every
prefetch thread would wait on the import lock). A suite that does not know its first request
before running (it needs the sandbox first, or reads answers from files) says None, and its cases
simply get no prefetch: they still run, through the limiter.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from adapters.base import CompletionRequest
from adapters.cache import CachedAdapter
from benchmark.cases import Case
from benchmark.suites.base import Suite

__all__ = ["GenerationPhase", "Share", "first_request"]


@dataclass(frozen=True)
class Share:
    """Which part of the run this process prefetches: worker ``index`` of ``count``."""

    index: int = 0
    count: int = 1

    def owns(self, position: int) -> bool:
        return position % self.count == self.index


def first_request(suite: Suite, case: Case, *, max_tokens: int) -> CompletionRequest | None:
    """The first request ``case`` will send, or None when it cannot be known without running it."""
    try:
        return suite.first_request(case, max_tokens)
    except Exception:
        return None  # a damaged package: the case itself reports it


class GenerationPhase:
    """Daemon threads that prefetch first requests into the cache; see the module docstring.

    Threads are daemons so that an interrupted run exits without waiting for requests in flight;
    the cache writes entries atomically, so nothing half-written is left behind.
    """

    def __init__(self, adapter: CachedAdapter, suite: Suite, threads: int, *, max_tokens: int) -> None:
        self.adapter = adapter
        self.suite = suite
        self.threads = threads
        self.max_tokens = max_tokens
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
        request = first_request(self.suite, case, max_tokens=self.max_tokens)
        return request is not None and not self._stop.is_set() and self.adapter.prefetch(request)
