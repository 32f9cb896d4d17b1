"""The set covering/partitioning visual: an incidence matrix, a row per subset with its cost.

Rows are subsets (bold name, then the cost column behind a heavy rule), columns are elements; a
dot in a cell means the row's subset contains the column's element. Every name, cost and dot is an
audited label, so a missing or extra dot fails the audit just like a wrong cost.

A matrix of more than :data:`ROWS_PER_FIGURE` subsets is split by rows into figures of equal size
(``visual_0.png`` the first subsets, ``visual_1.png`` the rest), each repeating the element header:
with forty rows under one header, a dot near the bottom is too far from its column name to read
reliably.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables
from benchmark.suites.mmopt.subcategories.set_covering_partitioning.generator import elements_of, subsets_of

ROWS_PER_FIGURE = 24
MARK = "●"
MARK_COLOR = "#1f4e99"
TITLE = "Subsets: selection cost and the elements each one contains"
NOTES = (
    f"{MARK} in a cell: the subset of that row contains the element of that column.",
    "cost: what selecting the subset of that row costs.",
)


def panels(instance: Mapping[str, Any]) -> list[list[Mapping[str, Any]]]:
    """The subsets of each figure, in order."""
    subsets: list[Mapping[str, Any]] = list(subsets_of(instance))
    count = math.ceil(len(subsets) / ROWS_PER_FIGURE)
    size = math.ceil(len(subsets) / count)
    return [subsets[i : i + size] for i in range(0, len(subsets), size)]


def _prefix(instance: Mapping[str, Any], index: int) -> str:
    """Audit keys of a multi-figure matrix carry the figure (``v1/``), as the pipeline expects."""
    return f"v{index}/" if len(panels(instance)) > 1 else ""


def _mark_key(subset: str, element: str) -> str:
    return f"mark:{subset}/{element}"


def _table(elements: Sequence[str], subsets: Sequence[Mapping[str, Any]], prefix: str, title: str) -> Table:
    columns = [TableCell("cost", bold=True)]
    columns += [TableCell(e, key=f"{prefix}element:{e}", bold=True) for e in elements]
    rows, cells = [], []
    for subset in subsets:
        name = subset["id"]
        members = set(subset["elements"])
        rows.append(TableCell(name, key=f"{prefix}subset:{name}", bold=True))
        line = [TableCell(str(subset["cost"]), key=f"{prefix}cost:{name}")]
        line += [
            TableCell(MARK, key=prefix + _mark_key(name, e), color=MARK_COLOR)
            if e in members
            else TableCell("")
            for e in elements
        ]
        cells.append(line)
    return Table(
        title=title,
        corner="subset",
        column_headers=columns,
        row_headers=rows,
        cells=cells,
        thick_after=(0,),
        bold_every=5,
    )


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    parts = panels(instance)
    visuals = []
    for index, subsets in enumerate(parts):
        title = TITLE if len(parts) == 1 else f"{TITLE} (part {'ABCDEFGH'[index]})"
        table = _table(elements_of(instance), subsets, _prefix(instance, index), title)
        visuals.append(render_tables([table], NOTES))
    return visuals


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = []
    for index, subsets in enumerate(panels(instance)):
        prefix = _prefix(instance, index)
        labels += [ExpectedLabel(f"{prefix}element:{e}", e) for e in elements_of(instance)]
        for subset in subsets:
            name = subset["id"]
            labels.append(ExpectedLabel(f"{prefix}subset:{name}", name))
            labels.append(ExpectedLabel(f"{prefix}cost:{name}", str(subset["cost"])))
            labels += [ExpectedLabel(prefix + _mark_key(name, e), MARK) for e in subset["elements"]]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    return {int(s["cost"]) for s in subsets_of(instance)}
