"""Scoring-time check of a returned worker → task assignment.

:func:`read_assignment` is shared with the generalized assignment validator: both read a mapping
from the names of one side to the names of the other, written in whichever shape a model chose.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.suites.mmopt.generation.flows import close, fmt, reported_objective
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

ASSIGNMENT_KEYS = ("assignment", "assignments", "matching")


def resolve_name(raw: Any, names: Mapping[str, str], prefix: str) -> str | None:
    """The instance name a returned label means: the name itself (any case, spaces trimmed) or the
    bare number of a drawn name (``3`` or ``"3"`` for ``"W3"``)."""
    if isinstance(raw, bool):
        return None
    text = str(raw).strip()
    if isinstance(raw, int) or text.isdigit():
        text = f"{prefix}{int(text)}"
    return names.get(text.lower())


def _pairs(raw: Any) -> list[tuple[Any, Any]] | None:
    """``{left: right}``, ``[[left, right], …]`` or ``[{"worker"/"job": …, "task"/"agent": …}, …]``."""
    if isinstance(raw, Mapping):
        return list(raw.items())
    if isinstance(raw, list | tuple):
        pairs = []
        for item in raw:
            if isinstance(item, list | tuple) and len(item) == 2:
                pairs.append((item[0], item[1]))
            elif isinstance(item, Mapping) and len(item) == 2:
                pairs.append(tuple(item.values()))  # type: ignore[arg-type]
            else:
                return None
        return pairs
    return None


def read_assignment(
    solution: Mapping[str, Any],
    left: Sequence[str],
    right: Sequence[str],
    left_prefix: str,
    right_prefix: str,
    what: tuple[str, str],
) -> tuple[dict[str, str], list[str]]:
    """(left name → right name, problems). Names may be written as drawn (any case) or as the bare
    number of the drawn name; a left name listed twice, or an unknown name, is a problem."""
    raw = next((solution[key] for key in ASSIGNMENT_KEYS if key in solution), None)
    if raw is None:
        return {}, ["no assignment returned"]
    pairs = _pairs(raw)
    if pairs is None:
        return {}, ["assignment is neither a dict nor a list of pairs"]
    left_lookup = {name.lower(): name for name in left}
    right_lookup = {name.lower(): name for name in right}
    mapping: dict[str, str] = {}
    problems: list[str] = []
    for raw_left, raw_right in pairs:
        name = resolve_name(raw_left, left_lookup, left_prefix)
        target = resolve_name(raw_right, right_lookup, right_prefix)
        if name is None:
            problems.append(f"unknown {what[0]} {raw_left!r}")
        elif target is None:
            problems.append(f"{what[0]} {name}: unknown {what[1]} {raw_right!r}")
        elif name in mapping:
            problems.append(f"{what[0]} {name} is assigned twice")
        else:
            mapping[name] = target
    problems += [f"{what[0]} {name} is not assigned" for name in left if name not in mapping]
    return mapping, problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Every worker gets exactly one task, no task gets two workers, only compatible pairs are
    used, and the total cost (or value) is recomputed from the pairs."""
    weights = instance["weights"]
    mapping, problems = read_assignment(
        solution, instance["workers"], instance["tasks"], "W", "T", ("worker", "task")
    )
    holders: dict[str, str] = {}
    total = 0.0
    for worker, task in mapping.items():
        if task in holders:
            problems.append(f"task {task} is given to both {holders[task]} and {worker}")
        holders.setdefault(task, worker)
        if task not in weights[worker]:
            problems.append(f"worker {worker} may not do task {task} (forbidden pair)")
        else:
            total += weights[worker][task]
    reported = reported_objective(solution)
    if reported is not None and not close(reported, total):
        problems.append(
            f"reported objective {fmt(reported)} != recomputed {instance['measure']} {fmt(total)}"
        )
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))
