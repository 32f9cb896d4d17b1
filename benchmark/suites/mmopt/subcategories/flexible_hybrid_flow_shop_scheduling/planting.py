"""Planted causes for the failure-attribution tests on flexible flow-shop packages (see
:mod:`benchmark.suites.mmopt.planting`). Each answer is derived from the package's own
``solver_ref.py`` and checked here to have the effect it claims:

* ``misread``: one processing time read one unit longer, in the code and in the Stage-2 record;
  the returned completion times carry it, which the validator refuses;
* ``drop_constraint``: one machine without its no-overlap constraint, chosen so the optimum
  strictly improves (the returned schedule must then overlap on it);
* ``heuristic``: a permutation list schedule (most total work first, each job on the eligible
  machine that frees first) instead of the model, chosen only where it is feasible and worse.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from benchmark.suites.mmopt.generation.pipeline import run_solver_source
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling.extraction import public_record
from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling.validator import check_solution

MISREAD_EFFECT = ("infeasible_solution", "structural_modeling")
NO_OVERLAP_LOOP = "    for m in per_machine:  # one job at a time on every machine\n"
LIST_SOLVE = '''

def solve() -> dict:
    """List schedule: stage by stage, jobs in order of readiness (most total work first on ties),
    each on its eligible machine that frees first (a heuristic, not an optimization model)."""
    order = sorted(JOBS, key=lambda j: -sum(TIME[j]))
    ready = dict.fromkeys(JOBS, 0)
    assignment = {j: {} for j in JOBS}
    starts = {j: {} for j in JOBS}
    finish = {j: {} for j in JOBS}
    for k, s in enumerate(STAGES):
        free = {}
        for j in sorted(order, key=lambda j: (ready[j], order.index(j))):
            m = min(ELIGIBLE[j][k], key=lambda m: (max(free.get(m, 0), ready[j]), m))
            begin = max(free.get(m, 0), ready[j])
            assignment[j][s], starts[j][s], finish[j][s] = m, begin, begin + TIME[j][k]
            free[m] = ready[j] = begin + TIME[j][k]
    return {"status": "optimal", "objective_value": max(ready.values()), "machine_assignment": assignment,
            "start_time": starts, "completion_time": finish}
'''


def misread(package: Package) -> tuple[str, dict[str, Any]]:
    public = copy.deepcopy(public_record(package.instance_data))
    job, stage = public["sets"]["jobs"][0], public["sets"]["stages"][0]
    duration = public["processing_time"][job][stage]
    public["processing_time"][job][stage] = duration + 1
    line = next(line for line in package.solver_ref.splitlines() if line.startswith("TIME = "))
    damaged, count = re.subn(rf"('{job}': \[){duration}(?=[,\]])", rf"\g<1>{duration + 1}", line, count=1)
    if count != 1:
        raise ValueError(f"{package.instance_id}: cannot find {job}'s times in the reference solver")
    return package.solver_ref.replace(line, damaged), public


def drop_constraint(package: Package) -> str:
    if NO_OVERLAP_LOOP not in package.solver_ref:
        raise ValueError(f"{package.instance_id}: reference solver has no per-machine no-overlap loop")
    optimum = float(package.solution_ref["objective_value"])
    machines = [m for ms in package.instance_data["sets"]["machines_by_stage"].values() for m in ms]
    for machine in machines:
        code = package.solver_ref.replace(
            NO_OVERLAP_LOOP,
            f"    for m in [m for m in per_machine if m != {machine!r}]:  # {machine} left out\n",
        )
        relaxed = run_solver_source(code)["objective_value"]
        if relaxed is not None and float(relaxed) < optimum - 1e-6:  # None: not solved in its limit
            return code
    raise ValueError(f"{package.instance_id}: dropping no single machine's constraint improves the optimum")


def heuristic(package: Package) -> str:
    code = package.solver_ref.split("\ndef solve()", 1)[0] + LIST_SOLVE
    result = run_solver_source(code)
    verdict = check_solution(package.instance_data, result)
    if not verdict.feasible or float(result["objective_value"]) <= float(
        package.solution_ref["objective_value"]
    ):
        raise ValueError(f"{package.instance_id}: the list schedule is not a feasible, strictly worse answer")
    return code
