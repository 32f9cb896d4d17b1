"""Exact tables and matrices as visuals (App. C.3: incidence, cost and resource views).

Covering and assignment instances are defined by entries of a matrix (an incidence mark, a cost, a
resource use), so the faithful carrier is a grid whose every entry sits in its own cell under a
row and a column header. This module lays such grids out from measured text sizes, so no entry can
spill into its neighbour, stacks several grids (each with its own title) in one figure, and reports
every text it draws to the label audit of :mod:`.rendering`: entries and headers under the keys
the caller gives, decorative texts (titles, corner captions, legends) as ``note:`` labels, which
may hold no digits.

Coordinates are figure pixels with the origin at the top left, the same frame the audit uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle

from benchmark.suites.mmopt.generation.protocol import RenderedVisual
from benchmark.suites.mmopt.generation.rendering import (
    DECORATIVE_PREFIX,
    DPI,
    FONT_FAMILY,
    LabelPlacer,
    default_style,
    new_figure,
)

FONT_PT = 11.0
TITLE_PT = 12.0
CELL_PAD_PX = 9.0  # horizontal room on each side of a cell's text
ROW_HEIGHT_PX = 28.0
MIN_CELL_WIDTH_PX = 34.0
MARGIN_PX = 16.0
TABLE_GAP_PX = 26.0
GRID_COLOR = "#9aa3ad"
HEADER_FILL = "#e4e9f0"
ZEBRA_FILL = "#f4f6f9"
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class TableCell:
    """One entry: ``key`` is the audit key of a public value; ``None`` marks a decorative text (it
    may hold no digits) or, with empty ``text``, a blank cell."""

    text: str
    key: str | None = None
    fill: str | None = None  # None: the table's default (header colour or zebra stripes)
    color: str = "black"
    bold: bool = False


@dataclass(frozen=True)
class Table:
    """A grid with a title line, a corner caption, column headers, row headers and entries.

    ``thick_after`` lists column indices after which a heavier rule separates groups of columns
    (e.g. a cost column from the incidence marks), ``bold_every`` draws a heavier rule after every
    that many entry columns and rows so a reader can count along long rows.
    """

    title: str
    corner: str
    column_headers: Sequence[TableCell]
    row_headers: Sequence[TableCell]
    cells: Sequence[Sequence[TableCell]]
    thick_after: tuple[int, ...] = ()
    bold_every: int = 0
    zebra: bool = True


@dataclass
class _Measure:
    renderer: RendererAgg = field(default_factory=lambda: RendererAgg(10, 10, DPI))

    def width(self, text: str, size: float, bold: bool = False) -> float:
        if not text:
            return 0.0
        prop = FontProperties(family=FONT_FAMILY, size=size, weight="bold" if bold else "normal")
        width, _, _ = self.renderer.get_text_width_height_descent(text, prop, ismath=False)
        return float(width)


def _check(table: Table) -> None:
    if len(table.cells) != len(table.row_headers):
        raise ValueError("one row of cells per row header expected")
    if any(len(row) != len(table.column_headers) for row in table.cells):
        raise ValueError("one cell per column header expected in every row")
    decorative = [table.title, table.corner]
    decorative += [c.text for c in (*table.column_headers, *table.row_headers) if c.key is None]
    decorative += [c.text for row in table.cells for c in row if c.key is None]
    if any(_DIGIT.search(text) for text in decorative):
        raise ValueError("a decorative table text holds a digit; give it an audit key instead")


@dataclass(frozen=True)
class BarPanel:
    """A bar chart drawn above the tables (a demand curve of a planning dashboard): one bar per
    category, its exact value written on top (``values``, audit-keyed) and its name under the
    axis (``categories``). Bar heights are proportional to ``heights``; the written value is what
    counts, the bar only lets the eye find peaks."""

    title: str
    categories: Sequence[TableCell]
    values: Sequence[TableCell]
    heights: Sequence[float]
    fill: str = "#9fc3e7"


BAR_PANEL_HEIGHT_PX = 190.0
BAR_WIDTH_PX = 46.0


def _bar_panel_width(panel: BarPanel, measure: _Measure) -> float:
    widest = max(measure.width(c.text, FONT_PT, c.bold) for c in (*panel.categories, *panel.values))
    return max(BAR_WIDTH_PX, widest + 2 * CELL_PAD_PX) * len(panel.categories)


@dataclass(frozen=True)
class _Layout:
    header_width: float
    column_widths: tuple[float, ...]

    @property
    def width(self) -> float:
        return self.header_width + sum(self.column_widths)


def _layout(table: Table, measure: _Measure) -> _Layout:
    header = max(
        [measure.width(c.text, FONT_PT, bold=True) for c in table.row_headers]
        + [measure.width(table.corner, FONT_PT)]
    )
    widths = []
    for j, column in enumerate(table.column_headers):
        texts = [measure.width(column.text, FONT_PT, bold=True)]
        texts += [measure.width(row[j].text, FONT_PT, row[j].bold) for row in table.cells]
        widths.append(max(MIN_CELL_WIDTH_PX, max(texts) + 2 * CELL_PAD_PX))
    # the entry columns after the last heavy rule share one width, so the grid reads as a matrix
    first = max(table.thick_after) + 1 if table.thick_after else 0
    if first < len(widths):
        widths[first:] = [max(widths[first:])] * (len(widths) - first)
    return _Layout(header + 2 * CELL_PAD_PX, tuple(widths))


def _table_height(table: Table) -> float:
    return ROW_HEIGHT_PX * 1.3 + ROW_HEIGHT_PX * (len(table.row_headers) + 1)


class _Canvas:
    """Draws cells and texts on a figure whose data units are pixels from the top left."""

    def __init__(self, width: float, height: float) -> None:
        self.fig, self.ax = new_figure(round(width), round(height))
        self.ax.set_xlim(0, round(width))
        self.ax.set_ylim(round(height), 0)
        self.placer = LabelPlacer(self.fig, self.ax)
        self.notes = 0

    def text(self, x: float, y: float, cell: TableCell, *, size: float = FONT_PT, ha: str = "center") -> None:
        if not cell.text:
            return
        artist = self.ax.text(
            x,
            y,
            cell.text,
            ha=ha,
            va="center",
            fontsize=size,
            fontfamily=FONT_FAMILY,
            color=cell.color,
            fontweight="bold" if cell.bold else "normal",
            zorder=5,
        )
        key = cell.key
        if key is None:
            self.notes += 1
            key = f"{DECORATIVE_PREFIX}text{self.notes}"
        self.placer.fixed(key, artist)

    def box(self, x: float, y: float, w: float, h: float, fill: str | None) -> None:
        self.ax.add_patch(
            Rectangle((x, y), w, h, facecolor=fill or "white", edgecolor=GRID_COLOR, linewidth=0.8, zorder=1)
        )

    def rule(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.ax.plot([x0, x1], [y0, y1], color="#3c4650", linewidth=1.8, zorder=3, solid_capstyle="butt")


def _draw_table(canvas: _Canvas, table: Table, layout: _Layout, left: float, top: float) -> None:
    canvas.text(left, top + ROW_HEIGHT_PX * 0.6, TableCell(table.title, bold=True), size=TITLE_PT, ha="left")
    y0 = top + ROW_HEIGHT_PX * 1.3
    edges = [left + layout.header_width]
    for width in layout.column_widths:
        edges.append(edges[-1] + width)
    canvas.box(left, y0, layout.header_width, ROW_HEIGHT_PX, HEADER_FILL)
    canvas.text(
        left + layout.header_width / 2, y0 + ROW_HEIGHT_PX / 2, TableCell(table.corner, color="#44546a")
    )
    for j, header in enumerate(table.column_headers):
        canvas.box(edges[j], y0, layout.column_widths[j], ROW_HEIGHT_PX, header.fill or HEADER_FILL)
        canvas.text((edges[j] + edges[j + 1]) / 2, y0 + ROW_HEIGHT_PX / 2, header)
    for i, (row_header, row) in enumerate(zip(table.row_headers, table.cells, strict=True)):
        y = y0 + ROW_HEIGHT_PX * (i + 1)
        stripe = ZEBRA_FILL if table.zebra and i % 2 == 1 else None
        canvas.box(left, y, layout.header_width, ROW_HEIGHT_PX, row_header.fill or HEADER_FILL)
        canvas.text(left + layout.header_width / 2, y + ROW_HEIGHT_PX / 2, row_header)
        for j, cell in enumerate(row):
            canvas.box(edges[j], y, layout.column_widths[j], ROW_HEIGHT_PX, cell.fill or stripe)
            canvas.text((edges[j] + edges[j + 1]) / 2, y + ROW_HEIGHT_PX / 2, cell)
    bottom = y0 + ROW_HEIGHT_PX * (len(table.row_headers) + 1)
    right = edges[-1]
    canvas.rule(left, y0 + ROW_HEIGHT_PX, right, y0 + ROW_HEIGHT_PX)
    canvas.rule(edges[0], y0, edges[0], bottom)
    columns = len(table.column_headers)
    for j in table.thick_after:
        canvas.rule(edges[j + 1], y0, edges[j + 1], bottom)
    if table.bold_every:
        first = (max(table.thick_after) + 1) if table.thick_after else 0
        for j in range(first + table.bold_every, columns, table.bold_every):
            canvas.ax.plot([edges[j]] * 2, [y0, bottom], color="#6b7580", linewidth=1.2, zorder=2)
        for i in range(table.bold_every, len(table.row_headers), table.bold_every):
            y = y0 + ROW_HEIGHT_PX * (i + 1)
            canvas.ax.plot([left, right], [y, y], color="#6b7580", linewidth=1.2, zorder=2)


def _draw_bars(canvas: _Canvas, panel: BarPanel, left: float, top: float, width: float) -> None:
    canvas.text(left, top + ROW_HEIGHT_PX * 0.6, TableCell(panel.title, bold=True), size=TITLE_PT, ha="left")
    base = top + BAR_PANEL_HEIGHT_PX - ROW_HEIGHT_PX
    room = BAR_PANEL_HEIGHT_PX - 2.9 * ROW_HEIGHT_PX  # title above, value label on the tallest bar
    step = width / len(panel.categories)
    tallest = max(max(panel.heights), 1e-9)
    for k, (category, value, amount) in enumerate(
        zip(panel.categories, panel.values, panel.heights, strict=True)
    ):
        x = left + k * step
        bar = room * amount / tallest
        box = Rectangle((x + step * 0.18, base - bar), step * 0.64, bar, facecolor=panel.fill)
        box.set(edgecolor="#44546a", linewidth=0.8, zorder=2)
        canvas.ax.add_patch(box)
        canvas.text(x + step / 2, base - bar - ROW_HEIGHT_PX * 0.45, value)
        canvas.text(x + step / 2, base + ROW_HEIGHT_PX * 0.5, category)
    canvas.rule(left, base, left + width, base)


def render_tables(
    tables: Sequence[Table], notes: Sequence[str] = (), bars: BarPanel | None = None
) -> RenderedVisual:
    """One figure: an optional bar panel, the tables stacked top to bottom, then ``notes`` (legend
    lines, no digits)."""
    for table in tables:
        _check(table)
    if any(_DIGIT.search(note) for note in notes):
        raise ValueError("a note holds a digit")
    if bars is not None and (_DIGIT.search(bars.title) or len(bars.values) != len(bars.categories)):
        raise ValueError("a bar panel needs a title without digits and one value per category")
    measure = _Measure()
    layouts = [_layout(table, measure) for table in tables]
    title_widths = [measure.width(t.title, TITLE_PT, bold=True) for t in tables]
    note_widths = [measure.width(note, FONT_PT) for note in notes]
    if bars is not None:
        title_widths += [measure.width(bars.title, TITLE_PT, bold=True), _bar_panel_width(bars, measure)]
    width = 2 * MARGIN_PX + max([layout.width for layout in layouts] + title_widths + note_widths)
    height = 2 * MARGIN_PX + sum(_table_height(t) for t in tables) + TABLE_GAP_PX * (len(tables) - 1)
    height += ROW_HEIGHT_PX * 0.8 * len(notes) + (ROW_HEIGHT_PX * 0.4 if notes else 0.0)
    if bars is not None:
        height += BAR_PANEL_HEIGHT_PX + TABLE_GAP_PX
    with default_style():
        canvas = _Canvas(width, height)
        top = MARGIN_PX
        if bars is not None:
            _draw_bars(canvas, bars, MARGIN_PX, top, _bar_panel_width(bars, measure))
            top += BAR_PANEL_HEIGHT_PX + TABLE_GAP_PX
        for table, layout in zip(tables, layouts, strict=True):
            _draw_table(canvas, table, layout, MARGIN_PX, top)
            top += _table_height(table) + TABLE_GAP_PX
        top += ROW_HEIGHT_PX * 0.4 - TABLE_GAP_PX
        for note in notes:
            canvas.text(MARGIN_PX, top + ROW_HEIGHT_PX * 0.4, TableCell(note, color="#303840"), ha="left")
            top += ROW_HEIGHT_PX * 0.8
        return canvas.placer.rendered()


# --------------------------------------------------------------------------------------------------
# tables inside a composed figure (dashboards that mix tables and charts)


class TableCanvas(_Canvas):
    """A pixel canvas (origin top left) on which callers draw tables and their own charts; every
    text goes through :meth:`text`, so the label audit sees it."""


def table_extent(table: Table) -> tuple[float, float]:
    """Width and height in pixels that :func:`draw_table` needs for ``table``."""
    _check(table)
    return _layout(table, _Measure()).width, _table_height(table)


def draw_table(canvas: TableCanvas, table: Table, left: float, top: float) -> None:
    """Draw ``table`` with its title at (``left``, ``top``) on a composed canvas."""
    _check(table)
    _draw_table(canvas, table, _layout(table, _Measure()), left, top)


def text_width(text: str, size: float = FONT_PT, bold: bool = False) -> float:
    """Width in pixels of ``text`` as a table or a composed canvas draws it."""
    return _Measure().width(text, size, bold)
