"""The status line of a benchmark run: done/selected, the pass rate so far, cases in flight,
requests with their failures and retries, and spend, shown by the controller while cases finish.

pytest's own progress (dots, ``[gwN]`` lines) says nothing about scores or money; this line does.
On a terminal it is one line, redrawn in place (carriage return, erase to the end of the line) at
most every ``tty_interval_s`` seconds and left on screen, final, when the session ends. It then
is the progress display of the benchmark cases: their pass/fail letters and pytest's percentage
(which would be written onto the same line and wrap it) are left out through the public
``pytest_report_teststatus`` hook; failures are listed in the optbench summary anyway. Under CI
(no terminal), where a carriage return would garble the log, it is a plain line of its own every
``plain_interval_s`` seconds between pytest's usual progress, so a long run's log stays readable
either way. Beside other tests in the same session, whose letters and percentage pytest writes, a
terminal gets plain lines as well.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from benchmark.ledger import RequestLedger
from benchmark.limiter import endpoint_down_line
from benchmark.plugin.collection import SELECTION


@dataclass(eq=False)  # hashed by identity: pluggy keeps plugins in sets (conftest-scoped hooks)
class StatusLine:
    """A plugin object of the controller, registered for runs."""

    config: pytest.Config
    ledger: RequestLedger
    tty_interval_s: float = 5.0
    plain_interval_s: float = 60.0
    done: int = 0
    passed: int = 0
    scored: int = 0
    started: set[str] = field(default_factory=set)
    _last: float = field(default_factory=time.monotonic)
    _drawn: bool = False
    """A redrawn line is on screen (terminal only)."""
    _shown: str = ""
    _session: pytest.Session | None = None
    _told_endpoint_down: bool = False

    @property
    def selected(self) -> int | None:
        """How many cases the run selected; None until collection (a worker's, under xdist) is known."""
        keys = self.config.stash.get(SELECTION, None)
        return None if keys is None else len(keys)

    def _redraws(self) -> bool:
        """On a terminal, at pytest's default verbosity (verbose runs keep their one line per case),
        in a session of benchmark cases alone: other tests keep pytest's letters and percentage,
        which would land on a redrawn line, so beside them the line is a plain one."""
        reporter = self._reporter()
        only_cases = self._session is not None and self._session.testscollected == self.selected
        return bool(getattr(reporter, "isatty", False)) and self.config.get_verbosity() <= 0 and only_cases

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._session = session

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        """A benchmark case's outcome, counted in the totals as usual but with neither letter nor
        word: pytest (8.3 on) then writes nothing for it, its percentage included, so nothing of
        pytest's lands on the redrawn line."""
        if "::test_case[" not in report.nodeid or not self._redraws():
            return None
        if report.when in ("setup", "teardown"):
            return ("error" if report.failed else "skipped" if report.skipped else "", "", "")
        return (report.outcome, "", "")

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        if "::test_case[" in nodeid:
            self.started.add(nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if "::test_case[" not in report.nodeid:
            return
        crashed = report.when not in ("setup", "call", "teardown")  # xdist's report for a dead worker
        finished = report.when == "call" or crashed or (report.when == "setup" and not report.passed)
        if not finished:
            return
        self.started.discard(report.nodeid)
        self.done += 1
        if report.when == "call":
            self.scored += 1
            self.passed += int(report.passed)
        self._tell_endpoint_down()
        self._maybe_print()

    def _tell_endpoint_down(self) -> None:
        """Once, as soon as a case shows it: the session found its endpoint unusable (repeated at
        the end by the terminal report), so nobody waits for a run that cannot score anything."""
        if self._told_endpoint_down:
            return
        spend = self.ledger.spend()
        reporter = self._reporter()
        if not spend.endpoint_down or reporter is None:
            return
        self._told_endpoint_down = True
        reporter.write("\n")  # off pytest's progress letters or the redrawn line
        self._drawn = False
        reporter.write_line(f"optbench: {endpoint_down_line(spend)}", red=True, bold=True)

    def line(self) -> str:
        total = "?" if self.selected is None else str(self.selected)
        rate = f"{100 * self.passed / self.scored:.1f}%" if self.scored else "n/a"
        spend = self.ledger.spend()
        return (
            f"optbench: {self.done}/{total} done, pass {rate} of {self.scored} scored, "
            f"{len(self.started)} in flight, {spend.requests} requests ({spend.failed} failed, "
            f"{spend.retries} retries), ${spend.cost_usd:.4f} spent"
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        """Leave the redrawn line on screen in its final state (usually drawn by the last case)."""
        reporter = self._reporter()
        line = self.line()
        if reporter is not None and self._drawn and line != self._shown:
            reporter.write(f"{_REDRAW}{line}")
        self._drawn = False

    def _reporter(self) -> Any:
        return self.config.pluginmanager.getplugin("terminalreporter")

    def _maybe_print(self) -> None:
        reporter = self._reporter()
        if reporter is None:
            return
        tty = self._redraws()
        now = time.monotonic()
        last_case = tty and self.selected is not None and self.done >= self.selected
        if now - self._last < (self.tty_interval_s if tty else self.plain_interval_s) and not last_case:
            return
        self._last = now
        line = self.line()
        if not tty:
            reporter.write(f"\n{line}\n")  # on a line of its own, between pytest's progress marks
        elif self._drawn:
            reporter.write(f"{_REDRAW}{line}")
        else:
            reporter.write(f"\n{line}")  # below pytest's output so far, then redrawn in place
            self._drawn = True
        self._shown = line


#: Back to the start of the line and erase it (ANSI EL), before the line is drawn again.
_REDRAW = "\r\x1b[K"
