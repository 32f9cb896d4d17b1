"""Planted causes for the failure-attribution tests on workforce-planning packages (see
:mod:`benchmark.suites.mmopt.planting`), each derived from the package's own ``solver_ref.py`` and
checked here to have the effect it claims:

* ``misread``: one day-shift requirement read one lower, in the code and in the Stage-2 record;
  every cost is positive, so the optimum then staffs that pair one short (understaffed);
* ``drop_constraint``: the one-shift-a-day rows left out, chosen only where that strictly lowers
  the cost (the returned roster must then double-book a worker);
* ``heuristic``: a greedy roster (day by day, each shift takes the cheapest free workers that the
  limits still allow) instead of the model, chosen only where it is feasible and strictly worse.
"""

from __future__ import annotations

import copy
from typing import Any

from benchmark.suites.mmopt.categories import MmoptCategory
from benchmark.suites.mmopt.generation.pipeline import run_solver_source
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.extraction import public_record
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.validator import check_solution

MISREAD_EFFECT = (MmoptCategory.INFEASIBLE_SOLUTION, "structural_modeling")
ONE_SHIFT_LOOP = "    for w in WORKERS:  # one shift a day\n"
GREEDY_SOLVE = '''

def solve() -> dict:
    """Greedy roster: day by day, each shift takes the cheapest workers still free that day whose
    Night, consecutive-day and rest limits allow it (a heuristic, not an optimization model)."""
    schedule = {w: dict.fromkeys(DAYS, "OFF") for w in WORKERS}
    for k, d in enumerate(DAYS):
        for s in SHIFTS:
            def fits(w):
                if schedule[w][d] != "OFF" or s not in ALLOWED[w][k]:
                    return False
                nights = sum(v == "N" for v in schedule[w].values())
                if s == "N" and w in MAX_NIGHTS and nights >= MAX_NIGHTS[w]:
                    return False
                if REST_RULE and s == "D" and k and schedule[w][DAYS[k - 1]] == "N":
                    return False
                if w in MAX_CONSECUTIVE:
                    run = 0
                    while run < k and schedule[w][DAYS[k - 1 - run]] != "OFF":
                        run += 1
                    if run >= MAX_CONSECUTIVE[w]:
                        return False
                return True
            free = sorted((w for w in WORKERS if fits(w)), key=lambda w: (COST[w][SHIFTS.index(s)], w))
            for w in free[: DEMAND[d][SHIFTS.index(s)]]:
                schedule[w][d] = s
    worked = {w: sum(v != "OFF" for v in schedule[w].values()) for w in WORKERS}
    overtime = {w: max(0, worked[w] - REGULAR_CAP[w]) for w in REGULAR_CAP}
    value = sum(COST[w][SHIFTS.index(v)] for w in WORKERS for v in schedule[w].values() if v != "OFF")
    value += sum(OVERTIME_COST[w] * overtime[w] for w in overtime)
    answer = {"status": "optimal", "objective_value": value, "worker_schedule": schedule}
    if overtime:
        answer["worker_overtime"] = overtime
    return answer
'''


def _data_section(package: Package) -> str:
    return package.solver_ref.split("\ndef solve()", 1)[0]


def misread(package: Package) -> tuple[str, dict[str, Any]]:
    public = copy.deepcopy(public_record(package.instance_data))
    shifts = public["sets"]["shifts"]
    day, shift = next((d, s) for d in public["sets"]["days"] for s in shifts if public["demand"][d][s] > 0)
    public["demand"][day][shift] -= 1
    line = next(line for line in package.solver_ref.splitlines() if line.startswith("DEMAND = "))
    demand = {d: [public["demand"][d][s] for s in shifts] for d in public["sets"]["days"]}
    comment = line[line.index("  #") :] if "  #" in line else ""
    return package.solver_ref.replace(line, f"DEMAND = {demand!r}{comment}"), public


def drop_constraint(package: Package) -> str:
    if ONE_SHIFT_LOOP not in package.solver_ref:
        raise ValueError(f"{package.instance_id}: reference solver has no one-shift-a-day loop")
    code = package.solver_ref.replace(ONE_SHIFT_LOOP, "    for w in []:  # one shift a day left out\n")
    if (
        float(run_solver_source(code)["objective_value"])
        >= float(package.solution_ref["objective_value"]) - 1e-6
    ):
        raise ValueError(f"{package.instance_id}: dropping the one-shift rule does not lower the cost")
    return code


def heuristic(package: Package) -> str:
    code = _data_section(package) + GREEDY_SOLVE
    result = run_solver_source(code)
    verdict = check_solution(package.instance_data, result)
    if (
        not verdict.feasible
        or float(result["objective_value"]) <= float(package.solution_ref["objective_value"]) + 1e-6
    ):
        raise ValueError(f"{package.instance_id}: the greedy roster is not a feasible, strictly worse answer")
    return code
