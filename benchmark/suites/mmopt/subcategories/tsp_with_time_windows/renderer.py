"""The TSPTW visuals: a depot-and-customer map without edges or tour (visual_0) and a table of
coordinates, time windows and service times (visual_1).

Geometry alone does not define the instance (App. E.5): the windows and service times are given
exactly in the table; the map only shows where the locations lie.
"""

from __future__ import annotations

import math
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
from benchmark.suites.mmopt.subcategories.tsp_with_time_windows.generator import grid_size

DEPOT_COLOR = "#c0392b"
CUSTOMER_COLOR = "#1f5fa8"
MAP_TITLE = (
    "Map: the red square is the depot, blue dots are customers",
    "Grid lines are one unit apart; exact coordinates and time windows are in the table",
)
HEADING = "The vehicle leaves the depot at time zero and must be back by the depot's closing time"


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    rows = []
    for name in instance["sets"]["nodes"]:
        x, y = instance["coordinates"][name]
        opens, closes = instance["time_windows"][name]
        key = f"v1/node:{name}:"
        rows.append(
            (
                (key + "name", name),
                (key + "x", str(x)),
                (key + "y", str(y)),
                (key + "open", str(opens)),
                (key + "close", str(closes)),
                (key + "service", str(instance["service_times"][name])),
            )
        )
    header = ("node", "x", "y", "window opens", "window closes", "service time")
    # blocks of seven rows, but never more than two side by side: a 32-row hard table as three to
    # five blocks of six columns each is too wide to read at the figure's scale
    per_block = max(7, math.ceil(len(rows) / 2))
    title = "Locations, time windows and service times"
    return [Table(title, header, tuple(rows), max_rows_per_block=per_block)]


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    depot = instance["depot"]
    markers = [
        MapMarker.at(name, instance["coordinates"][name], "s", DEPOT_COLOR, 12.0, bold=True)
        if name == depot
        else MapMarker.at(name, instance["coordinates"][name], "o", CUSTOMER_COLOR, 10.0)
        for name in instance["sets"]["nodes"]
    ]
    site_map = render_map(grid_size(instance), markers, [], MAP_TITLE, prefix="v0/")
    return [site_map, render_tables(("v1/heading", HEADING), _tables(instance))]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"v0/name:{name}", name) for name in instance["sets"]["nodes"]]
    labels += map_tick_labels(grid_size(instance), "v0/")
    labels.append(ExpectedLabel("v1/heading", HEADING))
    return labels + table_labels(_tables(instance))


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(c) for point in instance["coordinates"].values() for c in point}
    values |= {int(t) for window in instance["time_windows"].values() for t in window}
    return values | {int(s) for s in instance["service_times"].values()}
