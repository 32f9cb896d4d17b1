"""Running Mamo artifacts in the real sandbox with real solvers: Python that prints y(t0) and .lp
files read by HiGHS (and Gurobi/SCIP where installed), and taking artifacts out of replies."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from benchmark.sandbox import Limits, Sandbox, create_sandbox
from benchmark.suites.mamo.execution import run_lp, run_python
from benchmark.suites.mamo.lp_solvers import solver_script
from benchmark.suites.mamo.response import extract
from tests.conftest import REPO

LIMITS = Limits(wall_timeout_s=60.0, memory_mb=4096)
GOOD_LP = """Maximize
 obj: x + y
Subject To
 c1: x + y <= 20
 c2: x - y >= 0
Bounds
 0 <= x <= 10
 0 <= y <= 5
Generals
 x
 y
End
"""


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with create_sandbox([REPO]) as made:
        yield made


def _solvers() -> list[str]:
    installed = {"gurobi": "gurobipy", "scip": "pyscipopt", "copt": "coptpy"}
    return ["highs", *(name for name, module in installed.items() if importlib.util.find_spec(module))]


@pytest.mark.parametrize("solver", _solvers())
def test_an_lp_file_is_solved_to_its_optimum(sandbox: Sandbox, solver: str) -> None:
    attempt = run_lp(GOOD_LP, solver_script(solver), sandbox, LIMITS)
    assert attempt.category is None and attempt.executed and attempt.status == "optimal"
    assert attempt.value == pytest.approx(15.0)


@pytest.mark.parametrize("solver", _solvers())
@pytest.mark.parametrize(
    ("lp", "status"),
    [
        ("Minimize\n obj: x\nSubject To\n c1: x >= 5\n c2: x <= 3\nEnd\n", "infeasible"),
        ("Maximize\n obj: x + y\nSubject To\n c1: x - y >= 5\nEnd\n", "unbounded"),
    ],
)
def test_infeasible_and_unbounded_models_are_wrong_answers_not_crashes(
    sandbox: Sandbox, solver: str, lp: str, status: str
) -> None:
    attempt = run_lp(lp, solver_script(solver), sandbox, LIMITS)
    assert attempt.category == "wrong_objective"
    assert attempt.executed and attempt.value is None
    assert attempt.status in (status, "infeasible_or_unbounded")


def test_the_readers_error_text_is_kept(sandbox: Sandbox) -> None:
    broken = "Maximize\n obj: x + y\nSubject To\n c1: x <= 20 - y\nEnd\n"
    attempt = run_lp(broken, solver_script("highs"), sandbox, LIMITS)
    assert attempt.category == "syntax" and not attempt.executed
    assert "model.lp:4" in attempt.error and "20 - y" in attempt.error


@pytest.mark.skipif(importlib.util.find_spec("gurobipy") is None, reason="gurobipy not installed")
def test_gurobis_reader_message_is_kept(sandbox: Sandbox) -> None:
    broken = "Maximize\n obj: x + y\nSubject To\n c1: x <= 20 - y\nEnd\n"
    attempt = run_lp(broken, solver_script("gurobi"), sandbox, LIMITS)
    assert attempt.category == "syntax" and "line 5" in attempt.error


def test_an_unknown_or_missing_solver_is_refused() -> None:
    with pytest.raises(ValueError, match="choose from"):
        solver_script("cplex")
    if importlib.util.find_spec("coptpy") is None:
        with pytest.raises(ValueError, match="not installed"):
            solver_script("copt")


def test_python_that_prints_the_number_is_read(sandbox: Sandbox) -> None:
    attempt = run_python("import math\nprint('warming up')\nprint(math.exp(1))\n", sandbox, LIMITS)
    assert attempt.category is None and attempt.value == pytest.approx(2.718281828459045)


@pytest.mark.parametrize(
    ("code", "category"),
    [
        ("print('y(5) =', 3.2)\n", "output_format"),
        ("print(\n", "syntax"),
        ("import scipyy\nprint(1)\n", "dependency"),
        ("print(1 / 0)\n", "runtime"),
    ],
)
def test_python_failures_are_categorized(sandbox: Sandbox, code: str, category: str) -> None:
    attempt = run_python(code, sandbox, LIMITS)
    assert attempt.category == category and not attempt.executed and attempt.error


def test_python_past_the_wall_clock_is_a_timeout(sandbox: Sandbox) -> None:
    attempt = run_python(
        "while True:\n    pass\nprint(1)\n", sandbox, Limits(wall_timeout_s=2.0, memory_mb=1024)
    )
    assert attempt.category == "timeout"


@pytest.mark.parametrize(
    ("reply", "ode", "artifact"),
    [
        ("Here you go:\n```python\nprint(1)\n```\nDone.", True, "print(1)\n"),
        ("```\nnote\n```\n```py\nprint(2)\n```", True, "print(2)\n"),
        ("print(3)", True, "print(3)\n"),
        ("```lp\nMaximize\n obj: x\nEnd\n```", False, "Maximize\n obj: x\nEnd\n"),
        ("max: 3 x\nEnd", False, "max: 3 x\nEnd\n"),
    ],
)
def test_artifacts_are_taken_out_of_replies(reply: str, ode: bool, artifact: str) -> None:
    assert extract(reply, ode=ode).artifact == artifact


@pytest.mark.parametrize(
    ("reply", "ode"),
    [
        ("", True),
        ("I wish you good luck", True),
        ("```python\nx = 1\n```", True),
        ("The optimum is 42.", False),
    ],
)
def test_replies_without_an_artifact_break_the_contract(reply: str, ode: bool) -> None:
    extracted = extract(reply, ode=ode)
    assert extracted.artifact is None and extracted.violation
