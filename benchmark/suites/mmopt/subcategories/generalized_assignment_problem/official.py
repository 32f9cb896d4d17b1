"""Generalized assignment under the official rules.

Official instance: ``sets.agents``/``sets.tasks``, ``agent_capacities``, ``task_feasible_agents:
{task: [agents]}``, ``cost_matrix`` and ``resource_matrix`` keyed agent → task (``null`` for a
forbidden pair). The answer maps tasks to agents (or agents to task lists); every task goes to a
feasible agent, agent loads stay within capacity; the objective is the summed cost.

Strict additions: an assignment entry naming a task that is not in the instance is an error (the
official scorer reads only the instance's tasks and ignores it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt import official_answers as read
from benchmark.suites.mmopt.official import infeasible, make_check
from benchmark.suites.mmopt.subcategories.base import OfficialCheck

REFERENCE_KEYS: tuple[str, ...] = ("objective_exact", "objective_value")
OBJECTIVE_KEYS: tuple[str, ...] = (
    "objective_exact",
    "objective",
    "objective_value",
    "total_cost",
    "total_value",
)
OPTIONAL_KEYS: frozenset[str] = frozenset({"agents", "tasks"})


def reads(instance: Mapping[str, Any]) -> bool:
    return isinstance(instance.get("resource_matrix"), Mapping) and "agent_capacities" in instance


def check(output: Any, instance: Mapping[str, Any], tolerance: float) -> OfficialCheck:
    answer = read.payload(output)
    if answer is None:
        return infeasible("the returned value is not a dict")
    agents = [str(x) for x in read.named_list(instance, "agents")] or [
        str(k) for k in instance.get("agent_capacities") or {}
    ]
    tasks = [str(x) for x in read.named_list(instance, "tasks")] or [
        str(k) for k in instance.get("task_feasible_agents") or {}
    ]
    pairs = read.assignment(answer, tasks, agents)
    capacities = instance.get("agent_capacities") or {}
    allowed_agents = instance.get("task_feasible_agents") or {}
    costs = instance.get("cost_matrix") or {}
    resources = instance.get("resource_matrix") or {}
    problems: list[str] = []
    load = dict.fromkeys(agents, 0.0)
    computed = 0.0
    for task in tasks:
        agent = pairs.get(task)
        if agent is None:
            problems.append(f"task {task} is not assigned")
            continue
        allowed = allowed_agents.get(task)
        if isinstance(allowed, list) and agent not in [str(x) for x in allowed]:
            problems.append(f"task {task} may not go to agent {agent}")
        cost_row, use_row = costs.get(agent), resources.get(agent)
        if not isinstance(cost_row, Mapping) or not isinstance(use_row, Mapping):
            problems.append(f"no cost or resource row for agent {agent}")
            continue
        cost, use = read.number(cost_row.get(task)), read.number(use_row.get(task))
        if cost is None or use is None:
            problems.append(f"no cost or resource use for {task} -> {agent}")
            continue
        computed += cost
        load[agent] = load.get(agent, 0.0) + use
    for agent in agents:
        capacity = read.number(capacities.get(agent)) if isinstance(capacities, Mapping) else None
        if capacity is not None and load.get(agent, 0.0) - capacity > tolerance:
            problems.append(f"agent {agent}: load {load[agent]:g} exceeds capacity {capacity:g}")
    reported = read.reported_objective(answer, OBJECTIVE_KEYS)
    if reported is not None and abs(reported - computed) > tolerance:
        problems.append(f"reported objective {reported:g} but the assignment costs {computed:g}")
    strict = [
        f"the assignment names task {task}, which is not in the instance"
        for task in pairs
        if task not in tasks
    ]
    return make_check(problems, reported, computed, strict)
