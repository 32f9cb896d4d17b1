"""The TSP visuals: a city map without edges or tour (visual_0) and the coordinate table (visual_1).

The map shows where the cities lie (the start city as a bold red square); the table gives every
coordinate exactly, since a position read off a grid by eye is not exact. No leg, no cost and no
tour is drawn (App. E.5: the complete graph is implied by the task text).
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
from benchmark.suites.mmopt.subcategories.travel_salesman_problem.generator import grid_size

START_COLOR = "#c0392b"
CITY_COLOR = "#1f5fa8"
MAP_TITLE = (
    "City map: the red square is the start city, blue dots are the other cities",
    "Grid lines are one distance unit apart; exact coordinates are in the table",
)


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    rows = tuple(
        (
            (f"v1/city:{name}:name", name),
            (f"v1/city:{name}:x", str(instance["coordinates"][name][0])),
            (f"v1/city:{name}:y", str(instance["coordinates"][name][1])),
        )
        for name in instance["sets"]["nodes"]
    )
    return [Table("City coordinates", ("city", "x", "y"), rows, max_rows_per_block=8)]


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    root = instance["root_city"]
    markers = [
        MapMarker.at(name, instance["coordinates"][name], "s", START_COLOR, 12.0, bold=True)
        if name == root
        else MapMarker.at(name, instance["coordinates"][name], "o", CITY_COLOR, 10.0)
        for name in instance["sets"]["nodes"]
    ]
    city_map = render_map(grid_size(instance), markers, [], MAP_TITLE, prefix="v0/")
    return [city_map, render_tables(None, _tables(instance))]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"v0/name:{name}", name) for name in instance["sets"]["nodes"]]
    labels += map_tick_labels(grid_size(instance), "v0/")
    return labels + table_labels(_tables(instance))


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    return {int(c) for point in instance["coordinates"].values() for c in point}
