"""The job-shop operation layout (App. C.3 Example C, App. E.3): one row per job, one block per
operation in precedence order, each block labelled with its operation, machine and duration.

Explicitly not a Gantt chart: every block has the same width whatever its duration and the x axis
is the position in the job's route, not time, so nothing of a schedule (start times, machine
sequences, the makespan) can be read off the picture. Blocks are tinted by machine only to help the
eye find an operation's machine; the machine name is written in every block.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.rendering import FONT_FAMILY, LabelPlacer, default_style, new_figure

BLOCK_W, BLOCK_H = 92, 72
GAP = 34  # room for the precedence arrow between two blocks
ROW_H = 92
LEFT, TOP, BOTTOM, RIGHT = 78, 86, 22, 24
FONT_PT = 11.0
TITLE = "Operation layout: one row per job, operations in processing order"
LEGEND = "Each block: operation (top), required machine (middle), processing time p (bottom)"
NOT_A_SCHEDULE = "Block widths and positions are not times: no schedule is shown"
PALETTE = (
    "#cfe2f3",
    "#fcd9b6",
    "#d2ecc9",
    "#f7c6c7",
    "#e0d4ef",
    "#f6eab0",
    "#d9d9d9",
    "#f2d0e6",
)  # fmt: skip  (eight clearly different tints; the machine name is written in every block anyway)


def duration_text(duration: Any) -> str:
    return f"p={duration}"


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    jobs = instance["sets"]["jobs"]
    machines = instance["sets"]["machines"]
    operations = instance["sets"]["operations"]
    widest = max(len(ops) for ops in operations.values())
    content = LEFT + widest * (BLOCK_W + GAP) - GAP + RIGHT
    width = max(content, 780)
    shift = (width - content) / 2  # a short layout sits in the middle under the title
    height = TOP + len(jobs) * ROW_H + BOTTOM
    tint = {machine: PALETTE[k % len(PALETTE)] for k, machine in enumerate(machines)}
    with default_style():
        fig, ax = new_figure(width, height)
        ax.set_xlim(0, width)
        ax.set_ylim(height, 0)  # data units are pixels from the top left
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

        text("note:title", width / 2, 22, TITLE, 12.0, "bold")
        text("note:legend", width / 2, 46, LEGEND, 10.0)
        text("note:no_schedule", width / 2, 66, NOT_A_SCHEDULE, 10.0)
        for row, job in enumerate(jobs):
            y = TOP + row * ROW_H + ROW_H / 2
            text(f"job:{job}", shift + LEFT / 2, y, job, 13.0, "bold")
            for col, op in enumerate(operations[job]):
                x0 = shift + LEFT + col * (BLOCK_W + GAP)
                machine = instance["machine_assignment"][job][op]
                ax.add_patch(
                    FancyBboxPatch(
                        (x0, y - BLOCK_H / 2),
                        BLOCK_W,
                        BLOCK_H,
                        boxstyle="round,pad=0,rounding_size=8",
                        facecolor=tint[machine],
                        edgecolor="#44546a",
                        linewidth=1.2,
                    )
                )
                cx = x0 + BLOCK_W / 2
                text(f"op:{job}/{op}", cx, y - 21, op, FONT_PT, "bold")
                text(f"machine:{job}/{op}", cx, y, machine, FONT_PT)
                text(
                    f"duration:{job}/{op}",
                    cx,
                    y + 21,
                    duration_text(instance["processing_time"][job][op]),
                    FONT_PT,
                )
                if col:
                    ax.add_patch(
                        FancyArrowPatch(
                            (x0 - GAP + 3, y),
                            (x0 - 3, y),
                            arrowstyle="-|>",
                            mutation_scale=14,
                            color="#44546a",
                            linewidth=1.4,
                        )
                    )
        return [placer.rendered()]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = []
    for job, ops in instance["sets"]["operations"].items():
        labels.append(ExpectedLabel(f"job:{job}", job))
        for op in ops:
            labels.append(ExpectedLabel(f"op:{job}/{op}", op))
            labels.append(ExpectedLabel(f"machine:{job}/{op}", instance["machine_assignment"][job][op]))
            labels.append(
                ExpectedLabel(f"duration:{job}/{op}", duration_text(instance["processing_time"][job][op]))
            )
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    return {int(p) for times in instance["processing_time"].values() for p in times.values()}
