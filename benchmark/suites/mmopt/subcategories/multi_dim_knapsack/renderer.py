"""The knapsack visual: the resource matrix (App. E.6) with the capacities.

One column per item (bold number), one row for the value and one per resource; the last column,
behind a heavy rule, holds each resource's capacity. Items are split into panels of at most
:data:`ITEMS_PER_PANEL` columns, stacked in one figure, each repeating the row headers, so a long
row stays readable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables

ITEMS_PER_PANEL = 15
TITLE = "Items: value and use of each resource"
NOTES = (
    "Each column is one item: its value, then how much of each resource it uses.",
    "The capacity column gives how much of each resource is available in total.",
)


def panels(instance: Mapping[str, Any]) -> list[list[int]]:
    items = list(instance["sets"]["items"])
    count = math.ceil(len(items) / ITEMS_PER_PANEL)
    size = math.ceil(len(items) / count)
    return [items[i : i + size] for i in range(0, len(items), size)]


def _table(instance: Mapping[str, Any], items: list[int], index: int, last: bool) -> Table:
    resources = instance["sets"]["resources"]
    columns = [TableCell(str(i), key=f"item:{i}", bold=True) for i in items]
    if last:
        columns.append(TableCell("capacity", bold=True))
    rows = [TableCell("value", bold=True)] + [
        TableCell(name, key=f"p{index}/resource:{name}", bold=True) for name in resources
    ]
    cells = [[TableCell(str(instance["values"][i - 1]), key=f"value:{i}") for i in items]]
    for r, name in enumerate(resources):
        cells.append([TableCell(str(instance["weights"][i - 1][r]), key=f"weight:{i}/{name}") for i in items])
    if last:
        cells[0].append(TableCell(""))
        for r, name in enumerate(resources):
            cells[r + 1].append(TableCell(str(instance["capacities"][r]), key=f"capacity:{name}", bold=True))
    parts = len(panels(instance))
    title = TITLE if parts == 1 else f"{TITLE} (part {'ABCD'[index]})"
    return Table(
        title=title,
        corner="item",
        column_headers=columns,
        row_headers=rows,
        cells=cells,
        thick_after=(len(items) - 1,) if last else (),
        bold_every=5,
    )


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    parts = panels(instance)
    return [_table(instance, items, index, index == len(parts) - 1) for index, items in enumerate(parts)]


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    return [render_tables(_tables(instance), NOTES)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = []
    resources = instance["sets"]["resources"]
    for index, items in enumerate(panels(instance)):
        labels += [ExpectedLabel(f"p{index}/resource:{name}", name) for name in resources]
        for i in items:
            labels.append(ExpectedLabel(f"item:{i}", str(i)))
            labels.append(ExpectedLabel(f"value:{i}", str(instance["values"][i - 1])))
            labels += [
                ExpectedLabel(f"weight:{i}/{name}", str(instance["weights"][i - 1][r]))
                for r, name in enumerate(resources)
            ]
    labels += [
        ExpectedLabel(f"capacity:{name}", str(c))
        for name, c in zip(resources, instance["capacities"], strict=True)
    ]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = set(instance["sets"]["items"]) | set(instance["values"]) | set(instance["capacities"])
    return values | {w for row in instance["weights"] for w in row}
