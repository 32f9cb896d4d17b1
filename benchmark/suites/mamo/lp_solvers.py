"""The scripts that read and solve a model's ``.lp`` file inside the sandbox, one per solver.

The paper solves the ``.lp`` files with COPT and notes that any LP-format solver will do
(Sec. 4.1.1); HiGHS is our default because it ships with the harness. Each script reads
``model.lp`` from its working directory, solves it with a MIP gap of 1e-9 on one thread (a default
gap of 1e-4 could move a MILP optimum by as much as the relative branch of the comparison allows),
and prints one last line ``MAMO_RESULT {json}`` with either ``{"read": false, "error": <the
reader's own message>}`` or ``{"read": true, "status": ..., "objective": ...}``. Status names are
unified: ``optimal``, ``infeasible``, ``unbounded``, ``infeasible_or_unbounded``; any other status
is passed on as the solver's text.
"""

from __future__ import annotations

import importlib.util

from benchmark.resources import resource_text

RESULT_PREFIX = "MAMO_RESULT "
LP_FILE = "model.lp"

# The scripts themselves are files, resources/lp_<solver>.py.txt (read as they are, not imported).
_HIGHS = resource_text(__name__, "lp_highs.py.txt")
_GUROBI = resource_text(__name__, "lp_gurobi.py.txt")
_SCIP = resource_text(__name__, "lp_scip.py.txt")
_COPT = resource_text(__name__, "lp_copt.py.txt")

#: solver name → (Python module it needs, the in-sandbox script).
SOLVERS: dict[str, tuple[str, str]] = {
    "highs": ("highspy", _HIGHS),
    "gurobi": ("gurobipy", _GUROBI),
    "scip": ("pyscipopt", _SCIP),
    "copt": ("coptpy", _COPT),
}


def solver_script(name: str) -> str:
    """The script for ``name``; ValueError names the choices or the missing package."""
    if name not in SOLVERS:
        raise ValueError(f"unknown LP solver {name!r}; choose from {', '.join(SOLVERS)}")
    module, script = SOLVERS[name]
    if importlib.util.find_spec(module) is None:
        raise ValueError(f"LP solver {name!r} needs the Python package {module!r}, which is not installed")
    return script
