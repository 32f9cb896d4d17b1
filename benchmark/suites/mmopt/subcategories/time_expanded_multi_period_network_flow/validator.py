"""Scoring-time check of a returned multi-period plan: the official rules and the strict findings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.official import solution_check
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.time_expanded_multi_period_network_flow import official
from benchmark.suites.mmopt.tolerances import objective_tolerance


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Per-period flows within capacity, warehouse inventories within storage, every node balanced
    in every period, and routing plus holding cost recomputed, as :mod:`.official` reads them."""
    return solution_check(
        official, instance, solution, objective_tolerance("time_expanded_multi_period_network_flow")
    )
