"""Planted causes for the failure-attribution tests on lot-sizing packages (see
:mod:`benchmark.suites.mmopt.planting`), each derived from the package's own ``solver_ref.py`` and
checked here to have the effect it claims:

* ``misread``: one demand read one unit higher, in the code and in the Stage-2 record; the plan
  then makes a unit too many and its returned inventory breaks the true balance;
* ``drop_constraint``: the shared capacity rows left out, which strictly improves the optimum here
  (the returned plan must then exceed some period's capacity);
* ``heuristic``: the lot-for-lot plan (each period's demand made in that period), chosen only where
  it respects the capacities and is strictly worse than the optimum.
"""

from __future__ import annotations

import copy
from typing import Any

from benchmark.suites.mmopt.generation.pipeline import run_solver_source
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.subcategories.lot_sizing_production_planning.extraction import public_record
from benchmark.suites.mmopt.subcategories.lot_sizing_production_planning.validator import check_solution

MISREAD_EFFECT = ("infeasible_solution", "structural_modeling")
LOT_FOR_LOT = '''

def solve() -> dict:
    """Lot-for-lot: each period's demand produced in that period (a heuristic, not a model)."""
    production = {P: dict(zip(PERIODS, DEMAND[P])) for P in PRODUCTS}
    setup = {P: {T: int(q > 0) for T, q in production[P].items()} for P in PRODUCTS}
    cost = sum(PRODUCTION_COST[P] * sum(DEMAND[P]) + SETUP_COST[P] * sum(setup[P].values()) for P in PRODUCTS)
    inventory = {P: dict.fromkeys(PERIODS, 0) for P in PRODUCTS}
    return {"status": "optimal", "objective_value": cost, "production": production, "inventory": inventory,
            "setup": setup}
'''
#: The capacity loop of each solver_ref.py template (easy's aggregate model, then the
#: facility-location model of medium and hard) and the loop that leaves the capacity out.
CAPACITY_LOOPS = (
    (
        "    for t in range(nT):\n        row = np.zeros(3 * block)\n",
        "    for t in range(0):  # capacity left out\n        row = np.zeros(3 * block)\n",
    ),
    (
        "    for t in range(nT):  # shared capacity",
        "    for t in range(0):  # capacity left out",
    ),
)


def misread(package: Package) -> tuple[str, dict[str, Any]]:
    public = copy.deepcopy(public_record(package.instance_data))
    product = public["sets"]["products"][0]
    period = public["sets"]["periods"][0]
    public["demand"][product][period] += 1
    line = next(line for line in package.solver_ref.splitlines() if line.startswith("DEMAND = "))
    demand = {
        p: [public["demand"][p][t] for t in public["sets"]["periods"]] for p in public["sets"]["products"]
    }
    return package.solver_ref.replace(line, f"DEMAND = {demand!r}"), public


def drop_constraint(package: Package) -> str:
    loop = next((pair for pair in CAPACITY_LOOPS if pair[0] in package.solver_ref), None)
    if loop is None:
        raise ValueError(f"{package.instance_id}: reference solver has no capacity loop")
    code = package.solver_ref.replace(*loop)
    if (
        float(run_solver_source(code)["objective_value"])
        >= float(package.solution_ref["objective_value"]) - 1e-6
    ):
        raise ValueError(f"{package.instance_id}: dropping the capacity does not improve the optimum")
    return code


def heuristic(package: Package) -> str:
    instance = package.instance_data
    periods = instance["sets"]["periods"]
    production = {p: {t: instance["demand"][p][t] for t in periods} for p in instance["sets"]["products"]}
    plan = {"production": production}
    verdict = check_solution(instance, plan)
    if not verdict.feasible or verdict.objective is None:
        raise ValueError(f"{package.instance_id}: lot-for-lot breaks a capacity")
    if verdict.objective <= float(package.solution_ref["objective_value"]) + 1e-6:
        raise ValueError(f"{package.instance_id}: lot-for-lot is optimal")
    return package.solver_ref.split("\ndef solve()", 1)[0] + LOT_FOR_LOT
