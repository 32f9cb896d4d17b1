"""Artifacts of an inventory-routing package, all derived from the verified record.

The task text says which figure holds what, states the rules and the travel-cost rule in words and
the output contract; every coordinate, stock, capacity, cost and demand is read from the figures.
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.generator import (
    formulation_size,
    just_in_time_cost,
)
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.model import DEPOT, customers_periods

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
WHERE = _TEXT["where"]
RULES = _TEXT["rules"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


def task_input(record: VerifiedRecord) -> str:
    title = "Inventory routing (multi-period and system planning)"
    return task_text(title, WHERE, RULES, TASK, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    customers, periods = customers_periods(instance)
    nodes = "\n".join(f"- {n}: coordinates {tuple(instance['coordinates'][n])}" for n in [DEPOT, *customers])
    data = "\n".join(
        f"- {c}: initial={instance['initial_inventory'][c]}, storage={instance['inventory_capacity'][c]}, "
        f"holding={instance['holding_cost'][c]}, demand: "
        + ", ".join(f"{t}={instance['demands'][c][t]}" for t in periods)
        for c in customers
    )
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        variant=instance["variant"],
        difficulty=record.difficulty,
        nodes=nodes,
        data=data,
        vehicle_capacity=instance["vehicle_capacity"],
        fixed_dispatch_cost=instance["fixed_dispatch_cost"],
        travel_cost_rule=instance["travel_cost_rule"],
        meta=meta,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    customers, periods = customers_periods(instance)
    simple = just_in_time_cost(instance)
    binding = ", ".join(solution["capacity_binding_periods"]) or "none"
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_customers=len(customers),
        n_periods=len(periods),
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        binding=binding,
        just_in_time="infeasible" if simple is None else f"{simple:g}",
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    customers, periods = customers_periods(instance)
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        customers=customers,
        periods=periods,
        coordinates={n: tuple(instance["coordinates"][n]) for n in [DEPOT, *customers]},
        demand={c: [instance["demands"][c][t] for t in periods] for c in customers},
        initial=dict(instance["initial_inventory"]),
        storage=dict(instance["inventory_capacity"]),
        holding=dict(instance["holding_cost"]),
        capacity=instance["vehicle_capacity"],
        dispatch=instance["fixed_dispatch_cost"],
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["demand_regime"],
        meta["vehicle_capacity_regime"],
        "dispatch_cost" if meta["dispatch_cost_flag"] else "no_dispatch_cost",
        "peak_period" if meta["peak_demand_flag"] else "no_peak",
        f"customers_{meta['number_customers']}",
        f"periods_{meta['number_periods']}",
    ]
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
