"""Scoring-time check of a returned facility-location plan: the official rules and the strict
findings."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.spatial import round_objective
from benchmark.suites.mmopt.official import solution_check
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.facility_location import official
from benchmark.suites.mmopt.tolerances import objective_tolerance

TOLERANCE = objective_tolerance("facility_location")  # the official release's floor


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Every customer assigned to an open facility listed among its ``feasible_assignments``, each
    facility's assigned demand within its capacity (when it has one), a structural extension's
    budget respected, and a reported objective within 1e-3 of the plan's cost, as :mod:`.official`
    reads them. The cost (opening costs + demand × per-unit assignment cost) is stated rounded to
    four decimals, as the reference states it."""
    check = solution_check(official, instance, solution, tolerance=TOLERANCE)
    if check.objective is None:
        return check
    return dataclasses.replace(check, objective=round_objective(check.objective))
