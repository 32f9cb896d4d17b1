"""Instance sizes per subcategory and tier, ours against a copy of the official release (issue 26
item 5).

A package's size dimensions are read from its ``instance_data.json`` alone, the same way for our
packages and the release's (both use the official schema): the length of every list under
``sets`` (``sets.nodes``, ``sets.jobs``, ``sets.periods`` …), of every top-level list (``arcs``,
``edges`` …), and ``numbers``, the count of numeric values in the whole record (the measure the
issue's ratios were taken with). Per subcategory and tier the table gives the median of each
dimension on both sides and their ratio; a dimension only one side has is left out of the ratio.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.suites.mmopt.package import discover

NUMBERS = "numbers"


def count_numbers(value: Any) -> int:
    """How many numeric values (not booleans) a JSON value holds."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int | float):
        return 1
    if isinstance(value, Mapping):
        return sum(count_numbers(item) for item in value.values())
    if isinstance(value, list | tuple):
        return sum(count_numbers(item) for item in value)
    return 0


def size_dimensions(instance: Mapping[str, Any]) -> dict[str, int]:
    """The size dimensions of one instance record (see the module docstring)."""
    dimensions: dict[str, int] = {}
    sets = instance.get("sets")
    if isinstance(sets, Mapping):
        for key, value in sets.items():
            if isinstance(value, list):
                dimensions[f"sets.{key}"] = len(value)
    for key, value in instance.items():
        if isinstance(value, list) and key != "sets":
            dimensions[key] = len(value)
    dimensions[NUMBERS] = count_numbers(instance)
    return dimensions


@dataclass(frozen=True)
class TierSizes:
    """The median of each size dimension over one subcategory's packages of one tier."""

    subcategory: str
    difficulty: str
    packages: int
    medians: dict[str, float]


def tier_sizes(root: Path) -> dict[tuple[str, str], TierSizes]:
    """Per (subcategory, difficulty) of the dataset under ``root`` the median size dimensions."""
    grouped: dict[tuple[str, str], list[dict[str, int]]] = {}
    for ref in discover(root):
        path = ref.location / "ground_truth" / "instance_data.json"
        if not path.is_file():
            continue
        instance = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(instance, dict):
            key = (ref.labels["subcategory"], ref.labels["difficulty"])
            grouped.setdefault(key, []).append(size_dimensions(instance))
    result = {}
    for (subcategory, difficulty), rows in grouped.items():
        names = sorted({name for row in rows for name in row})
        medians = {name: float(statistics.median(row[name] for row in rows if name in row)) for name in names}
        result[subcategory, difficulty] = TierSizes(subcategory, difficulty, len(rows), medians)
    return result


ORDER = {"easy": 0, "medium": 1, "hard": 2}


def _ratio(official: float, ours: float) -> str:
    return "-" if ours == 0 else f"{official / ours:.2f}"


def comparison_rows(
    ours: Mapping[tuple[str, str], TierSizes], official: Mapping[tuple[str, str], TierSizes]
) -> list[tuple[str, str, str, str, str, str]]:
    """(subcategory, tier, dimension, our median, official median, official/ours) for every tier
    both sides have, and every dimension both sides measure."""
    rows = []
    for key in sorted(set(ours) & set(official), key=lambda k: (k[0], ORDER.get(k[1], 9))):
        mine, theirs = ours[key], official[key]
        for name in sorted(set(mine.medians) & set(theirs.medians)):
            a, b = mine.medians[name], theirs.medians[name]
            rows.append((key[0], key[1], name, f"{a:g}", f"{b:g}", _ratio(b, a)))
    return rows


def comparison_markdown(ours_root: Path, official_root: Path) -> list[str]:
    """The ours-vs-official size table as Markdown lines, with the package counts per side."""
    ours, official = tier_sizes(ours_root), tier_sizes(official_root)
    lines = [
        "| subcategory | tier | dimension | ours (median) | official (median) | official / ours |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {' | '.join(row)} |" for row in comparison_rows(ours, official)]
    shared = sorted(set(ours) & set(official))
    lines.append(
        f"{len(shared)} tiers on both sides; packages: ours {sum(ours[k].packages for k in shared)}, "
        f"official {sum(official[k].packages for k in shared)}"
    )
    return lines


def tier_markdown(root: Path, dimensions: Iterable[str] = (NUMBERS,)) -> list[str]:
    """One dataset's median sizes per subcategory and tier (all dimensions when none are named)."""
    sizes = tier_sizes(root)
    wanted: Sequence[str] = tuple(dimensions)
    lines = ["| subcategory | tier | packages | dimensions (median) |", "|---|---|---|---|"]
    for key in sorted(sizes, key=lambda k: (k[0], ORDER.get(k[1], 9))):
        tier = sizes[key]
        shown = {n: v for n, v in tier.medians.items() if not wanted or n in wanted}
        cells = ", ".join(f"{name} {value:g}" for name, value in shown.items())
        lines.append(f"| {key[0]} | {key[1]} | {tier.packages} | {cells} |")
    return lines
