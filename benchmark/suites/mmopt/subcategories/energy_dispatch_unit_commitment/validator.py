"""Scoring-time check of a returned unit-commitment plan.

Generation per unit and period is required. The commitment is the returned one where given
(0/1 per unit and period) and otherwise every unit with positive output; an online unit must
produce within its minimum and maximum output, an offline one nothing. Every period's generation
must equal its demand (power balance). Startups follow from the commitment and the initial
status: a returned startup grid must flag every start (startup linking). Minimum up/down times and
ramp limits are checked where the instance has them, and the cost is recomputed from the
decisions (a returned startup flagged without a start is paid as returned).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.flows import fmt
from benchmark.suites.mmopt.generation.schedules import number
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.model import (
    OPTIONAL_KEYS,
    plan_cost,
    temporal_problems,
    transitions,
    units_periods,
)

TOLERANCE = 1e-5  # solver noise on outputs and balances
OBJECTIVE_TOLERANCE = 1e-6  # relative, on the reported cost
REPORTED_KEYS = ("objective_value", "objective", "total_cost", "objective_exact")
__all__ = ["OPTIONAL_KEYS", "check_solution"]


def _grid(
    raw: Any, units: list[str], periods: list[str], what: str
) -> tuple[dict[str, dict[str, float]], list[str]]:
    """A unit → period → number table; names matched case-insensitively, bare numbers and
    per-unit lists in period order accepted."""
    if not isinstance(raw, Mapping):
        return {}, [f"{what} is not a dict of units"]
    unit_names = {g.lower(): g for g in units}
    period_names = {t.lower(): t for t in periods}
    grid: dict[str, dict[str, float]] = {}
    problems = []
    for raw_unit, row in raw.items():
        text = str(raw_unit).strip()
        unit = unit_names.get((f"G{int(text)}" if text.isdigit() else text).lower())
        if unit is None:
            problems.append(f"{what}: unknown unit {raw_unit!r}")
            continue
        if isinstance(row, list | tuple) and len(row) == len(periods):
            row = dict(zip(periods, row, strict=True))
        if not isinstance(row, Mapping):
            problems.append(f"{what}[{unit}] is not a dict of periods")
            continue
        grid[unit] = {}
        for raw_period, value in row.items():
            label = str(raw_period).strip()
            period = period_names.get((f"t{int(label)}" if label.isdigit() else label).lower())
            amount = number(value)
            if period is None:
                problems.append(f"{what}[{unit}]: unknown period {raw_period!r}")
            elif amount is None:
                problems.append(f"{what}[{unit}][{period}] = {value!r} is not a number")
            else:
                grid[unit][period] = amount
    for unit in units:
        for period in periods:
            if period not in grid.get(unit, {}):
                problems.append(f"{what}[{unit}][{period}] is missing")
    return grid, problems


def _flags(
    raw: Any, units: list[str], periods: list[str], what: str
) -> tuple[dict[str, dict[str, int]], list[str]]:
    grid, problems = _grid(raw, units, periods, what)
    flags: dict[str, dict[str, int]] = {}
    for unit in units:
        flags[unit] = {}
        for period in periods:
            value = grid.get(unit, {}).get(period, 0.0)
            if abs(value - round(value)) > TOLERANCE or round(value) not in (0, 1):
                problems.append(f"{what}[{unit}][{period}] = {fmt(value)} is not 0 or 1")
            flags[unit][period] = int(round(value) == 1)
    return flags, problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    units, periods = units_periods(instance)
    if "generation" not in solution:
        return SolutionCheck(feasible=False, objective=None, problems=("no generation plan returned",))
    generation, problems = _grid(solution["generation"], units, periods, "generation")
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    if "commitment" in solution:
        commitment, commitment_problems = _flags(solution["commitment"], units, periods, "commitment")
        if commitment_problems:
            return SolutionCheck(feasible=False, objective=None, problems=tuple(commitment_problems))
    else:
        commitment = {g: {t: int(generation[g][t] > TOLERANCE) for t in periods} for g in units}
    for unit in units:
        low, high = float(instance["pmin"][unit]), float(instance["pmax"][unit])
        for period in periods:
            output = generation[unit][period]
            if commitment[unit][period]:
                if output < low - TOLERANCE or output > high + TOLERANCE:
                    problems.append(
                        f"{unit} is on in {period} with output {fmt(output)} "
                        f"outside [{fmt(low)}, {fmt(high)}]"
                    )
            elif abs(output) > TOLERANCE:
                problems.append(f"{unit} is off in {period} but produces {fmt(output)}")
    for period in periods:
        total = sum(generation[g][period] for g in units)
        demand = float(instance["demand"][period])
        if abs(total - demand) > TOLERANCE * max(1.0, demand):
            problems.append(
                f"power balance broken in {period}: generation {fmt(total)} vs demand {fmt(demand)}"
            )
    startups, shutdowns = transitions(instance, commitment)
    if "startup" in solution:
        returned, startup_problems = _flags(solution["startup"], units, periods, "startup")
        problems += startup_problems
        for unit in units:
            for period in periods:
                if startups[unit][period] and not returned[unit][period]:
                    problems.append(f"{unit} starts up in {period} without a startup flagged there")
        startups = returned
    problems += temporal_problems(instance, generation, commitment, TOLERANCE)
    total = plan_cost(instance, generation, startups, shutdowns)
    for key in REPORTED_KEYS:
        reported = number(solution.get(key)) if key in solution else None
        if reported is not None and abs(reported - total) > OBJECTIVE_TOLERANCE * max(1.0, abs(total)):
            problems.append(f"reported {key} {fmt(reported)} != recomputed cost {fmt(total)}")
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))
