"""The xdist controller's side of a run: it hands its run folder, session and dataset fingerprint
to the workers, learns the selection from their collection, and records the case of a worker that
died.

Registered only when xdist is installed, whose hooks pytest would not know otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.categories import CaseOutcome, InfrastructureCategory
from benchmark.plugin.case_record import base_record
from benchmark.plugin.collection import SELECTION, case_of_nodeid, selected_keys
from benchmark.plugin.configuration import WORKER_DATASET, WORKER_RUN_DIR, WORKER_SESSION, BenchRun
from benchmark.records import append_record
from benchmark.run import now_iso


class WorkerAccounting:
    """The controller's bookkeeping of its xdist workers (the controller only)."""

    def __init__(self, config: pytest.Config, run: BenchRun) -> None:
        self.config = config
        self.run = run

    def pytest_configure_node(self, node: Any) -> None:
        if self.run.run is not None:
            node.workerinput[WORKER_RUN_DIR] = str(self.run.run.root)
            node.workerinput[WORKER_SESSION] = self.run.session
            node.workerinput[WORKER_DATASET] = self.run.dataset_fingerprint

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Every worker collects the same items; the first one to report names the selection."""
        if SELECTION not in self.config.stash:
            self.config.stash[SELECTION] = selected_keys(self.run, list(ids))

    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        """A worker died under a case (``kill -9``, the OOM killer): the controller writes the case's
        record, a ``harness_error`` that ``--resume`` runs again, so it cannot silently vanish."""
        run = self.run
        case = case_of_nodeid(run).get(crashitem)
        if case is None or run.run is None:
            return
        worker = getattr(getattr(report, "node", None), "gateway", None)
        detail = f"the xdist worker {getattr(worker, 'id', '?')} died while running this case"
        record = {
            **base_record(case, run, run.dataset_fingerprint, sandbox=None),
            "outcome": CaseOutcome.ERROR,
            "passed": False,
            "category": InfrastructureCategory.HARNESS_ERROR,
            "detail": detail,
            "finished_at": now_iso(),
        }
        append_record(run.run.results, record)
