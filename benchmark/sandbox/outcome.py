"""Outcome classification: from how the process ended and what the runner wrote, one
:class:`ExecutionResult` (DESIGN.md §5 failure taxonomy).

The result file is read with a bound: at most the runner's start mark plus ``Limits.result_bytes``
plus one byte, so a candidate that writes a huge value cannot make the harness hold more than that
(it is an ``output_format`` "result too large" instead).
"""

from __future__ import annotations

import json
import signal
from typing import IO, Any

from benchmark.sandbox import runner as _runner
from benchmark.sandbox.core import ExecutionResult, Limits, Outcome, SandboxKind
from benchmark.sandbox.process import ProcessRun

_STDERR_LINES_IN_ERROR = 15


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _last_lines(text: str, n: int) -> str:
    return "\n".join(text.rstrip("\n").splitlines()[-n:])


def read_result_file(fh: IO[bytes], limit: int) -> tuple[bool, bytes | None]:
    """(runner started, verdict bytes or None when over ``limit``) from the runner's result file."""
    fh.seek(0)
    mark = fh.read(len(_runner.STARTED_MARK))
    if mark != _runner.STARTED_MARK:
        return False, b""
    data = fh.read(limit + 1)
    return True, (data if len(data) <= limit else None)


class OutcomeClassifier:
    """Turns one finished run into an :class:`ExecutionResult` for one sandbox kind.

    A negative return code is the signal that killed the runner (launchers that report signals
    otherwise, as bwrap does with 128 + signum, convert before classification)."""

    def __init__(self, kind: SandboxKind, launcher: str) -> None:
        self.kind = kind
        self.launcher = launcher  # what failed when the runner never started: "bwrap", "the interpreter"

    def classify(
        self, mode: str, run: ProcessRun, started: bool, verdict_bytes: bytes | None, limits: Limits
    ) -> ExecutionResult:
        def make(outcome: Outcome, error: str, value: dict[str, Any] | None = None) -> ExecutionResult:
            return ExecutionResult(
                outcome, value, run.stdout, error, round(run.wall_s, 4), self.kind, run.stderr
            )

        if started and verdict_bytes is None:
            return make(
                Outcome.OUTPUT_FORMAT,
                f"result too large: the runner's verdict exceeds the {limits.result_bytes}-byte limit",
            )
        verdict = self._parse(verdict_bytes) if started else None
        if verdict is not None:
            try:
                outcome = Outcome(str(verdict.get("outcome")))
            except ValueError:
                return make(
                    Outcome.SANDBOX_ERROR, f"runner wrote an unknown outcome: {verdict.get('outcome')!r}"
                )
            if outcome is not Outcome.OK:
                return make(outcome, str(verdict.get("error") or outcome.value))
            value = verdict.get("value")
            if mode == "solve" and not isinstance(value, dict):
                return make(Outcome.OUTPUT_FORMAT, "solve() did not produce a JSON object")
            return make(Outcome.OK, "", value if mode == "solve" else None)

        stderr_tail = _last_lines(run.stderr, _STDERR_LINES_IN_ERROR)

        def with_stderr(msg: str) -> str:
            return f"{msg}\n{stderr_tail}" if stderr_tail else msg

        if run.timed_out:
            return make(
                Outcome.TIMEOUT,
                f"wall timeout: still running after {limits.wall_timeout_s:g} s; the process tree was killed",
            )
        rc = run.returncode
        if not started:
            return make(
                Outcome.SANDBOX_ERROR,
                with_stderr(f"{self.launcher} failed to start the runner (exit status {rc})"),
            )
        signum = -rc if rc < 0 else 0
        if signum == signal.SIGXCPU:
            return make(Outcome.TIMEOUT, f"CPU time limit of {limits.effective_cpu_s} s exceeded (SIGXCPU)")
        if signum:
            hints: dict[int, str] = {
                signal.SIGKILL: " (possibly the memory cap or the kernel's out-of-memory killer)",
                signal.SIGSEGV: " (a crash in native code, e.g. a solver library or too deep recursion)",
            }
            return make(
                Outcome.RUNTIME, with_stderr(f"killed by {_signal_name(signum)}{hints.get(signum, '')}")
            )
        if mode == "script" and rc == 0:
            return make(Outcome.OK, "")
        return make(
            Outcome.RUNTIME,
            with_stderr(f"exited with status {rc} before reporting a result (os._exit or a native crash)"),
        )

    @staticmethod
    def _parse(data: bytes | None) -> dict[str, Any] | None:
        if not data:
            return None
        try:
            verdict = json.loads(data.decode("utf-8", errors="surrogatepass"))
        except (ValueError, UnicodeError):
            return None
        return verdict if isinstance(verdict, dict) else None


def infrastructure_fault(kind: SandboxKind, exc: BaseException) -> ExecutionResult:
    """Disk full, executable gone, fork failed: the harness's fault, not the model's."""
    return ExecutionResult(Outcome.SANDBOX_ERROR, None, "", f"could not run the sandbox: {exc!r}", 0.0, kind)
