"""The generalized-assignment visuals: an agent × job cost table and an agent × job resource-use
table with each agent's capacity in front of its row.

Up to :data:`JOBS_PER_FIGURE` jobs both tables share one figure (cost on top); wider instances get
one figure per table (``visual_0.png`` costs, ``visual_1.png`` resource use and capacities), so each
image stays at a size where every entry is legible.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables

JOBS_PER_FIGURE = 12
COST_TITLE = "Cost table: cost of giving each job (column) to each agent (row)"
USE_TITLE = "Resource table: capacity of each agent and the resource each job uses on it"
COST_NOTE = "Cost table cell: the cost of assigning that job to that agent."
USE_NOTES = (
    "Resource table cell: how much of the agent's capacity that job uses if assigned to that agent.",
    "capacity: the most resource the agent of that row may use in total.",
)


def split(instance: Mapping[str, Any]) -> bool:
    return len(instance["sets"]["tasks"]) > JOBS_PER_FIGURE


def _prefixes(instance: Mapping[str, Any]) -> tuple[str, str]:
    """Key prefixes of the cost and the resource table (``v<index>/`` when they are two figures)."""
    return ("v0/cost", "v1/use") if split(instance) else ("cost", "use")


def _cost_table(instance: Mapping[str, Any], prefix: str) -> Table:
    jobs = list(instance["sets"]["tasks"])
    return Table(
        title=COST_TITLE,
        corner="agent",
        column_headers=[TableCell(j, key=f"{prefix}/job:{j}", bold=True) for j in jobs],
        row_headers=[TableCell(a, key=f"{prefix}/agent:{a}", bold=True) for a in instance["sets"]["agents"]],
        cells=[
            [TableCell(str(instance["cost_matrix"][a][j]), key=f"{prefix}/entry:{a}/{j}") for j in jobs]
            for a in instance["sets"]["agents"]
        ],
        bold_every=5,
    )


def _use_table(instance: Mapping[str, Any], prefix: str) -> Table:
    jobs = list(instance["sets"]["tasks"])
    columns = [TableCell("capacity", bold=True)]
    columns += [TableCell(j, key=f"{prefix}/job:{j}", bold=True) for j in jobs]
    cells = []
    for agent in instance["sets"]["agents"]:
        line = [
            TableCell(str(instance["agent_capacities"][agent]), key=f"{prefix}/capacity:{agent}", bold=True)
        ]
        line += [
            TableCell(str(instance["resource_matrix"][agent][j]), key=f"{prefix}/entry:{agent}/{j}")
            for j in jobs
        ]
        cells.append(line)
    return Table(
        title=USE_TITLE,
        corner="agent",
        column_headers=columns,
        row_headers=[TableCell(a, key=f"{prefix}/agent:{a}", bold=True) for a in instance["sets"]["agents"]],
        cells=cells,
        thick_after=(0,),
        bold_every=5,
    )


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    cost_prefix, use_prefix = _prefixes(instance)
    cost, use = _cost_table(instance, cost_prefix), _use_table(instance, use_prefix)
    if split(instance):
        return [render_tables([cost], [COST_NOTE]), render_tables([use], USE_NOTES)]
    return [render_tables([cost, use], [COST_NOTE, *USE_NOTES])]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    cost_prefix, use_prefix = _prefixes(instance)
    labels = []
    for prefix in (cost_prefix, use_prefix):
        labels += [ExpectedLabel(f"{prefix}/job:{j}", j) for j in instance["sets"]["tasks"]]
        labels += [ExpectedLabel(f"{prefix}/agent:{a}", a) for a in instance["sets"]["agents"]]
    for agent in instance["sets"]["agents"]:
        labels.append(
            ExpectedLabel(f"{use_prefix}/capacity:{agent}", str(instance["agent_capacities"][agent]))
        )
        for job in instance["sets"]["tasks"]:
            labels.append(
                ExpectedLabel(f"{cost_prefix}/entry:{agent}/{job}", str(instance["cost_matrix"][agent][job]))
            )
            labels.append(
                ExpectedLabel(
                    f"{use_prefix}/entry:{agent}/{job}", str(instance["resource_matrix"][agent][job])
                )
            )
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(v) for row in instance["cost_matrix"].values() for v in row.values()}
    values |= {int(v) for row in instance["resource_matrix"].values() for v in row.values()}
    return values | {int(v) for v in instance["agent_capacities"].values()}
