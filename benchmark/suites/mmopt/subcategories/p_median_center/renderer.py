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

SITE_COLOR = "#1f5fa8"
POINT_COLOR = "#e0a33a"
MAP_TITLE = (
    "Site map: blue diamonds are candidate sites, orange dots are demand points",
    "Grid lines are one distance unit apart; exact coordinates are in the table",
)


def _weighted(instance: Mapping[str, Any]) -> bool:
    return instance["variant"] == "p-median"


def p_text(instance: Mapping[str, Any]) -> str:
    return f"Select exactly p = {instance['p']} sites"


def _tables(instance: Mapping[str, Any]) -> list[Table]:
    site_rows = tuple(
        (
            (f"v1/site:{s['name']}:name", s["name"]),
            (f"v1/site:{s['name']}:x", str(s["x"])),
            (f"v1/site:{s['name']}:y", str(s["y"])),
        )
        for s in instance["sites"]
    )
    point_rows = []
    for d in instance["demand_points"]:
        key = f"v1/point:{d['name']}:"
        cells = [(key + "name", d["name"]), (key + "x", str(d["x"])), (key + "y", str(d["y"]))]
        if _weighted(instance):
            cells.append((key + "weight", str(d["weight"])))
        point_rows.append(tuple(cells))
    point_header = ("demand point", "x", "y", *(("weight",) if _weighted(instance) else ()))
    return [
        Table("Candidate sites", ("site", "x", "y"), site_rows, max_rows_per_block=5),
        Table("Demand points", point_header, tuple(point_rows), max_rows_per_block=10),
    ]


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    markers = [
        MapMarker(s["name"], s["x"], s["y"], "D", SITE_COLOR, 11.0, bold=True) for s in instance["sites"]
    ]
    markers += [
        MapMarker(d["name"], d["x"], d["y"], "o", POINT_COLOR, 9.0) for d in instance["demand_points"]
    ]
    site_map = render_map(instance["grid_size"], markers, [], MAP_TITLE, prefix="v0/")
    table = render_tables(("v1/p", p_text(instance)), _tables(instance))
    return [site_map, table]


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    names = [s["name"] for s in instance["sites"]] + [d["name"] for d in instance["demand_points"]]
    labels = [ExpectedLabel(f"v0/name:{name}", name) for name in names]
    labels += map_tick_labels(instance["grid_size"], "v0/")
    labels.append(ExpectedLabel("v1/p", p_text(instance)))
    return labels + table_labels(_tables(instance))


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(instance["p"])}
    for q in (*instance["sites"], *instance["demand_points"]):
        values |= {q["x"], q["y"], *([q["weight"]] if "weight" in q else [])}
    return values
