"""Scoring-time check of a returned knapsack selection (official key ``selected_items``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.flows import reported_objective
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

SELECTION_KEYS = ("selected_items", "selected", "items", "chosen_items")


def read_selection(solution: Mapping[str, Any], items: list[int]) -> tuple[list[int] | None, list[str]]:
    """Item numbers from a list (ints or their strings, ``"item 3"`` too) or from the official
    ``decision_variables`` dict ``{"x_3": 1}``."""
    raw = next((solution[key] for key in SELECTION_KEYS if key in solution), None)
    if raw is None and isinstance(solution.get("decision_variables"), Mapping):
        raw = [key for key, value in solution["decision_variables"].items() if _truthy(value)]
    if raw is None:
        return None, ["no selected_items returned"]
    if isinstance(raw, Mapping):
        raw = [key for key, value in raw.items() if _truthy(value)]
    if not isinstance(raw, list | tuple):
        return None, ["selected_items is not a list"]
    chosen, problems = [], []
    for entry in raw:
        digits = "".join(ch for ch in str(entry) if ch.isdigit()) if not isinstance(entry, bool) else ""
        number = int(digits) if digits else None
        if number not in items:
            problems.append(f"unknown item {entry!r}")
        elif number in chosen:
            problems.append(f"item {number} selected twice")
        else:
            chosen.append(number)
    return chosen, problems


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, int | float) and not isinstance(value, bool) and value > 0.5)


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Known items, each at most once, every resource's total use within its capacity; the value
    recomputed from the selection, and a reported value must equal it."""
    items = list(instance["sets"]["items"])
    chosen, problems = read_selection(solution, items)
    if chosen is None:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    for r, (name, capacity) in enumerate(
        zip(instance["sets"]["resources"], instance["capacities"], strict=True)
    ):
        used = sum(instance["weights"][i - 1][r] for i in chosen)
        if used > capacity:
            problems.append(f"resource {name}: use {used} exceeds capacity {capacity}")
    value = float(sum(instance["values"][i - 1] for i in chosen))
    claimed = reported_objective(solution)
    if claimed is not None and abs(claimed - value) > 1e-6:
        problems.append(f"reported objective {claimed:g} != recomputed value {value:g}")
    return SolutionCheck(feasible=not problems, objective=value, problems=tuple(problems))
