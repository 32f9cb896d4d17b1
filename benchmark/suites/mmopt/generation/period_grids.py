"""Reading a returned ``row → period → number`` table, as the multi-period validators need it.

Unit commitment (generation per unit), lot sizing (production per product) and inventory routing
(deliveries per customer) all receive a table keyed by an instance name and a period. Models write
the names in any case, as bare numbers (``3`` for ``G3``, ``2`` for ``t2``) or give a row as a list
in period order; one reader accepts all of these and names every unreadable, unknown or missing
cell, so the three validators report bad tables in the same words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.decisions import number

PERIOD_PREFIX = "t"
Grid = dict[str, dict[str, float]]


def resolve_label(raw: Any, names: Mapping[str, str], prefix: str) -> str | None:
    """The instance name a returned label means: looked up case-insensitively in ``names`` (lower
    case → instance spelling), a bare number getting ``prefix`` first; ``None`` when unknown."""
    text = str(raw).strip()
    return names.get((f"{prefix}{int(text)}" if text.isdigit() else text).lower())


def read_grid(
    raw: Any, rows: list[str], periods: list[str], what: str, kind: str, prefix: str
) -> tuple[Grid, list[str]]:
    """The table ``what`` with one row per ``kind`` (``rows``, bare numbers prefixed by
    ``prefix``) and one cell per period, and the problems found: a table or row of the wrong
    shape, an unknown row or period, a cell that is not a number, a cell left out."""
    if not isinstance(raw, Mapping):
        return {}, [f"{what} is not a dict of {kind}s"]
    row_names = {name.lower(): name for name in rows}
    period_names = {t.lower(): t for t in periods}
    grid: Grid = {}
    problems = []
    for raw_row, row in raw.items():
        name = resolve_label(raw_row, row_names, prefix)
        if name is None:
            problems.append(f"{what}: unknown {kind} {raw_row!r}")
            continue
        if isinstance(row, list | tuple) and len(row) == len(periods):
            row = dict(zip(periods, row, strict=True))
        if not isinstance(row, Mapping):
            problems.append(f"{what}[{name}] is not a dict of periods")
            continue
        grid[name] = {}
        for raw_period, value in row.items():
            period = resolve_label(raw_period, period_names, PERIOD_PREFIX)
            amount = number(value)
            if period is None:
                problems.append(f"{what}[{name}]: unknown period {raw_period!r}")
            elif amount is None:
                problems.append(f"{what}[{name}][{period}] = {value!r} is not a number")
            else:
                grid[name][period] = amount
    for name in rows:
        for period in periods:
            if period not in grid.get(name, {}):
                problems.append(f"{what}[{name}][{period}] is missing")
    return grid, problems
