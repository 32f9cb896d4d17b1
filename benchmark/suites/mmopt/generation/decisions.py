"""Reading returned decisions in the shapes models write them, for every validator: the first present
key among aliases, a number however it was written, and for the selection-and-assignment validator
(facility location) a chosen set given as a list or a 0/1 dict and an assignment
given as a dict or a list of pairs; :func:`read_assignment` reads a one-to-one mapping between two
sides of drawn names (parallel-machine scheduling's job → machine)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any


def first_present(solution: Mapping[str, Any], keys: Sequence[str]) -> Any:
    """The value of the first of ``keys`` present in ``solution``, or None."""
    for key in keys:
        if key in solution:
            return solution[key]
    return None


def number(value: Any) -> float | None:
    """A finite number (numeric strings accepted), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(float(value)) else None
    if isinstance(value, str):
        try:
            parsed = float(value.strip())
        except ValueError:
            return None
        return parsed if math.isfinite(parsed) else None
    return None


def chosen(raw: Any) -> list[Any] | None:
    """A list of names, or a dict name → 0/1 (truthy values count as chosen); None otherwise."""
    if isinstance(raw, Mapping):
        return [k for k, v in raw.items() if isinstance(v, bool | int | float) and float(v) > 0.5]
    if isinstance(raw, list | tuple | set | frozenset):
        return list(raw)
    return None


def pairs(raw: Any) -> list[tuple[Any, Any]] | None:
    """A dict client → server, or a list of ``[client, server]`` pairs; None otherwise."""
    if isinstance(raw, Mapping):
        return list(raw.items())
    if isinstance(raw, list | tuple) and all(isinstance(p, list | tuple) and len(p) == 2 for p in raw):
        return [(p[0], p[1]) for p in raw]
    return None


#: Keys under which :func:`read_assignment` looks for the mapping, in order.
ASSIGNMENT_KEYS = ("assignment", "assignments", "matching")


def _prefixed_name(raw: Any, names: Mapping[str, str], prefix: str) -> str | None:
    """The instance name a returned label means: the name itself (any case, spaces trimmed) or the
    bare number of a drawn name (``3`` or ``"3"`` for ``"W3"``)."""
    if isinstance(raw, bool):
        return None
    text = str(raw).strip()
    if isinstance(raw, int) or text.isdigit():
        text = f"{prefix}{int(text)}"
    return names.get(text.lower())


def _labelled_pairs(raw: Any) -> list[tuple[Any, Any]] | None:
    """``{left: right}``, ``[[left, right], …]`` or ``[{"worker"/"job": …, "task"/"agent": …}, …]``."""
    if isinstance(raw, Mapping):
        return list(raw.items())
    if isinstance(raw, list | tuple):
        found = []
        for item in raw:
            if isinstance(item, list | tuple) and len(item) == 2:
                found.append((item[0], item[1]))
            elif isinstance(item, Mapping) and len(item) == 2:
                found.append(tuple(item.values()))
            else:
                return None
        return found
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
    raw = first_present(solution, ASSIGNMENT_KEYS)
    if raw is None:
        return {}, ["no assignment returned"]
    found = _labelled_pairs(raw)
    if found is None:
        return {}, ["assignment is neither a dict nor a list of pairs"]
    left_lookup = {name.lower(): name for name in left}
    right_lookup = {name.lower(): name for name in right}
    mapping: dict[str, str] = {}
    problems: list[str] = []
    for raw_left, raw_right in found:
        name = _prefixed_name(raw_left, left_lookup, left_prefix)
        target = _prefixed_name(raw_right, right_lookup, right_prefix)
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
