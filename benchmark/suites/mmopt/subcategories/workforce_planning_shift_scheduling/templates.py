"""Artifacts of a workforce-planning package, all derived from the verified record.

The task text says which figure holds which panel, states the rules the instance has and the
output contract; every requirement, rate, limit and availability code is read from the figures.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import WIDTH, Verbatim, output_contract, task_text
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.generator import (
    cheapest_staffing_cost,
    formulation_size,
)
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.renderer import split
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.roster import rules

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
STAFFING = _TEXT["staffing"]
PROFILE_ONE = _TEXT["profile_one"]
PROFILE_RULES = _TEXT["profile_rules"]
WHERE_TWO = _TEXT["where_two"]
WHERE_THREE = _TEXT["where_three"]
LEGEND = _TEXT["legend"]
BASE_RULES = (
    "- At least the required number of workers is assigned to every day-shift pair.",
    "- Each worker takes at most one shift on any day.",
    "- A worker takes only shifts that its availability code for that day allows.",
    "- Each assignment costs the worker's listed cost for that shift type.",
)
OVERTIME_RULE = _TEXT["overtime_rule"]
NIGHT_RULE = _TEXT["night_rule"]
CONSECUTIVE_RULE = _TEXT["consecutive_rule"]
REST_RULE = _TEXT["rest_rule"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


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


def task_input(record: VerifiedRecord) -> str:
    instance = record.instance
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
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        variant=instance["variant"],
        difficulty=record.difficulty,
        demand=demand,
        profiles_joined="\n".join(profiles),
        availability=availability,
        rule_lines="\n".join(_rule_lines(instance)),
        meta=meta,
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
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_workers=len(instance["sets"]["workers"]),
        n_days=len(instance["sets"]["days"]),
        overtime_variable=overtime_variable,
        objective=objective,
        horizon_text=horizon_text,
        objective_value=solution["objective_value"],
        overtime_note=overtime_note,
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        cheapest_staffing_cost=cheapest_staffing_cost(instance),
    )


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


def describe(record: VerifiedRecord) -> Descriptors:
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
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
