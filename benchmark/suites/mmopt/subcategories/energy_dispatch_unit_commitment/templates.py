"""Artifacts of a unit-commitment package, all derived from the verified record.

The task text says which figure holds which panel, states the rules in words and the output
contract; every demand, cost, output range and time limit is read from the figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.generator import (
    formulation_size,
    simple_plan_costs,
)
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.model import (
    has_min_up_down,
    has_ramping,
    units_periods,
)
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.renderer import panel_files

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
PANEL_WORDS = {
    "table": (
        "the generator economics table (per generator: marginal cost per unit of output, startup cost{extra})"
    ),
    "demand": "the demand timeline (the exact system demand of every period, periods in time order)",
    "bands": "the output ranges (per generator, a bar from its minimum to its maximum output when on)",
}
RULES = _TEXT["rules"]
ALL_OFF = _TEXT["all_off"]
INITIAL = _TEXT["initial"]
MIN_UP_DOWN = _TEXT["min_up_down"]
RAMPING = _TEXT["ramping"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


def _where(instance: Mapping[str, Any]) -> str:
    extra = ""
    if has_min_up_down(instance):
        extra += ", minimum up and down times"
    if has_ramping(instance):
        extra += ", ramp limit"
    if any(instance["initial_status"].values()):
        extra += ", state and output before the first period"
    words = {k: v.format(extra=extra) if k == "table" else v for k, v in PANEL_WORDS.items()}
    files = panel_files(instance)
    if len(files) == 1:
        return (
            "The figure visual_0.png holds, from top to bottom, "
            + "; ".join(words[p] for p in files[0])
            + "."
        )
    parts = [
        f"visual_{i}.png holds " + " and, below it, ".join(words[p] for p in panels)
        for i, panels in enumerate(files)
    ]
    return "The figures: " + "; ".join(parts) + "."


def task_input(record: VerifiedRecord) -> str:
    instance = record.instance
    paragraphs = [
        _where(instance),
        RULES + " " + (INITIAL if any(instance["initial_status"].values()) else ALL_OFF),
    ]
    if has_min_up_down(instance):
        paragraphs.append(MIN_UP_DOWN)
    if has_ramping(instance):
        paragraphs.append(RAMPING)
    title = "Energy dispatch and unit commitment (multi-period and system planning)"
    return task_text(title, *paragraphs, TASK, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    units, periods = units_periods(instance)
    fields = ["cost", "startup_cost", "pmin", "pmax"]
    if has_min_up_down(instance):
        fields += ["min_up", "min_down"]
    if has_ramping(instance):
        fields += ["ramp_up", "ramp_down", "initial_output"]
    fields.append("initial_status")
    lines = "\n".join(f"- {g}: " + ", ".join(f"{f}={instance[f][g]}" for f in fields) for g in units)
    demand = ", ".join(f"{t}={instance['demand'][t]}" for t in periods)
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    figures = "; ".join(f"visual_{i}.png: {', '.join(p)}" for i, p in enumerate(panel_files(instance)))
    constraints = [
        "- Power balance: total generation equals demand in every period.",
        "- Output within [pmin, pmax] when on, zero when off.",
        "- Startup in t when on in t and off in t-1 (initial status before t1); startup cost paid.",
    ]
    if has_min_up_down(instance):
        constraints.append("- Minimum up/down times from a start/stop, cut at the horizon end.")
    if has_ramping(instance):
        constraints.append("- Ramp limits between consecutive online periods (initial output before t1).")
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        variant=instance["variant"],
        difficulty=record.difficulty,
        lines=lines,
        demand=demand,
        constraints_joined="\n".join(constraints),
        meta=meta,
        figures=figures,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    units, periods = units_periods(instance)
    plans = ", ".join(
        f"{name.replace('_', ' ')} {'infeasible' if c is None else f'{c:g}'}"
        for name, c in simple_plan_costs(instance).items()
    )
    binding = ", ".join(
        f"{g}: {' '.join(ts)}" for g, ts in solution["binding_capacity_periods"].items() if ts
    )
    extra = ""
    if has_min_up_down(instance):
        extra += (
            "- Minimum up: $u_{g\\tau} \\ge u_{gt} - u_{g,t-1}$ for $\\tau = t+1, \\dots, "
            "\\min(T, t + UT_g - 1)$\n"
            "- Minimum down: $u_{g\\tau} \\le 1 - u_{g,t-1} + u_{gt}$ for $\\tau = t+1, \\dots, "
            "\\min(T, t + DT_g - 1)$\n"
        )
    if has_ramping(instance):
        extra += (
            "- Ramping: $p_{gt} - p_{g,t-1} \\le R_g + \\bar P_g (1 - u_{g,t-1})$ and "
            "$p_{g,t-1} - p_{gt} \\le R_g + \\bar P_g (1 - u_{gt})$ ($p_{g0}$, $u_{g0}$ the initial state)\n"
        )
    times = ", $UT_g$ / $DT_g$ minimum up / down time" if has_min_up_down(instance) else ""
    ramps = ", $R_g$ ramp limit, $p_{g0}$ initial output" if has_ramping(instance) else ""
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_units=len(units),
        n_periods=len(periods),
        times=times,
        ramps=ramps,
        extra=extra,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        at_maximum=binding or "none",
        plans=plans,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    units, periods = units_periods(instance)
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        units=units,
        periods=periods,
        demand=[instance["demand"][t] for t in periods],
        cost=dict(instance["cost"]),
        startup=dict(instance["startup_cost"]),
        pmin=dict(instance["pmin"]),
        pmax=dict(instance["pmax"]),
        initial_status=dict(instance["initial_status"]),
        min_up=dict(instance.get("min_up", {})),
        min_down=dict(instance.get("min_down", {})),
        ramp=dict(instance.get("ramp_up", {})),
        initial_output=dict(instance.get("initial_output", {})),
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["demand_pattern"],
        meta["capacity_regime"],
        "min_up_down" if meta["minimum_up_down_flag"] else "no_min_up_down",
        "ramping" if meta["ramping_flag"] else "no_ramping",
        f"figures_{len(panel_files(instance))}",
        f"units_{meta['number_units']}",
        f"periods_{meta['number_periods']}",
    ]
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
