"""The facility-location visuals: a coverage map (visual_0) and a data table (visual_1).

The map gives the geometry a reader reasons with (which customers lie inside which circle, who is
near whom); the table states every coordinate, opening cost, coverage radius, capacity and demand
exactly, since integer positions read off a grid by eye are not a specification.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.spatial import (
    CoverageCircle,
    MapMarker,
    Table,
    map_tick_labels,
    number_text,
    render_map,
    render_tables,
    table_labels,
)

PALETTE = ("#1f5fa8", "#c0392b", "#1e8449", "#8e44ad", "#b9770e", "#138d90", "#c2185b", "#5d6d7e")
MAP_TITLE = (
    "Facility map: triangles are candidate facilities, squares are customers",
    "Dashed circle: coverage area of the facility drawn in the same colour",
)


def _capacitated(instance: Mapping[str, Any]) -> bool:
    return all("capacity" in f for f in instance["facilities"])


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    capacitated = _capacitated(instance)
    header = (
        "facility",
        "x",
        "y",
        "opening cost",
        *(("capacity",) if capacitated else ()),
        "coverage radius",
    )
    rows = []
    for f in instance["facilities"]:
        key = f"v1/facility:{f['name']}:"
        cells = [(key + "name", f["name"]), (key + "x", str(f["x"])), (key + "y", str(f["y"]))]
        cells.append((key + "opening_cost", str(f["opening_cost"])))
        if capacitated:
            cells.append((key + "capacity", str(f["capacity"])))
        cells.append((key + "coverage_radius", number_text(f["coverage_radius"])))
        rows.append(tuple(cells))
    customer_rows = tuple(
        (
            (f"v1/customer:{c['name']}:name", c["name"]),
            (f"v1/customer:{c['name']}:x", str(c["x"])),
            (f"v1/customer:{c['name']}:y", str(c["y"])),
            (f"v1/customer:{c['name']}:demand", str(c["demand"])),
        )
        for c in instance["customers"]
    )
    return [
        Table("Candidate facilities", header, tuple(rows)),
        Table("Customers", ("customer", "x", "y", "demand"), customer_rows, max_rows_per_block=9),
    ]


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    markers = [
        MapMarker(f["name"], f["x"], f["y"], "^", PALETTE[i % len(PALETTE)], 14.0, bold=True)
        for i, f in enumerate(instance["facilities"])
    ]
    markers += [MapMarker(c["name"], c["x"], c["y"], "s", "#9a9a9a", 9.0) for c in instance["customers"]]
    circles = [
        CoverageCircle(f["x"], f["y"], float(f["coverage_radius"]), PALETTE[i % len(PALETTE)])
        for i, f in enumerate(instance["facilities"])
    ]
    coverage_map = render_map(instance["grid_size"], markers, circles, MAP_TITLE, prefix="v0/")
    return [coverage_map, render_tables(None, _tables(instance))]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    names = [f["name"] for f in instance["facilities"]] + [c["name"] for c in instance["customers"]]
    labels = [ExpectedLabel(f"v0/name:{name}", name) for name in names]
    labels += map_tick_labels(instance["grid_size"], "v0/")
    return labels + table_labels(_tables(instance))


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values: set[int] = set()
    for f in instance["facilities"]:
        values |= {f["x"], f["y"], f["opening_cost"], *([f["capacity"]] if "capacity" in f else [])}
        if float(f["coverage_radius"]).is_integer():
            values.add(int(f["coverage_radius"]))
    for c in instance["customers"]:
        values |= {c["x"], c["y"], c["demand"]}
    return values
