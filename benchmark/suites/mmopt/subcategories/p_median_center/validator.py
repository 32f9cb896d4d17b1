"""Scoring-time check of a returned p-median or p-center selection: the official rules (exactly p
sites open, every demand point assigned to an open site, the variant's objective recomputed from the
distance matrix), as :mod:`.official` reads them, within the official tolerance of 1e-3.

The recomputed objective is rounded to four decimals, as the task text states and the reference
reports it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from benchmark.suites.mmopt.generation.spatial import round_objective
from benchmark.suites.mmopt.official import solution_check
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.p_median_center import official
from benchmark.suites.mmopt.tolerances import objective_tolerance

TOLERANCE = objective_tolerance("p_median_center")  # the official release's floor


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    check = solution_check(official, instance, solution, TOLERANCE)
    if check.objective is None:
        return check
    return replace(check, objective=round_objective(check.objective))
