"""Scoring-time check of a returned subset selection."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.flows import close, fmt, reported_objective
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

SELECTION_KEYS = ("selected", "selected_subsets", "chosen_subsets", "subsets")


def _chosen_names(raw: Any) -> list[Any] | None:
    """A list of names, or the names whose value is truthy in a ``{name: 0/1}`` dict."""
    if isinstance(raw, Mapping):
        picked = []
        for name, value in raw.items():
            if isinstance(value, bool | int | float):
                if float(value) > 0.5:
                    picked.append(name)
            else:
                return None
        return picked
    if isinstance(raw, list | tuple | set):
        return list(raw)
    return None


def resolve_name(raw: Any, names: Mapping[str, str], prefix: str) -> str | None:
    """The instance name a returned label means: the name itself (any case, spaces trimmed) or the
    bare number of a drawn name (``3`` or ``"3"`` for ``"S3"``)."""
    if isinstance(raw, bool):
        return None
    text = str(raw).strip()
    if isinstance(raw, int) or text.isdigit():
        text = f"{prefix}{int(text)}"
    return names.get(text.lower())


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Every element covered at least once (covering) or exactly once (partitioning), only known
    subsets selected, and the cost Σ cost of the selected subsets recomputed from the selection."""
    raw = next((solution[key] for key in SELECTION_KEYS if key in solution), None)
    if raw is None:
        return SolutionCheck(feasible=False, objective=None, problems=("no selected subsets returned",))
    names = _chosen_names(raw)
    if names is None:
        return SolutionCheck(
            feasible=False, objective=None, problems=("selected is neither a list of names nor a 0/1 dict",)
        )
    subsets = {s["id"]: s for s in instance["subsets"]}
    lookup = {name.lower(): name for name in subsets}
    problems: list[str] = []
    chosen: set[str] = set()
    for item in names:
        name = resolve_name(item, lookup, "S")
        if name is None:
            problems.append(f"unknown subset {item!r}")
        else:
            chosen.add(name)
    partition = instance["variant"] == "partitioning"
    for element in instance["elements"]:
        times = sum(element in subsets[name]["elements"] for name in chosen)
        if times == 0:
            problems.append(f"element {element} is not covered")
        elif partition and times > 1:
            problems.append(f"element {element} is covered {times} times, partitioning needs exactly once")
    total = float(sum(subsets[name]["cost"] for name in chosen))
    reported = reported_objective(solution)
    if reported is not None and not close(reported, total):
        problems.append(f"reported objective {fmt(reported)} != recomputed cost {fmt(total)}")
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))
