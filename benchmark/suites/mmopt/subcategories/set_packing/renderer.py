"""The set packing visual: the incidence matrix, a row per group with its weight (App. E.6).

A dot marks that the row's group contains the column's item. More than :data:`ROWS_PER_FIGURE`
groups are split by rows into figures of equal size, each repeating the item header.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables

ROWS_PER_FIGURE = 24
MARK = "●"
MARK_COLOR = "#1f4e99"
TITLE = "Candidate groups: weight and the items each one contains"
NOTES = (
    f"{MARK} in a cell: the group of that row contains the item of that column.",
    "weight: what selecting the group of that row earns.",
)


def panels(instance: Mapping[str, Any]) -> list[list[str]]:
    names = list(instance["sets"]["candidate_groups"])
    count = math.ceil(len(names) / ROWS_PER_FIGURE)
    size = math.ceil(len(names) / count)
    return [names[i : i + size] for i in range(0, len(names), size)]


def _prefix(instance: Mapping[str, Any], index: int) -> str:
    return f"v{index}/" if len(panels(instance)) > 1 else ""


def _table(instance: Mapping[str, Any], names: list[str], prefix: str, title: str) -> Table:
    items = instance["sets"]["items"]
    columns = [TableCell("weight", bold=True)] + [
        TableCell(e, key=f"{prefix}item:{e}", bold=True) for e in items
    ]
    rows, cells = [], []
    for name in names:
        group = instance["subsets"][name]
        rows.append(TableCell(name, key=f"{prefix}group:{name}", bold=True))
        line = [TableCell(str(group["weight"]), key=f"{prefix}weight:{name}")]
        line += [
            TableCell(MARK, key=f"{prefix}mark:{name}/{e}", color=MARK_COLOR)
            if e in group["elements"]
            else TableCell("")
            for e in items
        ]
        cells.append(line)
    return Table(
        title=title,
        corner="group",
        column_headers=columns,
        row_headers=rows,
        cells=cells,
        thick_after=(0,),
        bold_every=5,
    )


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    parts = panels(instance)
    visuals = []
    for index, names in enumerate(parts):
        title = TITLE if len(parts) == 1 else f"{TITLE} (part {'ABCD'[index]})"
        visuals.append(render_tables([_table(instance, names, _prefix(instance, index), title)], NOTES))
    return visuals


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = []
    for index, names in enumerate(panels(instance)):
        prefix = _prefix(instance, index)
        labels += [ExpectedLabel(f"{prefix}item:{e}", e) for e in instance["sets"]["items"]]
        for name in names:
            group = instance["subsets"][name]
            labels.append(ExpectedLabel(f"{prefix}group:{name}", name))
            labels.append(ExpectedLabel(f"{prefix}weight:{name}", str(group["weight"])))
            labels += [ExpectedLabel(f"{prefix}mark:{name}/{e}", MARK) for e in group["elements"]]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    return {int(w) for w in instance["weights"]}
