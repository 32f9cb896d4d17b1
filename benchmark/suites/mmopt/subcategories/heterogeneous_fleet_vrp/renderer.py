"""The HFVRP visuals: a depot-and-customer map without edges or routes (visual_0) and two tables
(visual_1): the customers' coordinates and demands, and the fleet by vehicle type (number
available, capacity, fixed activation cost, cost per unit of distance).

Geometry alone does not define the instance (App. E.5): demands and the fleet are in the tables.
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
from benchmark.suites.mmopt.subcategories.heterogeneous_fleet_vrp.generator import grid_size

DEPOT_COLOR = "#c0392b"
CUSTOMER_COLOR = "#1f5fa8"
NO_DEMAND = "—"
MAP_TITLE = (
    "Map: the red square is the depot, blue dots are customers",
    "Grid lines are one unit apart; exact coordinates and demands are in the table",
)


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    rows = []
    for name in instance["sets"]["nodes"]:
        x, y = instance["coordinates"][name]
        demand = NO_DEMAND if name == instance["depot"] else str(instance["demands"][name])
        key = f"v1/node:{name}:"
        rows.append(
            ((key + "name", name), (key + "x", str(x)), (key + "y", str(y)), (key + "demand", demand))
        )
    fleet = []
    for name, values in instance["vehicle_type_parameters"].items():
        key = f"v1/type:{name}:"
        fleet.append(
            (
                (key + "name", name),
                (key + "available", str(values["available_count"])),
                (key + "capacity", str(values["capacity"])),
                (key + "fixed", f"{values['fixed_activation_cost']:.1f}"),
                (key + "multiplier", f"{values['distance_multiplier']:.2f}"),
            )
        )
    return [
        Table(
            "Fleet by vehicle type",
            ("type", "available", "capacity", "fixed cost if used", "cost per distance unit"),
            tuple(fleet),
        ),
        Table("Depot and customers", ("node", "x", "y", "demand"), tuple(rows), max_rows_per_block=6),
    ]


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    depot = instance["depot"]
    markers = [
        MapMarker.at(name, instance["coordinates"][name], "s", DEPOT_COLOR, 12.0, bold=True)
        if name == depot
        else MapMarker.at(name, instance["coordinates"][name], "o", CUSTOMER_COLOR, 10.0)
        for name in instance["sets"]["nodes"]
    ]
    site_map = render_map(grid_size(instance), markers, [], MAP_TITLE, prefix="v0/")
    return [site_map, render_tables(None, _tables(instance))]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    labels = [ExpectedLabel(f"v0/name:{name}", name) for name in instance["sets"]["nodes"]]
    labels += map_tick_labels(grid_size(instance), "v0/")
    return labels + table_labels(_tables(instance))


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(c) for point in instance["coordinates"].values() for c in point}
    values |= {int(d) for d in instance["demands"].values()}
    for parameters in instance["vehicle_type_parameters"].values():
        values |= {int(parameters["available_count"]), int(parameters["capacity"])}
        values |= {int(v) for v in (parameters["fixed_activation_cost"], parameters["distance_multiplier"])
                   if float(v).is_integer()}  # fmt: skip
    return values
