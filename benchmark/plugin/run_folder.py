"""The run folder at the start and end of a session: the manifest, then the summary of the records,
the gate's decision (which then sets the exit status), the replay recording and the JUnit
properties.

Only the controller writes these (xdist workers append records and nothing else), and only for a
run: the plugin object is registered when there is a run folder.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adapters import resolve_adapter
from adapters.record import ReplayRecorder
from benchmark.budget import budget_lines
from benchmark.ledger import LEDGER_FILE, RequestLedger, read_request_lines
from benchmark.plugin.collection import SELECTION
from benchmark.plugin.configuration import BenchRun, hidden_paths, start_run_folder
from benchmark.records import latest_by_case, latest_records, read_records
from benchmark.reporting.baseline import junit_properties, run_gate
from benchmark.reporting.junit import label_junit
from benchmark.reporting.run_reports import run_info_from_manifest, summarize_run, write_summary
from benchmark.reporting.shards import parse_shard
from benchmark.run import RunPaths, git_revision, now_iso, package_versions, read_manifest, write_manifest
from benchmark.sandbox import create_sandbox, kind_for_option
from benchmark.suites.base import Suite

#: Failed or unscored cases listed one line each at the end of a run; the rest are in the records.
PROBLEM_LINES_SHOWN = 40


@dataclass(frozen=True)
class RunOutcome:
    """What the session's end made of the run, for the terminal and JUnit."""

    summary: dict[str, Any]
    gate_lines: tuple[str, ...]
    problem_lines: tuple[str, ...]
    """One line per failed or unscored case of the selection."""
    notices: tuple[str, ...] = ()
    """What the run as a whole must tell the user: nothing was scored, the spend cap was reached."""


OUTCOME = pytest.StashKey[RunOutcome]()


class RunFolder:
    """Writes the run folder's manifest when the session starts, its reports when it ends."""

    def __init__(self, config: pytest.Config, run: BenchRun, paths: RunPaths) -> None:
        self.config = config
        self.run = run
        self.paths = paths
        # (model, sandbox) descriptions for the manifest, made once: the sandbox probe runs a process
        self._described: tuple[dict[str, object], dict[str, object]] | None = None

    @pytest.hookimpl(tryfirst=True)  # before anything else writes into the folder
    def pytest_sessionstart(self) -> None:
        start_run_folder(self.config, self.run)
        self._write_manifest(finished=None)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        options = self.run.options
        selected = self.config.stash.get(SELECTION, None)
        run_info = run_info_from_manifest(read_manifest(self.paths), self.run.suite)
        summary = summarize_run(self.paths, run_info, self.run.suite, selected)
        gate_lines: tuple[str, ...] = ()
        if options.gate:
            result = run_gate(
                summary, self.paths.root, options.gate, self.run.allowance, options.gate_baseline
            )
            gate_lines = result.lines
            write_summary(self.paths, summary)
            if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
                session.exitstatus = pytest.ExitCode.OK if result.passed else pytest.ExitCode.TESTS_FAILED
        if options.record is not None:
            recording = ReplayRecorder(options.record).finalize()
            summary["run"]["recording"] = {"file": str(options.record), **dataclasses.asdict(recording)}
        unscored = nothing_scored(summary)
        if unscored and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED  # pytest's "nothing ran"
        notices = (
            *unscored,
            *budget_lines(self.paths.root, self.run.session, options.max_cost),
            *prompt_warning_lines(self.paths.root / LEDGER_FILE, self.run.session),
        )
        self.config.stash[OUTCOME] = RunOutcome(
            summary, gate_lines, problem_lines(self.paths, selected), notices
        )
        self._write_manifest(
            finished=now_iso(), exitstatus=int(session.exitstatus), accounting=summary["accounting"]
        )

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """The JUnit file for dashboards (junitxml has written it by now): classnames by suite and
        grouping, the run's facts and the gate's decision as testsuite properties."""
        outcome = config.stash.get(OUTCOME, None)
        xmlpath = getattr(config.option, "xmlpath", None)
        if outcome is None or not xmlpath:
            return
        gate = outcome.summary["run"].get("gate")
        records = latest_records(self.paths.results)
        label_junit(Path(xmlpath), outcome.summary, records, junit_properties(gate) if gate else None)

    def _descriptions(self) -> tuple[dict[str, object], dict[str, object]]:
        if self._described is None:
            options = self.run.options
            assert options.model is not None
            adapter = resolve_adapter(
                options.model,
                models_file=options.models_file,
                cache_dir=options.cache_dir,
                offline=options.offline,
                cache_mode=options.cache,
            )
            sandbox = create_sandbox(hidden_paths(self.run), prefer=kind_for_option(options.sandbox))
            self._described = (adapter.describe(), sandbox.describe())
        return self._described

    def _write_manifest(
        self, finished: str | None, exitstatus: int | None = None, accounting: dict[str, Any] | None = None
    ) -> None:
        """At the start a new entry of ``sessions``, at the end its result and the spend."""
        run, options = self.run, self.run.options
        previous = read_manifest(self.paths)
        model_description, sandbox_description = self._descriptions()
        sessions = list(previous.get("sessions", []))
        if finished is None:
            sessions.append(
                {
                    "started": run.started,
                    "args": list(self.config.invocation_params.args),
                    "resume": options.resume,
                }
            )
        else:
            spend = RequestLedger(self.paths.root / LEDGER_FILE, run.session).spend()
            sessions[-1].update(
                {
                    "finished": finished,
                    "exitstatus": exitstatus,
                    "requests_sent": spend.requests,
                    "requests_failed": spend.failed,
                    "request_retries": spend.retries,
                    "spent_usd": round(spend.cost_usd, 6),
                    "selected": self.config.stash.get(SELECTION, None),
                }
            )
        write_manifest(
            self.paths,
            {
                "suite": run.suite.name,
                "dataset": {"root": str(run.dataset), **run.dataset_fingerprint},
                "model": model_description,
                "decoding": {
                    "schedule": options.schedule,
                    "samples": options.samples,
                    "temperature": options.temperature,
                    "max_tokens": options.max_tokens,
                },
                "setting": run.setting,
                **suite_run_info(run.suite),
                "objective_only": options.objective_only,
                "execution": {"timeout_s": options.exec_timeout, "memory_mb": options.memory_mb},
                "requests": {
                    "max_in_flight": options.max_in_flight,
                    "max_cost_usd": options.max_cost,
                    "offline": options.offline,
                    "record": str(options.record) if options.record is not None else None,
                },
                "accounting": accounting if accounting is not None else previous.get("accounting"),
                "sandbox": sandbox_description,
                "git": git_revision(run.rootdir),
                "packages": package_versions(),
                "sessions": sessions,
                "shard": _shard_info(options.shard),
            },
        )


def _shard_info(text: str | None) -> dict[str, int] | None:
    shard = parse_shard(text) if text is not None else None
    return {"index": shard.index, "count": shard.count} if shard is not None else None


def suite_run_info(suite: Suite) -> dict[str, Any]:
    """What a suite records about how it scored (its optional ``run_info()``, e.g. mmopt's scoring
    mode), for the run manifest and summary."""
    return dict(suite.run_info())


def nothing_scored(summary: dict[str, Any]) -> tuple[str, ...]:
    """A run that selected cases and scored none of them because every one was skipped ran
    nothing: it says so and exits non-zero (pytest alone would exit 0 on all-skipped)."""
    counts = summary["counts"]
    if counts["scored"] or not counts["skipped"] or counts["infrastructure_errors"] or counts["not_recorded"]:
        return ()
    reasons = "; ".join(f"{reason} ({n})" for reason, n in summary["skipped_reasons"].items())
    return (f"no case was scored: all {counts['skipped']} were skipped: {reasons}"[:600],)


def prompt_warning_lines(ledger: Path, session: str) -> tuple[str, ...]:
    """The requests of this session whose server counted implausibly few prompt tokens (a chat
    template that dropped the image-bearing messages, say): the model answered another prompt."""
    warned = [line for line in read_request_lines(ledger) if line.session == session and line.prompt_warning]
    if not warned:
        return ()
    return (
        f"{len(warned)} request(s) with implausibly few prompt tokens; the first, "
        f"{warned[0].case}: {warned[0].prompt_warning}",
    )


def problem_lines(paths: RunPaths, selected: list[str] | None) -> tuple[str, ...]:
    """``FAILED|ERROR|SKIPPED <case>: [category] detail``, one line per case of the selection."""
    latest = latest_by_case(read_records(paths.results))
    keys = selected if selected is not None else sorted(latest)
    word = {"failed": "FAILED", "error": "ERROR", "skipped": "SKIPPED"}
    lines = []
    for key in keys:
        record = latest.get(key)
        if record is None:
            lines.append(f"ERROR {key}: [not recorded] the session ended before this case had a record")
        elif record.outcome in word:
            detail = " ".join(record.detail.split())
            lines.append(f"{word[record.outcome]} {key}: [{record.category}] {detail}"[:400])
    if len(lines) > PROBLEM_LINES_SHOWN:
        more = len(lines) - PROBLEM_LINES_SHOWN
        lines = [*lines[:PROBLEM_LINES_SHOWN], f"… and {more} more (each in {paths.results})"]
    return tuple(lines)
