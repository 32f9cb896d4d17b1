"""Scoring-time check of a returned job → agent assignment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.flows import close, fmt, reported_objective
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.bipartite_assignment.validator import read_assignment


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Every job goes to exactly one known agent, no agent uses more than its capacity, and the
    total cost is recomputed from the assignment."""
    mapping, problems = read_assignment(
        solution, instance["jobs"], instance["agents"], "J", "A", ("job", "agent")
    )
    load = dict.fromkeys(instance["agents"], 0)
    total = 0.0
    for job, agent in mapping.items():
        load[agent] += instance["resource_use"][agent][job]
        total += instance["cost"][agent][job]
    for agent, used in load.items():
        if used > instance["capacity"][agent]:
            problems.append(f"agent {agent} uses {used}, above its capacity {instance['capacity'][agent]}")
    reported = reported_objective(solution)
    if reported is not None and not close(reported, total):
        problems.append(f"reported objective {fmt(reported)} != recomputed cost {fmt(total)}")
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))
