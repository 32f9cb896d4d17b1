"""Artifacts of a generalized-assignment package, all derived from the verified record.

The task text says which figure holds which table (one figure with both, or one figure each) and
the output contract; every cost, resource use and capacity is read from the tables.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.subcategories.generalized_assignment_problem.generator import (
    overloaded_by_cheapest,
)
from benchmark.suites.mmopt.subcategories.generalized_assignment_problem.renderer import split

WIDTH = 100
WHERE_ONE = "The figure visual_0.png holds two tables, the cost table on top and the resource table below it."
WHERE_TWO = "The figure visual_0.png holds the cost table and the figure visual_1.png the resource table."
READING = (
    "In both tables each row is an agent (bold name A followed by a number at the left) and each "
    "column is a job (bold name J followed by a number in the header row). A cell of the cost table is "
    "the cost of assigning the job of that column to the agent of that row. A cell of the resource "
    "table is how much of that agent's capacity the job uses if it is assigned to that agent; the "
    'number in the "capacity" column of the resource table is the agent\'s capacity.'
)
TASK = (
    "Task: assign every job to exactly one agent so that, for every agent, the total resource used by "
    "the jobs assigned to it does not exceed its capacity, at the least total cost (the sum of the costs "
    "of the chosen job-agent pairs). An agent may take any number of jobs, or none. All agents, jobs, "
    "costs, resource uses and capacities must be read from the figures."
)
CONTRACT = """\
Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the minimum total cost, as a number;
- "assignments": a dict mapping each job name to the name of the agent it is assigned to, written
  as in the figures (for example {"J1": "A2", ...}).
"""


def task_input(instance: Mapping[str, Any]) -> str:
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
    return (
        f"Instance {record.instance_id} - generalized assignment ({record.difficulty})\n\n"
        "Problem\n"
        "  Assign every job to exactly one agent at least total cost; the resource the jobs of an\n"
        "  agent use may not exceed the agent's capacity.\n\n"
        f"Agents ({len(instance['sets']['agents'])}): {', '.join(instance['sets']['agents'])}\n"
        f"Jobs ({len(instance['sets']['tasks'])}): {', '.join(instance['sets']['tasks'])}\n"
        f"Capacities: {capacities}\n\n"
        f"Cost (rows agents, columns jobs):\n{_matrix(instance, 'cost_matrix')}\n\n"
        f"Resource use (rows agents, columns jobs):\n{_matrix(instance, 'resource_matrix')}\n\n"
        "Objective\n  minimize the sum of the costs of the chosen job-agent pairs.\n\n"
        "Visual interpretation\n"
        f"  {figures}: an agent x job cost table and an agent x job resource table whose first column\n"
        "  (behind a heavy rule) is the agent's capacity. Heavier grid lines every five columns only help\n"
        "  counting.\n\n"
        "Output contract\n  solve() returns status, objective_value and assignments {job: agent}.\n"
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
    return f"""# Generalized assignment — {record.instance_id}

## Sets
- $A$: agents ({len(instance["sets"]["agents"])}), $J$: jobs ({len(instance["sets"]["tasks"])})

## Parameters
- $c_{{aj}}$: cost of assigning job $j$ to agent $a$
- $r_{{aj}}$: resource job $j$ uses on agent $a$
- $b_a$: capacity of agent $a$

## Decision variables
- $x_{{aj}} \\in \\{{0, 1\\}}$: 1 if job $j$ is assigned to agent $a$

## Objective
$$\\min \\; \\sum_{{a \\in A}} \\sum_{{j \\in J}} c_{{aj}} x_{{aj}}$$

## Constraints
- Each job once: $\\sum_{{a \\in A}} x_{{aj}} = 1$ for all $j \\in J$
- Capacity: $\\sum_{{j \\in J}} r_{{aj}} x_{{aj}} \\le b_a$ for all $a \\in A$

## Instance data

| agent | capacity |
|---|---:|
{capacities}

| agent | job | cost | resource |
|---|---|---:|---:|
{rows}

## Instance notes
- Verified minimum cost: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Reference assignment: {pairs}; agent loads {loads}. Optimal assignments need not be unique; the
  minimum cost is.
- Capacities bind: giving every job to its cheapest agent overloads {overloaded}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (generalized assignment), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.sat.python import cp_model

AGENTS = {agents!r}
JOBS = {jobs!r}
CAPACITY = {capacity!r}
COST = [  # one row per agent, one column per job
{cost}
]
RESOURCE = [  # one row per agent, one column per job
{resource}
]


def solve() -> dict:
    model = cp_model.CpModel()
    x = [[model.new_bool_var(f"x_{{a}}_{{j}}") for j in range(len(JOBS))] for a in range(len(AGENTS))]
    for j in range(len(JOBS)):
        model.add_exactly_one(x[a][j] for a in range(len(AGENTS)))
    for a in range(len(AGENTS)):
        model.add(sum(RESOURCE[a][j] * x[a][j] for j in range(len(JOBS))) <= CAPACITY[a])
    model.minimize(sum(COST[a][j] * x[a][j] for a in range(len(AGENTS)) for j in range(len(JOBS))))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60.0
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        failed = "infeasible" if status == cp_model.INFEASIBLE else "error"
        return {{"status": failed, "objective_value": None}}
    assignment = {{}}
    total = 0
    for j, job in enumerate(JOBS):
        a = next(a for a in range(len(AGENTS)) if solver.boolean_value(x[a][j]))
        assignment[job] = AGENTS[a]
        total += COST[a][j]
    return {{
        "status": "optimal",
        "objective_value": total,
        "objective_exact": total,
        "assignments": assignment,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


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


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    agents, jobs = len(instance["sets"]["agents"]), len(instance["sets"]["tasks"])
    tags = [
        "type_d_correlation",
        "binding_capacity",
        "two_figures" if split(instance) else "one_figure",
        f"agents_{agents}",
        f"jobs_{jobs}",
    ]
    return DerivedArtifacts(
        task_input=task_input(instance),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": agents * jobs,
            "constraints": agents + jobs,
            "nonzeros": 2 * agents * jobs,
            "agents": agents,
            "jobs": jobs,
        },
    )
