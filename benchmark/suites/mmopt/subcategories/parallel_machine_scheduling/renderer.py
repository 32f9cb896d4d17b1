"""The parallel-machine visual: an eligibility/processing table, one row per job, one column per
machine holding the job's processing time there (a dash where the machine may not run the job),
preceded by the job's release time and setup time when the instance has them.

A table keeps every number in its own cell, so eligibility, times and releases are read exactly
rather than estimated from bar lengths. More than :data:`ROWS_PER_FIGURE` jobs (the hard tier's 42
to 54) are split by rows into figures of equal size (``visual_0.png``, ``visual_1.png``, ...), each
repeating the header row; up to that many, one figure as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables

ROWS_PER_FIGURE = 25
NOT_ELIGIBLE = "–"
TITLE = "Jobs and machines: processing time of each job (row) on each machine (column)"
NOTES = {
    "base": "Machine cell: processing time of the job on that machine; a dash: the machine may not run it.",
    "setup_time": "setup: time the machine spends preparing the job, right before processing it.",
    "release_time": "release: earliest time the job (its setup included) may start.",
}
INELIGIBLE_FILL = "#d9dde3"


def _extras(instance: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, column header) of the per-job columns before the machine columns."""
    extras = []
    if "release_time" in instance:
        extras.append(("release_time", "release"))
    if "setup_time" in instance:
        extras.append(("setup_time", "setup"))
    return extras


def panels(instance: Mapping[str, Any]) -> list[list[str]]:
    """The jobs of each figure: all of them up to :data:`ROWS_PER_FIGURE`, else equal row blocks."""
    jobs = list(instance["sets"]["jobs"])
    count = math.ceil(len(jobs) / ROWS_PER_FIGURE)
    size = math.ceil(len(jobs) / count)
    return [jobs[i : i + size] for i in range(0, len(jobs), size)]


def _prefix(instance: Mapping[str, Any], index: int) -> str:
    return f"v{index}/" if len(panels(instance)) > 1 else ""


def _table(instance: Mapping[str, Any], jobs: list[str], prefix: str, title: str) -> Table:
    machines = instance["sets"]["machines"]
    extras = _extras(instance)
    columns = [TableCell(header, bold=True) for _, header in extras]
    columns += [TableCell(m, key=f"{prefix}machine:{m}", bold=True) for m in machines]
    cells = []
    for job in jobs:
        line = [
            TableCell(str(instance[field][job]), key=f"{prefix}{field}:{job}", bold=True)
            for field, _ in extras
        ]
        for machine in machines:
            if machine in instance["eligibility"][job]:
                value = str(instance["effective_processing_time"][job][machine])
                line.append(TableCell(value, key=f"{prefix}time:{job}/{machine}"))
            else:
                line.append(TableCell(NOT_ELIGIBLE, fill=INELIGIBLE_FILL))
        cells.append(line)
    return Table(
        title=title,
        corner="job",
        column_headers=columns,
        row_headers=[TableCell(j, key=f"{prefix}job:{j}", bold=True) for j in jobs],
        cells=cells,
        thick_after=(len(extras) - 1,) if extras else (),
        bold_every=5,
    )


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    parts = panels(instance)
    notes = [NOTES["base"]] + [NOTES[field] for field, _ in _extras(instance)]
    visuals = []
    for index, jobs in enumerate(parts):
        title = TITLE if len(parts) == 1 else f"{TITLE} (part {'ABCDEFGH'[index]})"
        visuals.append(render_tables([_table(instance, jobs, _prefix(instance, index), title)], notes))
    return visuals


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = []
    for index, jobs in enumerate(panels(instance)):
        prefix = _prefix(instance, index)
        labels += [ExpectedLabel(f"{prefix}machine:{m}", m) for m in instance["sets"]["machines"]]
        for job in jobs:
            labels.append(ExpectedLabel(f"{prefix}job:{job}", job))
            for field, _ in _extras(instance):
                labels.append(ExpectedLabel(f"{prefix}{field}:{job}", str(instance[field][job])))
            for machine in instance["eligibility"][job]:
                labels.append(
                    ExpectedLabel(
                        f"{prefix}time:{job}/{machine}",
                        str(instance["effective_processing_time"][job][machine]),
                    )
                )
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(t) for row in instance["effective_processing_time"].values() for t in row.values()}
    for field, _ in _extras(instance):
        values |= {int(v) for v in instance[field].values()}
    return values
