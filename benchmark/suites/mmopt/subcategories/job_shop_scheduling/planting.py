"""Planted causes for the failure-attribution tests on job-shop packages (see
:mod:`benchmark.suites.mmopt.planting`). Each answer is derived from the package's own
``solver_ref.py`` and checked here to have the effect it claims:

* ``misread``: one operation's duration read one unit longer, in the code and in the Stage-2
  record; the returned records carry that duration, which the validator refuses;
* ``drop_constraint``: one machine without its no-overlap constraint, chosen so the optimum
  strictly improves (so the returned schedule must overlap on it);
* ``heuristic``: a list schedule (the job with the most remaining work first) instead of the
  model, chosen only where it is feasible and strictly worse than the optimum.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from benchmark.suites.mmopt.categories import MmoptCategory
from benchmark.suites.mmopt.generation.pipeline import run_solver_source
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.subcategories.job_shop_scheduling.extraction import public_record
from benchmark.suites.mmopt.subcategories.job_shop_scheduling.validator import check_solution

MISREAD_EFFECT = (MmoptCategory.INFEASIBLE_SOLUTION, "structural_modeling")

HEURISTIC_SOLVE = '''

def solve() -> dict:
    """List scheduling: among the jobs' next operations, start the earliest-startable one, ties
    to the job with the most work left (a heuristic, not an optimization model)."""
    remaining = {job: sum(p for _, _, p in route) for job, route in ROUTES.items()}
    next_op = dict.fromkeys(ROUTES, 0)
    job_ready = dict.fromkeys(ROUTES, 0)
    machine_ready = dict.fromkeys(MACHINES, 0)
    schedule = []
    while any(next_op[j] < len(r) for j, r in ROUTES.items()):
        best = None
        for job, route in ROUTES.items():
            if next_op[job] < len(route):
                op, machine, p = route[next_op[job]]
                key = (max(job_ready[job], machine_ready[machine]), -remaining[job], job)
                if best is None or key < best[0]:
                    best = (key, job, op, machine, p)
        (begin, _, _), job, op, machine, p = best
        item = {"job": job, "operation": op, "machine": machine, "start": begin, "finish": begin + p}
        schedule.append(item)
        job_ready[job] = machine_ready[machine] = begin + p
        remaining[job] -= p
        next_op[job] += 1
    makespan = max(job_ready.values())
    return {"status": "optimal", "objective_value": makespan, "schedule": schedule}
'''


def _data_section(package: Package) -> str:
    return package.solver_ref.split("\ndef solve()", 1)[0]


def misread(package: Package) -> tuple[str, dict[str, Any]]:
    public = copy.deepcopy(public_record(package.instance_data))
    job = public["sets"]["jobs"][0]
    op = public["sets"]["operations"][job][0]
    machine, duration = public["machine_assignment"][job][op], public["processing_time"][job][op]
    public["processing_time"][job][op] = duration + 1
    pattern = rf"\('{op}', '{machine}', {duration}\)"
    line = next(line for line in package.solver_ref.splitlines() if line.startswith(f"    {job!r}: ["))
    damaged, count = re.subn(pattern, f"('{op}', '{machine}', {duration + 1})", line, count=1)
    if count != 1:
        raise ValueError(f"{package.instance_id}: cannot find {job}-{op} in the reference solver")
    return package.solver_ref.replace(line, damaged), public


def drop_constraint(package: Package) -> str:
    optimum = float(package.solution_ref["objective_value"])
    for machine in package.instance_data["sets"]["machines"]:
        code = package.solver_ref.replace(
            "    for machine in MACHINES:\n        model.add_no_overlap(",
            f"    for machine in [m for m in MACHINES if m != {machine!r}]:  # {machine} left unconstrained\n"
            "        model.add_no_overlap(",
        )
        if code == package.solver_ref:
            raise ValueError(f"{package.instance_id}: reference solver has no per-machine no-overlap loop")
        if float(run_solver_source(code)["objective_value"]) < optimum - 1e-6:
            return code
    raise ValueError(f"{package.instance_id}: dropping no single machine's constraint improves the optimum")


def heuristic(package: Package) -> str:
    code = _data_section(package) + HEURISTIC_SOLVE
    result = run_solver_source(code)
    verdict = check_solution(package.instance_data, result)
    if not verdict.feasible or float(result["objective_value"]) <= float(
        package.solution_ref["objective_value"]
    ):
        raise ValueError(f"{package.instance_id}: the list schedule is not a feasible, strictly worse answer")
    return code
