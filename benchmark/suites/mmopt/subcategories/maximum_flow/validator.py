"""Scoring-time check of a returned maximum flow: the official rules and the strict findings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.official import solution_check
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.maximum_flow import official
from benchmark.suites.mmopt.tolerances import objective_tolerance


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Flows within capacity that balance at every inner node, a flow value (every alias present
    agreeing) and a cut of the same capacity that separates source from sink, as
    :mod:`.official` reads them."""
    return solution_check(official, instance, solution, objective_tolerance("maximum_flow"))
