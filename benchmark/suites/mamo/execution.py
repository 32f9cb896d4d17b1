"""Running an artifact in the sandbox and reading the number it yields.

How results map onto the harness's failure categories (the suite's declared ``failure_categories``):

* Python (ODE): the sandbox's own classification, so a syntax error is ``syntax``, a missing
  module ``dependency``, an exception ``runtime``, running past the limit ``timeout``. A run that
  prints no number on its last non-empty stdout line is ``output_format``.
* ``.lp`` (optimization): a file the solver's reader rejects is ``syntax``, with the reader's own
  error text kept; a solver crash on the file is ``runtime``; running past the limit is ``timeout``.
  An infeasible or unbounded model was read and solved: it is a wrong answer (``wrong_objective``,
  with the status), not a crash, and it counts as executed for the execution rate (Table 5).
* A program or model that runs but yields a number other than the answer is ``wrong_ode_value``
  (Python) or ``wrong_objective`` (``.lp``); the suite decides this after comparing.
* A fault of our own solve script (its import failing in the sandbox, say) is an
  :class:`InfrastructureError`, never charged to the model.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from benchmark.categories import ExecutionCategory, InfrastructureCategory
from benchmark.sandbox import ExecutionResult, Limits, Outcome, Sandbox
from benchmark.suites.mamo.categories import MamoCategory
from benchmark.suites.mamo.lp_solvers import LP_FILE, RESULT_PREFIX
from benchmark.tagged_output import tagged_object
from benchmark.verdict import InfrastructureError

#: Categories of an artifact that did not run; these are what the code modifier is asked to fix.
NOT_EXECUTED: tuple[str, ...] = (
    ExecutionCategory.SYNTAX,
    ExecutionCategory.DEPENDENCY,
    ExecutionCategory.RUNTIME,
    ExecutionCategory.TIMEOUT,
    ExecutionCategory.OUTPUT_FORMAT,
)
_ERROR_CHARS = 3000


@dataclass(frozen=True)
class Run:
    """One execution of one artifact. ``category`` is None when it yielded a number (``value``);
    ``executed`` is Table 5's "file execution success": it ran in the right format."""

    category: str | None
    value: float | None
    error: str
    executed: bool
    wall_s: float
    status: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    stdout: str = field(default="", repr=False)
    """What the run printed; the harness keeps bounded tails in the record's ``output``."""
    stderr: str = field(default="", repr=False)

    def as_record(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "value": self.value,
            "status": self.status,
            "executed": self.executed,
            "error": self.error,
            "wall_s": self.wall_s,
            **self.details,
        }


def _trim(text: str) -> str:
    text = text.strip()
    return (
        text
        if len(text) <= _ERROR_CHARS
        else text[: _ERROR_CHARS // 3] + "\n[...]\n" + text[-_ERROR_CHARS // 2 :]
    )


def _failed_run(result: ExecutionResult) -> Run:
    if result.outcome is Outcome.SANDBOX_ERROR:
        raise InfrastructureError(InfrastructureCategory.SANDBOX_ERROR, result.error)
    return Run(str(result.outcome), None, _trim(result.error), False, result.wall_s)


def last_number(stdout: str) -> float | None:
    """The number on the last non-empty line of ``stdout``, or None."""
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    if not lines:
        return None
    try:
        return float(lines[-1])
    except ValueError:
        return None


def _with_output(attempt: Run, result: ExecutionResult) -> Run:
    return dataclasses.replace(attempt, stdout=result.stdout, stderr=result.stderr)


def run_python(code: str, sandbox: Sandbox, limits: Limits) -> Run:
    result = sandbox.run_script(code, limits)
    return _with_output(_python_attempt(result), result)


def _python_attempt(result: ExecutionResult) -> Run:
    if result.outcome is not Outcome.OK:
        return _failed_run(result)
    value = last_number(result.stdout)
    if value is None:
        tail = result.stdout.strip().splitlines()[-1:] or ["(nothing)"]
        return Run(
            ExecutionCategory.OUTPUT_FORMAT,
            None,
            f"the program must print only the number y(t0); its last output line was: {tail[0][:200]}",
            False,
            result.wall_s,
        )
    return Run(None, value, "", True, result.wall_s)


def run_lp(lp_text: str, script: str, sandbox: Sandbox, limits: Limits) -> Run:
    result = sandbox.run_script(script, limits, files={LP_FILE: lp_text})
    return _with_output(_lp_attempt(result), result)


def _lp_attempt(result: ExecutionResult) -> Run:
    if result.outcome in (Outcome.SYNTAX, Outcome.DEPENDENCY):
        raise InfrastructureError(
            InfrastructureCategory.SANDBOX_ERROR, f"the LP solve script could not run: {result.error}"
        )
    if result.outcome is not Outcome.OK:
        return _failed_run(result)
    solved = tagged_object(result.stdout, RESULT_PREFIX)
    if solved is None:
        raise InfrastructureError(
            InfrastructureCategory.SANDBOX_ERROR,
            f"the LP solve script printed no result: {result.stdout[-500:]}",
        )
    if not solved.get("read"):
        error = str(solved.get("error") or "the solver could not read the file")
        if result.stderr.strip():
            error = f"{error}\n{result.stderr.strip()}"
        return Run(ExecutionCategory.SYNTAX, None, _trim(error), False, result.wall_s)
    status = str(solved.get("status"))
    objective = solved.get("objective")
    if status == "optimal" and isinstance(objective, int | float) and math.isfinite(objective):
        return Run(None, float(objective), "", True, result.wall_s, status)
    if status in ("infeasible", "unbounded", "infeasible_or_unbounded"):
        return Run(MamoCategory.WRONG_OBJECTIVE, None, f"the model is {status}", True, result.wall_s, status)
    return Run(
        ExecutionCategory.RUNTIME,
        None,
        f"the solver stopped with status {status}",
        False,
        result.wall_s,
        status,
    )
