"""Artifacts of a workforce-planning package, all derived from the verified record.

The task text says which figure holds which panel, states the rules the instance has and the
output contract; every requirement, rate, limit and availability code is read from the figures.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import WIDTH, Verbatim, output_contract, task_text
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.generator import (
    cheapest_staffing_cost,
    formulation_size,
)
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.renderer import split
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.roster import rules

STAFFING = (
    "The figure visual_0.png is the staffing panel: a bar chart of the total number of workers "
    "required on each day, the shift definitions (Day D, Evening E, Night N) and a shift-by-day "
    "table whose cells give the minimum number of workers on each shift of each day."
)
PROFILE_ONE = (
    "The figure visual_1.png holds the worker profile table (the cost of assigning each worker "
    "to each shift type) and, below it, the worker-by-day availability matrix."
)
PROFILE_RULES = (
    "The worker profile table gives, for each worker, the cost per assigned Day, Evening and Night "
    "shift, the regular shift cap over the whole horizon, the overtime cost per shift beyond that "
    "cap, the maximum number of Night shifts and the maximum number of consecutive working days."
)
WHERE_TWO = "The figure visual_1.png holds the worker profile table and the availability matrix below it."
WHERE_THREE = (
    "The figure visual_1.png holds the worker profile table and visual_2.png the availability matrix."
)
LEGEND = (
    "Availability codes: OFF means the worker is unavailable that day; D, E or N means only that "
    "shift; DE means Day or Evening; EN means Evening or Night; DEN means any of the three shifts."
)
BASE_RULES = (
    "- At least the required number of workers is assigned to every day-shift pair.",
    "- Each worker takes at most one shift on any day.",
    "- A worker takes only shifts that its availability code for that day allows.",
    "- Each assignment costs the worker's listed cost for that shift type.",
)
OVERTIME_RULE = (
    "- Shifts of a worker beyond its regular cap (counted over the whole horizon) are overtime and "
    "each costs the worker's overtime cost in addition to the shift cost."
)
NIGHT_RULE = "- A worker's Night shifts over the horizon do not exceed its Night limit."
CONSECUTIVE_RULE = (
    "- A worker does not work (any shift) on more consecutive days than its consecutive-day limit."
)
REST_RULE = (
    "- Rest rule: a worker who works the Night shift of a day does not work the Day shift of the next day."
)
TASK = (
    "Task: build a mathematical optimization model of this roster and minimize the total cost "
    "(shift costs plus overtime costs, where the instance has overtime). All data must be read from "
    "the figures."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal roster is found;
- "objective_value": the minimum total cost, as a number;
- "worker_schedule": {worker: {day: the shift worked ("D", "E" or "N") or "OFF"}}, every worker
  and day, names as in the figures (for example {"W1": {"Mon1": "D", ...}, ...});
- "worker_overtime": {worker: overtime shifts}, where the instance has overtime.
"""
)


def _rule_lines(instance: Mapping[str, Any]) -> list[str]:
    rule = rules(instance)
    lines = list(BASE_RULES)
    if rule.overtime:
        lines.append(OVERTIME_RULE)
    if rule.night_limit:
        lines.append(NIGHT_RULE)
    if rule.consecutive:
        lines.append(CONSECUTIVE_RULE)
    if rule.rest_rule:
        lines.append(REST_RULE)
    return ["\n  ".join(textwrap.wrap(line, WIDTH - 2)) for line in lines]


def task_input(instance: Mapping[str, Any]) -> str:
    if rules(instance).overtime:
        where = f"{WHERE_THREE if split(instance) else WHERE_TWO} {PROFILE_RULES}"
    else:
        where = PROFILE_ONE
    rule_list = Verbatim("Rules:\n" + "\n".join(_rule_lines(instance)))
    title = "Workforce planning and shift scheduling (multi-period and system planning)"
    return task_text(title, f"{STAFFING} {where}", LEGEND, rule_list, TASK, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    sets = instance["sets"]
    demand = "\n".join(
        f"- {d}: " + ", ".join(f"{s}={instance['demand'][d][s]}" for s in sets["shifts"])
        for d in sets["days"]
    )
    profiles = []
    for w in sets["workers"]:
        line = f"- {w}: " + ", ".join(f"cost_{s}={instance['shift_cost'][w][s]}" for s in sets["shifts"])
        for field in ("regular_shift_limit", "overtime_cost", "max_night_shifts", "max_consecutive_days"):
            if field in instance:
                line += f", {field}={instance[field][w]}"
        profiles.append(line)
    availability = "\n".join(
        f"- {w}: " + ", ".join(f"{d}={instance['availability_code'][w][d]}" for d in sets["days"])
        for w in sets["workers"]
    )
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    return (
        "This is a multi-day workforce planning and shift scheduling problem.\n\n"
        f"Instance ID: {record.instance_id}\nVariant: {instance['variant']}\n"
        f"Difficulty: {record.difficulty}\n\n"
        f"Demand per day and shift:\n{demand}\n\nWorker profiles:\n" + "\n".join(profiles) + "\n\n"
        f"Availability codes:\n{availability}\n\n"
        "Objective:\n- Minimize shift costs plus overtime costs.\n\n"
        "Constraints:\n" + "\n".join(_rule_lines(instance)) + "\n\n"
        f"Metadata:\n{meta}\n\n"
        "Visual interpretation:\n- visual_0.png: staffing panel; the other figure(s): worker profiles and "
        "availability matrix.\n\n"
        "Output contract:\n- solve() returns status, objective_value, worker_schedule and worker_overtime.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rule = rules(instance)
    objective = "\\sum_{w,d,s} c_{ws} x_{wds}" + (
        " + \\sum_w o^{\\mathrm{ot}}_w\\, u_w" if rule.overtime else ""
    )
    horizon = []
    if rule.overtime:
        horizon.append("- Overtime: $u_w \\ge \\sum_{d,s} x_{wds} - R_w$, $u_w \\ge 0$")
    if rule.night_limit:
        horizon.append("- Night limit: $\\sum_d x_{wdN} \\le N_w$")
    if rule.consecutive:
        horizon.append(
            "- Consecutive days: $\\sum_{d' = d}^{d + K_w} \\sum_s x_{wd's} \\le K_w$ for every window"
        )
    if rule.rest_rule:
        horizon.append("- Rest rule: $x_{wdN} + x_{w,d+1,D} \\le 1$")
    horizon_text = "\n".join(horizon) if horizon else "- (none at this difficulty)"
    overtime_variable = "- $u_w \\ge 0$: overtime shifts of worker $w$" if rule.overtime else ""
    overtime_note = (
        f" = shifts {solution['assignment_cost']} + overtime {solution['overtime_cost']} "
        f"({solution['total_overtime_shifts']} overtime shifts)"
        if rule.overtime
        else ""
    )
    return f"""# Workforce planning and shift scheduling — {record.instance_id}

## Sets
- $W$: workers ({len(instance["sets"]["workers"])}), $T$: days ({len(instance["sets"]["days"])})
- $S = \\{{D, E, N\\}}$: shifts

## Parameters
- $r_{{ds}}$ required staff, $c_{{ws}}$ shift cost
- $a_{{wds}} \\in \\{{0, 1\\}}$ availability (from the codes)
- where given: $R_w$ regular cap, $o^{{\\mathrm{{ot}}}}_w$ overtime cost, $N_w$ Night limit,
  $K_w$ consecutive-day limit

## Decision variables
- $x_{{wds}} \\in \\{{0, 1\\}}$: worker $w$ works shift $s$ on day $d$ (fixed to 0 where $a_{{wds}} = 0$)
{overtime_variable}

## Objective
$$\\min \\; {objective}$$

## Constraints
- Coverage: $\\sum_w x_{{wds}} \\ge r_{{ds}}$ for every day and shift
- One shift a day: $\\sum_s x_{{wds}} \\le 1$ for every worker and day
{horizon_text}

## Instance notes
- Verified minimum cost: **{solution["objective_value"]}**{overtime_note} ({record.reference.method});
  cross-checked by {record.cross_check_method} (value {record.cross_check_objective:g}).
- Every shift staffed by its cheapest available workers, ignoring the one-shift rule:
  {cheapest_staffing_cost(instance):g}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (workforce planning and shift scheduling), generated from the
verified record. Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import lil_matrix

WORKERS = {workers!r}
DAYS = {days!r}
SHIFTS = {shifts!r}
DEMAND = {demand!r}  # day -> [required staff per shift]
COST = {cost!r}  # worker -> [cost per shift]
ALLOWED = {allowed!r}  # worker -> [shifts allowed on each day]
REGULAR_CAP = {regular_cap!r}
OVERTIME_COST = {overtime_cost!r}
MAX_NIGHTS = {max_nights!r}
MAX_CONSECUTIVE = {max_consecutive!r}
REST_RULE = {rest_rule!r}


def solve() -> dict:
    keys = [(w, d, s) for w in WORKERS for d in DAYS for s in SHIFTS]
    index = {{key: k for k, key in enumerate(keys)}}
    overtime = {{w: len(keys) + j for j, w in enumerate(WORKERS)}} if REGULAR_CAP else {{}}
    n = len(keys) + len(overtime)
    cost, upper = np.zeros(n), np.zeros(n)
    for w, d, s in keys:
        cost[index[w, d, s]] = COST[w][SHIFTS.index(s)]
        upper[index[w, d, s]] = 1.0 if s in ALLOWED[w][DAYS.index(d)] else 0.0
    for w, k in overtime.items():
        cost[k], upper[k] = OVERTIME_COST[w], len(DAYS)
    rows = []  # (coefficients, lower, upper)
    for d in DAYS:  # coverage
        for s in SHIFTS:
            rows.append(({{index[w, d, s]: 1 for w in WORKERS}}, DEMAND[d][SHIFTS.index(s)], np.inf))
    for w in WORKERS:  # one shift a day
        for d in DAYS:
            rows.append(({{index[w, d, s]: 1 for s in SHIFTS}}, -np.inf, 1))
    for w in overtime:  # overtime beyond the regular cap
        row = {{index[w, d, s]: 1 for d in DAYS for s in SHIFTS}}
        row[overtime[w]] = -1
        rows.append((row, -np.inf, REGULAR_CAP[w]))
    for w in MAX_NIGHTS:  # Night limit
        rows.append(({{index[w, d, "N"]: 1 for d in DAYS}}, -np.inf, MAX_NIGHTS[w]))
    for w in MAX_CONSECUTIVE:  # consecutive working days
        span = MAX_CONSECUTIVE[w] + 1
        for k in range(len(DAYS) - span + 1):
            window = DAYS[k : k + span]
            rows.append(({{index[w, d, s]: 1 for d in window for s in SHIFTS}}, -np.inf, MAX_CONSECUTIVE[w]))
    for w in (WORKERS if REST_RULE else []):  # rest rule: no Day shift right after a Night shift
        for today, tomorrow in zip(DAYS, DAYS[1:]):
            rows.append(({{index[w, today, "N"]: 1, index[w, tomorrow, "D"]: 1}}, -np.inf, 1))
    matrix = lil_matrix((len(rows), n))
    for r, (coefficients, _, _) in enumerate(rows):
        for k, v in coefficients.items():
            matrix[r, k] = v
    result = milp(
        cost,
        constraints=[LinearConstraint(matrix.tocsr(), [r[1] for r in rows], [r[2] for r in rows])],
        integrality=np.ones(n),
        bounds=Bounds(np.zeros(n), upper),
    )
    if result.status != 0:
        return {{"status": "infeasible" if result.status == 2 else "error", "objective_value": None}}
    x = np.rint(result.x).astype(int)
    schedule = {{
        w: {{d: next((s for s in SHIFTS if x[index[w, d, s]]), "OFF") for d in DAYS}} for w in WORKERS
    }}
    value = round(float(result.fun), 6)
    answer = {{"status": "optimal", "objective_value": value, "worker_schedule": schedule}}
    if overtime:
        answer["worker_overtime"] = {{w: int(x[k]) for w, k in overtime.items()}}
    return answer


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    sets = instance["sets"]
    workers, days, shifts = sets["workers"], sets["days"], sets["shifts"]
    rule = rules(instance)
    legend = instance["availability_legend"]
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        workers=list(workers),
        days=list(days),
        shifts=list(shifts),
        demand={d: [instance["demand"][d][s] for s in shifts] for d in days},
        cost={w: [instance["shift_cost"][w][s] for s in shifts] for w in workers},
        allowed={w: ["".join(legend[instance["availability_code"][w][d]]) for d in days] for w in workers},
        regular_cap=dict(instance["regular_shift_limit"]) if rule.overtime else {},
        overtime_cost=dict(instance["overtime_cost"]) if rule.overtime else {},
        max_nights=dict(instance["max_night_shifts"]) if rule.night_limit else {},
        max_consecutive=dict(instance["max_consecutive_days"]) if rule.consecutive else {},
        rest_rule=rule.rest_rule,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    rule = rules(instance)
    tags = [
        meta["coverage_regime"],
        "overtime_and_horizon_limits" if rule.overtime else "no_horizon_rules",
        "rest_rule" if rule.rest_rule else "no_rest_rule",
        "three_figures" if split(instance) else "two_figures",
        f"workers_{meta['number_workers']}",
        f"days_{meta['number_periods']}",
    ]
    return DerivedArtifacts(
        task_input=task_input(instance),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
