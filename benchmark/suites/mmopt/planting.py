"""Plans for the known-cause adapters (``planted:PLAN.json``, :mod:`adapters.planted`) on MM-OptBench.

Each planted cause is built so that its effect is certain, not likely, and the effect it must have
is stated with it (:class:`Expected`), so a test can demand that the attribution recovers it:

================== ==================================================== ===================== =========
cause              what the answer does                                 Stage-1 category      Table 9
================== ==================================================== ===================== =========
misread_value      max flow: one min-cut arc's capacity read 1 lower    infeasible_solution   structural
                   (its min cut no longer matches its flow value);
                   min-cost flow: one supply read 1 higher (unbalanced, wrong_objective       undecidable
                   the solver answers "error"); Stage 2 reads it alike
drop_constraint    an integer model without one arc's capacity bound,   infeasible_solution   structural
                   chosen so that the optimum strictly improves
relax_integrality  the LP relaxation of the integer model               passes (flows are totally unimodular)
heuristic          the integer model with one arc pruned, chosen so the wrong_objective       procedure
                   optimum is strictly worse and still feasible
syntax             an unclosed parenthesis                              syntax                execution
missing_package    imports a package that does not exist                dependency            execution
infinite_loop      solve() never returns                                timeout               execution
omit_solve         no top-level solve()                                 response_contract     artifact
================== ==================================================== ===================== =========

The first four need the instance's structure and apply to ``maximum_flow`` and
``minimum_cost_flow``; the last four apply to every subcategory. A subcategory folder may plant
misread_value, drop_constraint and heuristic itself with a ``planting`` module (``misread``,
``drop_constraint``, ``heuristic`` and the ``MISREAD_EFFECT`` pair), as the scheduling folders do.
Payload settings (oracle-reading,
verified-extraction) supply the data, so a misread cannot happen there: that answer is the
reference. A Stage-2 fault (one of :data:`adapters.planted.STAGE2_FAULTS`) may be added to any
cause; ``unquoted_numeric_keys`` needs a record with numeric keys (min-cost flow's supplies).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import linprog

from adapters.planted import CODE_FAULTS, STAGE2_FAULTS
from benchmark.categories import ExecutionCategory
from benchmark.resources import resource_text
from benchmark.suites.mmopt.categories import MmoptCategory
from benchmark.suites.mmopt.generation.contracts import PlantingModule
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.stage2 import Stage2Status, public_record
from benchmark.suites.mmopt.subcategories import folder_part

DATA_CAUSES: tuple[str, ...] = ("misread_value", "drop_constraint", "relax_integrality", "heuristic")
CAUSES: tuple[str, ...] = DATA_CAUSES + CODE_FAULTS
FLOW_SUBCATEGORIES: tuple[str, ...] = ("maximum_flow", "minimum_cost_flow")
_TOLERANCE = 1e-6

_CODE_FAULT_EFFECTS: dict[str, tuple[str, str]] = {
    "syntax": (ExecutionCategory.SYNTAX, "execution_level"),
    "missing_package": (ExecutionCategory.DEPENDENCY, "execution_level"),
    "infinite_loop": (ExecutionCategory.TIMEOUT, "execution_level"),
    "omit_solve": (ExecutionCategory.RESPONSE_CONTRACT, "other_code_artifact"),
}


@dataclass(frozen=True)
class Expected:
    """What a planted cause must produce: the Stage-1 category and Table-9 class (None: passes),
    the same for payload answers (oracle-reading, verified-extraction), and the Stage-2 outcome."""

    stage1_category: str | None
    stage1_class: str | None
    downstream_category: str | None
    downstream_class: str | None
    stage2: Stage2Status
    stage2_fault: str | None = None


def _arcs(instance: Mapping[str, Any]) -> list[tuple[Any, Any, float, float]]:
    return [(a["from"], a["to"], float(a["capacity"]), float(a.get("cost", 0))) for a in instance["arcs"]]


def _formulation(instance: Mapping[str, Any], subcategory: str) -> dict[str, Any]:
    """Nodes with a balance row, their balances, the per-arc objective and the sense."""
    arcs = _arcs(instance)
    if subcategory == "maximum_flow":
        source, sink = instance["source"], instance["sink"]
        rows = [n for n in instance["nodes"] if n not in (source, sink)]
        balance = {n: 0.0 for n in rows}
        objective = [(1.0 if u == source else 0.0) - (1.0 if v == source else 0.0) for u, v, _, _ in arcs]
        return {"rows": rows, "balance": balance, "objective": objective, "sense": "max", "source": source}
    if subcategory == "minimum_cost_flow":
        rows = list(instance["nodes"])
        balance = {n: float(instance["supply"][str(n)]) for n in rows}
        return {
            "rows": rows,
            "balance": balance,
            "objective": [c for *_, c in arcs],
            "sense": "min",
            "source": None,
        }
    raise ValueError(
        f"data-level causes are planted only in {', '.join(FLOW_SUBCATEGORIES)}, not {subcategory}"
    )


def _optimum(instance: Mapping[str, Any], subcategory: str, upper: list[float | None]) -> float | None:
    """The LP optimum with the given arc upper bounds (None: no bound); None when infeasible or
    unbounded. Flow LPs are totally unimodular, so this is the integer optimum too."""
    model = _formulation(instance, subcategory)
    arcs = _arcs(instance)
    sign = -1.0 if model["sense"] == "max" else 1.0
    matrix = np.zeros((len(model["rows"]), len(arcs)))
    for r, node in enumerate(model["rows"]):
        for k, (u, v, _, _) in enumerate(arcs):
            matrix[r, k] += (u == node) - (v == node)
    result = linprog(
        sign * np.array(model["objective"]),
        A_eq=matrix,
        b_eq=np.array([model["balance"][n] for n in model["rows"]]),
        bounds=[(0, bound) for bound in upper],
        method="highs",
    )
    return float(sign * result.fun) if result.status == 0 else None


def _better(value: float, than: float, sense: str) -> bool:
    return value > than + _TOLERANCE if sense == "max" else value < than - _TOLERANCE


_FLOW_MODEL = resource_text(__name__, "flow_model.py.tmpl")


def flow_model_code(
    instance: Mapping[str, Any], subcategory: str, upper: list[float | None], integral: bool, note: str
) -> str:
    """A self-contained scipy ``milp`` program for a flow instance with the given arc upper bounds."""
    model = _formulation(instance, subcategory)
    arcs = [(u, v, bound, cost) for (u, v, _, cost), bound in zip(_arcs(instance), upper, strict=True)]
    return _FLOW_MODEL.format(
        note=note,
        arcs=arcs,
        objective=model["objective"],
        rows=model["rows"],
        balance=model["balance"],
        maximize=model["sense"] == "max",
        integral=int(integral),
        cut_from=model["source"],
    )


def _capacities(instance: Mapping[str, Any]) -> list[float | None]:
    return [cap for _, _, cap, _ in _arcs(instance)]


def _drop_constraint(package: Package) -> str:
    instance, sub = package.instance_data, package.subcategory
    sense = _formulation(instance, sub)["sense"]
    optimum = _optimum(instance, sub, _capacities(instance))
    assert optimum is not None
    for k, (u, v, _, _) in enumerate(_arcs(instance)):
        upper = _capacities(instance)
        upper[k] = None
        relaxed = _optimum(instance, sub, upper)
        if relaxed is not None and _better(relaxed, optimum, sense):
            return flow_model_code(instance, sub, upper, True, f"Arc {u}_{v} has no capacity bound.")
    raise ValueError(f"{package.instance_id}: no single capacity bound changes the optimum")


def _heuristic(package: Package) -> str:
    instance, sub = package.instance_data, package.subcategory
    sense = _formulation(instance, sub)["sense"]
    optimum = _optimum(instance, sub, _capacities(instance))
    assert optimum is not None
    for k, (u, v, _, _) in enumerate(_arcs(instance)):
        upper = _capacities(instance)
        upper[k] = 0.0
        pruned = _optimum(instance, sub, upper)
        if pruned is not None and _better(optimum, pruned, sense):
            return flow_model_code(
                instance, sub, upper, True, f"Candidate-arc heuristic: arc {u}_{v} pruned."
            )
    raise ValueError(f"{package.instance_id}: pruning no single arc worsens the optimum feasibly")


def _replace_once(text: str, pattern: str, replacement: str, what: str) -> str:
    damaged, count = re.subn(pattern, replacement, text)
    if count != 1:
        raise ValueError(f"{what}: expected one match of {pattern!r} in the reference solver, found {count}")
    return damaged


def _misread(package: Package) -> tuple[str, dict[str, Any]]:
    """(misread solver code, misread structured instance): one public value read wrong in both."""
    public = copy.deepcopy(public_record(package))
    code = package.solver_ref
    if package.subcategory == "maximum_flow":
        cut = {str(n) for n in package.solution_ref["min_cut_S"]}
        arc = next(
            a
            for a in public["arcs"]
            if str(a["from"]) in cut and str(a["to"]) not in cut and a["capacity"] >= 1
        )
        u, v, cap = arc["from"], arc["to"], arc["capacity"]
        arc["capacity"] = cap - 1
        code = _replace_once(code, rf"\({u}, {v}, {cap}\)", f"({u}, {v}, {cap - 1})", package.instance_id)
        return code, public
    if package.subcategory == "minimum_cost_flow":
        node, supply = next((k, s) for k, s in public["supply"].items() if s > 0)
        public["supply"][node] = supply + 1
        line = next(line for line in code.splitlines() if line.startswith("SUPPLY = {"))
        misread = _replace_once(line, rf"(?<=[{{ ]){node}: {supply}(?=[,}}])", f"{node}: {supply + 1}", node)
        return code.replace(line, misread), public
    raise ValueError(f"misread_value is planted only in {', '.join(FLOW_SUBCATEGORIES)}")


def _folder_planting(subcategory: str) -> PlantingModule | None:
    """The subcategory folder's own ``planting`` module, if it has one."""
    planting: PlantingModule | None = folder_part(subcategory, "planting", PlantingModule)
    return planting


def plant(package: Package, cause: str, stage2_fault: str | None = None) -> dict[str, Any]:
    """The plan entry planting ``cause`` (and optionally a Stage-2 fault) in ``package``, with the
    effect it must have under ``"expected"``."""
    if cause not in CAUSES:
        raise ValueError(f"unknown cause {cause!r}; known: {', '.join(CAUSES)}")
    if stage2_fault is not None and stage2_fault not in STAGE2_FAULTS:
        raise ValueError(f"unknown Stage-2 fault {stage2_fault!r}; known: {', '.join(STAGE2_FAULTS)}")
    entry: dict[str, Any] = {"cause": cause}
    stage2 = Stage2Status.UNRESOLVED if stage2_fault else Stage2Status.MATCHED
    folder = _folder_planting(package.subcategory)
    if cause in CODE_FAULTS:
        entry["code_fault"] = cause
        category, failure_class = _CODE_FAULT_EFFECTS[cause]
        expected = Expected(category, failure_class, category, failure_class, stage2)
    elif cause == "misread_value":
        entry["stage1_code"], entry["structured_instance"] = (folder.misread if folder else _misread)(package)
        category, failure_class = (
            folder.MISREAD_EFFECT
            if folder
            else (MmoptCategory.INFEASIBLE_SOLUTION, "structural_modeling")
            if package.subcategory == "maximum_flow"
            else (MmoptCategory.WRONG_OBJECTIVE, "undecidable")
        )
        expected = Expected(
            category,
            failure_class,
            None,
            None,
            Stage2Status.UNRESOLVED if stage2_fault else Stage2Status.MISMATCHED,
        )
    elif cause == "relax_integrality":
        if folder:
            raise ValueError(f"relax_integrality is not planted in {package.subcategory}")
        code = flow_model_code(
            package.instance_data,
            package.subcategory,
            _capacities(package.instance_data),
            False,
            "LP relaxation.",
        )
        entry["stage1_code"] = entry["downstream_code"] = code
        expected = Expected(None, None, None, None, stage2)
    else:
        drop, heuristic = (
            (folder.drop_constraint, folder.heuristic) if folder else (_drop_constraint, _heuristic)
        )
        code = drop(package) if cause == "drop_constraint" else heuristic(package)
        entry["stage1_code"] = entry["downstream_code"] = code
        # A maximum flow is answered with its cut certificate, which a flow that is not maximum
        # cannot match (max-flow min-cut): a heuristic's answer fails as infeasible there.
        effect = (
            (MmoptCategory.INFEASIBLE_SOLUTION, "structural_modeling")
            if cause == "drop_constraint" or package.subcategory == "maximum_flow"
            else (MmoptCategory.WRONG_OBJECTIVE, "solution_procedure")
        )
        expected = Expected(*effect, *effect, stage2)
    if stage2_fault:
        entry["stage2_fault"] = stage2_fault
    entry["expected"] = asdict(Expected(**{**asdict(expected), "stage2_fault": stage2_fault}))
    return entry


def write_plan(path: Path, plants: Mapping[str, Mapping[str, Any]]) -> Path:
    """Write a plan file (instance key → entry) for ``--model=planted:PATH``."""
    path.write_text(json.dumps({"plants": dict(plants)}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path
