"""The workforce planning dashboard (App. C.3, E.4): demand, worker profiles and availability.

``visual_0.png`` is the staffing panel: a bar chart of the total staff needed each day (the demand
curve), the shift definitions and the shift × day staffing table, its cells shaded like a heatmap
by requirement. The worker profile table (a rate per shift; from medium on also the regular shift
cap, the overtime rate, the Night-shift limit and the consecutive-day limit) and the worker × day
availability matrix (codes in every cell, shaded by code, with the legend) follow: together in
``visual_1.png`` at easy and medium, split over ``visual_1.png`` and ``visual_2.png`` at hard, whose
18-day matrix is too wide to share a figure. Nothing of a roster is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import ExpectedLabel, RenderedVisual
from benchmark.suites.mmopt.generation.tables import BarPanel, Table, TableCell, render_tables
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.roster import rules

SHADES = ("#ffffff", "#e4eef8", "#c9ddf1", "#aecbea", "#93b9e2")
CODE_FILL = {"OFF": "#d9d9d9", "DEN": "#ffffff"}
CODE_TINT = "#fdf1d8"
BARS_TITLE = "Total staff required per day (all shifts together)"
SHIFTS_TITLE = "Shift definitions"
DEMAND_TITLE = "Staff required per shift and day"
PROFILE_TITLE = "Worker profiles: cost per assigned shift"
RULES_TITLE = "Worker profiles: cost per assigned shift and horizon limits"
AVAILABILITY_TITLE = "Availability code of every worker on every day"
DEMAND_NOTES = ("A cell is the minimum number of workers on that shift that day (darker: more).",)
AVAILABILITY_NOTES = (
    "Codes: OFF unavailable; D, E or N only that shift; DE Day or Evening; EN Evening or Night;",
    "DEN any of the three shifts.",
)
RULE_NOTES = (
    "regular cap: shifts over the whole horizon paid at the shift cost only; each shift beyond it",
    "also pays the overtime cost; max nights: Night shifts over the horizon; max consecutive: days",
    "in a row with any shift.",
)
RULE_COLUMNS = (
    ("regular_shift_limit", "regular cap"),
    ("overtime_cost", "overtime cost"),
    ("max_night_shifts", "max nights"),
    ("max_consecutive_days", "max consecutive"),
)


def split(instance: Mapping[str, Any]) -> bool:
    """Hard instances put the availability matrix in a figure of its own."""
    return str(instance["difficulty"]) == "hard"


def _rule_columns(instance: Mapping[str, Any]) -> list[tuple[str, str]]:
    return list(RULE_COLUMNS) if rules(instance).overtime else []


def _staffing(instance: Mapping[str, Any]) -> RenderedVisual:
    days, shifts = instance["sets"]["days"], instance["sets"]["shifts"]
    totals = {d: sum(instance["demand"][d].values()) for d in days}
    bars = BarPanel(
        title=BARS_TITLE,
        categories=[TableCell(d, key=f"v0/bar_day:{d}") for d in days],
        values=[TableCell(str(totals[d]), key=f"v0/total:{d}", bold=True) for d in days],
        heights=[float(totals[d]) for d in days],
    )
    definitions = Table(
        title=SHIFTS_TITLE,
        corner="shift",
        column_headers=[TableCell("name", bold=True), TableCell("time window", bold=True)],
        row_headers=[TableCell(s, key=f"v0/shift:{s}", bold=True) for s in shifts],
        cells=[
            [
                TableCell(instance["shift_labels"][s], key=f"v0/shift_name:{s}"),
                TableCell(instance["shift_time_window"][s], key=f"v0/window:{s}"),
            ]
            for s in shifts
        ],
    )
    values = [instance["demand"][d][s] for d in days for s in shifts]
    low, spread = min(values), max(values) - min(values) + 1
    demand = Table(
        title=DEMAND_TITLE,
        corner="shift",
        column_headers=[TableCell(d, key=f"v0/day:{d}", bold=True) for d in days],
        row_headers=[TableCell(s, key=f"v0/demand_shift:{s}", bold=True) for s in shifts],
        cells=[
            [
                TableCell(
                    str(instance["demand"][d][s]),
                    key=f"v0/demand:{d}/{s}",
                    fill=SHADES[int(len(SHADES) * (instance["demand"][d][s] - low) / spread)],
                )
                for d in days
            ]
            for s in shifts
        ],
        zebra=False,
    )
    return render_tables([definitions, demand], DEMAND_NOTES, bars=bars)


def _profile_table(instance: Mapping[str, Any], prefix: str) -> Table:
    workers, shifts = instance["sets"]["workers"], instance["sets"]["shifts"]
    extra = _rule_columns(instance)
    return Table(
        title=RULES_TITLE if extra else PROFILE_TITLE,
        corner="worker",
        column_headers=[TableCell(f"cost {s}", bold=True) for s in shifts]
        + [TableCell(header, bold=True) for _, header in extra],
        row_headers=[TableCell(w, key=f"{prefix}/worker:{w}", bold=True) for w in workers],
        cells=[
            [TableCell(str(instance["shift_cost"][w][s]), key=f"{prefix}/cost:{w}/{s}") for s in shifts]
            + [TableCell(str(instance[field][w]), key=f"{prefix}/{field}:{w}") for field, _ in extra]
            for w in workers
        ],
        thick_after=(len(shifts) - 1,) if extra else (),
    )


def _availability_table(instance: Mapping[str, Any], prefix: str) -> Table:
    workers, days = instance["sets"]["workers"], instance["sets"]["days"]
    codes = instance["availability_code"]
    return Table(
        title=AVAILABILITY_TITLE,
        corner="worker",
        column_headers=[TableCell(d, key=f"{prefix}/avail_day:{d}", bold=True) for d in days],
        row_headers=[TableCell(w, key=f"{prefix}/avail_worker:{w}", bold=True) for w in workers],
        cells=[
            [
                TableCell(
                    codes[w][d], key=f"{prefix}/code:{w}/{d}", fill=CODE_FILL.get(codes[w][d], CODE_TINT)
                )
                for d in days
            ]
            for w in workers
        ],
        zebra=False,
        thick_after=tuple(range(6, len(days) - 1, 7)),  # a heavier rule closes every week
    )


def _prefixes(instance: Mapping[str, Any]) -> tuple[str, str]:
    return ("v1", "v2") if split(instance) else ("v1", "v1")


def render(instance: Mapping[str, Any]) -> list[RenderedVisual]:
    profile_prefix, availability_prefix = _prefixes(instance)
    profile = _profile_table(instance, profile_prefix)
    availability = _availability_table(instance, availability_prefix)
    rule_notes = list(RULE_NOTES) if _rule_columns(instance) else []
    visuals = [_staffing(instance)]
    if split(instance):
        visuals.append(render_tables([profile], rule_notes))
        visuals.append(render_tables([availability], AVAILABILITY_NOTES))
    else:
        visuals.append(render_tables([profile, availability], [*rule_notes, *AVAILABILITY_NOTES]))
    return visuals


def expected_labels(instance: Mapping[str, Any]) -> list[ExpectedLabel]:
    workers, days, shifts = instance["sets"]["workers"], instance["sets"]["days"], instance["sets"]["shifts"]
    profile, avail = _prefixes(instance)
    labels = []
    for d in days:
        labels.append(ExpectedLabel(f"v0/bar_day:{d}", d))
        labels.append(ExpectedLabel(f"v0/total:{d}", str(sum(instance["demand"][d].values()))))
        labels.append(ExpectedLabel(f"v0/day:{d}", d))
        labels.append(ExpectedLabel(f"{avail}/avail_day:{d}", d))
        labels += [ExpectedLabel(f"v0/demand:{d}/{s}", str(instance["demand"][d][s])) for s in shifts]
    for s in shifts:
        labels.append(ExpectedLabel(f"v0/shift:{s}", s))
        labels.append(ExpectedLabel(f"v0/demand_shift:{s}", s))
        labels.append(ExpectedLabel(f"v0/shift_name:{s}", instance["shift_labels"][s]))
        labels.append(ExpectedLabel(f"v0/window:{s}", instance["shift_time_window"][s]))
    for w in workers:
        labels.append(ExpectedLabel(f"{profile}/worker:{w}", w))
        labels.append(ExpectedLabel(f"{avail}/avail_worker:{w}", w))
        labels += [
            ExpectedLabel(f"{profile}/cost:{w}/{s}", str(instance["shift_cost"][w][s])) for s in shifts
        ]
        labels += [
            ExpectedLabel(f"{profile}/{field}:{w}", str(instance[field][w]))
            for field, _ in _rule_columns(instance)
        ]
        labels += [ExpectedLabel(f"{avail}/code:{w}/{d}", instance["availability_code"][w][d]) for d in days]
    return labels


def visual_values(instance: Mapping[str, Any]) -> set[int]:
    values = {int(v) for row in instance["demand"].values() for v in row.values()}
    values |= {int(sum(row.values())) for row in instance["demand"].values()}
    values |= {int(v) for row in instance["shift_cost"].values() for v in row.values()}
    for field, _ in _rule_columns(instance):
        values |= {int(v) for v in instance[field].values()}
    return values
