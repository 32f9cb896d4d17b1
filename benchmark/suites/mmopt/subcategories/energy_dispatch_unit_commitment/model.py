"""The unit-commitment rules every artifact shares: which keys an instance may carry, and the
cost and feasibility of a plan given as generation and commitment grids.

Rules (stated the same way in the task text, the model, both solvers and the validator):

* every period's total generation equals its demand exactly;
* a unit that is on produces between its minimum and maximum output, a unit that is off nothing;
* a unit that is on in a period and was off in the previous one (or before the horizon, per its
  initial status) starts up and pays its startup cost (and, where the instance has a shutdown cost,
  a unit switching off pays that);
* with ``min_up`` / ``min_down``: a unit that starts up in period t stays on for at least
  ``min_up`` periods counted from t, one that shuts down stays off for at least ``min_down``
  periods (both cut at the end of the horizon; the status before the horizon carries no
  obligation);
* with ``ramp_up`` / ``ramp_down``: between two consecutive periods in which a unit is on (the
  period before the horizon counts with its ``initial_output``), its output rises by at most
  ``ramp_up`` and falls by at most ``ramp_down``; starting up or shutting down is not limited.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Instance keys beyond the easy regime (the official release's names); each is optional.
MIN_UP_DOWN = ("min_up", "min_down")
RAMPING = ("ramp_up", "ramp_down", "initial_output")
OPTIONAL_KEYS = (*MIN_UP_DOWN, *RAMPING, "shutdown_cost")


def units_periods(instance: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    return list(instance["sets"]["generators"]), list(instance["sets"]["periods"])


def has_min_up_down(instance: Mapping[str, Any]) -> bool:
    return all(key in instance for key in MIN_UP_DOWN)


def has_ramping(instance: Mapping[str, Any]) -> bool:
    return "ramp_up" in instance and "ramp_down" in instance


def initial_output(instance: Mapping[str, Any], unit: str) -> float:
    return float(instance.get("initial_output", {}).get(unit, 0))


def transitions(
    instance: Mapping[str, Any], commitment: Mapping[str, Mapping[str, int]]
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """(startups, shutdowns) implied by a 0/1 commitment grid and the initial status."""
    units, periods = units_periods(instance)
    startups: dict[str, dict[str, int]] = {}
    shutdowns: dict[str, dict[str, int]] = {}
    for unit in units:
        previous = int(instance["initial_status"][unit])
        startups[unit], shutdowns[unit] = {}, {}
        for period in periods:
            now = commitment[unit][period]
            startups[unit][period] = int(now == 1 and previous == 0)
            shutdowns[unit][period] = int(now == 0 and previous == 1)
            previous = now
    return startups, shutdowns


def plan_cost(
    instance: Mapping[str, Any],
    generation: Mapping[str, Mapping[str, float]],
    startups: Mapping[str, Mapping[str, int]],
    shutdowns: Mapping[str, Mapping[str, int]],
) -> float:
    units, periods = units_periods(instance)
    total = 0.0
    for unit in units:
        for period in periods:
            total += float(instance["cost"][unit]) * float(generation[unit][period])
            total += float(instance["startup_cost"][unit]) * startups[unit][period]
            if "shutdown_cost" in instance:
                total += float(instance["shutdown_cost"][unit]) * shutdowns[unit][period]
    return total


def temporal_problems(
    instance: Mapping[str, Any],
    generation: Mapping[str, Mapping[str, float]],
    commitment: Mapping[str, Mapping[str, int]],
    tolerance: float,
) -> list[str]:
    """Broken minimum up/down times and ramp limits (empty where the instance has neither)."""
    units, periods = units_periods(instance)
    startups, shutdowns = transitions(instance, commitment)
    problems = []
    for unit in units:
        status = [commitment[unit][t] for t in periods]
        if has_min_up_down(instance):
            for k, period in enumerate(periods):
                up, down = int(instance["min_up"][unit]), int(instance["min_down"][unit])
                if startups[unit][period] and not all(status[k : k + up]):
                    problems.append(f"{unit} starts in {period} but is not on for its minimum up time {up}")
                if shutdowns[unit][period] and any(status[k : k + down]):
                    problems.append(
                        f"{unit} stops in {period} but restarts within its minimum down time {down}"
                    )
        if has_ramping(instance):
            previous_on = int(instance["initial_status"][unit])
            previous = initial_output(instance, unit)
            for period in periods:
                now = float(generation[unit][period])
                if previous_on and commitment[unit][period]:
                    if now - previous > float(instance["ramp_up"][unit]) + tolerance:
                        problems.append(f"{unit} ramps up by {now - previous:g} into {period}")
                    if previous - now > float(instance["ramp_down"][unit]) + tolerance:
                        problems.append(f"{unit} ramps down by {previous - now:g} into {period}")
                previous_on, previous = commitment[unit][period], now
    return problems
