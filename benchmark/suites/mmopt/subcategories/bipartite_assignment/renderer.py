"""The bipartite-assignment visual: a worker × task matrix of costs (or values), forbidden pairs
crossed out on a grey cell, so the compatibility graph and its weights read off one grid."""

from __future__ import annotations

from collections.abc import Mapping
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

FORBIDDEN = "✕"
FORBIDDEN_FILL = "#c9cdd2"
FORBIDDEN_COLOR = "#7a1f1f"


def _cell_key(worker: str, task: str) -> str:
    return f"pair:{worker}/{task}"


def _title(instance: Mapping[str, Any]) -> str:
    return f"{measure(instance).capitalize()} of giving each task (column) to each worker (row)"


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    columns = [TableCell(t, key=f"task:{t}", bold=True) for t in tasks(instance)]
    rows, cells = [], []
    for worker in workers(instance):
        rows.append(TableCell(worker, key=f"worker:{worker}", bold=True))
        row = weights(instance)[worker]
        cells.append(
            [
                TableCell(str(row[t]), key=_cell_key(worker, t))
                if t in row
                else TableCell(
                    FORBIDDEN, key=_cell_key(worker, t), fill=FORBIDDEN_FILL, color=FORBIDDEN_COLOR
                )
                for t in tasks(instance)
            ]
        )
    table = Table(
        title=_title(instance),
        corner="worker",
        column_headers=columns,
        row_headers=rows,
        cells=cells,
        bold_every=5,
    )
    notes = [f"Number in a cell: the {measure(instance)} of that worker doing that task."]
    if forbidden(instance):
        notes.append(f"{FORBIDDEN} on a grey cell: that worker may not do that task.")
    return [render_tables([table], notes)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"task:{t}", t) for t in tasks(instance)]
    for worker in workers(instance):
        labels.append(ExpectedLabel(f"worker:{worker}", worker))
        row = weights(instance)[worker]
        labels += [
            ExpectedLabel(_cell_key(worker, t), str(row[t]) if t in row else FORBIDDEN)
            for t in tasks(instance)
        ]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    return {int(v) for row in weights(instance).values() for v in row.values()}
