"""Scoring-time check of a returned generalized assignment: the official rules and the strict
findings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.official import solution_check
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.generalized_assignment_problem import official
from benchmark.suites.mmopt.tolerances import objective_tolerance


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Every task on a feasible agent, agent loads within capacity, and the summed cost recomputed,
    as :mod:`.official` reads them."""
    return solution_check(official, instance, solution, objective_tolerance("generalized_assignment_problem"))
