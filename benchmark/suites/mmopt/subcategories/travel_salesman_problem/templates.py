"""Artifacts of a TSP package, all derived from the verified record.

The task text fixes the cost rule in words and the output contract; cities and coordinates stay in
the figures.
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation import routing
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.travel_salesman_problem.generator import (
    cost_rule,
    grid_size,
    heuristic_costs,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = output_contract(_TEXT["contract"])


def task_input(record: VerifiedRecord) -> str:
    instance = record.instance
    root = instance["root_city"]
    task = TASK.format(root=root, rule=routing.rule_sentence(cost_rule(instance)))
    title = "Travelling salesman problem (routing and tour optimization)"
    return task_text(title, READING.format(root=root), task, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    names = instance["sets"]["nodes"]
    coordinates = "\n".join(
        f"  {n}: ({instance['coordinates'][n][0]}, {instance['coordinates'][n][1]})" for n in names
    )
    grid = grid_size(instance)
    meta = instance["meta_parameters"]
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        root_city=instance["root_city"],
        n_names=len(names),
        coordinates=coordinates,
        cost_matrix_type=meta["cost_matrix_type"],
        rule_sentence=routing.rule_sentence(meta["cost_matrix_type"]),
        layout_type=meta["layout_type"],
        cluster_count=meta["cluster_count"],
        grid=grid,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rule = cost_rule(instance)
    greedy, improved = heuristic_costs(instance)
    rows = "\n".join(
        f"| {n} | {instance['coordinates'][n][0]} | {instance['coordinates'][n][1]} |"
        for n in instance["sets"]["nodes"]
    )
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_nodes=len(instance["sets"]["nodes"]),
        root_city=instance["root_city"],
        rule=rule,
        rule_sentence=routing.rule_sentence(rule),
        rows=rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        tour_joined=" → ".join(solution["tour"]),
        greedy=greedy,
        improved=improved,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    coordinates = {n: tuple(instance["coordinates"][n]) for n in instance["sets"]["nodes"]}
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        root=instance["root_city"],
        coordinates=coordinates,
        decimals=routing.rule_decimals(cost_rule(instance)),
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    n = len(instance["sets"]["nodes"])
    greedy, improved = heuristic_costs(instance)
    optimum = float(record.reference.solution["objective_value"])
    tags = [meta["layout_type"], meta["cost_matrix_type"], f"cities_{n}", f"clusters_{meta['cluster_count']}"]
    if abs(greedy - optimum) > 1e-6:
        tags.append("nearest_neighbour_suboptimal")
    if abs(improved - optimum) > 1e-6:
        tags.append("two_opt_suboptimal")
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={
            "variables": n * (n - 1) // 2,
            "constraints": n,
            "nonzeros": n * (n - 1),
            "cities": n,
        },
    )
