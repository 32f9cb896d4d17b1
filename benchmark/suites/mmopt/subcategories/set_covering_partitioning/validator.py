"""Scoring-time check of a returned subset selection: the official rules and the strict findings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.official import solution_check
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.set_covering_partitioning import official
from benchmark.suites.mmopt.tolerances import objective_tolerance


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Every element covered (exactly once when partitioning) by known subsets, and the summed
    cost recomputed, as :mod:`.official` reads them."""
    return solution_check(official, instance, solution, objective_tolerance("set_covering_partitioning"))
