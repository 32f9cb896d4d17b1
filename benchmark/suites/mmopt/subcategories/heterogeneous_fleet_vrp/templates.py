"""Artifacts of a heterogeneous-fleet VRP package, all derived from the verified record.

The task text fixes the distance rule and the cost of a route in words, the fleet semantics and the
output contract; coordinates, demands and the fleet's numbers stay in the figures.
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.heterogeneous_fleet_vrp.generator import (
    REGIMES,
    decimals_of,
    greedy_cost,
    grid_size,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")
# the larger tiers: Held-Karp over the subsets that fit the largest vehicle only
SOLVER_FEASIBLE_TEMPLATE = resource_text(__name__, "solver_ref_feasible.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
DECIMAL_WORDS = {0: "the nearest whole number", 1: "one decimal place", 2: "two decimal places"}
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


def task_input(record: VerifiedRecord) -> str:
    title = "Heterogeneous fleet vehicle routing problem (routing and tour optimization)"
    task = TASK.format(decimals=DECIMAL_WORDS[decimals_of(record.instance)])
    return task_text(title, READING, task, contract=CONTRACT)


def _fleet_rows(instance: dict) -> list[str]:  # type: ignore[type-arg]
    return [
        f"  {name}: {v['available_count']} available, capacity {v['capacity']}, fixed cost "
        f"{v['fixed_activation_cost']:.1f}, cost per distance unit {v['distance_multiplier']:.2f}"
        for name, v in instance["vehicle_type_parameters"].items()
    ]


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    rows = "\n".join(
        f"  {n:>5}: ({instance['coordinates'][n][0]}, {instance['coordinates'][n][1]})"
        + ("" if n == instance["depot"] else f", demand {instance['demands'][n]}")
        for n in instance["sets"]["nodes"]
    )
    fleet = "\n".join(_fleet_rows(instance))
    grid = grid_size(instance)
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        number_customers=meta["number_customers"],
        number_vehicle_types=meta["number_vehicle_types"],
        fleet=fleet,
        rows=rows,
        total_demand=meta["total_demand"],
        aggregate_capacity=meta["aggregate_capacity"],
        base_distance_type=instance["base_distance_type"],
        description=instance["base_distance_rule"]["description"],
        layout_type=meta["layout_type"],
        grid=grid,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    greedy = greedy_cost(instance)
    rows = "\n".join(
        f"| {n} | {x} | {y} | {instance['demands'][n]} |"
        for n, (x, y) in ((n, instance["coordinates"][n]) for n in instance["sets"]["nodes"])
    )
    fleet = "\n".join(
        f"| {name} | {v['available_count']} | {v['capacity']} | {v['fixed_activation_cost']:.1f} | "
        f"{v['distance_multiplier']:.2f} |"
        for name, v in instance["vehicle_type_parameters"].items()
    )
    routes = "\n".join(
        f"  - {vehicle}: {' → '.join(route)} (load {load}, base distance {base:g}, cost {cost:g})"
        for vehicle, route, load, base, cost in zip(
            solution["route_vehicle_ids"],
            solution["routes"],
            solution["route_loads"],
            solution["route_base_distances"],
            solution["route_total_costs"],
            strict=True,
        )
    )
    greedy_note = "runs out of vehicles" if greedy is None else f"costs {greedy:g}"
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_customers=len(instance["sets"]["customers"]),
        base_distance_type=instance["base_distance_type"],
        fleet=fleet,
        rows=rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        routes=routes,
        greedy_note=greedy_note,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    feasible = REGIMES[str(instance["difficulty"])].feasible_routes
    return (SOLVER_FEASIBLE_TEMPLATE if feasible else SOLVER_TEMPLATE).format(
        instance_id=record.instance_id,
        depot=instance["depot"],
        coordinates={n: tuple(instance["coordinates"][n]) for n in instance["sets"]["nodes"]},
        demands={c: instance["demands"][c] for c in instance["sets"]["customers"]},
        types={
            name: (v["available_count"], v["capacity"], v["fixed_activation_cost"], v["distance_multiplier"])
            for name, v in instance["vehicle_type_parameters"].items()
        },
        decimals=decimals_of(instance),
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    solution = record.reference.solution
    n = meta["number_customers"]
    vehicles = meta["number_available_vehicles"]
    greedy = greedy_cost(instance)
    tags = [
        meta["layout_type"],
        instance["base_distance_type"],
        f"customers_{n}",
        f"vehicle_types_{meta['number_vehicle_types']}",
        f"tightness_{round(meta['total_demand'] / meta['aggregate_capacity'] * 100)}pct",
        f"types_used_{len(set(solution['route_vehicle_types']))}",
    ]
    if greedy is None:
        tags.append("greedy_runs_out_of_vehicles")
    elif abs(greedy - float(solution["objective_value"])) > 1e-9:
        tags.append("greedy_suboptimal")
    if any(
        load == cap for load, cap in zip(solution["route_loads"], solution["route_capacities"], strict=True)
    ):
        tags.append("capacity_binding")
    used = {k: solution["route_vehicle_types"].count(k) for k in instance["vehicle_type_parameters"]}
    if any(used[k] == v["available_count"] for k, v in instance["vehicle_type_parameters"].items()):
        tags.append("availability_binding")
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={
            "variables": (n + 1) * n * vehicles + vehicles,
            "constraints": 2 * n + vehicles * (n + 3),
            "customers": n,
            "vehicles": vehicles,
        },
    )
