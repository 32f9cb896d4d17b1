"""The unit-commitment dashboard (App. E.4): an economics table (per unit: marginal cost, startup
cost and, where the regime has them, minimum up/down times, ramp limit and the state before the
horizon), a demand timeline (the demand curve with its exact value at every period) and capacity
bands (per unit, a bar from its minimum to its maximum output, both ends labelled).

Easy instances put the three panels in one figure, medium ones the table in ``visual_0.png`` and
the timeline with the bands in ``visual_1.png``, hard ones one panel per figure. No commitment,
dispatch or schedule is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.rendering import default_style
from benchmark.suites.mmopt.generation.tables import (
    Table,
    TableCanvas,
    TableCell,
    draw_table,
    table_extent,
    text_width,
)
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.model import (
    has_min_up_down,
    has_ramping,
    units_periods,
)

MARGIN = 18.0
GAP = 30.0
TITLE_H = 34.0
PERIOD_W = 58.0
CHART_H = 230.0
BAND_ROW_H = 34.0
BAND_LEFT = 64.0  # room for the unit names left of the bands
BAND_PAD = 40.0  # room for the end labels on each side of the scale
LINE_COLOR = "#1f5fa8"
BAND_COLOR = "#f0a640"
PANELS = ("table", "demand", "bands")
ECONOMICS_TITLE = "Generator economics"
DEMAND_TITLE = "System demand per period (exact value at each point)"
BANDS_TITLE = "Output range of each generator when on (minimum to maximum)"


def panel_files(instance: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """Which panels go into which figure: one figure at easy, two at medium, three at hard."""
    difficulty = instance.get("difficulty", "easy")
    if difficulty == "hard":
        return [("table",), ("demand",), ("bands",)]
    if difficulty == "medium":
        return [("table",), ("demand", "bands")]
    return [PANELS]


def _prefix(instance: Mapping[str, Any], panel: str) -> str:
    files = panel_files(instance)
    if len(files) == 1:
        return ""
    return next(f"v{i}/" for i, panels in enumerate(files) if panel in panels)


def _columns(instance: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, header) of the economics table; ramp_up is shown as the one ramp limit."""
    columns = [("cost", "marginal cost"), ("startup_cost", "startup cost")]
    if "shutdown_cost" in instance:
        columns.append(("shutdown_cost", "shutdown cost"))
    if has_min_up_down(instance):
        columns += [("min_up", "min up"), ("min_down", "min down")]
    if has_ramping(instance):
        columns.append(("ramp_up", "ramp limit"))
    if any(instance["initial_status"].values()):
        columns.append(("initial_status", "initially"))
        if "initial_output" in instance:
            columns.append(("initial_output", "initial output"))
    return columns


def _cell_text(instance: Mapping[str, Any], field: str, unit: str) -> str:
    value = instance[field][unit]
    if field == "initial_status":
        return "on" if int(value) else "off"
    return str(value)


def _economics(instance: Mapping[str, Any]) -> Table:
    prefix = _prefix(instance, "table")
    units, _ = units_periods(instance)
    columns = _columns(instance)
    return Table(
        title=ECONOMICS_TITLE,
        corner="generator",
        column_headers=[TableCell(header, bold=True) for _, header in columns],
        row_headers=[TableCell(g, key=f"{prefix}unit:{g}", bold=True) for g in units],
        cells=[
            [TableCell(_cell_text(instance, f, g), key=f"{prefix}{f}:{g}") for f, _ in columns] for g in units
        ],
    )


def _chart_width(instance: Mapping[str, Any]) -> float:
    _, periods = units_periods(instance)
    titles = max(text_width(t, 12.0, bold=True) for t in (DEMAND_TITLE, BANDS_TITLE))
    return max(titles + 8.0, 70.0 + PERIOD_W * len(periods))


def _panel_size(instance: Mapping[str, Any], panel: str) -> tuple[float, float]:
    if panel == "table":
        return table_extent(_economics(instance))
    if panel == "demand":
        return _chart_width(instance), TITLE_H + CHART_H + 34.0
    units, _ = units_periods(instance)
    return _chart_width(instance), TITLE_H + BAND_ROW_H * len(units) + 16.0


def _title(canvas: TableCanvas, text: str, left: float, top: float) -> None:
    canvas.text(left, top + 14.0, TableCell(text, bold=True), size=12.0, ha="left")


def _draw_demand(canvas: TableCanvas, instance: Mapping[str, Any], left: float, top: float) -> None:
    prefix = _prefix(instance, "demand")
    _, periods = units_periods(instance)
    _title(canvas, DEMAND_TITLE, left, top)
    width = _chart_width(instance)
    base = top + TITLE_H + CHART_H  # the time axis
    peak = max(instance["demand"].values())
    scale = (CHART_H - 40.0) / peak
    step = (width - 60.0) / len(periods)
    xs = [left + 50.0 + step * (k + 0.5) for k in range(len(periods))]
    ys = [base - instance["demand"][t] * scale for t in periods]
    ax = canvas.ax
    ax.plot([left + 40.0, left + width - 10.0], [base, base], color="#3c4650", lw=1.2, zorder=2)
    ax.plot([left + 40.0, left + 40.0], [base, top + TITLE_H + 6.0], color="#3c4650", lw=1.2, zorder=2)
    ax.fill_between(xs, ys, [base] * len(xs), color="#dce9f6", zorder=1)
    ax.plot(xs, ys, color=LINE_COLOR, lw=2.0, marker="o", markersize=6, zorder=3)
    for x, y, period in zip(xs, ys, periods, strict=True):
        ax.plot([x, x], [base, base + 4.0], color="#3c4650", lw=1.0, zorder=2)
        canvas.text(
            x, y - 14.0, TableCell(str(instance["demand"][period]), key=f"{prefix}demand:{period}", bold=True)
        )
        canvas.text(x, base + 16.0, TableCell(period, key=f"{prefix}period:{period}"))
    canvas.text(left + 44.0, top + TITLE_H + 10.0, TableCell("demand", color="#44546a"), size=10.0, ha="left")


def _draw_bands(canvas: TableCanvas, instance: Mapping[str, Any], left: float, top: float) -> None:
    prefix = _prefix(instance, "bands")
    units, _ = units_periods(instance)
    _title(canvas, BANDS_TITLE, left, top)
    width = _chart_width(instance)
    start = left + BAND_LEFT + BAND_PAD
    span = width - BAND_LEFT - 2 * BAND_PAD
    scale = span / max(instance["pmax"].values())
    ax = canvas.ax
    for k, unit in enumerate(units):
        y = top + TITLE_H + BAND_ROW_H * (k + 0.5)
        low, high = start + instance["pmin"][unit] * scale, start + instance["pmax"][unit] * scale
        ax.plot([start, left + width - BAND_PAD], [y, y], color="#dddddd", lw=1.0, zorder=1)
        ax.fill_between([low, high], [y - 9.0] * 2, [y + 9.0] * 2, color=BAND_COLOR, zorder=2)
        canvas.text(left + 8.0, y, TableCell(unit, key=f"{prefix}band_unit:{unit}", bold=True), ha="left")
        canvas.text(
            low - 6.0, y, TableCell(str(instance["pmin"][unit]), key=f"{prefix}pmin:{unit}"), ha="right"
        )
        canvas.text(
            high + 6.0, y, TableCell(str(instance["pmax"][unit]), key=f"{prefix}pmax:{unit}"), ha="left"
        )


def _render_file(instance: Mapping[str, Any], panels: Sequence[str]) -> RenderedVisual:
    sizes = [_panel_size(instance, p) for p in panels]
    width = 2 * MARGIN + max(w for w, _ in sizes)
    height = 2 * MARGIN + sum(h for _, h in sizes) + GAP * (len(panels) - 1)
    with default_style():
        canvas = TableCanvas(width, height)
        top = MARGIN
        for panel, (_, panel_height) in zip(panels, sizes, strict=True):
            if panel == "table":
                draw_table(canvas, _economics(instance), MARGIN, top)
            elif panel == "demand":
                _draw_demand(canvas, instance, MARGIN, top)
            else:
                _draw_bands(canvas, instance, MARGIN, top)
            top += panel_height + GAP
        return canvas.placer.rendered()


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    return [_render_file(instance, panels) for panels in panel_files(instance)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    units, periods = units_periods(instance)
    table, demand, bands = (_prefix(instance, p) for p in PANELS)
    labels = []
    for unit in units:
        labels.append(ExpectedLabel(f"{table}unit:{unit}", unit))
        labels += [
            ExpectedLabel(f"{table}{f}:{unit}", _cell_text(instance, f, unit)) for f, _ in _columns(instance)
        ]
        labels.append(ExpectedLabel(f"{bands}band_unit:{unit}", unit))
        labels.append(ExpectedLabel(f"{bands}pmin:{unit}", str(instance["pmin"][unit])))
        labels.append(ExpectedLabel(f"{bands}pmax:{unit}", str(instance["pmax"][unit])))
    for period in periods:
        labels.append(ExpectedLabel(f"{demand}demand:{period}", str(instance["demand"][period])))
        labels.append(ExpectedLabel(f"{demand}period:{period}", period))
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    units, _ = units_periods(instance)
    values = {int(v) for v in instance["demand"].values()}
    for field in ("pmin", "pmax"):
        values |= {int(instance[field][g]) for g in units}
    for field, _ in _columns(instance):
        if field != "initial_status":
            values |= {int(instance[field][g]) for g in units}
    return values
