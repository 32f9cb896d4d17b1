"""The amplpy backend end to end, with an in-process fake of amplpy's documented API.

No AMPL executable or licence exists here, so ``amplpy`` is faked (a module put into
``sys.modules``) with the API the harness uses: ``AMPL()``, ``read``, ``read_data``, ``solve``
(``solver``, ``verbose``, ``return_output``), ``solve_result`` and ``get_objectives``. The fake
solves with glpsol, so its answers are real optima. The sandbox runs in a separate process that
cannot import a fake module; ``InProcessSandbox`` runs the harness's own scripts in this process
instead (the only stand-in here, for that reason), with the real glpsol for the held-out data.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time
import types
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from benchmark.sandbox import Limits, Outcome
from benchmark.sandbox.core import ExecutionResult, SandboxKind
from benchmark.suites.nldata.backends import AMPL
from benchmark.suites.nldata.execution import run_candidate, run_with_dump
from benchmark.suites.nldata.heldout import data_names
from benchmark.suites.nldata.mathprog import run_local
from tests.test_nldata_execution import DATA, MODEL

CALLS: list[str] = []


class _Objective:
    def __init__(self, value: float | None) -> None:
        self._value = value

    def value(self) -> float | None:
        return self._value


class FakeAMPL:
    """amplpy.AMPL as documented, answering with glpsol (AMPL reads what MathProg reads here)."""

    def __init__(self) -> None:
        self._model = self._data = ""
        self._result = "unknown"
        self._objective: float | None = None

    def read(self, path: str) -> None:
        CALLS.append("read")
        self._model = Path(path).read_text()

    def read_data(self, path: str) -> None:
        CALLS.append("read_data")
        self._data = Path(path).read_text()
        checked = run_local(self._model, self._data)
        if checked.status == "not_solved":
            # AMPL's own wording for the two errors tested (glpsol says "not defined" for both)
            name = (
                checked.error.split()[0]
                if checked.category == "undefined_entity"
                else checked.error.split()[4]
            )
            wording = {"undefined_entity": f"{name} is not defined", "undeclared_data_parameter":
                       f"{name.rstrip(',')} is not a param or set"}  # fmt: skip
            raise RuntimeError(f"model.mod, line 1: {wording.get(str(checked.category), checked.error)}")

    def solve(self, solver: str = "", verbose: bool = True, return_output: bool = False) -> str | None:
        CALLS.append(f"solve:{solver}")
        run = run_local(self._model, self._data)
        self._result = {"optimal": "solved", "infeasible": "infeasible", "unbounded": "unbounded"}.get(
            run.status, "failure"
        )
        self._objective = run.objective
        return run.log if return_output else None

    @property
    def solve_result(self) -> str:
        return self._result

    def get_objectives(self) -> Iterator[tuple[str, _Objective]]:
        yield "z", _Objective(self._objective)


class InProcessSandbox:
    """Runs a script as ``__main__`` in a fresh directory of this process, capturing stdout."""

    def run_script(self, code: str, limits: Limits | None = None, files: Mapping[str, str] | None = None):
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()) as out:
            for name, text in (files or {}).items():
                (Path(tmp) / name).write_text(text)
            here = os.getcwd()
            os.chdir(tmp)
            try:
                exec(compile(code, "script.py", "exec"), {"__name__": "__main__"})
            finally:
                os.chdir(here)
        return ExecutionResult(
            Outcome.OK, None, out.getvalue(), "", time.perf_counter() - started, SandboxKind.SUBPROCESS
        )


@pytest.fixture
def fake_amplpy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    module = types.ModuleType("amplpy")
    module.AMPL = FakeAMPL  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "amplpy", module)
    CALLS.clear()
    return CALLS


def test_the_ampl_path_is_what_run_candidate_calls(fake_amplpy: list[str]) -> None:
    run = run_candidate(MODEL + "solve;\n", DATA, InProcessSandbox(), Limits(), backend=AMPL)  # type: ignore[arg-type]
    assert (run.backend, run.status, run.objective) == (AMPL, "optimal", 20.0)
    assert fake_amplpy == ["read", "read_data", "solve:highs"]
    assert run.rewrites["model"] == ["solve;"]


@pytest.mark.parametrize(
    ("model", "data", "status", "category"),
    [
        (MODEL + "s.t. low: sum{p in P} x[p] >= cap + 1;\n", DATA, "infeasible", "infeasible"),
        (MODEL.replace("profit[p] * x", "profits[p] * x"), DATA, "not_solved", "undefined_entity"),
        (MODEL, DATA.replace("end;", "param bonus := 2;\nend;"), "not_solved", "undeclared_data_parameter"),
    ],
)
def test_ampl_outcomes_map_to_the_suite_categories(
    fake_amplpy: list[str], model: str, data: str, status: str, category: str
) -> None:
    run = run_candidate(model, data, InProcessSandbox(), Limits(), backend=AMPL)  # type: ignore[arg-type]
    assert (run.status, run.category, run.backend) == (status, category, AMPL), run.error


def test_the_held_out_display_runs_with_glpsol_beside_ampl(fake_amplpy: list[str]) -> None:
    names = data_names(MODEL, DATA)
    run, dumped, _ = run_with_dump(MODEL, DATA, InProcessSandbox(), Limits(), AMPL, names)  # type: ignore[arg-type]
    assert run.backend == AMPL and run.objective == 20.0
    assert dumped is not None and dumped.sets == {"P": ("A", "B")} and dumped.params["cap"] == {(): 4.0}
