"""Planted causes for the failure-attribution tests on parallel-machine packages (see
:mod:`benchmark.suites.mmopt.planting`), each derived from the package's own ``solver_ref.py`` and
checked here to have the effect it claims:

* ``misread``: one job's processing times read one unit longer on every machine, in the code and
  in the Stage-2 record; the returned finish times carry it, which the validator refuses;
* ``drop_constraint``: one machine without its no-overlap constraint (and, at medium and hard,
  without its redundant load row, which would otherwise still bound the makespan), chosen so the
  optimum strictly improves (the returned schedule must then overlap on it);
* ``heuristic``: greedy list scheduling (jobs by release, then longest first, each to the eligible
  machine that finishes it first), chosen only where it is feasible and strictly worse.
"""

from __future__ import annotations

import copy
from typing import Any

from benchmark.suites.mmopt.categories import MmoptCategory
from benchmark.suites.mmopt.generation.pipeline import run_solver_source
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.subcategories.parallel_machine_scheduling.extraction import public_record
from benchmark.suites.mmopt.subcategories.parallel_machine_scheduling.templates import LOAD_ROWS
from benchmark.suites.mmopt.subcategories.parallel_machine_scheduling.validator import check_solution

#: the head of the redundant load-row loop of a medium or hard ``solver_ref.py``
LOAD_ROW_LOOP = LOAD_ROWS.splitlines(keepends=True)[0]
MISREAD_EFFECT = (MmoptCategory.INFEASIBLE_SOLUTION, "structural_modeling")

HEURISTIC_SOLVE = '''

def solve() -> dict:
    """Greedy list scheduling (a heuristic, not an optimization model)."""
    ready = dict.fromkeys(MACHINES, 0)
    assignment, schedule = {}, []
    order = sorted(TIME, key=lambda j: (RELEASE.get(j, 0), -max(TIME[j].values()), j))
    for j in order:
        def finish(m):
            return max(ready[m], RELEASE.get(j, 0)) + SETUP.get(j, 0) + TIME[j][m]
        m = min(TIME[j], key=lambda m: (finish(m), m))
        begin = max(ready[m], RELEASE.get(j, 0))
        ready[m] = finish(m)
        assignment[j] = m
        schedule.append({"job": j, "machine": m, "start": begin, "finish": ready[m]})
    makespan = max(ready.values())
    return {"status": "optimal", "objective_value": makespan, "assignment": assignment, "schedule": schedule}
'''


def misread(package: Package) -> tuple[str, dict[str, Any]]:
    public = copy.deepcopy(public_record(package.instance_data))
    job = public["sets"]["jobs"][0]
    times = public["effective_processing_time"][job]
    line = f"    {job!r}: {times!r},"
    if line not in package.solver_ref:
        raise ValueError(f"{package.instance_id}: cannot find {job}'s times in the reference solver")
    public["effective_processing_time"][job] = {m: t + 1 for m, t in times.items()}
    return package.solver_ref.replace(
        line, f"    {job!r}: {public['effective_processing_time'][job]!r},"
    ), public


def drop_constraint(package: Package) -> str:
    optimum = float(package.solution_ref["objective_value"])
    for machine in package.instance_data["sets"]["machines"]:
        code = package.solver_ref.replace(
            "    for intervals in per_machine.values():\n        model.add_no_overlap(intervals)",
            f"    for m, intervals in per_machine.items():  # {machine} left unconstrained\n"
            f"        if m != {machine!r}:\n            model.add_no_overlap(intervals)",
        )
        if code == package.solver_ref:
            raise ValueError(f"{package.instance_id}: reference solver has no per-machine no-overlap loop")
        code = code.replace(LOAD_ROW_LOOP, f"    for m in [m for m in MACHINES if m != {machine!r}]:\n")
        relaxed = run_solver_source(code)["objective_value"]
        if relaxed is not None and float(relaxed) < optimum - 1e-6:  # None: not solved in its limit
            return code
    raise ValueError(f"{package.instance_id}: dropping no single machine's constraint improves the optimum")


def heuristic(package: Package) -> str:
    code = package.solver_ref.split("\ndef solve()", 1)[0] + HEURISTIC_SOLVE
    result = run_solver_source(code)
    verdict = check_solution(package.instance_data, result)
    if not verdict.feasible or float(result["objective_value"]) <= float(
        package.solution_ref["objective_value"]
    ):
        raise ValueError(
            f"{package.instance_id}: the greedy schedule is not a feasible, strictly worse answer"
        )
    return code
