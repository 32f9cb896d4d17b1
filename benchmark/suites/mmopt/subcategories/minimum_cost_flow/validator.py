"""Scoring-time check of a returned minimum-cost flow: the official rules and the strict findings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.official import solution_check
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.minimum_cost_flow import official
from benchmark.suites.mmopt.tolerances import objective_tolerance


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Flows within capacity whose net outflow meets every node's supply, and their cost
    Σ cost·flow recomputed from them, as :mod:`.official` reads them."""
    return solution_check(official, instance, solution, objective_tolerance("minimum_cost_flow"))
