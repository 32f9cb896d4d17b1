"""Planted causes for the failure-attribution tests on RCPSP packages (see
:mod:`benchmark.suites.mmopt.planting`). Each answer is derived from the package's own
``solver_ref.py`` and checked here to have the effect it claims:

* ``misread``: one resource's capacity read one unit higher, in the code and in the Stage-2
  record, chosen so the optimum strictly improves: a schedule shorter than the true optimum with
  the true durations and precedences must overload the true capacity somewhere;
* ``drop_constraint``: one resource without its cumulative constraint, chosen so the optimum
  strictly improves (so the returned schedule must overload that resource);
* ``heuristic``: the serial schedule-generation scheme (activities in order of their earliest
  precedence start, each at the first time its predecessors are done and the resources free),
  chosen only where it is strictly worse than the optimum (it is always feasible).
"""

from __future__ import annotations

import copy
from typing import Any

from benchmark.suites.mmopt.categories import MmoptCategory
from benchmark.suites.mmopt.generation.pipeline import run_solver_source
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.stage2 import public_record
from benchmark.suites.mmopt.subcategories.rcpsp.validator import check_solution

MISREAD_EFFECT = (MmoptCategory.INFEASIBLE_SOLUTION, "structural_modeling")
CUMULATIVE_LOOP = "    for r, cap in CAPACITY.items():\n        model.add_cumulative("
SERIAL_SGS = '''

def solve() -> dict:
    """Serial schedule generation: activities by earliest precedence start, each placed at the
    first time its predecessors are done and every resource has room (a heuristic, not a model)."""
    predecessors = {a: [u for u, v in ARCS if v == a] for a in DURATION}
    early = {}
    while len(early) < len(DURATION):
        for a in DURATION:
            if a not in early and all(u in early for u in predecessors[a]):
                early[a] = max((early[u] + DURATION[u] for u in predecessors[a]), default=0)
    order = sorted(DURATION, key=lambda a: (early[a], list(DURATION).index(a)))
    starts = {}

    def fits(a, t):
        for r, cap in CAPACITY.items():
            for moment in range(t, t + DURATION[a]):
                used = sum(DEMAND[b][r] for b, s in starts.items() if s <= moment < s + DURATION[b])
                if used + DEMAND[a][r] > cap:
                    return False
        return True

    for a in order:
        t = max((starts[u] + DURATION[u] for u in predecessors[a]), default=0)
        while not fits(a, t):
            t += 1
        starts[a] = t
    makespan = max(starts[a] + DURATION[a] for a in DURATION)
    return {"status": "optimal", "objective_value": makespan, "makespan": makespan,
            "activity_start_times": starts}
'''


def _optimum(code: str) -> float:
    return float(run_solver_source(code)["objective_value"])


def misread(package: Package) -> tuple[str, dict[str, Any]]:
    optimum = float(package.solution_ref["objective_value"])
    line = next(line for line in package.solver_ref.splitlines() if line.startswith("CAPACITY = "))
    for resource, capacity in package.instance_data["resource_capacity"].items():
        public = copy.deepcopy(public_record(package))
        public["resource_capacity"][resource] = capacity + 1
        code = package.solver_ref.replace(line, f"CAPACITY = {dict(public['resource_capacity'])!r}")
        if _optimum(code) < optimum - 1e-6:
            return code, public
    raise ValueError(f"{package.instance_id}: no capacity read one higher shortens the optimum")


def drop_constraint(package: Package) -> str:
    if package.solver_ref.count(CUMULATIVE_LOOP) != 1:
        raise ValueError(f"{package.instance_id}: reference solver has no cumulative loop")
    optimum = float(package.solution_ref["objective_value"])
    for resource in package.instance_data["sets"]["resources"]:
        kept = f"[(r, c) for r, c in CAPACITY.items() if r != {resource!r}]"
        code = package.solver_ref.replace(
            CUMULATIVE_LOOP,
            f"    for r, cap in {kept}:  # {resource} left out\n        model.add_cumulative(",
        )
        if _optimum(code) < optimum - 1e-6:
            return code
    raise ValueError(f"{package.instance_id}: dropping no single resource improves the optimum")


def heuristic(package: Package) -> str:
    code = package.solver_ref.split("\ndef solve()", 1)[0] + SERIAL_SGS
    answer = run_solver_source(code)
    verdict = check_solution(package.instance_data, answer)
    if not verdict.feasible or verdict.objective is None:
        raise ValueError(f"{package.instance_id}: the serial schedule is infeasible: {verdict.problems[:1]}")
    if verdict.objective <= float(package.solution_ref["objective_value"]) + 1e-6:
        raise ValueError(f"{package.instance_id}: the serial schedule is optimal")
    return code
