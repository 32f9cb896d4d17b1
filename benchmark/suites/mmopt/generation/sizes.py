"""Instance sizes per subcategory and tier, ours against a copy of the official release (issue 26
item 5).

A package's size dimensions are read from its ``instance_data.json`` alone, the same way for our
packages and the release's (both use the official schema): the length of every list under
``sets`` (``sets.nodes``, ``sets.jobs``, ``sets.periods`` …), of every top-level list (``arcs``,
``edges`` …), and ``numbers``, the count of numeric values in the whole record (the measure the
issue's ratios were taken with). Per subcategory and tier the table gives the median of each
dimension on both sides and their ratio; a dimension only one side has is left out of the ratio.

Without a copy of the release, the official side is :data:`RELEASE_SIZES`: per family a JSON file
of the count fields of every medium and hard package's ``meta.json`` in the release (transcribed
from ``ZhongLIFR/MM-OptBench`` at the commit each file names), with per subcategory the size
dimensions each count field equals (checked on the release's own ``instance_data.json``) and,
where our generator names a set otherwise, ``our_names`` (our dimension → the release's).
The issue's bar is every medium and hard dimension within :data:`TOLERANCE` of the official median.
"""

from __future__ import annotations

import functools
import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.suites.mmopt.package import discover

NUMBERS = "numbers"
#: The transcribed release counts (see the module docstring), one file per family.
RELEASE_SIZES = Path(__file__).with_name("release_sizes")
#: How far (relative to the official median) our median may be and still match it.
TOLERANCE = 0.25


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
    return _medians(grouped)


def release_tier_sizes(folder: Path = RELEASE_SIZES) -> dict[tuple[str, str], TierSizes]:
    """Per (subcategory, difficulty) the release's median of every dimension a count field of its
    ``meta.json`` files measures, from the transcribed tables in ``folder``."""
    grouped: dict[tuple[str, str], list[dict[str, int]]] = {}
    for subcategory, entry in _release_tables(folder).items():
        dimensions: Mapping[str, str] = entry["dimensions"]
        for package in entry["packages"].values():
            row = {dim: package[f] for dim, f in dimensions.items() if isinstance(package.get(f), int)}
            grouped.setdefault((subcategory, str(package["difficulty"])), []).append(row)
    return _medians(grouped)


def release_names(folder: Path = RELEASE_SIZES) -> dict[str, dict[str, str]]:
    """subcategory → {our dimension: the release's name for it}, where the two differ."""
    return {name: dict(entry.get("our_names") or {}) for name, entry in _release_tables(folder).items()}


def renamed(
    sizes: Mapping[tuple[str, str], TierSizes], names: Mapping[str, Mapping[str, str]]
) -> dict[tuple[str, str], TierSizes]:
    """``sizes`` with each subcategory's dimensions spelled as ``names`` maps them."""
    result = {}
    for key, tier in sizes.items():
        spelled = names.get(tier.subcategory, {})
        medians = {spelled.get(name, name): value for name, value in tier.medians.items()}
        result[key] = TierSizes(tier.subcategory, tier.difficulty, tier.packages, medians)
    return result


@functools.cache
def _release_tables(folder: Path) -> dict[str, dict[str, Any]]:
    """subcategory → its entry in the family files under ``folder``, read once per process (the
    table and its name map both come from it). Callers only read it."""
    tables: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        tables.update(json.loads(path.read_text(encoding="utf-8"))["subcategories"])
    return tables


def _medians(grouped: Mapping[tuple[str, str], list[dict[str, int]]]) -> dict[tuple[str, str], TierSizes]:
    result = {}
    for (subcategory, difficulty), rows in grouped.items():
        names = sorted({name for row in rows for name in row})
        medians = {name: float(statistics.median(row[name] for row in rows if name in row)) for name in names}
        result[subcategory, difficulty] = TierSizes(subcategory, difficulty, len(rows), medians)
    return result


def within_tolerance(ours: float, official: float) -> bool:
    """Whether our median is within :data:`TOLERANCE` of the official one (relative to it)."""
    return abs(ours - official) <= TOLERANCE * official


ORDER = {"easy": 0, "medium": 1, "hard": 2}


def _ratio(official: float, ours: float) -> str:
    return "-" if ours == 0 else f"{official / ours:.2f}"


def comparison_rows(
    ours: Mapping[tuple[str, str], TierSizes], official: Mapping[tuple[str, str], TierSizes]
) -> list[tuple[str, str, str, str, str, str, str]]:
    """(subcategory, tier, dimension, our median, official median, official/ours, "yes"/"no" for
    within :data:`TOLERANCE`) for every tier both sides have, and every dimension both measure."""
    rows = []
    for key in sorted(set(ours) & set(official), key=lambda k: (k[0], ORDER.get(k[1], 9))):
        mine, theirs = ours[key], official[key]
        for name in sorted(set(mine.medians) & set(theirs.medians)):
            a, b = mine.medians[name], theirs.medians[name]
            within = "yes" if within_tolerance(a, b) else "no"
            rows.append((key[0], key[1], name, f"{a:g}", f"{b:g}", _ratio(b, a), within))
    return rows


def comparison_markdown(ours_root: Path, official_root: Path | None = None) -> list[str]:
    """The ours-vs-official size table as Markdown lines, with the package counts per side and how
    many medium/hard dimensions are within :data:`TOLERANCE`. The official side is a release copy
    at ``official_root``, or the transcribed release counts (:data:`RELEASE_SIZES`) without one."""
    if official_root is None:
        ours, official = renamed(tier_sizes(ours_root), release_names()), release_tier_sizes()
        source = "the release's meta.json counts (benchmark/suites/mmopt/generation/release_sizes)"
    else:
        ours, official, source = tier_sizes(ours_root), tier_sizes(official_root), str(official_root)
    percent = f"{TOLERANCE:.0%}"
    lines = [
        f"| subcategory | tier | dimension | ours (median) | official (median) | official / ours "
        f"| within ±{percent} |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = comparison_rows(ours, official)
    lines += [f"| {' | '.join(row)} |" for row in rows]
    shared = sorted(set(ours) & set(official))
    scaled = [row for row in rows if row[1] in ("medium", "hard")]
    lines.append(
        f"{len(shared)} tiers on both sides; packages: ours {sum(ours[k].packages for k in shared)}, "
        f"official {sum(official[k].packages for k in shared)} (official side: {source}); "
        f"medium/hard dimensions within ±{percent} of the official median: "
        f"{sum(row[6] == 'yes' for row in scaled)} of {len(scaled)}"
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
