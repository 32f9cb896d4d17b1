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

RESULT_PREFIX = "MAMO_RESULT "
LP_FILE = "model.lp"

_HIGHS = """\
import json

import highspy

highs = highspy.Highs()
highs.setOptionValue("log_to_console", False)
highs.setOptionValue("log_file", "highs.log")
highs.setOptionValue("threads", 1)
highs.setOptionValue("mip_rel_gap", 1e-9)
if highs.readModel("model.lp") == highspy.HighsStatus.kError:
    log = open("highs.log", encoding="utf-8", errors="replace").read()
    start = log.find("ERROR")
    result = {"read": False, "error": log[start if start >= 0 else 0 :].strip()}
else:
    highs.run()
    status = highs.getModelStatus()
    names = {
        highspy.HighsModelStatus.kOptimal: "optimal",
        highspy.HighsModelStatus.kModelEmpty: "optimal",
        highspy.HighsModelStatus.kInfeasible: "infeasible",
        highspy.HighsModelStatus.kUnbounded: "unbounded",
        highspy.HighsModelStatus.kUnboundedOrInfeasible: "infeasible_or_unbounded",
    }
    name = names.get(status, highs.modelStatusToString(status))
    objective = highs.getInfo().objective_function_value if name == "optimal" else None
    result = {"read": True, "status": name, "objective": objective}
print("MAMO_RESULT " + json.dumps(result))
"""

_GUROBI = """\
import json

import gurobipy as gp
from gurobipy import GRB

env = gp.Env(empty=True)
env.setParam("LogToConsole", 0)
env.setParam("LogFile", "gurobi.log")
env.start()
try:
    model = gp.read("model.lp", env)
except gp.GurobiError as exc:
    log = open("gurobi.log", encoding="utf-8", errors="replace").read()
    start = log.find("Error reading")
    result = {"read": False, "error": log[start:].strip() if start >= 0 else str(exc)}
else:
    model.Params.MIPGap = 1e-9
    model.Params.Threads = 1
    model.optimize()
    names = {
        GRB.OPTIMAL: "optimal",
        GRB.INFEASIBLE: "infeasible",
        GRB.UNBOUNDED: "unbounded",
        GRB.INF_OR_UNBD: "infeasible_or_unbounded",
    }
    name = names.get(model.Status, f"gurobi status {model.Status}")
    result = {"read": True, "status": name, "objective": model.ObjVal if name == "optimal" else None}
print("MAMO_RESULT " + json.dumps(result))
"""

_SCIP = """\
import json

from pyscipopt import Model

model = Model()
try:
    model.readProblem("model.lp")
except OSError as exc:
    result = {"read": False, "error": f"{exc} (SCIP's reader message is on stderr)"}
else:
    model.hideOutput()
    model.setParam("limits/gap", 1e-9)
    model.optimize()
    names = {"inforunbd": "infeasible_or_unbounded"}
    name = names.get(model.getStatus(), model.getStatus())
    result = {"read": True, "status": name, "objective": model.getObjVal() if name == "optimal" else None}
print("MAMO_RESULT " + json.dumps(result))
"""

_COPT = """\
import json

import coptpy as cp
from coptpy import COPT

model = cp.Envr().createModel("mamo")
model.setParam(COPT.Param.Logging, 0)
model.setParam(COPT.Param.Threads, 1)
model.setParam(COPT.Param.RelGap, 1e-9)
try:
    model.readLp("model.lp")
except cp.CoptError as exc:
    result = {"read": False, "error": str(exc.message)}
else:
    model.solve()
    names = {
        COPT.OPTIMAL: "optimal",
        COPT.INFEASIBLE: "infeasible",
        COPT.UNBOUNDED: "unbounded",
        COPT.INF_OR_UNB: "infeasible_or_unbounded",
    }
    name = names.get(model.status, f"copt status {model.status}")
    result = {"read": True, "status": name, "objective": model.objval if name == "optimal" else None}
print("MAMO_RESULT " + json.dumps(result))
"""

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
