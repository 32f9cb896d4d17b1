"""Planted causes for the failure-attribution tests on inventory-routing packages (see
:mod:`benchmark.suites.mmopt.planting`), each derived from the package's own ``solver_ref.py`` and
checked here to have the effect it claims:

* ``misread``: the first customer's first demand read one unit higher, in the code and in the
  Stage-2 record; the returned end-of-period inventory then breaks the true balance;
* ``drop_constraint``: the vehicle-capacity rows left out, which strictly improves the optimum here
  (the returned plan must then overload the vehicle in some period);
* ``heuristic``: the just-in-time plan (each period, deliver exactly what a customer lacks on the
  shortest trip through those customers), chosen only where it fits the vehicle and is strictly
  worse than the optimum.
"""

from __future__ import annotations

import copy
from typing import Any

from benchmark.suites.mmopt.categories import MmoptCategory
from benchmark.suites.mmopt.generation.pipeline import run_solver_source
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.extraction import public_record
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.generator import just_in_time_cost

MISREAD_EFFECT = (MmoptCategory.INFEASIBLE_SOLUTION, "structural_modeling")
CAPACITY_ROW = "        add(row, -np.inf, 0)  # vehicle capacity\n"
JUST_IN_TIME = '''

def solve() -> dict:
    """Just in time: each period, deliver what a customer lacks on the shortest trip through those
    customers (a heuristic, not a model)."""
    table = {tuple(sorted(stops)): (tour, stops) for tour, stops in trips()}
    stock = dict(INITIAL)
    routes, deliveries, total = {}, {C: {} for C in CUSTOMERS}, 0
    for t, T in enumerate(PERIODS):
        for C in CUSTOMERS:
            deliveries[C][T] = max(0, DEMAND[C][t] - stock[C])
            stock[C] += deliveries[C][T] - DEMAND[C][t]
            total += 100 * HOLDING[C] * stock[C]
        needy = tuple(sorted(C for C in CUSTOMERS if deliveries[C][T] > 0))
        if needy:
            tour, stops = table[needy]
            total += tour + 100 * DISPATCH
            routes[T] = ["Depot", *stops, "Depot"]
        else:
            routes[T] = []
    inventory = {C: {} for C in CUSTOMERS}
    level = dict(INITIAL)
    for t, T in enumerate(PERIODS):
        for C in CUSTOMERS:
            level[C] += deliveries[C][T] - DEMAND[C][t]
            inventory[C][T] = level[C]
    return {"status": "optimal", "objective_value": round(total / 100, 2), "route_by_period": routes,
            "deliveries": deliveries, "ending_inventory": inventory}
'''


def misread(package: Package) -> tuple[str, dict[str, Any]]:
    public = copy.deepcopy(public_record(package.instance_data))
    customer = public["sets"]["customers"][0]
    period = public["sets"]["periods"][0]
    public["demands"][customer][period] += 1
    line = next(line for line in package.solver_ref.splitlines() if line.startswith("DEMAND = "))
    demand = {
        c: [public["demands"][c][t] for t in public["sets"]["periods"]] for c in public["sets"]["customers"]
    }
    code = package.solver_ref.replace(line, f"DEMAND = {demand!r}")
    if run_solver_source(code).get("status") != "optimal":
        raise ValueError(f"{package.instance_id}: the misread demand has no feasible plan")
    return code, public


def drop_constraint(package: Package) -> str:
    if package.solver_ref.count(CAPACITY_ROW) != 1:
        raise ValueError(f"{package.instance_id}: reference solver has no vehicle-capacity row")
    code = package.solver_ref.replace(CAPACITY_ROW, "        pass  # vehicle capacity left out\n")
    if (
        float(run_solver_source(code)["objective_value"])
        >= float(package.solution_ref["objective_value"]) - 1e-6
    ):
        raise ValueError(f"{package.instance_id}: dropping the vehicle capacity does not improve the optimum")
    return code


def heuristic(package: Package) -> str:
    cost = just_in_time_cost(package.instance_data)
    if cost is None:
        raise ValueError(f"{package.instance_id}: the just-in-time plan overloads the vehicle")
    if cost <= float(package.solution_ref["objective_value"]) + 1e-6:
        raise ValueError(f"{package.instance_id}: the just-in-time plan is optimal")
    return package.solver_ref.split("\ndef solve()", 1)[0] + JUST_IN_TIME
