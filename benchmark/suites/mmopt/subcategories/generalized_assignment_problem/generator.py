"""Generalized assignment instances (location/covering/assignment family).

Every job goes to exactly one agent; giving job j to agent a costs c[a][j] and uses r[a][j] of the
agent's capacity. Resource uses and costs are inversely correlated (Martello–Toth "type D"): the
agent that does a job cheaply uses more of its capacity, so cost and capacity pull against each
other. Capacities are a fixed share of each agent's total use divided by the number of agents, and
the verified optimum must show that they bind: giving every job to its cheapest agent overloads
some agent, and the optimum uses at least two agents.

Medium and hard instances have, like the release's, many agents and few jobs per agent (about 1.5
to 2), where that share falls below an agent's largest resource use; there an agent's capacity is
raised to its largest use, so every job fits every agent alone and the capacities decide which
jobs can share an agent.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

SOLVE_LIMIT_S = 30.0


@dataclass(frozen=True)
class Regime:
    """Agent and job counts (inclusive), resource-use range, cost model and capacity tightness."""

    agents: tuple[int, int]
    jobs: tuple[int, int]
    use: tuple[int, int]
    cost_base: int  # cost = cost_base - use + noise: cheap assignments are the resource-hungry ones
    noise: tuple[int, int]
    tightness: tuple[float, float]  # capacity = tightness × (agent's total use) / agents
    fit_largest_use: bool = False  # raise a capacity below the agent's largest use to that use


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        agents=(3, 3), jobs=(7, 8), use=(3, 15), cost_base=22, noise=(-3, 8), tightness=(0.85, 0.95)
    ),
    "medium": Regime(
        agents=(6, 8),
        jobs=(12, 16),
        use=(3, 18),
        cost_base=26,
        noise=(-4, 10),
        tightness=(0.8, 0.9),
        fit_largest_use=True,
    ),
    "hard": Regime(
        agents=(11, 15),
        jobs=(18, 22),
        use=(3, 20),
        cost_base=30,
        noise=(-5, 12),
        tightness=(0.75, 0.85),
        fit_largest_use=True,
    ),
}


@dataclass(frozen=True)
class Structure:
    agents: tuple[str, ...]
    jobs: tuple[str, ...]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    agents = tuple(f"A{i}" for i in range(1, rng.randint(*regime.agents) + 1))
    jobs = tuple(f"J{j}" for j in range(1, rng.randint(*regime.jobs) + 1))
    return Structure(agents=agents, jobs=jobs)


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    use: dict[str, dict[str, int]] = {}
    cost: dict[str, dict[str, int]] = {}
    capacity: dict[str, int] = {}
    tightness = rng.uniform(*regime.tightness)
    for agent in structure.agents:
        use[agent] = {job: rng.randint(*regime.use) for job in structure.jobs}
        cost[agent] = {
            job: max(1, regime.cost_base - use[agent][job] + rng.randint(*regime.noise))
            for job in structure.jobs
        }
        capacity[agent] = int(tightness * sum(use[agent].values()) / len(structure.agents))
        if regime.fit_largest_use:
            capacity[agent] = max(capacity[agent], max(use[agent].values()))
    everyone = list(structure.agents)
    return {  # the official schema; every agent may take every task
        "variant_type": "generalized_assignment_problem",
        "sets": {"agents": everyone, "tasks": list(structure.jobs)},
        "agent_capacities": capacity,
        "feasible_assignments": {agent: list(structure.jobs) for agent in structure.agents},
        "task_feasible_agents": {job: everyone for job in structure.jobs},
        "cost_matrix": cost,
        "resource_matrix": use,
    }


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    agents, jobs = instance["sets"]["agents"], instance["sets"]["tasks"]
    problems = []
    if (
        not regime.agents[0] <= len(agents) <= regime.agents[1]
        or not regime.jobs[0] <= len(jobs) <= regime.jobs[1]
    ):
        problems.append("structure: agent or job count outside the regime")
    for agent in agents:
        if max(instance["resource_matrix"][agent].values()) > instance["agent_capacities"][agent]:
            problems.append("structure: a single job exceeds an agent's capacity")
            break
    total_capacity = sum(instance["agent_capacities"].values())
    if sum(min(instance["resource_matrix"][a][j] for a in agents) for j in jobs) > total_capacity:
        problems.append("structure: total capacity is below the least total resource use")
    return problems


def _arrays(instance: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Costs, resource uses, capacities, and which (agent, task) pairs are allowed: the release
    writes ``null`` cost and use for a pair outside ``feasible_assignments``."""
    agents, jobs = instance["sets"]["agents"], instance["sets"]["tasks"]

    def table(key: str) -> list[list[Any]]:
        return [[instance[key][a][j] for j in jobs] for a in agents]

    costs, uses = table("cost_matrix"), table("resource_matrix")
    allowed = np.array(
        [
            [c is not None and u is not None for c, u in zip(*rows, strict=True)]
            for rows in zip(costs, uses, strict=True)
        ]
    )
    cost = np.array([[c or 0 for c in row] for row in costs], dtype=int)
    use = np.array([[u or 0 for u in row] for row in uses], dtype=int)
    capacity = np.array([instance["agent_capacities"][a] for a in agents], dtype=int)
    return cost, use, capacity, allowed


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """CP-SAT on the 0/1 model, one worker and a fixed seed so the returned optimum is reproducible."""
    agents, jobs = instance["sets"]["agents"], instance["sets"]["tasks"]
    cost, use, capacity, allowed = _arrays(instance)
    model = cp_model.CpModel()
    x = [[model.new_bool_var(f"{a}_{j}") for j in jobs] for a in agents]
    for a, j in zip(*np.nonzero(~allowed), strict=True):
        model.add(x[a][j] == 0)
    for j in range(len(jobs)):
        model.add_exactly_one(x[a][j] for a in range(len(agents)))
    for a in range(len(agents)):
        model.add(sum(int(use[a, j]) * x[a][j] for j in range(len(jobs))) <= int(capacity[a]))
    model.minimize(sum(int(cost[a, j]) * x[a][j] for a in range(len(agents)) for j in range(len(jobs))))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        raise Rejected("structure: capacities admit no assignment")
    if status != cp_model.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", solver.status_name(status))
    assignment = {
        job: agents[next(a for a in range(len(agents)) if solver.boolean_value(x[a][j]))]
        for j, job in enumerate(jobs)
    }
    total = int(sum(instance["cost_matrix"][agent][job] for job, agent in assignment.items()))
    solution = {
        "status": "optimal",
        "objective_value": total,
        "objective_exact": total,
        "assignments": assignment,
        "agent_loads": {
            a: sum(int(use[k, j]) for j, job in enumerate(jobs) if assignment[job] == a)
            for k, a in enumerate(agents)
        },
    }
    return ReferenceSolution(solution=solution, method="ortools.sat CP-SAT (0/1 model, proven optimal)")


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """The same 0/1 program solved by HiGHS branch and bound through SciPy (variables agent-major)."""
    cost, use, capacity, allowed = _arrays(instance)
    agents, jobs = cost.shape
    each_job_once = np.zeros((jobs, agents * jobs))
    within_capacity = np.zeros((agents, agents * jobs))
    for a in range(agents):
        for j in range(jobs):
            each_job_once[j, a * jobs + j] = 1.0
            within_capacity[a, a * jobs + j] = use[a, j]
    result = milp(
        c=cost.ravel().astype(float),
        constraints=[
            LinearConstraint(each_job_once, lb=1.0, ub=1.0),
            LinearConstraint(within_capacity, lb=-np.inf, ub=capacity.astype(float)),
        ],
        integrality=np.ones(agents * jobs),
        bounds=Bounds(0.0, allowed.ravel().astype(float)),
    )
    if result.status != 0:
        raise Rejected("cross-check: MILP did not solve", str(result.message))
    return "scipy.optimize.milp (HiGHS branch and bound)", round(float(result.fun), 6)


def overloaded_by_cheapest(instance: Mapping[str, Any]) -> list[str]:
    """Agents whose capacity the cheapest-agent-per-job choice exceeds (ties to the lower agent)."""
    cost, use, capacity, allowed = _arrays(instance)
    cheapest = np.argmin(np.where(allowed, cost, np.iinfo(cost.dtype).max), axis=0)
    load = np.zeros(len(capacity), dtype=int)
    for j, a in enumerate(cheapest):
        load[a] += use[a, j]
    return [instance["sets"]["agents"][a] for a in range(len(capacity)) if load[a] > capacity[a]]


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    if not overloaded_by_cheapest(instance):
        return ["nontrivial: the cheapest agent per job already respects every capacity"]
    if len(set(reference.solution["assignments"].values())) < 2:
        return ["nontrivial: one agent takes every job"]
    return []
