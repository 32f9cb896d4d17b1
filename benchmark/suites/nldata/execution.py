"""Running a candidate's model and data file in the harness sandbox: with glpsol (``mathprog.py``)
or, when the run chose it, with a real AMPL through amplpy (``backends.py``); and running the same
model on the held-out data instances (``heldout.py``).

The files are rewritten here (the harness side), the rewrite recorded, and only the solver runs in
the sandbox, under the same limits as generated Python. A fault of our own script (glpsol missing
from the sandbox, no result line) is an :class:`InfrastructureError`, never charged to the model.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from benchmark.categories import ExecutionCategory, InfrastructureCategory
from benchmark.sandbox import Limits, Outcome, Sandbox
from benchmark.suites.nldata.backends import AMPL, AMPL_SCRIPT, classify_ampl
from benchmark.suites.nldata.categories import NLDataCategory
from benchmark.suites.nldata.heldout import Dumped, dump_model, model_without_data, parse_dump
from benchmark.suites.nldata.mathprog import (
    BACKEND,
    DATA_FILE,
    JOBS_FILE,
    MODEL_FILE,
    RESULT_PREFIX,
    SANDBOX_SCRIPT,
    Execution,
    interpret,
    prepare,
    rewrite,
)
from benchmark.tagged_output import tagged_object
from benchmark.verdict import InfrastructureError

DUMP_MODEL_FILE = "dump.mod"


def _ampl_execution(parsed: dict[str, Any], rewrites: dict[str, list[str]]) -> Execution:
    if not parsed.get("read"):
        error = str(parsed.get("error", "AMPL could not read the files"))
        return Execution(
            "not_solved", None, classify_ampl(error), error[-3000:], error, rewrites, backend=AMPL
        )
    status, objective, log = str(parsed.get("status")), parsed.get("objective"), str(parsed.get("log", ""))
    if status == "solved" and isinstance(objective, int | float):
        return Execution("optimal", float(objective), None, "", log, rewrites, backend=AMPL)
    if status in ("infeasible", "unbounded"):
        return Execution(
            status, None, NLDataCategory(status), f"the model is {status}", log, rewrites, backend=AMPL
        )
    return Execution(
        "error",
        None,
        ExecutionCategory.RUNTIME,
        f"AMPL stopped with solve_result {status}",
        log,
        rewrites,
        backend=AMPL,
    )


def _invoke(
    script: str, files: dict[str, str], sandbox: Sandbox, limits: Limits, rewrites: dict[str, list[str]]
) -> tuple[dict[str, Any], float | None, str] | Execution:
    """(parsed result, wall time, stderr) of one sandboxed script, or the Execution of a timeout or a
    crash (the model's fault); our own faults raise :class:`InfrastructureError`."""
    result = sandbox.run_script(script, limits, files=files)
    if result.outcome is Outcome.TIMEOUT:
        return Execution(
            "error",
            None,
            ExecutionCategory.TIMEOUT,
            result.error,
            "",
            rewrites,
            wall_s=result.wall_s,
            stderr=result.stderr,
        )
    if result.outcome is Outcome.RUNTIME:
        return Execution(
            "error", None, ExecutionCategory.RUNTIME, result.error, result.stderr[-3000:], rewrites,
            wall_s=result.wall_s, stderr=result.stderr,
        )  # fmt: skip
    if result.outcome is not Outcome.OK:
        raise InfrastructureError(
            InfrastructureCategory.SANDBOX_ERROR, f"the solver script could not run: {result.error}"
        )
    parsed = tagged_object(result.stdout, RESULT_PREFIX)
    if parsed is None:
        raise InfrastructureError(
            InfrastructureCategory.SANDBOX_ERROR,
            f"the solver script printed no result: {result.stdout[-500:]}",
        )
    if "glpsol" in parsed and parsed.get("glpsol") is None:
        raise InfrastructureError(
            InfrastructureCategory.SANDBOX_ERROR, "glpsol is not installed where the sandbox can run it"
        )
    return parsed, result.wall_s, result.stderr


def _glpsol_run(run: Any, model: str, data: str, rewrites: dict[str, list[str]]) -> Execution:
    if not isinstance(run, dict):
        raise InfrastructureError(InfrastructureCategory.SANDBOX_ERROR, f"the glpsol script reported {run!r}")
    solution = run.get("solution")
    return interpret(
        int(run.get("rc", 1)),
        str(run.get("log", "")),
        solution if isinstance(solution, str) else None,
        model,
        data,
        rewrites,
    )


def run_with_dump(
    model: str,
    data: str,
    sandbox: Sandbox,
    limits: Limits,
    backend: str = BACKEND,
    dump_names: Sequence[str] = (),
) -> tuple[Execution, Dumped | None, str | None]:
    """The shown run (with ``backend``), what glpsol displays of the sets and parameters in
    ``dump_names``, for mapping the held-out data onto the candidate's names (None when the display
    failed), and glpsol's LP translation of the model (None without ``dump_names`` or when it
    failed), for EF1 by role."""
    prepared = prepare(model, data)
    rewrites = prepared.rewrites
    files = {MODEL_FILE: prepared.model, DATA_FILE: prepared.data}
    jobs = [] if backend == AMPL else [{"model": MODEL_FILE, "data": DATA_FILE, "check": False}]
    if dump_names:
        files[DUMP_MODEL_FILE] = dump_model(prepared.model, list(dump_names))
        jobs.append({"model": DUMP_MODEL_FILE, "data": DATA_FILE, "check": True})
    ampl: Execution | None = None
    if backend == AMPL:
        ampl = _run_ampl(model, data, sandbox, limits)
        if not jobs:
            return ampl, Dumped({}, {}), None
    files[JOBS_FILE] = json.dumps(jobs)
    invoked = _invoke(SANDBOX_SCRIPT, files, sandbox, limits, rewrites)
    if isinstance(invoked, Execution):
        return ampl or invoked, None, None
    parsed, wall_s, stderr = invoked
    runs = parsed.get("runs")
    if not isinstance(runs, list) or len(runs) != len(jobs):
        raise InfrastructureError(
            InfrastructureCategory.SANDBOX_ERROR, f"the glpsol script reported {len(jobs)} jobs wrongly"
        )
    dumped = parse_dump(str(runs[-1].get("log", ""))) if dump_names else Dumped({}, {})
    lp = runs[-1].get("lp") if dump_names else None
    listing = lp if isinstance(lp, str) else None
    if ampl is not None:
        return ampl, dumped, listing
    execution = _glpsol_run(runs[0], prepared.model, prepared.data, rewrites)
    return dataclasses.replace(execution, wall_s=wall_s, stderr=stderr), dumped, listing


def _run_ampl(model: str, data: str, sandbox: Sandbox, limits: Limits) -> Execution:
    """The shown run with amplpy: the files with commands removed, not translated."""
    rewritten_model, rewritten_data = rewrite(model), rewrite(data)
    rewrites = {"model": list(rewritten_model.removed), "data": list(rewritten_data.removed)}
    files = {MODEL_FILE: rewritten_model.text, DATA_FILE: rewritten_data.text}
    invoked = _invoke(AMPL_SCRIPT, files, sandbox, limits, rewrites)
    if isinstance(invoked, Execution):
        return invoked
    parsed, wall_s, stderr = invoked
    return dataclasses.replace(_ampl_execution(parsed, rewrites), wall_s=wall_s, stderr=stderr)


def run_candidate(
    model: str, data: str, sandbox: Sandbox, limits: Limits, backend: str = BACKEND
) -> Execution:
    """The candidate's model on its own data file."""
    return run_with_dump(model, data, sandbox, limits, backend)[0]


def run_unseen(model: str, datas: Sequence[str], sandbox: Sandbox, limits: Limits) -> list[Execution]:
    """The candidate's model (its own ``data;`` section left out) on each held-out data file, with
    glpsol, in one sandboxed run; a timeout or crash of that run is every instance's result."""
    files: dict[str, str] = {}
    jobs = []
    prepared = [prepare(model_without_data(model), data) for data in datas]
    for position, one in enumerate(prepared, start=1):
        files[f"unseen_{position}.mod"] = one.model
        files[f"unseen_{position}.dat"] = one.data
        jobs.append({"model": f"unseen_{position}.mod", "data": f"unseen_{position}.dat", "check": False})
    files[JOBS_FILE] = json.dumps(jobs)
    rewrites = prepared[0].rewrites if prepared else {}
    invoked = _invoke(SANDBOX_SCRIPT, files, sandbox, limits, rewrites)
    if isinstance(invoked, Execution):
        return [invoked] * len(datas)
    parsed, wall_s, stderr = invoked
    runs = parsed.get("runs")
    if not isinstance(runs, list) or len(runs) != len(jobs):
        raise InfrastructureError(
            InfrastructureCategory.SANDBOX_ERROR, f"the glpsol script reported {len(jobs)} jobs wrongly"
        )
    return [
        dataclasses.replace(_glpsol_run(run, one.model, one.data, one.rewrites), wall_s=wall_s, stderr=stderr)
        for run, one in zip(runs, prepared, strict=True)
    ]
