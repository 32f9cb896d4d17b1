"""Spatial instances for the location family: integer layouts, exact distances, map and table visuals.

Location problems (facility location, p-median/p-center) price assignments by Euclidean distance.
The official release rounds such continuous objectives to four decimals and scores them with an
absolute tolerance of 1e-3, so one rule is fixed here and used by the generator, the generated
``solver_ref.py`` and the validator alike: distances are exact (``math.dist`` of integer
coordinates, never rounded), totals are summed exactly, and only the final objective is rounded to
:data:`OBJECTIVE_DECIMALS` decimals. Rounding each distance first would let the per-term errors add
up past the scoring tolerance on the larger instances.

Visuals (App. C.3): a map on a labelled integer grid (names at the markers, coverage circles where
coverage matters) and a table panel that states every coordinate and attribute exactly, because a
value read off a grid by eye is not exact. Every text on either figure is reported to the label
audit; grid tick numbers are reported under ``tick:`` keys and belong to the expected labels.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.transforms import IdentityTransform

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, Rejected, RenderedVisual
from benchmark.suites.mmopt.generation.rendering import (
    FONT_FAMILY,
    LabelPlacer,
    default_style,
    new_figure,
)

OBJECTIVE_DECIMALS = 4
Point = tuple[int, int]


def distance(a: Sequence[float], b: Sequence[float]) -> float:
    """The exact Euclidean distance, the one every artifact uses."""
    return math.dist(a, b)


def number_text(value: float) -> str:
    """A coordinate-like value as drawn and written: ``6`` or ``5.5``."""
    return str(int(value)) if float(value).is_integer() else str(value)


def round_objective(value: float) -> float:
    """The reported objective: rounded to :data:`OBJECTIVE_DECIMALS` decimals (never ``-0.0``)."""
    return round(value, OBJECTIVE_DECIMALS) + 0.0


def sample_points(
    rng: random.Random,
    count: int,
    low: int,
    high: int,
    min_separation: float,
    avoid: Sequence[Point] = (),
    accept: Callable[[Point], bool] | None = None,
) -> list[Point]:
    """``count`` integer points in ``[low, high]²`` at least ``min_separation`` apart from each
    other and from ``avoid`` (so markers and their name labels have room on the map), each passing
    ``accept`` when given (e.g. "near some facility")."""
    points: list[Point] = []
    for _ in range(200 * count):
        if len(points) == count:
            break
        candidate = (rng.randint(low, high), rng.randint(low, high))
        if accept is not None and not accept(candidate):
            continue
        if all(distance(candidate, other) >= min_separation for other in (*points, *avoid)):
            points.append(candidate)
    if len(points) < count:
        raise Rejected("structure: points do not fit at the required separation")
    return points


def min_separation(points: Sequence[Point]) -> float:
    return min(
        (distance(a, b) for i, a in enumerate(points) for b in points[i + 1 :]),
        default=math.inf,
    )


# --------------------------------------------------------------------------------------------------
# Map


@dataclass(frozen=True)
class MapMarker:
    """A named point on the map; ``marker`` is a matplotlib marker code."""

    name: str
    x: int
    y: int
    marker: str
    color: str
    size_pt: float
    bold: bool = False

    @classmethod
    def at(
        cls, name: str, xy: Sequence[int], marker: str, color: str, size_pt: float, *, bold: bool = False
    ) -> MapMarker:
        """The marker at an instance's ``[x, y]`` coordinates (JSON gives a list of two)."""
        x, y = xy
        return cls(name, x, y, marker, color, size_pt, bold)


@dataclass(frozen=True)
class CoverageCircle:
    x: int
    y: int
    radius: float
    color: str


MAP_PIXELS = 760
_MARGIN_LEFT, _MARGIN_BOTTOM, _MARGIN_RIGHT, _MARGIN_TOP = 46.0, 40.0, 24.0, 96.0
_NAME_OFFSETS = (
    (1.0, 0.0),
    (-1.0, 0.0),
    (0.0, 1.0),
    (0.0, -1.0),
    (0.8, 0.8),
    (-0.8, 0.8),
    (0.8, -0.8),
    (-0.8, -0.8),
)


def map_tick_labels(grid_size: int, prefix: str) -> list[ExpectedLabel]:
    """The grid numbers the map draws along both axes (every integer from 0 to ``grid_size``)."""
    return [
        ExpectedLabel(f"{prefix}tick:{axis}:{value}", str(value))
        for axis in ("x", "y")
        for value in range(grid_size + 1)
    ]


def _register_fixed(placer: LabelPlacer, key: str, artist: Text) -> None:
    """A label positioned by the caller, also registered as an obstacle for later labels."""
    box = artist.get_window_extent(renderer=placer.renderer)
    placer.add_box(key, (box.x0, box.y0, box.x1, box.y1))
    placer.fixed(key, artist)


def _runs(mask: np.ndarray) -> list[slice]:
    """Maximal stretches of ``True`` in ``mask`` as slices."""
    runs, start = [], None
    for i, flag in enumerate(mask):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            runs.append(slice(start, i))
            start = None
    if start is not None:
        runs.append(slice(start, len(mask)))
    return runs


def render_map(
    grid_size: int,
    markers: Sequence[MapMarker],
    circles: Sequence[CoverageCircle],
    title_lines: Sequence[str],
    prefix: str,
) -> RenderedVisual:
    """A square map of ``[0, grid_size]²`` with a line at every integer, numbered along the bottom
    and the left, the markers with their names beside them, and dashed coverage circles clipped
    to the grid. Names go where they touch no other label, marker or circle if possible, and
    otherwise where they touch only circles (a name box may hide a short piece of an arc, never a
    marker). Labels: ``<prefix>name:<name>``, ``<prefix>tick:x|y:<v>``, ``note:title<i>``.
    """
    unit = max(36.0, min(60.0, (MAP_PIXELS - _MARGIN_LEFT - _MARGIN_RIGHT) / grid_size))
    width = round(_MARGIN_LEFT + grid_size * unit + _MARGIN_RIGHT)
    height = round(_MARGIN_BOTTOM + grid_size * unit + _MARGIN_TOP)
    with default_style():
        fig, ax = new_figure(width, height)
        ax.set_xlim(-_MARGIN_LEFT / unit, (width - _MARGIN_LEFT) / unit)
        ax.set_ylim(-_MARGIN_BOTTOM / unit, (height - _MARGIN_BOTTOM) / unit)
        placer = LabelPlacer(fig, ax, margin_px=2.0, line_margin_px=3.0)
        for value in range(grid_size + 1):
            strong = value % 5 == 0
            style: dict[str, Any] = {  # matplotlib's Line2D keywords
                "color": "#b9b9b9" if strong else "#dddddd",
                "lw": 0.9 if strong else 0.6,
                "zorder": 0,
            }
            ax.plot([value, value], [0, grid_size], **style)
            ax.plot([0, grid_size], [value, value], **style)
        frame = Rectangle((0, 0), grid_size, grid_size, fill=False, edgecolor="#888888", lw=1.0, zorder=0)
        ax.add_patch(frame)
        for value in range(grid_size + 1):
            bottom = ax.text(
                value, -0.5 * _MARGIN_BOTTOM / unit, str(value), ha="center", va="center", fontsize=10,
                fontfamily=FONT_FAMILY, color="#333333",
            )  # fmt: skip
            _register_fixed(placer, f"{prefix}tick:x:{value}", bottom)
            left = ax.text(
                -0.5 * _MARGIN_LEFT / unit, value, str(value), ha="center", va="center", fontsize=10,
                fontfamily=FONT_FAMILY, color="#333333",
            )  # fmt: skip
            _register_fixed(placer, f"{prefix}tick:y:{value}", left)

        for index, circle in enumerate(circles):
            angles = np.linspace(0.0, 2 * math.pi, 1441)
            ring = np.column_stack(
                (circle.x + circle.radius * np.cos(angles), circle.y + circle.radius * np.sin(angles))
            )
            inside = (
                (ring[:, 0] >= 0) & (ring[:, 0] <= grid_size) & (ring[:, 1] >= 0) & (ring[:, 1] <= grid_size)
            )
            # the circle is drawn only over the grid: one dashed polyline per stretch inside it
            for run in _runs(inside):
                ax.plot(
                    ring[run, 0], ring[run, 1], color=circle.color, lw=1.6, linestyle=(0, (5, 3)), zorder=1
                )
            placer.add_path(f"circle:{index}", placer.to_display(ring[inside]))

        for marker in markers:
            ax.plot(
                [marker.x], [marker.y], marker=marker.marker, markersize=marker.size_pt, color=marker.color,
                markeredgecolor="#111111", markeredgewidth=1.0, linestyle="none", zorder=3,
            )  # fmt: skip
            centre = placer.to_display((marker.x, marker.y))
            half = marker.size_pt * 100 / 72 / 2 + 1.0
            placer.add_box(f"marker:{marker.name}", (*(centre - half), *(centre + half)))

        title_y = height - 17.0
        for line_index, line in enumerate(title_lines):
            at = np.array([width / 2, title_y - 28.0 * line_index])
            weight = "bold" if line_index == 0 else "normal"
            if placer.place(f"note:title{line_index}", line, [at], set(), 11.5, weight=weight) is None:
                raise Rejected("visual: title does not fit")

        circle_keys = {f"circle:{i}" for i in range(len(circles))}
        for marker in markers:
            centre = placer.to_display((marker.x, marker.y))
            half_marker = marker.size_pt * 100 / 72 / 2 + 5.0
            probe = Text(0, 0, marker.name, fontsize=11, fontfamily=FONT_FAMILY,
                         fontweight="bold" if marker.bold else "normal")  # fmt: skip
            probe.set_figure(fig)
            extent = probe.get_window_extent(renderer=placer.renderer)
            half_w, half_h = extent.width / 2 + 4.0, extent.height / 2 + 4.0
            # centres where the name box just clears the marker, then a ring a little farther out
            near = [centre + np.array([dx * (half_marker + half_w), dy * (half_marker + half_h)])
                    for dx, dy in _NAME_OFFSETS]  # fmt: skip
            far = [centre + np.array([dx * (half_marker + half_w + 10), dy * (half_marker + half_h + 8)])
                   for dx, dy in _NAME_OFFSETS]  # fmt: skip
            key = f"{prefix}name:{marker.name}"
            name_style: dict[str, str] = {
                "color": marker.color if marker.bold else "#111111",
                "weight": "bold" if marker.bold else "normal",
                "facecolor": "white",
            }
            own: set[str] = set()  # a name never covers a marker, not even its own
            # nearest ring first; a name may cover a piece of a circle only when no spot avoids them
            stages = ((near, own), (near, own | circle_keys), (far, own), (far, own | circle_keys))
            if not any(
                placer.place(key, marker.name, spots, owners, 11, **name_style) for spots, owners in stages
            ):
                raise Rejected("visual: no free place for a name on the map")
        return placer.rendered()


# --------------------------------------------------------------------------------------------------
# Table panel


@dataclass(frozen=True)
class Table:
    """One titled table. ``header`` cells are decorative (no digits); each row is a sequence of
    ``(key, text)`` cells whose keys the expected labels name."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[tuple[str, str], ...], ...]
    max_rows_per_block: int = 10  # longer tables continue in a second block to the right


_ROW_PX = 25.0
_CELL_PAD_PX = 18.0
_BLOCK_GAP_PX = 36.0
_SIDE_PX = 24.0


def table_labels(tables: Sequence[Table]) -> list[ExpectedLabel]:
    return [ExpectedLabel(key, text) for table in tables for row in table.rows for key, text in row]


def render_tables(heading: tuple[str, str] | None, tables: Sequence[Table]) -> RenderedVisual:
    """Tables stacked top to bottom (each split into side-by-side blocks when long), optionally
    under a heading line ``(key, text)`` that carries an instance value (e.g. ``p = 3``).
    Labels: every cell under its own key, headers and titles as ``note:`` labels."""
    with default_style():
        probe, _ = new_figure(100, 100)
        renderer = probe.canvas.get_renderer()  # type: ignore[attr-defined]

        def text_width(text: str, bold: bool) -> float:
            artist = Text(
                0, 0, text, fontsize=11, fontfamily=FONT_FAMILY, fontweight="bold" if bold else "normal"
            )
            artist.set_figure(probe)
            return float(artist.get_window_extent(renderer=renderer).width)

        layouts = []  # (table, column widths, blocks of rows)
        for table in tables:
            widths = [text_width(h, True) for h in table.header]
            for row in table.rows:
                widths = [max(w, text_width(text, False)) for w, (_, text) in zip(widths, row, strict=True)]
            widths = [w + _CELL_PAD_PX for w in widths]
            count = math.ceil(len(table.rows) / table.max_rows_per_block)
            size = math.ceil(len(table.rows) / count)  # balanced blocks: 13 rows -> 7 + 6
            blocks = [table.rows[i : i + size] for i in range(0, len(table.rows), size)]
            layouts.append((table, widths, blocks))
        width = 2 * _SIDE_PX + max(
            max(len(blocks) * sum(widths) + (len(blocks) - 1) * _BLOCK_GAP_PX, text_width(table.title, True))
            for table, widths, blocks in layouts
        )
        if heading is not None:
            width = max(width, 2 * _SIDE_PX + text_width(heading[1], True) * 1.2)
        height = _SIDE_PX + (1.6 * _ROW_PX if heading is not None else 0.0)
        for _, _, blocks in layouts:
            height += 1.4 * _ROW_PX + (1 + max(len(b) for b in blocks)) * _ROW_PX + 0.8 * _ROW_PX
        width, height = round(width), round(height)

        fig, ax = new_figure(width, height)
        ax.set_xlim(0, width)
        ax.set_ylim(0, height)
        placer = LabelPlacer(fig, ax)

        def put(key: str, text: str, x: float, y: float, *, bold: bool = False, size: float = 11) -> None:
            artist = ax.text(
                x, y, text, transform=IdentityTransform(), ha="center", va="center", fontsize=size,
                fontfamily=FONT_FAMILY, fontweight="bold" if bold else "normal", zorder=3,
            )  # fmt: skip
            _register_fixed(placer, key, artist)

        top = height - _SIDE_PX / 2
        if heading is not None:
            put(heading[0], heading[1], width / 2, top - 0.6 * _ROW_PX, bold=True, size=13)
            top -= 1.6 * _ROW_PX
        for t, (table, widths, blocks) in enumerate(layouts):
            put(f"note:table{t}", table.title, width / 2, top - 0.7 * _ROW_PX, bold=True, size=12)
            top -= 1.4 * _ROW_PX
            block_width = sum(widths)
            span = len(blocks) * block_width + (len(blocks) - 1) * _BLOCK_GAP_PX
            for b, block in enumerate(blocks):
                left = (width - span) / 2 + b * (block_width + _BLOCK_GAP_PX)
                edges = np.cumsum([left, *widths])
                centres = (edges[:-1] + edges[1:]) / 2
                ax.add_patch(
                    Rectangle((left, top - _ROW_PX), block_width, _ROW_PX, facecolor="#e4ebf3",
                              edgecolor="none", transform=IdentityTransform(), zorder=1)
                )  # fmt: skip
                for c, header in enumerate(table.header):
                    put(f"note:table{t}:block{b}:head{c}", header, centres[c], top - _ROW_PX / 2, bold=True)
                for r, row in enumerate(block):
                    y = top - (r + 1.5) * _ROW_PX
                    if r % 2 == 1:
                        ax.add_patch(
                            Rectangle((left, y - _ROW_PX / 2), block_width, _ROW_PX, facecolor="#f3f3f3",
                                      edgecolor="none", transform=IdentityTransform(), zorder=1)
                        )  # fmt: skip
                    for c, (key, text) in enumerate(row):
                        put(key, text, centres[c], y, bold=c == 0)
                bottom = top - (len(block) + 1) * _ROW_PX
                for y in (top, top - _ROW_PX, bottom):
                    ax.plot([left, left + block_width], [y, y], color="#555555", lw=0.9, zorder=2)
            top -= (1 + max(len(b) for b in blocks)) * _ROW_PX + 0.8 * _ROW_PX
        return placer.rendered()


# --------------------------------------------------------------------------------------------------
# Reading names back from generated code


def resolve_name(raw: Any, names: Sequence[str]) -> str | None:
    """The instance name a returned value means: the exact name (``"F3"``), the same in another
    case or with spaces (``" f3 "``), or just its number (``3``, ``"3"``) when every name is one
    letter prefix plus a number. ``None`` when it names nothing."""
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        return None
    text = str(raw).strip()
    folded = {name.lower(): name for name in names}
    if text.lower() in folded:
        return folded[text.lower()]
    prefixes = {name.rstrip("0123456789") for name in names}
    if text.isdigit() and len(prefixes) == 1:
        return folded.get(f"{next(iter(prefixes))}{int(text)}".lower())
    return None
