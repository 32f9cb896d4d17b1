"""Workforce planning and shift scheduling (multi-period/system-planning family, prefix ``wpss``).

Workers are assigned to the Day, Evening and Night shifts of a horizon of days: every day-shift
pair needs at least its demand, a worker takes at most one shift a day and only shifts its daily
availability code allows, and each assignment costs the worker's rate for that shift. Medium and
hard add the horizon rules of the official release: shifts beyond a worker's regular cap are
overtime at the worker's overtime rate, a worker's Night shifts and consecutive working days are
limited; hard also forbids a Day shift right after a Night shift (the rest rule).

Regimes (App. D.2): easy rosters one week (seven days) with seven or eight workers and a flat demand;
medium twelve days with eleven or twelve workers, a weekend peak and the horizon rules; hard 18 days
(two and a half weeks) with 14 to 17 workers, weekend and mid-week peaks, tighter regular caps and
the rest rule. Medium and hard sit at the official release's medians (12 days and 11.5 workers at
medium, 17.5 days and 15.5 workers at hard, ``generation/release_sizes``), with the daily demand
grown with the workforce so that about the same share of it works each day.

Rejection rules (App. D): a day-shift pair needing more workers than are available for it, or a day
needing more than its available workers, cannot be covered (checked before solving); an instance
no roster covers is dropped. Nontriviality on the verified optimum: at easy, staffing every shift
with its cheapest available workers must double-book someone (the one-shift-a-day rule binds); at
medium and hard the horizon rules must bind (the optimum without them is strictly cheaper) and
some worker must reach the regular cap (a binding capacity period of the workforce).

Exact and fast at hard: the reference is HiGHS on the binary assignment MILP, whose LP relaxation
is nearly integral here (only the horizon rules cut it), so hard rosters of at most 17 workers ×
18 days × 3 shifts (918 binaries) solve in about 0.03 s (0.44 s at most on the shipped ten). The
cross-check is CP-SAT on the same rules written as Boolean constraints (one worker, fixed seed), at
linearization level 2: with its LP relaxation at that level it proves these rosters optimal in
under 0.1 s, while at the default level the same single-worker search ran into the 60 s limit on
eight of the ten (then 12-worker, 14-day) hard rosters (measured on the shipped packages).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import lil_matrix

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.roster import (
    DAY,
    NIGHT,
    allowed,
    rules,
    windows,
)

SOLVE_LIMIT_S = 60.0
SHIFTS = ("D", "E", "N")
SHIFT_LABELS = {"D": "Day", "E": "Evening", "N": "Night"}
SHIFT_WINDOWS = {"D": "07:00-15:00", "E": "15:00-23:00", "N": "23:00-07:00"}
LEGEND = {
    "OFF": [],
    "D": ["D"],
    "E": ["E"],
    "N": ["N"],
    "DE": ["D", "E"],
    "EN": ["E", "N"],
    "DEN": ["D", "E", "N"],
}
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
#: worker profile → (usual availability codes, the codes of its restricted days)
PROFILES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "generalist": (("DEN",), ("DE", "EN")),
    "day_worker": (("DE", "D"), ("D",)),
    "night_specialist": (("N", "EN"), ("N",)),
    "evening_worker": (("DE", "EN"), ("E",)),
}
#: per profile, the cost offset of each shift (a night specialist is cheap at night)
PROFILE_COST = {
    "generalist": {"D": 0, "E": 2, "N": 5},
    "day_worker": {"D": -2, "E": 3, "N": 9},
    "night_specialist": {"D": 6, "E": 2, "N": -2},
    "evening_worker": {"D": 3, "E": -2, "N": 3},
}


@dataclass(frozen=True)
class Regime:
    workers: tuple[int, int]
    days: int
    base_demand: dict[str, tuple[int, int]]
    weekend_peak: bool
    midweek_peak: bool
    horizon_rules: bool
    rest_rule: bool
    cap_share: tuple[float, float]  # regular caps cover this share of the total demand
    off_days: tuple[int, int]  # days each worker is unavailable
    coverage_regime: str
    overtime_regime: str


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        (7, 8), 7, {"D": (2, 2), "E": (1, 2), "N": (1, 1)}, False, False, False, False, (1.0, 1.0),
        (1, 1), "flat_week", "none",
    ),
    "medium": Regime(
        (11, 12), 12, {"D": (2, 3), "E": (2, 3), "N": (1, 1)}, True, False, True, False, (0.85, 0.95),
        (1, 2), "weekend_peak", "worker_specific_penalties",
    ),
    "hard": Regime(
        (14, 17), 18, {"D": (4, 4), "E": (2, 3), "N": (1, 2)}, True, True, True, True, (0.8, 0.9),
        (1, 3), "multi_week_weekend_and_midweek_peaks", "tight_caps_worker_specific_penalties",
    ),
}  # fmt: skip


@dataclass(frozen=True)
class Structure:
    workers: tuple[str, ...]
    days: tuple[str, ...]
    profiles: dict[str, str]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    workers = tuple(f"W{k}" for k in range(1, rng.randint(*regime.workers) + 1))
    days = tuple(f"{WEEKDAYS[k % 7]}{k // 7 + 1}" for k in range(regime.days))
    kinds = ["generalist", "generalist", "day_worker", "night_specialist", "evening_worker"]
    profiles = {w: kinds[k] if k < len(kinds) else rng.choice(kinds) for k, w in enumerate(workers)}
    return Structure(workers=workers, days=days, profiles=profiles)


def formulation_size(instance: Mapping[str, Any]) -> dict[str, int]:
    workers, days = len(instance["sets"]["workers"]), len(instance["sets"]["days"])
    shifts = len(instance["sets"]["shifts"])
    rule = rules(instance)
    binaries = workers * days * shifts
    constraints = days * shifts + workers * days
    if rule.overtime:
        constraints += workers
    if rule.night_limit:
        constraints += workers
    if rule.consecutive:
        constraints += sum(len(windows(instance, w)) for w in instance["sets"]["workers"])
    if rule.rest_rule:
        constraints += workers * (days - 1)
    return {
        "variables": binaries + (workers if rule.overtime else 0),
        "binary_variables": binaries,
        "constraints": constraints,
        "workers": workers,
        "days": days,
        "shifts": shifts,
    }


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    workers, days = list(structure.workers), list(structure.days)
    demand: dict[str, dict[str, int]] = {}
    for k, day in enumerate(days):
        row = {s: rng.randint(*regime.base_demand[s]) for s in SHIFTS}
        weekday = WEEKDAYS[k % 7]
        if regime.weekend_peak and weekday in ("Sat", "Sun"):
            row[rng.choice(("D", "E"))] += 1
        if regime.midweek_peak and weekday == "Wed":
            row["D"] += 1
        demand[day] = row
    availability: dict[str, dict[str, str]] = {}
    for worker in workers:
        usual, restricted = PROFILES[structure.profiles[worker]]
        off_days = set(rng.sample(days, rng.randint(*regime.off_days)))
        availability[worker] = {}
        for day in days:
            if day in off_days:
                code = "OFF"
            elif rng.random() < 0.2:
                code = rng.choice(restricted)
            else:
                code = rng.choice(usual)
            availability[worker][day] = code
    shift_cost = {}
    for worker in workers:
        base = rng.randint(9, 14) if difficulty == "easy" else rng.randint(15, 20)
        offsets = PROFILE_COST[structure.profiles[worker]]
        shift_cost[worker] = {s: base + offsets[s] + rng.randint(0, 2) for s in SHIFTS}
    instance: dict[str, Any] = {
        "variant": "workforce_planning_shift_scheduling",
        "scenario": "workforce_planning_shift_scheduling",
        "difficulty": difficulty,
        "sets": {"workers": workers, "days": days, "shifts": list(SHIFTS)},
        "indices": {
            "worker_index": {w: k for k, w in enumerate(workers)},
            "day_index": {d: k for k, d in enumerate(days)},
            "shift_index": {s: k for k, s in enumerate(SHIFTS)},
        },
        "shift_labels": dict(SHIFT_LABELS),
        "shift_time_window": dict(SHIFT_WINDOWS),
        "availability_legend": {code: list(shifts) for code, shifts in LEGEND.items()},
    }
    if regime.horizon_rules:
        instance["constraint_flags"] = {
            "night_limit": True,
            "consecutive": True,
            "rest_rule": regime.rest_rule,
        }
    instance["demand"] = demand
    instance["shift_cost"] = shift_cost
    if regime.horizon_rules:
        total = sum(sum(row.values()) for row in demand.values())
        share = rng.uniform(*regime.cap_share)
        per_worker = total * share / len(workers)
        instance["regular_shift_limit"] = {
            w: max(2, round(per_worker + rng.uniform(-1.0, 1.0))) for w in workers
        }
        instance["overtime_cost"] = {w: rng.randint(8, 15) for w in workers}
        nights = {
            "night_specialist": (len(days) // 2, len(days) // 2 + 2),
            "generalist": (1, 4),
            "evening_worker": (1, 3),
            "day_worker": (0, 1),
        }
        instance["max_night_shifts"] = {w: rng.randint(*nights[structure.profiles[w]]) for w in workers}
        instance["max_consecutive_days"] = {w: rng.randint(3, 5) for w in workers}
    instance["availability_code"] = availability
    peak = regime.weekend_peak or regime.midweek_peak
    instance["meta_parameters"] = {
        "number_periods": len(days),
        "number_workers": len(workers),
        "number_shift_types": len(SHIFTS),
        "coverage_regime": regime.coverage_regime,
        "overtime_regime": regime.overtime_regime,
        "availability_regime": "generalists_day_evening_and_night_profiles",
        "night_limit_flag": regime.horizon_rules,
        "consecutive_constraint_flag": regime.horizon_rules,
        "rest_rule_flag": regime.rest_rule,
        "peak_demand_flag": peak,
        "visual_type": "staffing_dashboard_worker_profile_and_availability_matrix",
    }
    instance["meta_parameters"]["formulation_size"] = formulation_size(instance)["variables"]
    return instance


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    workers, days = instance["sets"]["workers"], instance["sets"]["days"]
    for day in days:
        free = [w for w in workers if allowed(instance, w, day)]
        if sum(instance["demand"][day].values()) > len(free):
            return ["structure: a day needs more workers than are available"]
        for shift in instance["sets"]["shifts"]:
            able = sum(shift in allowed(instance, w, day) for w in workers)
            if instance["demand"][day][shift] > able:
                return ["structure: a day-shift pair needs more workers than are available for it"]
    return []


def _keys(instance: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    sets = instance["sets"]
    return [(w, d, s) for w in sets["workers"] for d in sets["days"] for s in sets["shifts"]]


def solve_milp(
    instance: Mapping[str, Any], *, horizon_rules: bool = True
) -> tuple[float, dict[str, Any]] | None:
    """HiGHS on the assignment MILP: (optimal cost, worker → day → shift or "OFF"), None when no
    roster exists. ``horizon_rules=False`` drops caps, Night limit, consecutive and rest rules."""
    sets = instance["sets"]
    workers, days, shifts = sets["workers"], sets["days"], sets["shifts"]
    rule = rules(instance)
    keys = _keys(instance)
    index = {key: k for k, key in enumerate(keys)}
    overtime = rule.overtime and horizon_rules
    n = len(keys) + (len(workers) if overtime else 0)
    cost = np.zeros(n)
    upper = np.zeros(n)
    for (w, d, s), k in index.items():
        cost[k] = instance["shift_cost"][w][s]
        upper[k] = 1.0 if s in allowed(instance, w, d) else 0.0
    rows: list[tuple[dict[int, float], float, float]] = []
    for d in days:
        for s in shifts:
            rows.append(({index[w, d, s]: 1.0 for w in workers}, instance["demand"][d][s], np.inf))
    for w in workers:
        for d in days:
            rows.append(({index[w, d, s]: 1.0 for s in shifts}, -np.inf, 1.0))
    if horizon_rules:
        for j, w in enumerate(workers):
            if overtime:  # sum x - o_w <= cap_w
                k = len(keys) + j
                cost[k] = instance["overtime_cost"][w]
                upper[k] = len(days)
                row = {index[w, d, s]: 1.0 for d in days for s in shifts}
                row[k] = -1.0
                rows.append((row, -np.inf, instance["regular_shift_limit"][w]))
            if rule.night_limit:
                rows.append(
                    ({index[w, d, NIGHT]: 1.0 for d in days}, -np.inf, instance["max_night_shifts"][w])
                )
            if rule.consecutive:
                limit = instance["max_consecutive_days"][w]
                for window in windows(instance, w):
                    rows.append(({index[w, d, s]: 1.0 for d in window for s in shifts}, -np.inf, limit))
            if rule.rest_rule:
                for today, tomorrow in pairwise(days):
                    rows.append(({index[w, today, NIGHT]: 1.0, index[w, tomorrow, DAY]: 1.0}, -np.inf, 1.0))
    matrix = lil_matrix((len(rows), n))
    for r, (coefficients, _, _) in enumerate(rows):
        for k, v in coefficients.items():
            matrix[r, k] = v
    integrality = np.ones(n)
    result = milp(
        c=cost,
        constraints=[
            LinearConstraint(
                matrix.tocsr(), lb=np.array([r[1] for r in rows]), ub=np.array([r[2] for r in rows])
            )
        ],
        integrality=integrality,
        bounds=Bounds(np.zeros(n), upper),
        options={"time_limit": SOLVE_LIMIT_S},
    )
    if result.status == 2:
        return None
    if result.status != 0:
        raise Rejected("reference: solver did not certify optimality", str(result.message))
    x = np.rint(result.x).astype(int)
    schedule = {w: {d: next((s for s in shifts if x[index[w, d, s]]), "OFF") for d in days} for w in workers}
    return float(result.fun), schedule


def roster_totals(instance: Mapping[str, Any], schedule: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    """Costs and counts implied by a roster (worker → day → shift or "OFF")."""
    workers, days = instance["sets"]["workers"], instance["sets"]["days"]
    rule = rules(instance)
    totals = {w: sum(schedule[w][d] != "OFF" for d in days) for w in workers}
    nights = {w: sum(schedule[w][d] == NIGHT for d in days) for w in workers}
    assignment = sum(
        instance["shift_cost"][w][schedule[w][d]] for w in workers for d in days if schedule[w][d] != "OFF"
    )
    overtime = (
        {w: max(0, totals[w] - int(instance["regular_shift_limit"][w])) for w in workers}
        if rule.overtime
        else {}
    )
    overtime_cost = sum(instance["overtime_cost"][w] * overtime[w] for w in overtime)
    return {
        "totals": totals,
        "nights": nights,
        "overtime": overtime,
        "assignment_cost": assignment,
        "overtime_cost": overtime_cost,
        "objective": assignment + overtime_cost,
    }


def solution_record(instance: Mapping[str, Any], schedule: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
    """The reference in the official ``solution_ref.json`` shape (plus ``objective_value``)."""
    workers, days, shifts = instance["sets"]["workers"], instance["sets"]["days"], instance["sets"]["shifts"]
    totals = roster_totals(instance, schedule)
    value = int(totals["objective"])
    solution: dict[str, Any] = {
        "status": "optimal",
        "objective": value,
        "objective_value": value,
        "objective_exact": value,
        "assignment_cost": int(totals["assignment_cost"]),
    }
    if rules(instance).overtime:
        solution["overtime_cost"] = int(totals["overtime_cost"])
        solution["total_overtime_shifts"] = int(sum(totals["overtime"].values()))
    solution["assignments_by_day"] = {
        d: {s: [w for w in workers if schedule[w][d] == s] for s in shifts} for d in days
    }
    solution["coverage_realized"] = {
        d: {s: sum(schedule[w][d] == s for w in workers) for s in shifts} for d in days
    }
    solution["worker_schedule"] = {w: dict(schedule[w]) for w in workers}
    solution["worker_total_assignments"] = dict(totals["totals"])
    if rules(instance).night_limit:
        solution["worker_night_assignments"] = dict(totals["nights"])
    if rules(instance).overtime:
        solution["worker_overtime"] = dict(totals["overtime"])
        solution["workers_at_regular_cap"] = [
            w for w in workers if totals["totals"][w] >= int(instance["regular_shift_limit"][w])
        ]
    return solution


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    solved = solve_milp(instance)
    if solved is None:
        raise Rejected("structure: no roster covers every demand")
    value, schedule = solved
    solution = solution_record(instance, schedule)
    if abs(solution["objective_value"] - value) > 1e-6 * max(1.0, abs(value)):
        raise Rejected("reference: rounded roster does not reproduce the MILP optimum")
    return ReferenceSolution(solution=solution, method="scipy.optimize.milp (HiGHS, proven optimal)")


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """CP-SAT on Boolean assignment variables, sharing nothing with the HiGHS reference (see the
    module docstring for why the linearization level matters)."""
    sets = instance["sets"]
    workers, days, shifts = sets["workers"], sets["days"], sets["shifts"]
    rule = rules(instance)
    model = cp_model.CpModel()
    x = {}
    for w, d, s in _keys(instance):
        x[w, d, s] = model.new_bool_var(f"x_{w}_{d}_{s}")
        if s not in allowed(instance, w, d):
            model.add(x[w, d, s] == 0)
    for d in days:
        for s in shifts:
            model.add(sum(x[w, d, s] for w in workers) >= instance["demand"][d][s])
        for w in workers:
            model.add_at_most_one(x[w, d, s] for s in shifts)
    objective = [instance["shift_cost"][w][s] * x[w, d, s] for w, d, s in _keys(instance)]
    for w in workers:
        worked = sum(x[w, d, s] for d in days for s in shifts)
        if rule.overtime:
            extra = model.new_int_var(0, len(days), f"o_{w}")
            model.add(extra >= worked - int(instance["regular_shift_limit"][w]))
            objective.append(instance["overtime_cost"][w] * extra)
        if rule.night_limit:
            model.add(sum(x[w, d, NIGHT] for d in days) <= instance["max_night_shifts"][w])
        if rule.consecutive:
            for window in windows(instance, w):
                model.add(
                    sum(x[w, d, s] for d in window for s in shifts) <= instance["max_consecutive_days"][w]
                )
        if rule.rest_rule:
            for today, tomorrow in pairwise(days):
                model.add_bool_or([~x[w, today, NIGHT], ~x[w, tomorrow, DAY]])
    model.minimize(sum(objective))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.linearization_level = 2
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise Rejected("cross-check: CP-SAT did not certify optimality", solver.status_name(status))
    return "ortools.sat CP-SAT (Boolean roster model, proven optimal)", float(solver.objective_value)


def cheapest_staffing_cost(instance: Mapping[str, Any]) -> float:
    """Every day-shift pair staffed with its cheapest available workers, each pair on its own (a
    worker may be double-booked): a lower bound that equals the optimum only when no worker is
    wanted by two shifts of one day."""
    total = 0.0
    for day in instance["sets"]["days"]:
        for shift in instance["sets"]["shifts"]:
            rates = sorted(
                instance["shift_cost"][w][shift]
                for w in instance["sets"]["workers"]
                if shift in allowed(instance, w, day)
            )
            total += sum(rates[: instance["demand"][day][shift]])
    return total


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    optimum = float(reference.solution["objective_value"])
    if abs(cheapest_staffing_cost(instance) - optimum) < 1e-6:
        return ["nontrivial: every shift takes its cheapest available workers"]
    if REGIMES[difficulty].horizon_rules:
        relaxed = solve_milp(instance, horizon_rules=False)
        if relaxed is not None and relaxed[0] >= optimum - 1e-6:
            return ["nontrivial: the horizon rules do not bind"]
        if not reference.solution.get("workers_at_regular_cap"):
            return ["nontrivial: no worker reaches the regular cap"]
    return []
