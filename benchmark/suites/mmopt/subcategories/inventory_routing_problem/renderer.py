"""The inventory-routing visuals: a depot-and-customer map on a unit grid, without arcs or routes
(``visual_0.png``), and the data tables (``visual_1.png``): per node the exact coordinates and,
per customer, initial stock, storage capacity and holding cost; the demand of every customer in
every period (cells shaded by demand); and the vehicle's capacity and fixed dispatch cost.

Geometry alone does not define the instance (App. E.5): the coordinates the travel costs come from
are stated exactly in the table as well.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.spatial import MapMarker, map_tick_labels, render_map
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.model import DEPOT, customers_periods

GRID = 10
DEPOT_COLOR = "#c0392b"
CUSTOMER_COLOR = "#1f5fa8"
NONE = "—"
MAP_TITLE = (
    "Map: the red square is the depot, blue dots are customers",
    "Grid lines are one unit apart; exact coordinates are in the tables",
)
NODE_COLUMNS = (
    ("x", "x"),
    ("y", "y"),
    ("initial_inventory", "initial stock"),
    ("inventory_capacity", "storage capacity"),
    ("holding_cost", "holding cost"),
)
NOTES = (
    "initial stock: units on hand before the first period; storage capacity: most units a customer",
    "may hold at the end of a period; holding cost: paid per unit held at the end of a period.",
    "Demand cell: units the customer uses in that period (darker cells: higher demand).",
)
SHADES = ("#ffffff", "#eef4fb", "#dce9f6", "#c9ddf1", "#b6d1ec")


def _text(value: Any) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _node_value(instance: Mapping[str, Any], field: str, node: str) -> str:
    if field in ("x", "y"):
        return _text(instance["coordinates"][node]["xy".index(field)])
    return NONE if node == DEPOT else _text(instance[field][node])


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    customers, periods = customers_periods(instance)
    nodes = [DEPOT, *customers]
    node_table = Table(
        title="Depot and customers",
        corner="node",
        column_headers=[TableCell(header, bold=True) for _, header in NODE_COLUMNS],
        row_headers=[TableCell(n, key=f"v1/node:{n}", bold=True) for n in nodes],
        cells=[
            [
                TableCell(
                    _node_value(instance, f, n),
                    key=None if _node_value(instance, f, n) == NONE else f"v1/{f}:{n}",
                )
                for f, _ in NODE_COLUMNS
            ]
            for n in nodes
        ],
    )
    values = [float(v) for row in instance["demands"].values() for v in row.values()]
    low, spread = min(values), max(values) - min(values) + 1
    demand_table = Table(
        title="Demand per customer and period",
        corner="customer",
        column_headers=[TableCell(t, key=f"v1/period:{t}", bold=True) for t in periods],
        row_headers=[TableCell(c, key=f"v1/demand_customer:{c}", bold=True) for c in customers],
        cells=[
            [
                TableCell(
                    _text(instance["demands"][c][t]),
                    key=f"v1/demand:{c}/{t}",
                    fill=SHADES[int(len(SHADES) * (float(instance["demands"][c][t]) - low) / spread)],
                )
                for t in periods
            ]
            for c in customers
        ],
        zebra=False,
    )
    vehicle = instance["sets"]["vehicles"][0]
    fleet_table = Table(
        title="Vehicle (one trip from the depot per period at most)",
        corner="vehicle",
        column_headers=[TableCell("capacity", bold=True), TableCell("dispatch cost per trip", bold=True)],
        row_headers=[TableCell(vehicle, key="v1/vehicle", bold=True)],
        cells=[
            [
                TableCell(_text(instance["vehicle_capacity"]), key="v1/vehicle_capacity"),
                TableCell(_text(instance.get("fixed_dispatch_cost", 0)), key="v1/fixed_dispatch_cost"),
            ]
        ],
    )
    return [node_table, demand_table, fleet_table]


def _markers(instance: Mapping[str, Any]) -> list[MapMarker]:
    markers = []
    for node in instance["sets"]["nodes"]:
        x, y = instance["coordinates"][node]
        if node == DEPOT:
            markers.append(MapMarker(node, int(x), int(y), "s", DEPOT_COLOR, 12.0, bold=True))
        else:
            markers.append(MapMarker(node, int(x), int(y), "o", CUSTOMER_COLOR, 10.0))
    return markers


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    site_map = render_map(GRID, _markers(instance), [], MAP_TITLE, prefix="v0/")
    return [site_map, render_tables(_tables(instance), NOTES)]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"v0/name:{n}", n) for n in instance["sets"]["nodes"]]
    labels += map_tick_labels(GRID, "v0/")
    for table in _tables(instance):
        for header in (*table.column_headers, *table.row_headers):
            if header.key is not None:
                labels.append(ExpectedLabel(header.key, header.text))
        labels += [ExpectedLabel(c.key, c.text) for row in table.cells for c in row if c.key is not None]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    customers, _ = customers_periods(instance)
    values = {int(c) for point in instance["coordinates"].values() for c in point}
    values |= {int(v) for row in instance["demands"].values() for v in row.values()}
    for field in ("initial_inventory", "inventory_capacity", "holding_cost"):
        values |= {int(instance[field][c]) for c in customers}
    return values | {int(instance["vehicle_capacity"]), int(instance.get("fixed_dispatch_cost", 0))}
