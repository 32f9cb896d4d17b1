"""Artifacts of a lot-sizing package, all derived from the verified record.

The task text says which figure holds which table and the output contract; every demand, capacity,
cost, setup time and initial stock is read from the figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.lot_sizing_production_planning.generator import (
    formulation_size,
    simple_plan_costs,
)
from benchmark.suites.mmopt.subcategories.lot_sizing_production_planning.renderer import split

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")  # easy: the aggregate model
#: medium and hard: the facility-location model, whose tighter bound keeps their replay fast
FACILITY_LOCATION_TEMPLATE = resource_text(__name__, "solver_ref_fl.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
WHERE_ONE = _TEXT["where_one"]
WHERE_TWO = _TEXT["where_two"]
READING = _TEXT["reading"]
SETUP_TIME = _TEXT["setup_time"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


def task_input(record: VerifiedRecord) -> str:
    instance = record.instance
    reading = f"{WHERE_TWO if split(instance) else WHERE_ONE} {READING}"
    if "setup_time" in instance:
        reading += " " + SETUP_TIME
    title = "Lot sizing and production planning (multi-period and system planning)"
    return task_text(title, reading, TASK, contract=CONTRACT)


def _first(row: Mapping[str, Any]) -> Any:
    return next(iter(row.values()))


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    periods = instance["sets"]["periods"]
    demand = "\n".join(
        f"- {p}: " + ", ".join(f"{t}={instance['demand'][p][t]}" for t in periods)
        for p in instance["sets"]["products"]
    )
    costs = "\n".join(
        f"- {p}: production={_first(instance['production_cost'][p])}, "
        f"holding={_first(instance['holding_cost'][p])}, setup={_first(instance['setup_cost'][p])}"
        + (f", setup_time={instance['setup_time'][p]}" if "setup_time" in instance else "")
        + f", initial_inventory={instance['initial_inventory'][p]}"
        for p in instance["sets"]["products"]
    )
    capacity = ", ".join(f"{t}={instance['capacity'][t]}" for t in periods)
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    figures = (
        "visual_0.png (demand grid) and visual_1.png (cost table)" if split(instance) else "visual_0.png"
    )
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        variant=instance["variant"],
        difficulty=record.difficulty,
        demand=demand,
        capacity=capacity,
        costs=costs,
        meta=meta,
        figures=figures,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    plans = simple_plan_costs(instance)
    simple = ", ".join(
        f"{name.replace('_', '-')} {'infeasible' if c is None else f'{c:g}'}" for name, c in plans.items()
    )
    binding = ", ".join(solution["capacity_binding_periods"]) or "none"
    setup_term = " + \\tau_p y_{pt}" if "setup_time" in instance else ""
    setup_parameter = ", $\\tau_p$ setup time" if "setup_time" in instance else ""
    counts = len(instance["sets"]["products"]), len(instance["sets"]["periods"])
    sizes = f"$P$: products ({counts[0]}), $T$: periods ({counts[1]})"
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        sizes=sizes,
        setup_parameter=setup_parameter,
        setup_term=setup_term,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        binding=binding,
        simple=simple,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    products, periods = instance["sets"]["products"], instance["sets"]["periods"]
    return (SOLVER_TEMPLATE if record.difficulty == "easy" else FACILITY_LOCATION_TEMPLATE).format(
        instance_id=record.instance_id,
        products=list(products),
        periods=list(periods),
        demand={p: [instance["demand"][p][t] for t in periods] for p in products},
        capacity=[instance["capacity"][t] for t in periods],
        production_cost={p: _first(instance["production_cost"][p]) for p in products},
        holding_cost={p: _first(instance["holding_cost"][p]) for p in products},
        setup_cost={p: _first(instance["setup_cost"][p]) for p in products},
        setup_time=dict(instance.get("setup_time", {})),
        initial=dict(instance["initial_inventory"]),
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["demand_pattern"],
        meta["capacity_regime"],
        "setup_times" if meta["setup_time_flag"] else "no_setup_time",
        "two_figures" if split(instance) else "one_figure",
        f"products_{meta['number_products']}",
        f"periods_{meta['number_periods']}",
    ]
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
