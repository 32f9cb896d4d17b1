"""Scoring-time check of a returned worker → task assignment: the official rules (every node of
the required side assigned, both sides when they are equal; a task at most once; only feasible
pairs; the summed weight recomputed), as :mod:`.official` reads them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.official import solution_check
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.bipartite_assignment import official
from benchmark.suites.mmopt.tolerances import objective_tolerance


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    return solution_check(official, instance, solution, objective_tolerance("bipartite_assignment"))
