"""Running one case and recording it: every case that runs ends in exactly one record.

Flow of one case (the ``bench_verdict`` fixture): resume check → ``suite.solve`` (prompt →
adapter → parse → sandboxed execution: the case's :class:`~benchmark.attempt.Attempt`) →
``suite.score`` (the verdict, from the attempt alone) → one record appended to ``results.jsonl``,
the attempt in it, so ``rescore`` can score it again without a model or a sandbox.
Whatever escapes the suite's evaluation becomes the record's outcome (an ``api_error``, a
``dataset_error``, a ``harness_error`` with its traceback tail …), never a missing record. Model
failures make the test fail with their category; infrastructure faults fail it with a note that
they are not the model's, and ``--resume`` runs them again.
"""

from __future__ import annotations

import gc
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterError, ModelAdapter, OracleUnavailable
from adapters.cache import CachedAdapter
from adapters.record import CallLog, ReplayRecorder
from benchmark.cases import Case
from benchmark.categories import CaseOutcome, InfrastructureCategory, SkipCategory
from benchmark.plugin.case_record import TRACEBACK_TAIL_CHARS, base_record, end_reason, turns, verdict_fields
from benchmark.plugin.collection import CASE_FIXTURE, is_case_item
from benchmark.plugin.configuration import BenchRun, hidden_paths
from benchmark.plugin.model_side import ModelSide, build_model_side, share_of
from benchmark.prefetch import GenerationPhase, Share
from benchmark.records import append_record, case_record, finished_cases
from benchmark.reporting.junit import CASE_PROPERTIES
from benchmark.run import now_iso
from benchmark.sandbox import Limits, Sandbox, SandboxKind, create_sandbox, kind_for_option
from benchmark.schema import CaseRecord
from benchmark.suites.base import CaseContext, Suite
from benchmark.textsafe import RECORD_FIELD_CHARS, scrub
from benchmark.verdict import DatasetError, InfrastructureError, NotEvaluable, Verdict


@dataclass
class Runtime:
    """What every case of one process shares: the adapter, the sandbox and the resume set."""

    adapter: ModelAdapter
    other: Callable[[str], ModelAdapter]
    """The adapter of another alias a suite asks (see :meth:`ModelSide.other`)."""
    sandbox: Sandbox
    limits: Limits
    finished: dict[str, CaseRecord]
    dataset: dict[str, str]


class CaseEvaluation:
    """What the fixtures that evaluate cases do, and the process's model side that they and the
    generation phase share (built on first use, so a listing or a run without a model builds none).

    The fixtures themselves are functions of the registered plugin module that call this object
    (``config.stash[EVALUATION]``): pytest deprecates session-scoped fixtures on instances."""

    def __init__(self, config: pytest.Config, run: BenchRun) -> None:
        self.config = config
        self.run = run
        self._model_side: ModelSide | None = None

    def model_side(self) -> ModelSide:
        if self._model_side is None:
            self._model_side = build_model_side(self.run, share_of(self.config))
        return self._model_side

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Start this process's generation phase over its share of the selected cases (not for the
        oracle, which is not cached, nor offline, nor for cases a resumed run already finished)."""
        options = self.run.options
        if self.run.run is None:
            return
        gc.freeze()  # what startup and collection built lives to the end: later collections skip it
        if options.model is None or options.offline:
            return
        side = self.model_side()
        if not isinstance(side.adapter, CachedAdapter) or not side.adapter.prefetches:
            return
        finished = finished_cases(self.run.run.results) if options.resume else {}
        cases = [item.callspec.params[CASE_FIXTURE] for item in session.items if is_case_item(item)]  # type: ignore[attr-defined]
        pending = [(position, case) for position, case in enumerate(cases) if case.key not in finished]
        mine = [case for position, case in pending if side.share.owns(position)]
        others = [
            [case for position, case in pending if Share(index, side.share.count).owns(position)]
            for index in range(side.share.count)
            if index != side.share.index
        ]
        if not mine:
            return
        side.phase = GenerationPhase(
            side.adapter,
            self.run.suite,
            threads=min(len(pending), side.in_flight),
            max_tokens=options.max_tokens,
        )
        side.phase.start(mine, others)

    @pytest.hookimpl(tryfirst=True)  # before the controller's reports read the ledger
    def pytest_sessionfinish(self) -> None:
        if self._model_side is not None and self._model_side.phase is not None:
            self._model_side.phase.stop()

    def runtime(self) -> Runtime:
        """The ``bench_runtime`` fixture: made once per process, on the first case it runs."""
        run, options = self.run, self.run.options
        if run.run is None:
            pytest.skip("--setup-only/--setup-plan: benchmark cases are listed, not evaluated")
        assert options.model is not None
        side = self.model_side()
        return Runtime(
            adapter=side.adapter,
            other=side.other,
            sandbox=create_sandbox(hidden_paths(run), prefer=kind_for_option(options.sandbox)),
            limits=Limits(wall_timeout_s=options.exec_timeout, memory_mb=options.memory_mb),
            finished=finished_cases(run.run.results) if options.resume else {},
            dataset=run.dataset_fingerprint,
        )

    def verdict(self, node: pytest.Item, case: Case, runtime: Runtime) -> CaseRecord:
        """The ``bench_verdict`` fixture: evaluate the case (or take its record when resuming),
        return its record, and skip or fail the item when the case was not scored."""
        assert self.run.run is not None
        record = runtime.finished.get(case.key)
        if record is None:
            record = self._evaluate(case, runtime, self.run.run.results)
        node.user_properties.extend(junit_case_properties(record.as_json(), self.run.suite))
        if record.outcome == CaseOutcome.SKIPPED:
            pytest.skip(f"[{record.category}] {record.detail}")
        if record.outcome == CaseOutcome.ERROR:
            pytest.fail(
                f"[{record.category}] {record.detail} (not a model failure; --resume runs this case again)",
                pytrace=False,
            )
        return record

    def _evaluate(self, case: Case, runtime: Runtime, results: Path) -> CaseRecord:
        """Run the suite's evaluation of the case and append its one record, whatever happens."""
        options, suite = self.run.options, self.run.suite
        calls = CallLog(runtime.adapter)
        context = CaseContext(
            case=case,
            adapter=calls,
            models=lambda alias: CallLog(runtime.other(alias), calls.turns, calls.requests),
            sandbox=runtime.sandbox,
            limits=runtime.limits,
            objective_only=options.objective_only,
            max_tokens=options.max_tokens,
        )
        fields = base_record(case, self.run, runtime.dataset, sandbox=str(runtime.sandbox.kind))
        started = time.perf_counter()
        problem: tuple[str, str, str] | None = None  # (outcome, category, detail)
        ran: list[SandboxKind] = []
        try:
            with runtime.sandbox.tracking() as ran:
                attempt = suite.solve(case, context)
            suite.detail.check_attempt(suite.name, attempt)
            fields["attempt"] = attempt.as_record([completion.text for _, completion in calls.turns])
            fields.update(verdict_fields(checked_verdict(suite, suite.score(case, attempt))))
        except OracleUnavailable as exc:
            problem = (CaseOutcome.SKIPPED, SkipCategory.ORACLE_UNAVAILABLE, str(exc))
        except NotEvaluable as exc:
            problem = (CaseOutcome.SKIPPED, SkipCategory.NOT_EVALUABLE, str(exc))
            try:
                suite.detail.check_extra(suite.name, exc.extra)
                fields["extra"] = exc.extra
            except ValueError as refused:  # a bug in the suite: recorded as such, never lost
                problem = (CaseOutcome.ERROR, InfrastructureCategory.HARNESS_ERROR, str(refused))
        except AdapterError as exc:
            if exc.kind == SkipCategory.UNSUPPORTED_INPUT:
                problem = (CaseOutcome.SKIPPED, exc.kind, str(exc))
            else:
                problem = (CaseOutcome.ERROR, InfrastructureCategory.API_ERROR, f"{exc.kind}: {exc}")
        except DatasetError as exc:
            problem = (CaseOutcome.ERROR, InfrastructureCategory.DATASET_ERROR, str(exc))
        except InfrastructureError as exc:
            problem = (CaseOutcome.ERROR, exc.category, str(exc))
        except Exception as exc:  # a bug in the suite's evaluation: recorded, never lost
            problem = (
                CaseOutcome.ERROR,
                InfrastructureCategory.HARNESS_ERROR,
                f"{type(exc).__name__}: {exc}",
            )
            fields["traceback"] = "".join(traceback.format_exception(exc))[-TRACEBACK_TAIL_CHARS:]
        accounting = context.accounting
        fields.update(
            {
                "model_ids": context.model_ids,
                "model_calls": accounting.calls,
                "cache_hits": accounting.cache_hits,
                "cache_hit": accounting.calls > 0 and accounting.cache_hits == accounting.calls,
                "shared_reply_from": accounting.shared_from,
                "turns": turns(calls),
                "input_tokens": accounting.input_tokens,
                "output_tokens": accounting.output_tokens,
                "cost_usd": accounting.cost_usd,
                "model_time_s": round(accounting.latency_s, 4),
                "truncated": accounting.truncated,
                "total_time_s": round(time.perf_counter() - started, 4),
                "finished_at": now_iso(),
            }
        )
        if problem is not None:
            outcome, category, detail = problem
            fields.update({"outcome": outcome, "passed": False, "category": category, "detail": detail})
        if ran:  # the kinds the case's executions ran in (a warm pool runs some cold)
            fields["sandbox"] = "+".join(sorted({str(kind) for kind in ran}))
        # No lone surrogate (it cannot be written) and no field over the record's bound.
        record = case_record(scrub(fields, RECORD_FIELD_CHARS), f"{results}: record of case {case.key!r}")
        record.end_reason = end_reason(record)
        append_record(results, record)
        if options.record is not None:
            ReplayRecorder(options.record).append(case.key, calls.turns)
        return record


EVALUATION = pytest.StashKey[CaseEvaluation]()


def junit_case_properties(written: Mapping[str, Any], suite: Suite) -> list[tuple[str, Any]]:
    """A case's JUnit properties: its labels, verdict, tokens, cost and time. The returned and
    expected objective are named after what the suite's number is (its optional
    ``objective_label``, e.g. ``O-Eval`` → ``returned_o_eval``; ``objective`` when not declared),
    from the record as written (the suite's labels are keys of it like any other field)."""
    slug = suite.objective_label.lower().replace("-", "_").replace(" ", "_")
    names = {"returned_objective": f"returned_{slug}", "expected_objective": f"expected_{slug}"}
    properties = [
        (names.get(key, key), written[key])
        for key in (*suite.labels, "category", "returned_objective", "expected_objective", *CASE_PROPERTIES)
        if written.get(key) is not None
    ]
    properties.append(("outcome", written["outcome"]))
    return properties


def checked_verdict(suite: Suite, verdict: Verdict) -> Verdict:
    """A failure category the suite did not declare, or a key of ``scores``/``extra`` that its
    detail models do not declare (or of another type), is a bug in the suite, not a model
    failure."""
    if not verdict.passed and verdict.category not in suite.failure_categories:
        raise ValueError(
            f"suite {suite.name} returned failure category {verdict.category!r}, which it does not "
            f"declare ({', '.join(suite.failure_categories)})"
        )
    suite.detail.check_verdict(suite.name, verdict)
    return verdict


def assert_case_passed(record: CaseRecord) -> None:
    """The body of every benchmark item: a model failure fails the test with its category."""
    if not record.passed:
        expected, returned = record.expected_objective, record.returned_objective
        numbers = f" (returned {returned}, expected {expected})" if returned is not None else ""
        pytest.fail(f"[{record.category}] {record.detail}{numbers}", pytrace=False)
