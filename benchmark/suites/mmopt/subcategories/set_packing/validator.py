"""Scoring-time check of a returned packing (official key ``selected_groups``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation import decisions
from benchmark.suites.mmopt.generation.flows import reported_objective
from benchmark.suites.mmopt.generation.spatial import resolve_name
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

SELECTION_KEYS = ("selected_groups", "selected", "selected_subsets", "groups")


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Known groups, pairwise disjoint (no item in two selected groups); the total weight
    recomputed from the selection, and a reported value must equal it."""
    chosen = decisions.chosen(decisions.first_present(solution, SELECTION_KEYS))
    if chosen is None:
        return SolutionCheck(feasible=False, objective=None, problems=("no selected_groups returned",))
    subsets = instance["subsets"]
    names = list(subsets)
    picked: list[str] = []
    problems: list[str] = []
    for raw in chosen:
        name = resolve_name(raw, names)
        if name is None:
            problems.append(f"unknown group {raw!r}")
        elif name in picked:
            problems.append(f"group {name} selected twice")
        else:
            picked.append(name)
    uses = Counter(e for name in picked for e in subsets[name]["elements"])
    problems += [f"item {e} lies in {k} selected groups" for e, k in sorted(uses.items()) if k > 1]
    value = float(sum(subsets[name]["weight"] for name in picked))
    claimed = reported_objective(solution)
    if claimed is not None and abs(claimed - value) > 1e-6:
        problems.append(f"reported objective {claimed:g} != recomputed weight {value:g}")
    return SolutionCheck(feasible=not problems, objective=value, problems=tuple(problems))
