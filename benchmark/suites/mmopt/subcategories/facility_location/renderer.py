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
from benchmark.suites.mmopt.subcategories.facility_location.generator import (
    REGIMES,
    customer_names,
    facility_names,
    is_capacitated,
)

PALETTE = ("#1f5fa8", "#c0392b", "#1e8449", "#8e44ad", "#b9770e", "#138d90", "#c2185b", "#5d6d7e")
MAP_TITLE = (
    "Facility map: triangles are candidate facilities, squares are customers",
    "Dashed circle: coverage area of the facility drawn in the same colour",
)


def _facilities(instance: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(name, instance["facility"][name]) for name in facility_names(instance)]


def _customers(instance: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(name, instance["customer"][name]) for name in customer_names(instance)]


def _grid(instance: Mapping[str, Any]) -> int:
    """The map's extent: the difficulty regime's grid, on which every point was placed."""
    return REGIMES[instance["difficulty"]].grid


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    capacitated = is_capacitated(instance)
    header = (
        "facility",
        "x",
        "y",
        "opening cost",
        *(("capacity",) if capacitated else ()),
        "coverage radius",
    )
    rows = []
    for name, f in _facilities(instance):
        key = f"v1/facility:{name}:"
        x, y = f["xy"]
        cells = [(key + "name", name), (key + "x", str(x)), (key + "y", str(y))]
        cells.append((key + "opening_cost", str(f["open_cost"])))
        if capacitated:
            cells.append((key + "capacity", str(f["capacity"])))
        cells.append((key + "coverage_radius", number_text(f["radius"])))
        rows.append(tuple(cells))
    customer_rows = tuple(
        (
            (f"v1/customer:{name}:name", name),
            (f"v1/customer:{name}:x", str(c["xy"][0])),
            (f"v1/customer:{name}:y", str(c["xy"][1])),
            (f"v1/customer:{name}:demand", str(c["demand"])),
        )
        for name, c in _customers(instance)
    )
    return [
        Table("Candidate facilities", header, tuple(rows)),
        Table("Customers", ("customer", "x", "y", "demand"), customer_rows, max_rows_per_block=9),
    ]


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    facilities = _facilities(instance)
    markers = [
        MapMarker(name, f["xy"][0], f["xy"][1], "^", PALETTE[i % len(PALETTE)], 14.0, bold=True)
        for i, (name, f) in enumerate(facilities)
    ]
    markers += [
        MapMarker(name, c["xy"][0], c["xy"][1], "s", "#9a9a9a", 9.0) for name, c in _customers(instance)
    ]
    circles = [
        CoverageCircle(f["xy"][0], f["xy"][1], float(f["radius"]), PALETTE[i % len(PALETTE)])
        for i, (_, f) in enumerate(facilities)
    ]
    coverage_map = render_map(_grid(instance), markers, circles, MAP_TITLE, prefix="v0/")
    return [coverage_map, render_tables(None, _tables(instance))]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    names = facility_names(instance) + customer_names(instance)
    labels = [ExpectedLabel(f"v0/name:{name}", name) for name in names]
    labels += map_tick_labels(_grid(instance), "v0/")
    return labels + table_labels(_tables(instance))


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values: set[int] = set()
    for _, f in _facilities(instance):
        values |= {*f["xy"], f["open_cost"], *([f["capacity"]] if "capacity" in f else [])}
        if float(f["radius"]).is_integer():
            values.add(int(f["radius"]))
    for _, c in _customers(instance):
        values |= {*c["xy"], c["demand"]}
    return values
