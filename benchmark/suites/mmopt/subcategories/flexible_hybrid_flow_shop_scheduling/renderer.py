"""The flexible flow-shop visuals (App. C.3): stage and eligibility panels, no schedule drawn.

``visual_0.png`` is the stage architecture: the stages as boxes from left to right in processing
order, joined by arrows, each holding its parallel machines. ``visual_1.png`` is the
processing-time matrix (job × stage). Hard instances add ``visual_2.png``, the eligibility matrix
(job × machine, grouped by stage): "yes" where the job may run on the machine, "no" where not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.rendering import FONT_FAMILY, LabelPlacer, default_style, new_figure
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables
from benchmark.suites.mmopt.subcategories.flexible_hybrid_flow_shop_scheduling.generator import eligible

STAGE_TITLE = "Stage architecture: every job passes the stages from left to right"
STAGE_LEGEND = "Each stage box lists its parallel identical machines; a job runs on one of them per stage"
STAGE_W, MACHINE_H, GAP, TOP, HEAD, MARGIN = 128, 34, 54, 84, 40, 24
TIME_TITLE = "Processing time of each job at each stage (the same on every machine of the stage)"
ELIGIBILITY_TITLE = "Machine eligibility: may the job run on the machine?"
NOTES = ("Every job visits every stage in the order of the stage architecture figure.",)
ELIGIBILITY_NOTES = ("yes: the job may use this machine at its stage; no: it may not.",)
STAGE_FILL = ("#dbeafe", "#dff3e4", "#fef3c7", "#f8d8d8", "#e0d4ef")


def has_eligibility(instance: Mapping[str, Any]) -> bool:
    return "eligible_machines" in instance


def _stage_panel(instance: Mapping[str, Any]) -> RenderedVisual:
    stages = instance["sets"]["stages"]
    machines = instance["sets"]["machines_by_stage"]
    tallest = max(len(m) for m in machines.values())
    box_h = HEAD + tallest * (MACHINE_H + 8) + 8
    content = len(stages) * (STAGE_W + GAP) - GAP
    width = max(content + 2 * MARGIN, 760)
    left = (width - content) / 2
    height = TOP + box_h + MARGIN
    with default_style():
        fig, ax = new_figure(width, height)
        ax.set_xlim(0, width)
        ax.set_ylim(height, 0)  # data units are pixels from the top left
        placer = LabelPlacer(fig, ax)

        def text(key: str, x: float, y: float, value: str, size: float, weight: str = "normal") -> None:
            artist = ax.text(x, y, value, ha="center", va="center", fontsize=size, fontfamily=FONT_FAMILY,
                             fontweight=weight, zorder=5)  # fmt: skip
            placer.fixed(key, artist)

        text("note:title", width / 2, 24, STAGE_TITLE, 12.0, "bold")
        text("note:legend", width / 2, 50, STAGE_LEGEND, 10.0)
        for k, stage in enumerate(stages):
            x0 = left + k * (STAGE_W + GAP)
            fill = STAGE_FILL[k % len(STAGE_FILL)]
            ax.add_patch(
                FancyBboxPatch((x0, TOP), STAGE_W, box_h, boxstyle="round,pad=0,rounding_size=10",
                               facecolor=fill, edgecolor="#44546a", linewidth=1.4)
            )  # fmt: skip
            text(f"v0/stage:{stage}", x0 + STAGE_W / 2, TOP + HEAD / 2, stage, 13.0, "bold")
            for r, machine in enumerate(machines[stage]):
                y0 = TOP + HEAD + r * (MACHINE_H + 8)
                slot = FancyBboxPatch(
                    (x0 + 14, y0), STAGE_W - 28, MACHINE_H, boxstyle="round,pad=0,rounding_size=6"
                )
                slot.set(facecolor="white", edgecolor="#6b7580", linewidth=1.0)
                ax.add_patch(slot)
                text(f"v0/machine:{machine}", x0 + STAGE_W / 2, y0 + MACHINE_H / 2, machine, 11.0)
            if k:
                y = TOP + box_h / 2
                ax.add_patch(
                    FancyArrowPatch((x0 - GAP + 6, y), (x0 - 6, y), arrowstyle="-|>", mutation_scale=16,
                                    color="#44546a", linewidth=1.6)
                )  # fmt: skip
        return placer.rendered()


def _prefixes(instance: Mapping[str, Any]) -> tuple[str, str]:
    """(processing-time matrix, eligibility matrix) key prefixes."""
    return "v1", "v2"


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    machines = instance["sets"]["machines_by_stage"]
    p, e = _prefixes(instance)
    time_table = Table(
        title=TIME_TITLE,
        corner="job",
        column_headers=[
            TableCell(s, key=f"{p}/time_stage:{s}", bold=True, fill=STAGE_FILL[k % len(STAGE_FILL)])
            for k, s in enumerate(stages)
        ],
        row_headers=[TableCell(j, key=f"{p}/job:{j}", bold=True) for j in jobs],
        cells=[
            [TableCell(str(instance["processing_time"][j][s]), key=f"{p}/time:{j}/{s}") for s in stages]
            for j in jobs
        ],
    )
    visuals = [_stage_panel(instance), render_tables([time_table], NOTES)]
    if has_eligibility(instance):
        columns = [(s, m) for s in stages for m in machines[s]]
        bounds, count = [], -1
        for s in stages[:-1]:
            count += len(machines[s])
            bounds.append(count)
        table = Table(
            title=ELIGIBILITY_TITLE,
            corner="job",
            column_headers=[TableCell(m, key=f"{e}/machine:{m}", bold=True) for _, m in columns],
            row_headers=[TableCell(j, key=f"{e}/job:{j}", bold=True) for j in jobs],
            cells=[
                [
                    TableCell("yes", key=f"{e}/eligible:{j}/{m}")
                    if m in eligible(instance, j, s)
                    else TableCell("no", key=f"{e}/eligible:{j}/{m}", fill="#d9d9d9")
                    for s, m in columns
                ]
                for j in jobs
            ],
            thick_after=tuple(bounds),
        )
        visuals.append(render_tables([table], ELIGIBILITY_NOTES))
    return visuals


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    machines = instance["sets"]["machines_by_stage"]
    p, e = _prefixes(instance)
    labels = []
    for s in stages:
        labels.append(ExpectedLabel(f"v0/stage:{s}", s))
        labels += [ExpectedLabel(f"v0/machine:{m}", m) for m in machines[s]]
        labels.append(ExpectedLabel(f"{p}/time_stage:{s}", s))
    for j in jobs:
        labels.append(ExpectedLabel(f"{p}/job:{j}", j))
        labels += [ExpectedLabel(f"{p}/time:{j}/{s}", str(instance["processing_time"][j][s])) for s in stages]
    if has_eligibility(instance):
        for s in stages:
            for m in machines[s]:
                labels.append(ExpectedLabel(f"{e}/machine:{m}", m))
                for j in jobs:
                    mark = "yes" if m in eligible(instance, j, s) else "no"
                    labels.append(ExpectedLabel(f"{e}/eligible:{j}/{m}", mark))
        labels += [ExpectedLabel(f"{e}/job:{j}", j) for j in jobs]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    return {int(v) for row in instance["processing_time"].values() for v in row.values()}
