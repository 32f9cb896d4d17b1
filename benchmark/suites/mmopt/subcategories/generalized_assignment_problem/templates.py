"""Artifacts of a generalized-assignment package, all derived from the verified record.

The task text says which figure holds which table (one figure with both, or one figure each) and
the output contract; every cost, resource use and capacity is read from the tables.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.subcategories.generalized_assignment_problem.generator import (
    overloaded_by_cheapest,
)
from benchmark.suites.mmopt.subcategories.generalized_assignment_problem.renderer import split

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

WIDTH = 100
_TEXT = text_fragments(__name__, "task_text.toml")
WHERE_ONE = _TEXT["where_one"]
WHERE_TWO = _TEXT["where_two"]
READING = _TEXT["reading"]
TASK = _TEXT["task"]
CONTRACT = _TEXT["contract"]


def task_input(record: VerifiedRecord) -> str:
    instance = record.instance
    where = WHERE_TWO if split(instance) else WHERE_ONE
    paragraphs = [
        "Generalized assignment (location, covering and assignment)",
        textwrap.fill(f"{where} {READING}", WIDTH),
        textwrap.fill(TASK, WIDTH),
        CONTRACT,
    ]
    return "\n\n".join(paragraphs)


def _matrix(instance: Mapping[str, Any], field: str) -> str:
    header = "        " + " ".join(f"{j:>4}" for j in instance["sets"]["tasks"])
    rows = [
        f"  {a:>4}  " + " ".join(f"{instance[field][a][j]:>4}" for j in instance["sets"]["tasks"])
        for a in instance["sets"]["agents"]
    ]
    return "\n".join([header, *rows])


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    capacities = ", ".join(f"{a} {instance['agent_capacities'][a]}" for a in instance["sets"]["agents"])
    figures = "visual_0.png (costs) and visual_1.png (resources)" if split(instance) else "visual_0.png"
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        n_agents=len(instance["sets"]["agents"]),
        agents_joined=", ".join(instance["sets"]["agents"]),
        n_tasks=len(instance["sets"]["tasks"]),
        tasks_joined=", ".join(instance["sets"]["tasks"]),
        capacities=capacities,
        cost_matrix=_matrix(instance, "cost_matrix"),
        resource_matrix=_matrix(instance, "resource_matrix"),
        figures=figures,
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rows = "\n".join(
        f"| {a} | {j} | {instance['cost_matrix'][a][j]} | {instance['resource_matrix'][a][j]} |"
        for a in instance["sets"]["agents"]
        for j in instance["sets"]["tasks"]
    )
    capacities = "\n".join(f"| {a} | {instance['agent_capacities'][a]} |" for a in instance["sets"]["agents"])
    load = {a: 0 for a in instance["sets"]["agents"]}
    for job, agent in solution["assignments"].items():
        load[agent] += instance["resource_matrix"][agent][job]
    loads = ", ".join(f"{a} {load[a]}/{instance['agent_capacities'][a]}" for a in instance["sets"]["agents"])
    pairs = ", ".join(f"{j}→{a}" for j, a in solution["assignments"].items())
    overloaded = ", ".join(overloaded_by_cheapest(instance))
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        n_agents=len(instance["sets"]["agents"]),
        n_tasks=len(instance["sets"]["tasks"]),
        capacities=capacities,
        rows=rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        pairs=pairs,
        loads=loads,
        overloaded=overloaded,
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    agents, jobs = instance["sets"]["agents"], instance["sets"]["tasks"]

    def rows(field: str) -> str:
        return "\n".join(f"    {[instance[field][a][j] for j in jobs]!r},  # {a}" for a in agents)

    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        agents=list(agents),
        jobs=list(jobs),
        capacity=[instance["agent_capacities"][a] for a in agents],
        cost=rows("cost_matrix"),
        resource=rows("resource_matrix"),
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    agents, jobs = len(instance["sets"]["agents"]), len(instance["sets"]["tasks"])
    tags = [
        "type_d_correlation",
        "binding_capacity",
        "two_figures" if split(instance) else "one_figure",
        f"agents_{agents}",
        f"jobs_{jobs}",
    ]
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={
            "variables": agents * jobs,
            "constraints": agents + jobs,
            "nonzeros": 2 * agents * jobs,
            "agents": agents,
            "jobs": jobs,
        },
    )
