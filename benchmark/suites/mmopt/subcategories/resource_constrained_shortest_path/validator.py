"""Scoring-time check of a returned resource-constrained path: the official rules and the strict
findings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.official import solution_check
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.resource_constrained_shortest_path import official
from benchmark.suites.mmopt.tolerances import objective_tolerance


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """One source-sink path within every resource bound, its cost recomputed from the arcs, as
    :mod:`.official` reads them."""
    return solution_check(
        official, instance, solution, objective_tolerance("resource_constrained_shortest_path")
    )
