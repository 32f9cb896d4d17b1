"""The bipartite-assignment visuals: a worker × task matrix of costs (or values), forbidden pairs
crossed out on a grey cell, so the compatibility graph and its weights read off one grid.

A matrix of more than :data:`ROWS_PER_FIGURE` workers is split by rows into figures of equal size
(``visual_0.png`` the first workers, ``visual_1.png`` the next, …), each repeating the task header:
with fifty rows under one header, a cell near the bottom is too far from its column name to read
reliably (the release draws its hard matrices of up to sixty rows in one image).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables
from benchmark.suites.mmopt.subcategories.bipartite_assignment.generator import (
    forbidden,
    measure,
    tasks,
    weights,
    workers,
)

ROWS_PER_FIGURE = 30
FORBIDDEN = "✕"
FORBIDDEN_FILL = "#c9cdd2"
FORBIDDEN_COLOR = "#7a1f1f"
PARTS = "ABCDEFGH"


def panels(instance: Mapping[str, Any]) -> list[list[str]]:
    """The workers (rows) of each figure, in order."""
    rows = workers(instance)
    count = math.ceil(len(rows) / ROWS_PER_FIGURE)
    size = math.ceil(len(rows) / count)
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def _prefix(instance: Mapping[str, Any], index: int) -> str:
    """Audit keys of a multi-figure matrix carry the figure (``v1/``), as the pipeline expects."""
    return f"v{index}/" if len(panels(instance)) > 1 else ""


def _cell_key(worker: str, task: str) -> str:
    return f"pair:{worker}/{task}"


def _title(instance: Mapping[str, Any], index: int) -> str:
    title = f"{measure(instance).capitalize()} of giving each task (column) to each worker (row)"
    return title if len(panels(instance)) == 1 else f"{title} (part {PARTS[index]})"


def _table(instance: Mapping[str, Any], rows_of: Sequence[str], index: int) -> Table:
    prefix = _prefix(instance, index)
    columns = [TableCell(t, key=f"{prefix}task:{t}", bold=True) for t in tasks(instance)]
    rows, cells = [], []
    for worker in rows_of:
        rows.append(TableCell(worker, key=f"{prefix}worker:{worker}", bold=True))
        row = weights(instance)[worker]
        cells.append(
            [
                TableCell(str(row[t]), key=prefix + _cell_key(worker, t))
                if t in row
                else TableCell(
                    FORBIDDEN, key=prefix + _cell_key(worker, t), fill=FORBIDDEN_FILL, color=FORBIDDEN_COLOR
                )
                for t in tasks(instance)
            ]
        )
    return Table(
        title=_title(instance, index),
        corner="worker",
        column_headers=columns,
        row_headers=rows,
        cells=cells,
        bold_every=5,
    )


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    notes = [f"Number in a cell: the {measure(instance)} of that worker doing that task."]
    if forbidden(instance):
        notes.append(f"{FORBIDDEN} on a grey cell: that worker may not do that task.")
    return [
        render_tables([_table(instance, rows, index)], notes) for index, rows in enumerate(panels(instance))
    ]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = []
    for index, rows in enumerate(panels(instance)):
        prefix = _prefix(instance, index)
        labels += [ExpectedLabel(f"{prefix}task:{t}", t) for t in tasks(instance)]
        for worker in rows:
            labels.append(ExpectedLabel(f"{prefix}worker:{worker}", worker))
            row = weights(instance)[worker]
            labels += [
                ExpectedLabel(prefix + _cell_key(worker, t), str(row[t]) if t in row else FORBIDDEN)
                for t in tasks(instance)
            ]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    return {int(v) for row in weights(instance).values() for v in row.values()}
