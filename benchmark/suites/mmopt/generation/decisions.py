"""Reading returned decisions in the shapes models write them, for every validator: the first present
key among aliases, a number however it was written, and for the selection-and-assignment validators
(facility location, p-median/p-center) a chosen set given as a list or a 0/1 dict and an assignment
given as a dict or a list of pairs."""

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
