"""The p-median/p-center visuals: a site map (visual_0) and a data table with p (visual_1).

No coverage circles: neither variant has a service radius. The table states p, every coordinate
and, for p-median, every weight exactly; the map shows where everything lies.
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
from benchmark.suites.mmopt.subcategories.p_median_center.generator import (
    grid_size,
    is_median,
    points,
    sites,
    weight,
)

SITE_COLOR = "#1f5fa8"
POINT_COLOR = "#e0a33a"
MAP_TITLE = (
    "Site map: blue diamonds are candidate sites, orange dots are demand points",
    "Grid lines are one distance unit apart; exact coordinates are in the table",
)


def p_text(instance: Mapping[str, Any]) -> str:
    return f"Select exactly p = {instance['p_value']} sites"


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    site_rows = tuple(
        (
            (f"v1/site:{name}:name", name),
            (f"v1/site:{name}:x", str(x)),
            (f"v1/site:{name}:y", str(y)),
        )
        for name, x, y in sites(instance)
    )
    point_rows = []
    for name, x, y in points(instance):
        key = f"v1/point:{name}:"
        cells = [(key + "name", name), (key + "x", str(x)), (key + "y", str(y))]
        if is_median(instance):
            cells.append((key + "weight", str(weight(instance, name))))
        point_rows.append(tuple(cells))
    point_header = ("demand point", "x", "y", *(("weight",) if is_median(instance) else ()))
    return [
        Table("Candidate sites", ("site", "x", "y"), site_rows, max_rows_per_block=5),
        Table("Demand points", point_header, tuple(point_rows), max_rows_per_block=10),
    ]


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    markers = [MapMarker(name, x, y, "D", SITE_COLOR, 11.0, bold=True) for name, x, y in sites(instance)]
    markers += [MapMarker(name, x, y, "o", POINT_COLOR, 9.0) for name, x, y in points(instance)]
    site_map = render_map(grid_size(instance), markers, [], MAP_TITLE, prefix="v0/")
    table = render_tables(("v1/p", p_text(instance)), _tables(instance))
    return [site_map, table]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    names = [name for name, _, _ in (*sites(instance), *points(instance))]
    labels = [ExpectedLabel(f"v0/name:{name}", name) for name in names]
    labels += map_tick_labels(grid_size(instance), "v0/")
    labels.append(ExpectedLabel("v1/p", p_text(instance)))
    return labels + table_labels(_tables(instance))


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(instance["p_value"])}
    for _, x, y in (*sites(instance), *points(instance)):
        values |= {x, y}
    if is_median(instance):
        values |= {weight(instance, name) for name, _, _ in points(instance)}
    return values
