"""The VRP visuals: a depot-and-customer map without edges or routes (visual_0) and a table of
coordinates and demands under the fleet line (visual_1).

Geometry alone does not define a VRP (App. E.5): demands and the fleet are in the table, exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.spatial import (
    MapMarker,
    Table,
    map_tick_labels,
    render_map,
    render_tables,
    table_labels,
)
from benchmark.suites.mmopt.subcategories.vehicle_routing_problem.generator import grid_size

DEPOT_COLOR = "#c0392b"
CUSTOMER_COLOR = "#1f5fa8"
NO_DEMAND = "—"
MAP_TITLE = (
    "Map: the red square is the depot, blue dots are customers",
    "Grid lines are one unit apart; exact coordinates and demands are in the table",
)


def fleet_text(instance: Mapping[str, Any]) -> str:
    count = len(instance["sets"]["vehicles"])
    return f"Fleet: {count} identical vehicles, capacity {instance['vehicle_capacity']} each"


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    rows = []
    for name in instance["sets"]["nodes"]:
        x, y = instance["coordinates"][name]
        demand = NO_DEMAND if name == instance["depot"] else str(instance["demands"][name])
        key = f"v1/node:{name}:"
        rows.append(
            ((key + "name", name), (key + "x", str(x)), (key + "y", str(y)), (key + "demand", demand))
        )
    return [Table("Depot and customers", ("node", "x", "y", "demand"), tuple(rows), max_rows_per_block=7)]


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    depot = instance["depot"]
    markers = [
        MapMarker.at(name, instance["coordinates"][name], "s", DEPOT_COLOR, 12.0, bold=True)
        if name == depot
        else MapMarker.at(name, instance["coordinates"][name], "o", CUSTOMER_COLOR, 10.0)
        for name in instance["sets"]["nodes"]
    ]
    site_map = render_map(grid_size(instance), markers, [], MAP_TITLE, prefix="v0/")
    return [site_map, render_tables(("v1/fleet", fleet_text(instance)), _tables(instance))]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"v0/name:{name}", name) for name in instance["sets"]["nodes"]]
    labels += map_tick_labels(grid_size(instance), "v0/")
    labels.append(ExpectedLabel("v1/fleet", fleet_text(instance)))
    return labels + table_labels(_tables(instance))


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(c) for point in instance["coordinates"].values() for c in point}
    values |= {int(d) for d in instance["demands"].values()}
    return values | {len(instance["sets"]["vehicles"]), int(instance["vehicle_capacity"])}
