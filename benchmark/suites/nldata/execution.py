"""Running a candidate's model and data file in the harness sandbox: with glpsol (``mathprog.py``)
or, when the run chose it, with a real AMPL through amplpy (``backends.py``).

The files are rewritten here (the harness side), the rewrite recorded, and only glpsol runs in the
sandbox, under the same limits as generated Python. A fault of our own script (glpsol missing from
the sandbox, no result line) is an :class:`InfrastructureError`, never charged to the model.
"""

from __future__ import annotations

import dataclasses

from benchmark.sandbox import Limits, Outcome, Sandbox
from benchmark.suites.nldata.backends import AMPL, AMPL_SCRIPT, classify_ampl
from benchmark.suites.nldata.mathprog import (
    BACKEND,
    DATA_FILE,
    MODEL_FILE,
    RESULT_PREFIX,
    SANDBOX_SCRIPT,
    Execution,
    interpret,
    rewrite,
)
from benchmark.tagged_output import tagged_object
from benchmark.verdict import InfrastructureError


def _ampl_execution(parsed: dict[str, object], rewrites: dict[str, list[str]]) -> Execution:
    if not parsed.get("read"):
        error = str(parsed.get("error", "AMPL could not read the files"))
        return Execution(
            "not_solved", None, classify_ampl(error), error[-3000:], error, rewrites, backend=AMPL
        )
    status, objective, log = str(parsed.get("status")), parsed.get("objective"), str(parsed.get("log", ""))
    if status == "solved" and isinstance(objective, int | float):
        return Execution("optimal", float(objective), None, "", log, rewrites, backend=AMPL)
    if status in ("infeasible", "unbounded"):
        return Execution(status, None, status, f"the model is {status}", log, rewrites, backend=AMPL)
    return Execution(
        "error", None, "runtime", f"AMPL stopped with solve_result {status}", log, rewrites, backend=AMPL
    )


def run_candidate(
    model: str, data: str, sandbox: Sandbox, limits: Limits, backend: str = BACKEND
) -> Execution:
    rewritten_model, rewritten_data = rewrite(model), rewrite(data)
    rewrites = {"model": list(rewritten_model.removed), "data": list(rewritten_data.removed)}
    files = {MODEL_FILE: rewritten_model.text, DATA_FILE: rewritten_data.text}
    script = AMPL_SCRIPT if backend == AMPL else SANDBOX_SCRIPT
    result = sandbox.run_script(script, limits, files=files)
    if result.outcome is Outcome.TIMEOUT:
        return Execution(
            "error", None, "timeout", result.error, "", rewrites, wall_s=result.wall_s, stderr=result.stderr
        )
    if result.outcome is Outcome.RUNTIME:
        return Execution(
            "error", None, "runtime", result.error, result.stderr[-3000:], rewrites, wall_s=result.wall_s,
            stderr=result.stderr,
        )  # fmt: skip
    if result.outcome is not Outcome.OK:
        raise InfrastructureError("sandbox_error", f"the glpsol script could not run: {result.error}")
    parsed = tagged_object(result.stdout, RESULT_PREFIX)
    if parsed is None:
        raise InfrastructureError(
            "sandbox_error", f"the glpsol script printed no result: {result.stdout[-500:]}"
        )
    if parsed.get("glpsol") is None:
        raise InfrastructureError("sandbox_error", "glpsol is not installed where the sandbox can run it")
    solution = parsed.get("solution")
    execution = interpret(
        int(parsed.get("rc", 1)),
        str(parsed.get("log", "")),
        solution if isinstance(solution, str) else None,
        model,
        data,
        rewrites,
    )
    return dataclasses.replace(execution, wall_s=result.wall_s, stderr=result.stderr)
