"""The graph colouring visual: the adjacency matrix (App. E.6), and for a decision instance the
number of colours available.

Rows and columns are the vertices; a dot marks an edge (the matrix is symmetric), the grey diagonal
marks self pairs. Every vertex name, dot and the colour count are audited labels, so a missing or
extra dot fails the audit like a wrong number. No colouring is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables

MARK = "●"
MARK_COLOR = "#1f4e99"
DIAGONAL_FILL = "#c9ced6"
TITLE = "Adjacency matrix of the undirected graph"
NOTES = (
    f"{MARK} in a cell: the vertices of that row and that column are joined by an edge.",
    "The matrix is symmetric; grey diagonal cells pair a vertex with itself.",
)


def _matrix(instance: Mapping[str, Any]) -> Table:
    vertices = instance["sets"]["vertices"]
    edges = {frozenset(edge) for edge in instance["edges"]}
    columns = [TableCell(str(v), key=f"col:{v}", bold=True) for v in vertices]
    rows, cells = [], []
    for u in vertices:
        rows.append(TableCell(str(u), key=f"row:{u}", bold=True))
        line = []
        for v in vertices:
            if u == v:
                line.append(TableCell("", fill=DIAGONAL_FILL))
            elif frozenset((u, v)) in edges:
                line.append(TableCell(MARK, key=f"edge:{u}/{v}", color=MARK_COLOR))
            else:
                line.append(TableCell(""))
        cells.append(line)
    return Table(
        title=TITLE, corner="vertex", column_headers=columns, row_headers=rows, cells=cells, bold_every=5
    )


def _colours(instance: Mapping[str, Any]) -> Table:
    count = len(instance["sets"]["colors"])
    return Table(
        title="Colours available for the colouring",
        corner="",
        column_headers=[TableCell("count")],
        row_headers=[TableCell("colours")],
        cells=[[TableCell(str(count), key="colors_available", bold=True)]],
        zebra=False,
    )


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    matrix = _matrix(instance)
    return [matrix, _colours(instance)] if instance["task_variant"] == "decision" else [matrix]


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    return [render_tables(_tables(instance), NOTES)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    vertices = instance["sets"]["vertices"]
    labels = [ExpectedLabel(f"col:{v}", str(v)) for v in vertices]
    labels += [ExpectedLabel(f"row:{v}", str(v)) for v in vertices]
    for u, v in instance["edges"]:
        labels += [ExpectedLabel(f"edge:{u}/{v}", MARK), ExpectedLabel(f"edge:{v}/{u}", MARK)]
    if instance["task_variant"] == "decision":
        labels.append(ExpectedLabel("colors_available", str(len(instance["sets"]["colors"]))))
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = set(instance["sets"]["vertices"])
    if instance["task_variant"] == "decision":
        values.add(len(instance["sets"]["colors"]))
    return values
