"""Artifacts of a capacitated VRP package, all derived from the verified record.

The task text fixes the cost rule in words, the fleet semantics and the output contract; the
coordinates, demands, fleet size and capacity stay in the figures.
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation import routing
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.vehicle_routing_problem.generator import (
    cost_rule,
    greedy_cost,
    grid_size,
    uses_columns,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")
COLUMN_SOLVER_TEMPLATE = resource_text(__name__, "solver_ref_columns.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


def task_input(record: VerifiedRecord) -> str:
    rule = routing.rule_sentence(cost_rule(record.instance))
    title = "Capacitated vehicle routing problem (routing and tour optimization)"
    return task_text(title, READING, TASK.format(rule=rule), contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    rows = "\n".join(
        f"  {n:>5}: ({instance['coordinates'][n][0]}, {instance['coordinates'][n][1]})"
        + ("" if n == instance["depot"] else f", demand {instance['demands'][n]}")
        for n in instance["sets"]["nodes"]
    )
    grid = grid_size(instance)
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        n_customers=len(instance["sets"]["customers"]),
        number_vehicles=meta["number_vehicles"],
        vehicle_capacity=instance["vehicle_capacity"],
        rows=rows,
        total_demand=meta["total_demand"],
        cost_matrix_type=meta["cost_matrix_type"],
        rule_sentence=routing.rule_sentence(meta["cost_matrix_type"]),
        layout_type=meta["layout_type"],
        grid=grid,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rule = cost_rule(instance)
    greedy, count = greedy_cost(instance)
    rows = "\n".join(
        f"| {n} | {x} | {y} | {instance['demands'][n]} |"
        for n, (x, y) in ((n, instance["coordinates"][n]) for n in instance["sets"]["nodes"])
    )
    routes = "\n".join(
        f"  - {' → '.join(route)} (load {load}, cost {cost:g})"
        for route, load, cost in zip(
            solution["routes"], solution["route_loads"], solution["route_costs"], strict=True
        )
    )
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_customers=len(instance["sets"]["customers"]),
        vehicle_capacity=instance["vehicle_capacity"],
        number_vehicles=instance["meta_parameters"]["number_vehicles"],
        rule=rule,
        rule_sentence=routing.rule_sentence(rule),
        rows=rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        routes=routes,
        greedy=greedy,
        count=count,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    return (COLUMN_SOLVER_TEMPLATE if uses_columns(instance) else SOLVER_TEMPLATE).format(
        instance_id=record.instance_id,
        depot=instance["depot"],
        coordinates={n: tuple(instance["coordinates"][n]) for n in instance["sets"]["nodes"]},
        demands={c: instance["demands"][c] for c in instance["sets"]["customers"]},
        vehicles=len(instance["sets"]["vehicles"]),
        capacity=instance["vehicle_capacity"],
        decimals=routing.rule_decimals(cost_rule(instance)),
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    n = meta["number_customers"]
    vehicles = meta["number_vehicles"]
    tightness = meta["total_demand"] / (vehicles * instance["vehicle_capacity"])
    greedy, count = greedy_cost(instance)
    tags = [
        meta["layout_type"],
        meta["cost_matrix_type"],
        f"customers_{n}",
        f"vehicles_{vehicles}",
        f"tightness_{round(tightness * 100)}pct",
    ]
    if count > vehicles:
        tags.append("greedy_needs_too_many_vehicles")
    elif abs(greedy - float(record.reference.solution["objective_value"])) > 1e-6:
        tags.append("greedy_suboptimal")
    if max(record.reference.solution["route_loads"]) == instance["vehicle_capacity"]:
        tags.append("capacity_binding")
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={
            "variables": (n + 1) * n * vehicles,
            "constraints": 2 * n + vehicles * (n + 2),
            "customers": n,
            "vehicles": vehicles,
        },
    )
