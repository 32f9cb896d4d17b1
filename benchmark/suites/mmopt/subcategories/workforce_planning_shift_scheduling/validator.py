"""Scoring-time check of a returned roster, at the official 1e-2 tolerance (DESIGN §4).

The roster is read from ``worker_schedule`` (worker → day → shift or "OFF", the official shape) or
from ``assignments_by_day`` (day → shift → workers); when both are given they must agree. Checked:
at most one shift per worker and day, only shifts the availability code allows, every day-shift
pair staffed to its demand, and where the instance has them the Night limit, the consecutive-day
limit and the rest rule. Overtime is recomputed per worker as the shifts beyond the regular cap; a
returned ``worker_overtime`` or ``worker_total_assignments`` must balance with the roster, and the
assignment, overtime and total costs are recomputed from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from benchmark.suites.mmopt.generation.decisions import number
from benchmark.suites.mmopt.generation.flows import fmt
from benchmark.suites.mmopt.subcategories.base import SolutionCheck
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.generator import roster_totals
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.roster import (
    DAY,
    NIGHT,
    allowed,
    rules,
    windows,
)
from benchmark.suites.mmopt.tolerances import objective_tolerance

TOLERANCE = objective_tolerance("workforce_planning_shift_scheduling")  # the official release's floor
REPORTED_KEYS = ("objective_value", "objective", "objective_exact", "total_cost")
#: Instance keys this check may look up that an official (easy) instance lacks.
OPTIONAL_KEYS = (
    "constraint_flags",
    "regular_shift_limit",
    "overtime_cost",
    "max_night_shifts",
    "max_consecutive_days",
)
OFF = "OFF"


class _Names:
    """A returned label in the instance's spelling (case-insensitive; a bare number gets the prefix)."""

    def __init__(self, names: list[str], prefix: str = "") -> None:
        self.lookup = {name.lower(): name for name in names}
        self.prefix = prefix

    def __call__(self, raw: Any) -> str | None:
        if raw is None or isinstance(raw, bool):
            return None
        text = str(raw).strip()
        if self.prefix and text.isdigit():
            text = f"{self.prefix}{int(text)}"
        return self.lookup.get(text.lower())


def _label_readers(instance: Mapping[str, Any]) -> tuple[_Names, _Names, _Names]:
    """Readers of returned worker, day and shift labels (a bare number names a worker: 3 is W3)."""
    sets = instance["sets"]
    return _Names(sets["workers"], "W"), _Names(sets["days"]), _Names(sets["shifts"])


def _from_schedule(
    raw: Any, instance: Mapping[str, Any]
) -> tuple[dict[tuple[str, str], set[str]], list[str]]:
    worker_name, day_name, shift_name = _label_readers(instance)
    taken: dict[tuple[str, str], set[str]] = {}
    problems: list[str] = []
    if not isinstance(raw, Mapping):
        return {}, ["worker_schedule is not a dict of workers"]
    for raw_worker, row in raw.items():
        worker = worker_name(raw_worker)
        if worker is None or not isinstance(row, Mapping):
            problems.append(f"worker_schedule: unknown worker or malformed row {raw_worker!r}")
            continue
        for raw_day, value in row.items():
            day = day_name(raw_day)
            if day is None:
                problems.append(f"worker_schedule[{worker}]: unknown day {raw_day!r}")
                continue
            values = value if isinstance(value, list | tuple) else [value]
            for item in values:
                if item is None or str(item).strip().upper() in (OFF, ""):
                    continue
                shift = shift_name(item)
                if shift is None:
                    problems.append(f"worker_schedule[{worker}][{day}]: unknown shift {item!r}")
                    continue
                taken.setdefault((worker, day), set()).add(shift)
    return taken, problems


def _from_days(raw: Any, instance: Mapping[str, Any]) -> tuple[dict[tuple[str, str], set[str]], list[str]]:
    worker_name, day_name, shift_name = _label_readers(instance)
    taken: dict[tuple[str, str], set[str]] = {}
    problems: list[str] = []
    if not isinstance(raw, Mapping):
        return {}, ["assignments_by_day is not a dict of days"]
    for raw_day, row in raw.items():
        day = day_name(raw_day)
        if day is None or not isinstance(row, Mapping):
            problems.append(f"assignments_by_day: unknown day or malformed row {raw_day!r}")
            continue
        for raw_shift, people in row.items():
            shift = shift_name(raw_shift)
            if shift is None or not isinstance(people, list | tuple):
                problems.append(f"assignments_by_day[{day}]: unknown shift or malformed list {raw_shift!r}")
                continue
            for raw_worker in people:
                worker = worker_name(raw_worker)
                if worker is None:
                    problems.append(f"assignments_by_day[{day}][{shift}]: unknown worker {raw_worker!r}")
                    continue
                taken.setdefault((worker, day), set()).add(shift)
    return taken, problems


def _read_roster(
    solution: Mapping[str, Any], instance: Mapping[str, Any]
) -> tuple[dict[tuple[str, str], set[str]] | None, list[str]]:
    if "worker_schedule" not in solution and "assignments_by_day" not in solution:
        return None, ["no roster returned (looked for worker_schedule, assignments_by_day)"]
    readings = []
    problems: list[str] = []
    if "worker_schedule" in solution:
        taken, found = _from_schedule(solution["worker_schedule"], instance)
        readings.append(taken)
        problems += found
    if "assignments_by_day" in solution:
        taken, found = _from_days(solution["assignments_by_day"], instance)
        readings.append(taken)
        problems += found
    if len(readings) == 2 and readings[0] != readings[1]:
        problems.append("worker_schedule and assignments_by_day describe different rosters")
    return readings[0], problems


def _reported_counts(raw: Any, expected: Mapping[str, int], what: str, workers: list[str]) -> list[str]:
    if not isinstance(raw, Mapping):
        return [f"{what} is not a dict of workers"]
    name = _Names(workers, "W")
    problems = []
    for raw_worker, value in raw.items():
        worker, amount = name(raw_worker), number(value)
        if worker is None or amount is None:
            problems.append(f"{what}: unreadable entry {raw_worker!r}: {value!r}")
        elif abs(amount - expected[worker]) > TOLERANCE:
            problems.append(
                f"{what}[{worker}] = {fmt(amount)} does not balance with the roster ({expected[worker]})"
            )
    return problems


#: Reported totals the release recomputes and never compares with the answer's.
UNCHECKED_BY_THE_RELEASE = (
    "worker_total_assignments",
    "worker_overtime",
    "assignment_cost",
    "overtime_cost",
    "total_overtime_shifts",
)


def official_answer(solution: Mapping[str, Any]) -> dict[str, Any]:
    """The answer as the release reads it (``--scoring=official``): the roster from
    ``worker_schedule`` alone when it is a table (``assignments_by_day`` only without one), and
    none of the reported totals it recomputes."""
    narrowed = {k: v for k, v in solution.items() if k not in UNCHECKED_BY_THE_RELEASE}
    if isinstance(narrowed.get("worker_schedule"), Mapping):
        narrowed.pop("assignments_by_day", None)
    return narrowed


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    sets = instance["sets"]
    workers, days, shifts = sets["workers"], sets["days"], sets["shifts"]
    taken, problems = _read_roster(solution, instance)
    if taken is None:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    schedule = {w: dict.fromkeys(days, OFF) for w in workers}
    for (worker, day), chosen in taken.items():
        if len(chosen) > 1:
            problems.append(f"{worker} works {len(chosen)} shifts on {day} ({', '.join(sorted(chosen))})")
        shift = sorted(chosen, key=shifts.index)[0]
        schedule[worker][day] = shift
        for each in chosen:
            if each not in allowed(instance, worker, day):
                code = instance["availability_code"][worker][day]
                problems.append(f"{worker} is not available for shift {each} on {day} (code {code})")
    for day in days:
        for shift in shifts:
            staffed = sum(shift in taken.get((w, day), set()) for w in workers)
            need = int(instance["demand"][day][shift])
            if staffed < need:
                problems.append(f"{day} {shift} is understaffed: {staffed} assigned, {need} required")
    rule = rules(instance)
    for worker in workers:
        if rule.night_limit:
            nights = sum(schedule[worker][d] == NIGHT for d in days)
            if nights > int(instance["max_night_shifts"][worker]):
                limit = instance["max_night_shifts"][worker]
                problems.append(f"{worker} works {nights} Night shifts, above the limit {limit}")
        if rule.consecutive:
            limit = int(instance["max_consecutive_days"][worker])
            for window in windows(instance, worker):
                if all(schedule[worker][d] != OFF for d in window):
                    problems.append(
                        f"{worker} works {len(window)} consecutive days from {window[0]}, "
                        f"above the limit {limit}"
                    )
                    break
        if rule.rest_rule:
            for today, tomorrow in pairwise(days):
                if schedule[worker][today] == NIGHT and schedule[worker][tomorrow] == DAY:
                    problems.append(
                        f"{worker} works Day on {tomorrow} right after Night on {today} (rest rule)"
                    )
    totals = roster_totals(instance, schedule)
    if "worker_total_assignments" in solution:
        problems += _reported_counts(
            solution["worker_total_assignments"], totals["totals"], "worker_total_assignments", workers
        )
    if rule.overtime and "worker_overtime" in solution:
        problems += _reported_counts(
            solution["worker_overtime"], totals["overtime"], "worker_overtime", workers
        )
    recomputed = {
        "assignment_cost": totals["assignment_cost"],
        "overtime_cost": totals["overtime_cost"],
        "total_overtime_shifts": sum(totals["overtime"].values()),
    }
    for key, value in recomputed.items():
        reported = number(solution.get(key)) if key in solution else None
        if key in solution and reported is None:
            problems.append(f"reported {key} {solution[key]!r} is not a number")
        elif reported is not None and abs(reported - value) > TOLERANCE:
            problems.append(f"reported {key} {fmt(reported)} != recomputed {fmt(value)}")
    total = float(totals["objective"])
    for key in REPORTED_KEYS:
        reported = number(solution.get(key)) if key in solution else None
        if reported is not None and abs(reported - total) > TOLERANCE:
            problems.append(f"reported {key} {fmt(reported)} != recomputed cost {fmt(total)}")
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))
