"""Planted causes for the failure-attribution tests on unit-commitment packages (see
:mod:`benchmark.suites.mmopt.planting`), each derived from the package's own ``solver_ref.py`` and
checked here to have the effect it claims:

* ``misread``: the lowest demand read one unit higher, in the code and in the Stage-2 record; the
  plan then generates a unit too much in that period and breaks the true power balance;
* ``drop_constraint``: the startup-linking rows left out, so starts look free: the optimum strictly
  improves (every package starts some unit) and the returned startups miss a start;
* ``heuristic``: the commitment fixed to a simple plan (the peak's merit-order units on throughout,
  or each period's own merit order), chosen only where it is feasible and strictly worse.
"""

from __future__ import annotations

import copy
from typing import Any

from benchmark.suites.mmopt.categories import MmoptCategory
from benchmark.suites.mmopt.generation.pipeline import run_solver_source
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.extraction import public_record
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.generator import (
    SIMPLE_PLANS,
    fixed_commitment_cost,
)

MISREAD_EFFECT = (MmoptCategory.INFEASIBLE_SOLUTION, "structural_modeling")
STARTUP_LINK = "            add(row, -u0 if t == 0 else 0.0, np.inf)  # startup linking\n"
OUTPUT_BOUND = "            upper[p(g, t)] = PMAX[G]\n"


def misread(package: Package) -> tuple[str, dict[str, Any]]:
    public = copy.deepcopy(public_record(package.instance_data))
    periods = public["sets"]["periods"]
    period = min(periods, key=lambda t: (public["demand"][t], periods.index(t)))
    public["demand"][period] += 1
    line = next(line for line in package.solver_ref.splitlines() if line.startswith("DEMAND = "))
    code = package.solver_ref.replace(line, f"DEMAND = {[public['demand'][t] for t in periods]!r}")
    if run_solver_source(code).get("status") != "optimal":
        raise ValueError(f"{package.instance_id}: the misread demand has no feasible plan")
    return code, public


def drop_constraint(package: Package) -> str:
    if package.solver_ref.count(STARTUP_LINK) != 1:
        raise ValueError(f"{package.instance_id}: reference solver has no startup-linking row")
    code = package.solver_ref.replace(STARTUP_LINK, "            pass  # startup linking left out\n")
    if (
        float(run_solver_source(code)["objective_value"])
        >= float(package.solution_ref["objective_value"]) - 1e-6
    ):
        raise ValueError(f"{package.instance_id}: dropping the startup linking does not improve the optimum")
    return code


def heuristic(package: Package) -> str:
    instance = package.instance_data
    optimum = float(package.solution_ref["objective_value"])
    for name, plan in SIMPLE_PLANS.items():
        commitment = plan(instance)
        cost = fixed_commitment_cost(instance, commitment)
        if cost is None or cost <= optimum + 1e-6:
            continue
        fixed = {g: [row[t] for t in instance["sets"]["periods"]] for g, row in commitment.items()}
        note = f"  # heuristic: the {name.replace('_', ' ')} commitment, fixed"
        pin = f"            lower[u(g, t)] = upper[u(g, t)] = {fixed!r}[G][t]{note}\n"
        return package.solver_ref.replace(OUTPUT_BOUND, OUTPUT_BOUND + pin)
    raise ValueError(f"{package.instance_id}: no simple commitment is feasible and strictly worse")
