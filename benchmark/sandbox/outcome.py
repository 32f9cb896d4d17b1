"""Outcome classification: from how the process ended and what the runner wrote, one
:class:`ExecutionResult` (DESIGN.md §5 failure taxonomy).

The result pipe is read with a bound: at most the runner's start mark plus ``Limits.result_bytes``
plus one byte are kept, so a candidate that writes a huge value cannot make the harness hold more
than that (it is an ``output_format`` "result too large" instead).

What the pipe says after the start mark comes from the candidate's own process (the runner shares
it, and the candidate can write to the descriptor), so it is never evidence of an infrastructure
fault: a verdict naming ``sandbox_error`` or an unknown outcome, or one that cannot be parsed
(nested too deeply, not JSON), is the model's failure. ``sandbox_error`` comes only from what the
harness sees outside: no start mark (the launcher or interpreter never ran the runner), or the
launcher failing.
"""

from __future__ import annotations

import json
import re
import signal
from typing import Any

from benchmark.sandbox import runner as _runner
from benchmark.sandbox.core import ExecutionResult, Limits, Outcome, SandboxKind
from benchmark.sandbox.process import HeadBuffer, ProcessRun
from benchmark.textsafe import scrub

_STDERR_LINES_IN_ERROR = 15
#: A surrogate in the verdict's bytes, as a JSON escape or as the runner's "surrogatepass" bytes.
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
#: Deepest nesting of arrays and objects a verdict may have. Answers are a few levels deep; the
#: bound keeps every later reader (scoring, the record and report writers) clear of the recursion
#: limit, whatever the candidate wrote into the result channel.
MAX_VERDICT_DEPTH = 100


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _last_lines(text: str, n: int) -> str:
    return "\n".join(text.rstrip("\n").splitlines()[-n:])


def result_buffer(limit: int) -> HeadBuffer:
    """The buffer for a result pipe: the runner's start mark plus ``limit`` bytes plus one, so that
    a verdict over the limit is recognised without ever holding more."""
    return HeadBuffer(len(_runner.STARTED_MARK) + limit + 1)


def read_result(buffer: HeadBuffer, limit: int) -> tuple[bool, bytes | None]:
    """(runner started, verdict bytes or None when over ``limit``) from what the result pipe carried.

    The start mark is evidence from outside the candidate: the runner writes it into a pipe before
    any candidate code runs, and bytes in a pipe cannot be taken back, so a candidate can neither
    erase it nor write anything before it."""
    data = buffer.data()
    if not data.startswith(_runner.STARTED_MARK):
        return False, b""
    if buffer.total > len(_runner.STARTED_MARK) + limit:
        return True, None
    return True, data[len(_runner.STARTED_MARK) :]


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
                outcome, value, run.stdout, error, round(run.wall_s, 4), run.kind or self.kind, run.stderr
            )

        if started and verdict_bytes is None:
            return make(
                Outcome.OUTPUT_FORMAT,
                f"result too large: the runner's verdict exceeds the {limits.result_bytes}-byte limit",
            )
        verdict, unreadable = self._parse(verdict_bytes) if started else (None, "")
        if unreadable and not run.timed_out and run.returncode == 0:
            return make(
                Outcome.OUTPUT_FORMAT, f"the verdict in the result channel could not be read: {unreadable}"
            )
        if verdict is not None:
            try:
                outcome = Outcome(str(verdict.get("outcome")))
            except ValueError:
                outcome = None
            if outcome is None or outcome is Outcome.SANDBOX_ERROR:
                claimed = _short(verdict.get("outcome"))
                return make(
                    Outcome.RUNTIME,
                    f"the result channel, which the candidate's process can write, claims outcome "
                    f"{claimed}; only evidence outside the sandbox can make a case an infrastructure "
                    f"fault\n{_short(verdict.get('error'), 2000)}",
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
    def _parse(data: bytes | None) -> tuple[dict[str, Any] | None, str]:
        """(verdict, "") or (None, why it cannot be read); (None, "") when nothing was written."""
        if not data:
            return None, ""
        try:
            verdict = json.loads(data.decode("utf-8", errors="surrogatepass"))
        except RecursionError:
            return None, "nested too deeply"
        except (ValueError, UnicodeError, MemoryError) as exc:
            return None, f"not JSON ({type(exc).__name__})"
        if not isinstance(verdict, dict):
            return None, f"a JSON {type(verdict).__name__}, not an object"
        if _depth_over(verdict, MAX_VERDICT_DEPTH):
            return None, f"nested too deeply (more than {MAX_VERDICT_DEPTH} levels of arrays and objects)"
        if _SURROGATE.search(data):  # JSON escapes or raw bytes of a lone surrogate: none kept
            verdict = scrub(verdict)
        return verdict, ""


def _depth_over(value: object, limit: int) -> bool:
    """True when value nests lists and dicts more than ``limit`` levels deep (iteratively)."""
    todo: list[tuple[object, int]] = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            todo.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _short(value: object, limit: int = 200) -> str:
    """repr of a value from the result channel, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def infrastructure_fault(kind: SandboxKind, exc: BaseException) -> ExecutionResult:
    """Disk full, executable gone, fork failed: the harness's fault, not the model's."""
    return ExecutionResult(Outcome.SANDBOX_ERROR, None, "", f"could not run the sandbox: {exc!r}", 0.0, kind)
