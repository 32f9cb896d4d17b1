"""Scoring-time check of a returned unit-commitment plan.

Generation per unit and period is required. The commitment is the returned one where given
(0/1 per unit and period), else the units listed online per period (``online_units_by_period``,
the release's second source), and otherwise every unit with positive output; an online unit must
produce within its minimum and maximum output, an offline one nothing. Every period's generation
must equal its demand (power balance). Startups follow from the commitment and the initial
status: a returned startup grid must flag every start (startup linking). Minimum up/down times and
ramp limits are checked where the instance has them, and the cost is recomputed from the
decisions (a returned startup flagged without a start is paid as returned).

:func:`release_problems` adds the release's stricter ramp reading, for certifying a release
package's reference only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.decisions import number
from benchmark.suites.mmopt.generation.flows import fmt
from benchmark.suites.mmopt.generation.period_grids import read_grid
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.model import (
    OPTIONAL_KEYS,
    has_ramping,
    initial_output,
    plan_cost,
    temporal_problems,
    transitions,
    units_periods,
)

TOLERANCE = 1e-5  # solver noise on outputs and balances
OBJECTIVE_TOLERANCE = 1e-6  # relative, on the reported cost
REPORTED_KEYS = ("objective_value", "objective", "total_cost", "objective_exact")
__all__ = ["OPTIONAL_KEYS", "check_solution", "release_problems"]


def _flags(
    raw: Any, units: list[str], periods: list[str], what: str
) -> tuple[dict[str, dict[str, int]], list[str]]:
    grid, problems = read_grid(raw, units, periods, what, "unit", "G")
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
    generation, problems = read_grid(solution["generation"], units, periods, "generation", "unit", "G")
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    if "commitment" in solution:
        commitment, commitment_problems = _flags(solution["commitment"], units, periods, "commitment")
        if commitment_problems:
            return SolutionCheck(feasible=False, objective=None, problems=tuple(commitment_problems))
    elif isinstance(online := solution.get("online_units_by_period"), Mapping):
        listed = {str(t): {str(g) for g in row} for t, row in online.items() if isinstance(row, list)}
        commitment = {g: {t: int(g in listed.get(t, ())) for t in periods} for g in units}
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


def release_problems(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> list[str]:
    """What the release's own model and scorer also reject in a plan our check accepts: they limit
    every change of a unit's output between consecutive periods by its ramp limits, from the
    initial output (0 where none is given) into the first period, whether or not the unit starts up
    or shuts down there; our rule (``model.py``) leaves starting and stopping unlimited. The
    release's medium references are optimal only under its reading (``educ_m_001``: 5038, ours 4934
    by starting G1 at 36 from 0 with a ramp limit of 20), so a release package is certified under
    it. Scoring does not apply it (not as ``official_problems``): our own hard references shut
    units down faster than their ramp limits, as our rule allows."""
    if not has_ramping(instance) or "generation" not in solution:
        return []
    units, periods = units_periods(instance)
    generation, problems = read_grid(solution["generation"], units, periods, "generation", "unit", "G")
    if problems:
        return []
    found = []
    for unit in units:
        up, down = float(instance["ramp_up"][unit]), float(instance["ramp_down"][unit])
        previous = initial_output(instance, unit)
        for period in periods:
            now = generation[unit][period]
            if now - previous > up + TOLERANCE:
                found.append(
                    f"{unit} ramps up by {fmt(now - previous)} into {period} (the release's ramp reading)"
                )
            if previous - now > down + TOLERANCE:
                found.append(
                    f"{unit} ramps down by {fmt(previous - now)} into {period} (the release's ramp reading)"
                )
            previous = now
    return found
