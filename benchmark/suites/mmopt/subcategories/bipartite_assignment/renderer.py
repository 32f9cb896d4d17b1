"""The bipartite-assignment visual: a worker × task matrix of costs (or values), forbidden pairs
crossed out on a grey cell, so the compatibility graph and its weights read off one grid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables

FORBIDDEN = "✕"
FORBIDDEN_FILL = "#c9cdd2"
FORBIDDEN_COLOR = "#7a1f1f"


def _cell_key(worker: str, task: str) -> str:
    return f"pair:{worker}/{task}"


def _title(instance: Mapping[str, Any]) -> str:
    return f"{instance['measure'].capitalize()} of giving each task (column) to each worker (row)"


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    tasks = list(instance["tasks"])
    columns = [TableCell(t, key=f"task:{t}", bold=True) for t in tasks]
    rows, cells = [], []
    for worker in instance["workers"]:
        rows.append(TableCell(worker, key=f"worker:{worker}", bold=True))
        weights = instance["weights"][worker]
        cells.append(
            [
                TableCell(str(weights[t]), key=_cell_key(worker, t))
                if t in weights
                else TableCell(
                    FORBIDDEN, key=_cell_key(worker, t), fill=FORBIDDEN_FILL, color=FORBIDDEN_COLOR
                )
                for t in tasks
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
    notes = [f"Number in a cell: the {instance['measure']} of that worker doing that task."]
    if instance["forbidden"]:
        notes.append(f"{FORBIDDEN} on a grey cell: that worker may not do that task.")
    return [render_tables([table], notes)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"task:{t}", t) for t in instance["tasks"]]
    for worker in instance["workers"]:
        labels.append(ExpectedLabel(f"worker:{worker}", worker))
        weights = instance["weights"][worker]
        labels += [
            ExpectedLabel(_cell_key(worker, t), str(weights[t]) if t in weights else FORBIDDEN)
            for t in instance["tasks"]
        ]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    return {int(v) for row in instance["weights"].values() for v in row.values()}
