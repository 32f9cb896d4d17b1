"""The logical constraint visual: the clause-variable matrix with every row of the model (App. E.6).

One column per variable, one row per constraint row as in the official release: ``C`` rows are the
clauses, ``I`` rows the implications (drawn as the clause ¬u ∨ v), ``A`` rows the pairwise
exclusions of each at-most-one group (¬u ∨ ¬v; group A2's pairs are A2a, A2b, …), and ``K`` rows
the cardinality rows, whose label carries the bound (``K1 ≤ 2``, a ``+`` on every member). A ``+``
marks a positive literal, a ``−`` a negative one, an empty cell no literal. More than
:data:`ROWS_PER_FIGURE` rows are split into figures of equal height, each repeating the header of
variables. Every mark, row label and column label is an audited label.
"""

from __future__ import annotations

import math
import string
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables
from benchmark.suites.mmopt.subcategories.logical_constraint_satisfaction_models.validator import is_negative

ROWS_PER_FIGURE = 36
PLUS, MINUS = "+", "−"
PLUS_COLOR, MINUS_COLOR = "#1f4e99", "#b03a2e"
TITLE = "Clause-variable matrix: one row per logical row, one column per Boolean variable"
NOTES = (
    f"{PLUS}: the variable of that column appears positively in the row; {MINUS}: negated; empty: absent.",
    "C rows are clauses, I rows implications, A rows pairwise exclusions of an at-most-one group.",
    "A K row allows at most the bound in its label of its marked variables to be true.",
)


@dataclass(frozen=True)
class MatrixRow:
    """One drawn row: its label and ``variable → sign`` marks."""

    label: str
    marks: tuple[tuple[str, str], ...]


def matrix_rows(instance: Mapping[str, Any]) -> list[MatrixRow]:
    rows = [
        MatrixRow(
            c["name"],
            tuple((lit["variable"], MINUS if is_negative(lit["sign"]) else PLUS) for lit in c["literals"]),
        )
        for c in instance["clauses"]
    ]
    rows += [
        MatrixRow(r["name"], ((r["if_variable"], MINUS), (r["then_variable"], PLUS)))
        for r in instance.get("implications", [])
    ]
    for group in instance.get("at_most_one_groups", []):
        for letter, (u, v) in zip(string.ascii_lowercase, combinations(group["variables"], 2), strict=False):
            rows.append(MatrixRow(f"{group['name']}{letter}", ((u, MINUS), (v, MINUS))))
    rows += [
        MatrixRow(f"{r['name']} ≤ {r['rhs']}", tuple((v, PLUS) for v in r["variables"]))
        for r in instance.get("cardinality_constraints", [])
    ]
    return rows


def panels(instance: Mapping[str, Any]) -> list[list[MatrixRow]]:
    rows = matrix_rows(instance)
    count = math.ceil(len(rows) / ROWS_PER_FIGURE)
    size = math.ceil(len(rows) / count)
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def _prefix(index: int, count: int) -> str:
    return f"v{index}/" if count > 1 else ""


def _table(instance: Mapping[str, Any], rows: list[MatrixRow], prefix: str, title: str) -> Table:
    variables = instance["sets"]["variables"]
    columns = [TableCell(v, key=f"{prefix}var:{v}", bold=True) for v in variables]
    headers, cells = [], []
    for row in rows:
        headers.append(TableCell(row.label, key=f"{prefix}row:{row.label}", bold=True))
        marks = dict(row.marks)
        cells.append(
            [
                TableCell(
                    marks[v],
                    key=f"{prefix}mark:{row.label}/{v}",
                    color=PLUS_COLOR if marks[v] == PLUS else MINUS_COLOR,
                    bold=True,
                )
                if v in marks
                else TableCell("")
                for v in variables
            ]
        )
    return Table(
        title=title, corner="row", column_headers=columns, row_headers=headers, cells=cells, bold_every=5
    )


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    parts = panels(instance)
    visuals = []
    for index, rows in enumerate(parts):
        title = TITLE if len(parts) == 1 else f"{TITLE} (part {string.ascii_uppercase[index]})"
        notes = NOTES if instance.get("cardinality_constraints") else NOTES[:2]
        visuals.append(render_tables([_table(instance, rows, _prefix(index, len(parts)), title)], notes))
    return visuals


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    parts = panels(instance)
    labels = []
    for index, rows in enumerate(parts):
        prefix = _prefix(index, len(parts))
        labels += [ExpectedLabel(f"{prefix}var:{v}", v) for v in instance["sets"]["variables"]]
        for row in rows:
            labels.append(ExpectedLabel(f"{prefix}row:{row.label}", row.label))
            labels += [ExpectedLabel(f"{prefix}mark:{row.label}/{v}", sign) for v, sign in row.marks]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    """The cardinality bounds and the variable numbers: read from the figure, never from the text."""
    values = {int(r["rhs"]) for r in instance.get("cardinality_constraints", [])}
    return values | {int(v[1:]) for v in instance["sets"]["variables"]}
