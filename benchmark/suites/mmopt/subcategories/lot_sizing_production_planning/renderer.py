"""The lot-sizing dashboard: a demand grid (products × periods, cells shaded by demand like a
heatmap) with the shared capacity of every period in its last row, and a cost table (per product:
unit production cost, unit holding cost per period, setup cost, setup time where the instance has
setup times, initial stock).

Easy instances put both tables in one figure; medium and hard ones, whose grids are wider, get one
figure each (``visual_0.png`` the demand grid, ``visual_1.png`` the cost table).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables

DEMAND_TITLE = "Demand per product and period, and the shared production capacity of each period"
COST_TITLE = "Costs and data per product (the same in every period)"
DEMAND_NOTES = (
    "Demand cell: units of the product needed in that period (darker cells: higher demand).",
    "capacity row: units all products together may use in that period.",
)
COST_NOTES = (
    "production: cost per unit made; holding: cost per unit in stock at the end of a period;",
    "setup: cost paid in each period a product is made;",
    "initial stock: units on hand before the first period.",
)
SETUP_TIME_NOTE = "setup time: capacity a product's setup uses in each period it is made."
SHADES = ("#ffffff", "#eef4fb", "#dce9f6", "#c9ddf1", "#b6d1ec")


def split(instance: Mapping[str, Any]) -> bool:
    return str(instance["difficulty"]) != "easy"


def _prefixes(instance: Mapping[str, Any]) -> tuple[str, str]:
    return ("v0/demand", "v1/cost") if split(instance) else ("demand", "cost")


COST_COLUMNS = (
    ("production_cost", "production"),
    ("holding_cost", "holding"),
    ("setup_cost", "setup"),
)


def _cost_columns(instance: Mapping[str, Any]) -> list[tuple[str, str]]:
    columns = list(COST_COLUMNS)
    if "setup_time" in instance:
        columns.append(("setup_time", "setup time"))
    columns.append(("initial_inventory", "initial stock"))
    return columns


def _cost_value(instance: Mapping[str, Any], field: str, product: str) -> str:
    value = instance[field][product]
    if isinstance(value, Mapping):  # per-period costs, constant over the horizon
        value = next(iter(value.values()))
    return str(value)


def _demand_table(instance: Mapping[str, Any], prefix: str) -> Table:
    periods, products = instance["sets"]["periods"], instance["sets"]["products"]
    values = [v for row in instance["demand"].values() for v in row.values()]
    low, spread = min(values), max(values) - min(values) + 1  # shades span this instance's range
    cells = []
    for product in products:
        line = []
        for period in periods:
            value = instance["demand"][product][period]
            shade = SHADES[int(len(SHADES) * (value - low) / spread)]
            line.append(TableCell(str(value), key=f"{prefix}/demand:{product}/{period}", fill=shade))
        cells.append(line)
    cells.append(
        [
            TableCell(str(instance["capacity"][t]), key=f"{prefix}/capacity:{t}", bold=True, fill="#fdf1d8")
            for t in periods
        ]
    )
    return Table(
        title=DEMAND_TITLE,
        corner="product",
        column_headers=[TableCell(t, key=f"{prefix}/period:{t}", bold=True) for t in periods],
        row_headers=[TableCell(p, key=f"{prefix}/product:{p}", bold=True) for p in products]
        + [TableCell("capacity", bold=True)],
        cells=cells,
        zebra=False,
    )


def _cost_table(instance: Mapping[str, Any], prefix: str) -> Table:
    columns = _cost_columns(instance)
    products = instance["sets"]["products"]
    return Table(
        title=COST_TITLE,
        corner="product",
        column_headers=[TableCell(header, bold=True) for _, header in columns],
        row_headers=[TableCell(p, key=f"{prefix}/product:{p}", bold=True) for p in products],
        cells=[
            [TableCell(_cost_value(instance, f, p), key=f"{prefix}/{f}:{p}") for f, _ in columns]
            for p in products
        ],
    )


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    demand_prefix, cost_prefix = _prefixes(instance)
    demand, cost = _demand_table(instance, demand_prefix), _cost_table(instance, cost_prefix)
    cost_notes = [*COST_NOTES, SETUP_TIME_NOTE] if "setup_time" in instance else list(COST_NOTES)
    if split(instance):
        return [render_tables([demand], DEMAND_NOTES), render_tables([cost], cost_notes)]
    return [render_tables([demand, cost], [*DEMAND_NOTES, *cost_notes])]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    demand_prefix, cost_prefix = _prefixes(instance)
    products, periods = instance["sets"]["products"], instance["sets"]["periods"]
    labels = [ExpectedLabel(f"{demand_prefix}/period:{t}", t) for t in periods]
    labels += [ExpectedLabel(f"{demand_prefix}/capacity:{t}", str(instance["capacity"][t])) for t in periods]
    for product in products:
        labels.append(ExpectedLabel(f"{demand_prefix}/product:{product}", product))
        labels.append(ExpectedLabel(f"{cost_prefix}/product:{product}", product))
        labels += [
            ExpectedLabel(f"{demand_prefix}/demand:{product}/{t}", str(instance["demand"][product][t]))
            for t in periods
        ]
        labels += [
            ExpectedLabel(f"{cost_prefix}/{f}:{product}", _cost_value(instance, f, product))
            for f, _ in _cost_columns(instance)
        ]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    products = instance["sets"]["products"]
    values = {int(v) for row in instance["demand"].values() for v in row.values()}
    values |= {int(v) for v in instance["capacity"].values()}
    for field, _ in _cost_columns(instance):
        values |= {int(_cost_value(instance, field, p)) for p in products}
    return values
