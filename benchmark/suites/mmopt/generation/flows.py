"""Numbers in validator findings and the objective a returned answer claims (shared by the
validators that read decisions themselves rather than through an ``official.py`` module)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.decisions import number

TOLERANCE = 1e-6
OBJECTIVE_KEYS = ("objective_value", "objective", "objective_exact", "total_cost", "cost", "value")


def fmt(value: float) -> str:
    """Numbers in problem strings: integers without a decimal point, others to 6 significant digits."""
    if math.isfinite(value) and abs(value - round(value)) < 1e-9:
        return str(round(value))
    return f"{value:.6g}"


def close(a: float, b: float) -> bool:
    """Equality up to the absolute tolerance, loosened by a relative term for large sums."""
    return abs(a - b) <= TOLERANCE + 1e-9 * max(abs(a), abs(b))


def reported_objective(solution: Mapping[str, Any]) -> float | None:
    """The objective the code claims, under the official key or its aliases."""
    for key in OBJECTIVE_KEYS:
        if key in solution:
            return number(solution[key])
    return None
