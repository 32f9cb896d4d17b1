"""Coefficient tables for the network subcategories (App. C.3).

When one annotated graph would be overloaded (per-period data of a time-expanded network, resource
budgets of a shortest-path problem), the numbers go into a table drawn as its own PNG.
:func:`render_table` lays the table out from measured text extents, so cells can never overlap,
and reports every cell as a drawn label for the pipeline's audit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from matplotlib.patches import Rectangle
from matplotlib.text import Text

from benchmark.suites.mmopt.generation.protocol import RenderedVisual
from benchmark.suites.mmopt.generation.rendering import FONT_FAMILY, LabelPlacer, default_style, new_figure

# --------------------------------------------------------------------------------------------------
# Coefficient tables


@dataclass(frozen=True)
class TableCell:
    """One cell: ``key`` is the audit key of the value it shows (``"v1/arc:1_3@2"``); ``text`` is
    drawn exactly as given."""

    key: str
    text: str


_FONT_PT = 12.0
_PAD_X = 16  # pixels between a cell's text and its column border, each side
_ROW_H_PAD = 14  # pixels above and below a cell's text
_MARGIN = 24
_HEADER_FILL = "#dbe4f0"
_STRIPE_FILL = "#f3f5f8"


def _measure(texts: Sequence[tuple[str, str]]) -> list[tuple[float, float]]:
    """Pixel (width, height) of each (text, weight) at the table font size; independent of the
    figure size, since the dpi is fixed."""
    fig, ax = new_figure(200, 200)
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    sizes = []
    for text, weight in texts:
        artist = ax.text(0, 0, text, fontsize=_FONT_PT, fontfamily=FONT_FAMILY, fontweight=weight)
        extent = artist.get_window_extent(renderer=renderer)
        sizes.append((float(extent.width), float(extent.height)))
    return sizes


def render_table(
    title: str, header: Sequence[TableCell], rows: Sequence[Sequence[TableCell]]
) -> RenderedVisual:
    """Draw a table: a bold header row, one row per entry of ``rows``, first column bold (row names).

    ``title`` is a decorative note (it must contain no digits; the audit enforces that). Every cell
    with a non-empty ``key`` is reported as a drawn label; a cell with an empty key must be empty.
    """
    width_of = len(header)
    if any(len(row) != width_of for row in rows):
        raise ValueError("every table row needs one cell per header cell")
    grid = [list(header), *(list(row) for row in rows)]
    weights = [["bold"] * width_of] + [["bold"] + ["normal"] * (width_of - 1) for _ in rows]
    flat = [(cell.text, weights[r][c]) for r, row in enumerate(grid) for c, cell in enumerate(row)]
    sizes = _measure([*flat, (title, "bold")])
    title_w, title_h = sizes[-1]
    cell_size = [sizes[r * width_of : (r + 1) * width_of] for r in range(len(grid))]
    col_w = [max(cell_size[r][c][0] for r in range(len(grid))) + 2 * _PAD_X for c in range(width_of)]
    row_h = max(h for row in cell_size for _, h in row) + 2 * _ROW_H_PAD
    table_w = sum(col_w)
    width = round(max(table_w, title_w) + 2 * _MARGIN)
    title_band = title_h + 2 * _ROW_H_PAD
    height = round(title_band + row_h * len(grid) + 2 * _MARGIN)

    with default_style():
        fig, ax = new_figure(width, height)
        ax.set_xlim(0, width)
        ax.set_ylim(0, height)  # data units are pixels, origin bottom left
        placer = LabelPlacer(fig, ax)
        left = (width - table_w) / 2
        top = height - _MARGIN - title_band
        title_artist = ax.text(
            width / 2, height - _MARGIN - title_band / 2, title, ha="center", va="center",
            fontsize=_FONT_PT, fontweight="bold", fontfamily=FONT_FAMILY,
        )  # fmt: skip
        placer.fixed("note:title", title_artist)
        for r, row in enumerate(grid):
            y_top = top - r * row_h
            fill = _HEADER_FILL if r == 0 else (_STRIPE_FILL if r % 2 == 0 else "white")
            ax.add_patch(Rectangle((left, y_top - row_h), table_w, row_h, facecolor=fill, edgecolor="none"))
            x = left
            for c, cell in enumerate(row):
                if cell.key:
                    artist: Text = ax.text(
                        x + col_w[c] / 2, y_top - row_h / 2, cell.text, ha="center", va="center",
                        fontsize=_FONT_PT, fontweight=weights[r][c], fontfamily=FONT_FAMILY, zorder=3,
                    )  # fmt: skip
                    placer.fixed(cell.key, artist)
                elif cell.text:
                    raise ValueError("a table cell with text needs a key for the label audit")
                x += col_w[c]
        lines: dict[str, Any] = {"color": "#8a94a6", "lw": 1.0, "zorder": 2}  # Line2D keywords
        bottom = top - row_h * len(grid)
        for r in range(len(grid) + 1):
            ax.plot([left, left + table_w], [top - r * row_h] * 2, **lines)
        x = left
        for c in range(width_of + 1):
            ax.plot([x, x], [bottom, top], **lines)
            x += col_w[c] if c < width_of else 0
        return placer.rendered()
