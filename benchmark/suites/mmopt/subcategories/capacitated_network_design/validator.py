"""Scoring-time check of a returned network design: the official rules and the strict findings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.official import solution_check
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.capacitated_network_design import official
from benchmark.suites.mmopt.tolerances import objective_tolerance


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Flows within capacity on installed arcs that meet every node balance, and the total fixed
    plus variable cost recomputed from them, as :mod:`.official` reads them."""
    return solution_check(official, instance, solution, objective_tolerance("capacitated_network_design"))
