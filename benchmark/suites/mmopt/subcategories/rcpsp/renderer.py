"""The RCPSP visuals (App. C.3, E.3): two images.

``visual_0.png`` is the precedence network: activities as boxes in layer columns (name and
duration ``d=…`` in each box), a dummy Start on the left and End on the right, arrows for the
precedence arcs (only between neighbouring columns, so no arrow passes behind a box).
``visual_1.png`` is the resource panel: an activity × resource demand table with each resource's
capacity in the last row. Nothing of a schedule is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.rendering import FONT_FAMILY, LabelPlacer, default_style, new_figure
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables

BOX_W, BOX_H = 76, 52
COLUMN_GAP = 70
ROW_GAP = 26
TOP, MARGIN = 70, 24
NETWORK_TITLE = "Project network: an arrow from one activity to another means the first must finish first"
NETWORK_NOTE = "Each box: activity name and its duration d; Start and End are dummy activities"
TABLE_TITLE = "Resource demand of each activity while it runs, and the capacity of each resource"
TABLE_NOTES = ("Cell: units of the resource (column) the activity (row) uses during its whole duration.",)


def duration_text(value: Any) -> str:
    return f"d={value}"


def _network(instance: Mapping[str, Any]) -> RenderedVisual:
    layers = instance["visual_layout"]["layers"]
    tallest = max(len(layer) for layer in layers)
    width = max(2 * MARGIN + len(layers) * BOX_W + (len(layers) - 1) * COLUMN_GAP, 820)
    height = TOP + tallest * BOX_H + (tallest - 1) * ROW_GAP + 2 * MARGIN
    shift = (width - (2 * MARGIN + len(layers) * BOX_W + (len(layers) - 1) * COLUMN_GAP)) / 2
    centre: dict[str, tuple[float, float]] = {}
    for k, layer in enumerate(layers):
        x = shift + MARGIN + k * (BOX_W + COLUMN_GAP) + BOX_W / 2
        column = len(layer) * BOX_H + (len(layer) - 1) * ROW_GAP
        top = TOP + (height - TOP - MARGIN - column) / 2
        for i, activity in enumerate(layer):
            centre[activity] = (x, top + i * (BOX_H + ROW_GAP) + BOX_H / 2)
    with default_style():
        fig, ax = new_figure(width, height)
        ax.set_xlim(0, width)
        ax.set_ylim(height, 0)
        placer = LabelPlacer(fig, ax)

        def text(key: str, x: float, y: float, value: str, size: float, weight: str = "normal") -> None:
            artist = ax.text(
                x,
                y,
                value,
                ha="center",
                va="center",
                fontsize=size,
                fontfamily=FONT_FAMILY,
                fontweight=weight,
            )
            placer.fixed(key, artist)

        text("note:title", width / 2, 22, NETWORK_TITLE, 11.5, "bold")
        text("note:legend", width / 2, 44, NETWORK_NOTE, 10.0)
        for u, v in instance["precedence_arcs"]:
            (x0, y0), (x1, y1) = centre[u], centre[v]
            ax.add_patch(
                FancyArrowPatch(
                    (x0 + BOX_W / 2, y0),
                    (x1 - BOX_W / 2, y1),
                    arrowstyle="-|>",
                    mutation_scale=13,
                    color="#44546a",
                    linewidth=1.2,
                    shrinkA=1,
                    shrinkB=2,
                )
            )
        for activity, (x, y) in centre.items():
            dummy = activity in ("Start", "End")
            ax.add_patch(
                FancyBboxPatch(
                    (x - BOX_W / 2, y - BOX_H / 2),
                    BOX_W,
                    BOX_H,
                    boxstyle="round,pad=0,rounding_size=7",
                    facecolor="#eeeeee" if dummy else "#dbe9f6",
                    edgecolor="#44546a",
                    linewidth=1.2,
                    zorder=3,
                )
            )
            if dummy:
                text(f"v0/activity:{activity}", x, y, activity, 11.0, "bold")
            else:
                text(f"v0/activity:{activity}", x, y - 11, activity, 11.0, "bold")
                text(
                    f"v0/duration:{activity}", x, y + 12, duration_text(instance["duration"][activity]), 11.0
                )
        return placer.rendered()


def _resource_table(instance: Mapping[str, Any]) -> RenderedVisual:
    resources, real = instance["sets"]["resources"], instance["sets"]["real_activities"]
    cells = [
        [TableCell(str(instance["resource_demand"][a][r]), key=f"v1/demand:{a}/{r}") for r in resources]
        for a in real
    ]
    cells.append(
        [
            TableCell(
                str(instance["resource_capacity"][r]), key=f"v1/capacity:{r}", bold=True, fill="#fdf1d8"
            )
            for r in resources
        ]
    )
    table = Table(
        title=TABLE_TITLE,
        corner="activity",
        column_headers=[TableCell(r, key=f"v1/resource:{r}", bold=True) for r in resources],
        row_headers=[TableCell(a, key=f"v1/activity:{a}", bold=True) for a in real]
        + [TableCell("capacity", bold=True)],
        cells=cells,
        bold_every=5,
    )
    return render_tables([table], TABLE_NOTES)


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    return [_network(instance), _resource_table(instance)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"v0/activity:{a}", a) for a in instance["sets"]["activities"]]
    labels += [
        ExpectedLabel(f"v0/duration:{a}", duration_text(instance["duration"][a]))
        for a in instance["sets"]["real_activities"]
    ]
    labels += [ExpectedLabel(f"v1/resource:{r}", r) for r in instance["sets"]["resources"]]
    labels += [
        ExpectedLabel(f"v1/capacity:{r}", str(instance["resource_capacity"][r]))
        for r in instance["sets"]["resources"]
    ]
    for a in instance["sets"]["real_activities"]:
        labels.append(ExpectedLabel(f"v1/activity:{a}", a))
        labels += [
            ExpectedLabel(f"v1/demand:{a}/{r}", str(instance["resource_demand"][a][r]))
            for r in instance["sets"]["resources"]
        ]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(instance["duration"][a]) for a in instance["sets"]["real_activities"]}
    values |= {int(v) for row in instance["resource_demand"].values() for v in row.values()}
    return values | {int(v) for v in instance["resource_capacity"].values()}
