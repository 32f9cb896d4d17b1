"""The model side of one process: the adapter stack cache → gate → endpoint, its share of the run,
and the generation phase that keeps ``--max-in-flight`` requests in flight whatever ``-n`` is (see
:mod:`benchmark.prefetch` for the design, :mod:`benchmark.limiter` for the gate and the spend cap).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

import pytest

from adapters import resolve_adapter
from adapters.base import ModelAdapter
from benchmark.inflight import RunPermits
from benchmark.ledger import LEDGER_FILE, RequestLedger
from benchmark.limiter import GatedAdapter
from benchmark.plugin.configuration import BenchRun
from benchmark.prefetch import GenerationPhase, Share

#: The run folder's folder of in-flight permit files (:class:`~benchmark.inflight.RunPermits`).
INFLIGHT_FOLDER = ".inflight"


@dataclass
class ModelSide:
    """The adapter the cases use, the process's share of the run and its generation phase (None
    until started, and for runs that have none). ``build`` makes the adapter of any alias on the
    same stack (cache, the shared in-flight slots, ledger and spend cap): the other models a suite
    asks (:attr:`benchmark.suites.base.CaseContext.models`) are built with it on first use."""

    adapter: ModelAdapter
    share: Share
    build: Callable[[str], ModelAdapter]
    #: Requests this process may have in flight at once: the whole ``--max-in-flight`` when the
    #: permits are the run's (:class:`~benchmark.inflight.RunPermits`, shared by its processes).
    in_flight: int = 1
    phase: GenerationPhase | None = None
    others: dict[str, ModelAdapter] = field(default_factory=dict)
    _others_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def other(self, alias: str) -> ModelAdapter:
        with self._others_lock:
            if alias not in self.others:
                self.others[alias] = self.build(alias)
            return self.others[alias]


def share_of(config: pytest.Config) -> Share:
    """This process's part of the run: xdist worker ``gwN`` of ``workercount``, or 1 of 1."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return Share()
    return Share(index=int(str(workerinput["workerid"]).removeprefix("gw")), count=workerinput["workercount"])


def build_model_side(run: BenchRun, share: Share) -> ModelSide:
    """The model stack of a run's process (there must be a run: a model and a run folder)."""
    options = run.options
    assert options.model is not None and run.run is not None
    ledger = RequestLedger(run.run.root / LEDGER_FILE, run.session)
    slots = options.max_in_flight
    # xdist workers share one bound through files in the run folder; a lone process needs no files.
    permits: AbstractContextManager[object] = (
        RunPermits(run.run.root / INFLIGHT_FOLDER, slots)
        if share.count > 1
        else threading.BoundedSemaphore(slots)
    )

    def build(alias: str) -> ModelAdapter:
        return resolve_adapter(
            alias,
            models_file=options.models_file,
            cache_dir=options.cache_dir,
            offline=options.offline,
            cache_mode=options.cache,
            session=run.session,
            behind_cache=lambda inner: GatedAdapter(inner, slots, ledger, options.max_cost, permits),
        )

    return ModelSide(adapter=build(options.model), share=share, build=build, in_flight=slots)
