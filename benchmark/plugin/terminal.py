"""What a benchmark session prints besides pytest's own output: the header lines, the sandbox
isolation warning at the start and the end, the optbench summary as the last block, and below it
why no request was sent when the endpoint could not be used (also said when it was found, by
:mod:`.status`).

A benchmark failure is one line (the record and JUnit hold the detail), not a traceback: the
optbench summary lists each failed or unscored case once, with its category.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.ledger import LEDGER_FILE, RequestLedger
from benchmark.limiter import endpoint_down_line
from benchmark.plugin.collection import DESELECTED_WITHOUT_MODEL
from benchmark.plugin.configuration import BenchRun
from benchmark.plugin.run_folder import OUTCOME
from benchmark.reporting.render import to_text
from benchmark.run import read_manifest
from benchmark.sandbox import isolation_warning


def one_line_failures(config: pytest.Config) -> None:
    """Turn pytest's tracebacks and per-case summary lines off for a run (``--tb`` left at its
    default only): called before the terminal reporter reads the options."""
    if getattr(config.option, "tbstyle", None) != "auto":
        return
    config.option.tbstyle = "no"
    chars = str(getattr(config.option, "reportchars", "")).replace("a", "sxX").replace("A", "sxXpP")
    config.option.reportchars = chars.replace("f", "").replace("E", "").replace("s", "")


class TerminalReport:
    """The optbench lines of the terminal, for every process (a worker's header is not shown)."""

    def __init__(self, config: pytest.Config, run: BenchRun) -> None:
        self.config = config
        self.run = run

    def pytest_report_header(self) -> list[str]:
        run = self.run
        lines = [f"optbench: suite {run.suite.name}, {len(run.instances)} instances in {run.dataset}"]
        if run.dataset_problem:
            lines.append(f"optbench: dataset not loadable: {run.dataset_problem}")
        if run.options.model is None:
            lines.append("optbench: no --model given, so benchmark cases are not run (try --model=oracle)")
        elif run.run is not None:
            lines.append(f"optbench: model {run.options.model}, run folder {run.run.root}")
        return lines

    @pytest.hookimpl(trylast=True)  # the run folder's manifest, which describes the sandbox, is written
    def pytest_sessionstart(self) -> None:
        if self.run.run is not None and not self.run.worker:
            self._warn_if_not_isolated()

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> Any:
        """The optbench summary is the last block: as the outermost wrapper it prints after pytest's
        own sections, the short test summary included."""
        result = yield
        deselected = self.config.stash.get(DESELECTED_WITHOUT_MODEL, 0)
        if deselected:
            terminalreporter.write_line(
                f"optbench: {deselected} benchmark cases deselected: they run only with"
                " --model=ALIAS (e.g. `pytest --model=oracle`); the harness's own tests are `pytest tests`"
            )
        outcome = self.config.stash.get(OUTCOME, None)
        if outcome is None or self.run.run is None:
            return result
        terminalreporter.section("optbench summary")
        for line in outcome.problem_lines:
            terminalreporter.write_line(line)
        if outcome.problem_lines:
            terminalreporter.write_line("")
        for line in to_text(outcome.summary):
            terminalreporter.write_line(line)
        for line in outcome.gate_lines:
            terminalreporter.write_line(f"gate: {line}")
        for line in outcome.notices:
            terminalreporter.write_line(f"optbench: {line}", yellow=True, bold=True)
        terminalreporter.write_line(f"reports: {self.run.run.root}")
        spend = RequestLedger(self.run.run.root / LEDGER_FILE, self.run.session).spend()
        if spend.endpoint_down:
            terminalreporter.write_line(f"optbench: {endpoint_down_line(spend)}", red=True, bold=True)
        self._warn_if_not_isolated()
        return result

    def _warn_if_not_isolated(self) -> None:
        assert self.run.run is not None
        warning = isolation_warning(read_manifest(self.run.run).get("sandbox", {}))
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if warning and reporter is not None:
            reporter.write_line(f"optbench: {warning}", yellow=True, bold=True)
