"""Energy dispatch and unit commitment (multi-period/system-planning family, prefix ``educ``).

Generating units meet a demand profile over a horizon: each period a unit is on or off, an online
unit produces between its minimum and maximum output, a start pays the unit's startup cost, and
output is priced at the unit's marginal cost (the rules in :mod:`.model`). The fleet is a merit
order: cheap base units with large minimum outputs and expensive starts, expensive peakers that
start cheaply, so committing for the peak and cycling the peakers really trade off.

Regimes (App. D.2): easy has three units over six periods with a level demand and a loose fleet
margin (peak at 60-72 % of the fleet), medium five units over 13 periods with two demand peaks,
minimum up/down times and a peak at 74-84 % of the fleet, hard eight units over 23 periods with
a two-peak daily cycle, minimum up/down times, ramp limits, units already running before the
horizon and a peak at 82-90 % of the fleet. Medium and hard sit at the official release's medians
(5 units × 13 periods and 8 × 23, ``generation/release_sizes``); the exact MILP still solves a
hard instance in about 0.15 s (0.3 s at most on the shipped ten).

Rejection rules (App. D): a candidate whose peak demand exceeds the whole fleet, or whose peak
stays below the regime's share of it (no binding capacity period, checked before solving), is
rejected; so is one with no feasible commitment. On the verified optimum some online unit must run
at its maximum output (a binding capacity period), the optimum must be strictly cheaper than
holding the peak's merit-order units on for the whole horizon, and at medium and hard the
commitment must change after the first period.

Reference: HiGHS MILP (SciPy) with startups linked pairwise to the commitment and minimum
up/down times as pairwise implications; cross-check: SCIP (OR-Tools) on a second formulation with
explicit startup and shutdown variables and the aggregated (turn-on/turn-off window) minimum
up/down inequalities.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.linear_solver import pywraplp
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.model import (
    has_min_up_down,
    has_ramping,
    initial_output,
    plan_cost,
    transitions,
    units_periods,
)

SOLVE_LIMIT_S = 60.0
DIGITS = 6  # generation is reported to six decimals (solver noise removed)


@dataclass(frozen=True)
class Regime:
    units: int
    periods: int
    peak_share: tuple[float, float]  # peak demand as a share of the fleet's maximum output
    trough_share: tuple[float, float]  # lowest demand as a share of the peak
    peaks: int  # 0: level demand with noise, 1: one peak, 2: a two-peak daily cycle
    min_up_down: bool
    ramping: bool
    running_start: bool  # the base units are on before the horizon
    demand_pattern: str
    capacity_regime: str


REGIMES: dict[str, Regime] = {
    "easy": Regime(3, 6, (0.60, 0.72), (0.5, 0.7), 0, False, False, False, "level_demand", "loose"),
    "medium": Regime(5, 13, (0.74, 0.84), (0.45, 0.6), 2, True, False, False, "two_peak", "moderate"),
    "hard": Regime(8, 23, (0.82, 0.90), (0.4, 0.55), 2, True, True, True, "two_peak_daily", "tight"),
}


@dataclass(frozen=True)
class Structure:
    units: tuple[str, ...]
    periods: tuple[str, ...]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    return Structure(
        units=tuple(f"G{i}" for i in range(1, regime.units + 1)),
        periods=tuple(f"t{t}" for t in range(1, regime.periods + 1)),
    )


def formulation_size(instance: Mapping[str, Any]) -> dict[str, int]:
    units, periods = units_periods(instance)
    cells = len(units) * len(periods)
    rows = len(periods) + 3 * cells
    if has_min_up_down(instance):
        rows += sum(int(instance["min_up"][g]) + int(instance["min_down"][g]) - 2 for g in units) * len(
            periods
        )
    if has_ramping(instance):
        rows += 2 * cells
    return {
        "variables": 3 * cells,
        "binary_variables": 2 * cells,
        "constraints": rows,
        "units": len(units),
        "periods": len(periods),
    }


def _demand_profile(rng: random.Random, regime: Regime, count: int) -> list[float]:
    """Shape in [0, 1] (1 at the peak): level with noise, one smooth peak, or two daily peaks."""
    if regime.peaks == 0:
        shape = [rng.uniform(0.0, 1.0) for _ in range(count)]
    else:
        phase = rng.uniform(-0.35, 0.35)
        shape = [
            0.5 - 0.5 * np.cos(2 * np.pi * regime.peaks * (k + 0.5) / count + phase) for k in range(count)
        ]
        shape = [min(1.0, max(0.0, s + rng.uniform(-0.06, 0.06))) for s in shape]
    top, bottom = max(shape), min(shape)
    return [(s - bottom) / (top - bottom) if top > bottom else 1.0 for s in shape]


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    units, periods = list(structure.units), list(structure.periods)
    count = len(units)
    pmax, pmin, cost, startup = {}, {}, {}, {}
    for k, unit in enumerate(units):  # merit order: k = 0 is the cheapest base unit
        base = 1.0 - k / max(1, count - 1)  # 1 for the first unit, 0 for the last
        pmax[unit] = int(2 * round(rng.uniform(8 + 14 * base, 12 + 18 * base)))
        pmin[unit] = round(pmax[unit] * rng.uniform(0.3, 0.5) * max(base, 0.5)) if base > 0.2 else 0
        cost[unit] = round(rng.uniform(7, 9) + 16 * (1 - base) + rng.uniform(-1, 1))
        startup[unit] = int(5 * round(rng.uniform(6 + 20 * base, 10 + 30 * base)))
    fleet = sum(pmax.values())
    peak = rng.uniform(*regime.peak_share) * fleet
    trough = rng.uniform(*regime.trough_share) * peak
    demand = {
        t: round(trough + s * (peak - trough))
        for t, s in zip(periods, _demand_profile(rng, regime, len(periods)), strict=True)
    }
    instance: dict[str, Any] = {
        "variant": "energy_dispatch_unit_commitment",
        "scenario": "energy_dispatch_unit_commitment",
        "difficulty": difficulty,
        "sets": {"generators": units, "periods": periods},
        "demand": demand,
        "cost": cost,
        "startup_cost": startup,
        "pmin": pmin,
        "pmax": pmax,
    }
    if regime.min_up_down:
        instance["min_up"] = {
            g: rng.randint(2, 4) if k < count // 2 else rng.randint(1, 2) for k, g in enumerate(units)
        }
        instance["min_down"] = {g: rng.randint(2, 3) if k < count // 2 else 1 for k, g in enumerate(units)}
    running = {g: int(regime.running_start and k < 2) for k, g in enumerate(units)}
    instance["initial_status"] = running
    if regime.ramping:
        instance["ramp_up"] = {g: int(2 * round(pmax[g] * rng.uniform(0.2, 0.35))) for g in units}
        instance["ramp_down"] = dict(instance["ramp_up"])
        instance["initial_output"] = {
            g: round(pmin[g] + 0.5 * (pmax[g] - pmin[g])) if running[g] else 0 for g in units
        }
    instance["meta_parameters"] = {
        "number_periods": len(periods),
        "number_units": count,
        "demand_pattern": regime.demand_pattern,
        "capacity_regime": regime.capacity_regime,
        "minimum_up_down_flag": regime.min_up_down,
        "ramping_flag": regime.ramping,
        "peak_load_share": round(max(demand.values()) / fleet, 3),
        "visual_type": ("one_dashboard", "table_plus_timeline_dashboard", "three_panel_dashboard")[
            ("easy", "medium", "hard").index(difficulty)
        ],
        "formulation_size": 3 * count * len(periods),
    }
    return instance


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    units, _ = units_periods(instance)
    fleet = sum(instance["pmax"][g] for g in units)
    peak = max(instance["demand"].values())
    if peak > fleet:
        return ["structure: peak demand exceeds the whole fleet"]
    if peak < REGIMES[difficulty].peak_share[0] * fleet - 1:
        return ["structure: no binding capacity period (the peak stays far below the fleet)"]
    if min(instance["demand"].values()) < 1:
        return ["structure: a period without demand"]
    return []


# --------------------------------------------------------------------------------------------------
# reference: HiGHS, pairwise formulation


class _Index:
    """Variable blocks of the HiGHS model: output p, status u, startup v, shutdown w (unit-major)."""

    def __init__(self, instance: Mapping[str, Any]) -> None:
        self.units, self.periods = units_periods(instance)
        self.T = len(self.periods)
        self.block = len(self.units) * self.T
        self.n = 4 * self.block

    def __call__(self, kind: int, g: int, t: int) -> int:
        return kind * self.block + g * self.T + t


def _highs(
    instance: Mapping[str, Any], fixed: Mapping[str, Mapping[str, int]] | None = None
) -> tuple[Any, _Index]:
    """Solve the pairwise MILP (optionally with the commitment fixed); returns SciPy's result."""
    ix = _Index(instance)
    cost = np.zeros(ix.n)
    lower, upper = np.zeros(ix.n), np.ones(ix.n)
    rows: list[dict[int, float]] = []
    lo: list[float] = []
    hi: list[float] = []

    def add(row: dict[int, float], low: float, high: float) -> None:
        rows.append(row)
        lo.append(low)
        hi.append(high)

    for t, period in enumerate(ix.periods):
        add(
            {ix(0, g, t): 1.0 for g in range(len(ix.units))},
            instance["demand"][period],
            instance["demand"][period],
        )
    for g, unit in enumerate(ix.units):
        pmin, pmax = float(instance["pmin"][unit]), float(instance["pmax"][unit])
        u0 = int(instance["initial_status"][unit])
        for t, period in enumerate(ix.periods):
            cost[ix(0, g, t)] = instance["cost"][unit]
            cost[ix(2, g, t)] = instance["startup_cost"][unit]
            cost[ix(3, g, t)] = instance.get("shutdown_cost", {}).get(unit, 0)
            upper[ix(0, g, t)] = pmax
            if fixed is not None:
                lower[ix(1, g, t)] = upper[ix(1, g, t)] = fixed[unit][period]
            add({ix(0, g, t): 1.0, ix(1, g, t): -pmax}, -np.inf, 0.0)
            add({ix(0, g, t): 1.0, ix(1, g, t): -pmin}, 0.0, np.inf)
            # v_t >= u_t - u_{t-1}, w_t >= u_{t-1} - u_t (u_0 the initial status)
            start = {ix(2, g, t): 1.0, ix(1, g, t): -1.0}
            stop = {ix(3, g, t): 1.0, ix(1, g, t): 1.0}
            if t:
                start[ix(1, g, t - 1)] = 1.0
                stop[ix(1, g, t - 1)] = -1.0
            add(start, -u0 if t == 0 else 0.0, np.inf)
            add(stop, u0 if t == 0 else 0.0, np.inf)
            if has_min_up_down(instance):
                # a start in t keeps the unit on in t+1 .. t+UT-1, a stop keeps it off in t+1 .. t+DT-1
                for later in range(t + 1, min(ix.T, t + int(instance["min_up"][unit]))):
                    row = {ix(1, g, later): 1.0, ix(1, g, t): -1.0}
                    if t:
                        row[ix(1, g, t - 1)] = 1.0
                    add(row, -u0 if t == 0 else 0.0, np.inf)
                for later in range(t + 1, min(ix.T, t + int(instance["min_down"][unit]))):
                    row = {ix(1, g, later): 1.0, ix(1, g, t): -1.0}
                    if t:
                        row[ix(1, g, t - 1)] = 1.0
                    add(row, -np.inf, 1.0 - (u0 if t == 0 else 0.0))
            if has_ramping(instance):
                up, down = float(instance["ramp_up"][unit]), float(instance["ramp_down"][unit])
                # p_t - p_{t-1} <= RU + Pmax (1 - u_{t-1}); p_{t-1} - p_t <= RD + Pmax (1 - u_t)
                if t:
                    add({ix(0, g, t): 1.0, ix(0, g, t - 1): -1.0, ix(1, g, t - 1): pmax}, -np.inf, up + pmax)
                    add({ix(0, g, t - 1): 1.0, ix(0, g, t): -1.0, ix(1, g, t): pmax}, -np.inf, down + pmax)
                else:
                    p0 = initial_output(instance, unit)
                    add({ix(0, g, t): 1.0}, -np.inf, up + pmax * (1 - u0) + p0)
                    add({ix(0, g, t): -1.0, ix(1, g, t): pmax}, -np.inf, down + pmax - p0)
    matrix = np.zeros((len(rows), ix.n))
    for r, row in enumerate(rows):
        for column, value in row.items():
            matrix[r, column] += value
    integrality = np.zeros(ix.n)
    integrality[ix.block :] = 1
    result = milp(
        c=cost,
        constraints=[LinearConstraint(matrix, lb=np.array(lo), ub=np.array(hi))],
        integrality=integrality,
        bounds=Bounds(lower, upper),
        options={"time_limit": SOLVE_LIMIT_S, "mip_rel_gap": 0.0},
    )
    return result, ix


def _grids(result: Any, ix: _Index) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    generation = {
        unit: {
            period: round(float(result.x[ix(0, g, t)]), DIGITS) + 0.0 for t, period in enumerate(ix.periods)
        }
        for g, unit in enumerate(ix.units)
    }
    commitment = {
        unit: {period: round(result.x[ix(1, g, t)]) for t, period in enumerate(ix.periods)}
        for g, unit in enumerate(ix.units)
    }
    return generation, commitment


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    result, ix = _highs(instance)
    if result.status == 2:
        raise Rejected("structure: no commitment meets every demand")
    if result.status != 0:
        raise Rejected("reference: solver did not certify optimality", str(result.message))
    generation, commitment = _grids(result, ix)
    solution = solution_record(instance, generation, commitment)
    if abs(solution["objective_value"] - float(result.fun)) > 1e-6 * max(1.0, abs(float(result.fun))):
        raise Rejected("reference: rounded plan does not reproduce the MILP optimum")
    return ReferenceSolution(solution=solution, method="scipy.optimize.milp (HiGHS, proven optimal)")


def _number(value: float) -> int | float:
    return round(value) if abs(value - round(value)) < 1e-9 else round(value, 6)


def solution_record(
    instance: Mapping[str, Any],
    generation: Mapping[str, Mapping[str, float]],
    commitment: Mapping[str, Mapping[str, int]],
) -> dict[str, Any]:
    units, periods = units_periods(instance)
    startups, shutdowns = transitions(instance, commitment)
    value = _number(plan_cost(instance, generation, startups, shutdowns))
    solution: dict[str, Any] = {"status": "optimal", "objective_value": value}
    if isinstance(value, int):
        solution["objective_exact"] = value
    solution.update(
        {
            "generation": {g: dict(row) for g, row in generation.items()},
            "commitment": {g: dict(row) for g, row in commitment.items()},
            "startup": startups,
            "period_total_generation": {
                t: _number(sum(float(generation[g][t]) for g in units)) for t in periods
            },
            "online_units_by_period": {t: [g for g in units if commitment[g][t]] for t in periods},
            "startup_periods": {g: [t for t in periods if startups[g][t]] for g in units},
            "binding_capacity_periods": {
                g: [
                    t
                    for t in periods
                    if commitment[g][t] and abs(float(generation[g][t]) - instance["pmax"][g]) < 1e-6
                ]
                for g in units
            },
        }
    )
    if "shutdown_cost" in instance:
        solution["shutdown"] = shutdowns
    return solution


# --------------------------------------------------------------------------------------------------
# cross-check: SCIP, aggregated window formulation


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    units, periods = units_periods(instance)
    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:
        raise RuntimeError("OR-Tools was built without SCIP")
    solver.SetTimeLimit(int(SOLVE_LIMIT_S * 1000))
    exact = pywraplp.MPSolverParameters()
    exact.SetDoubleParam(pywraplp.MPSolverParameters.RELATIVE_MIP_GAP, 0.0)
    objective = solver.Objective()
    outputs: dict[str, list[Any]] = {}
    for unit in units:
        pmin, pmax = float(instance["pmin"][unit]), float(instance["pmax"][unit])
        p = [solver.NumVar(0.0, pmax, f"p_{unit}_{t}") for t in periods]
        u = [solver.BoolVar(f"u_{unit}_{t}") for t in periods]
        v = [solver.BoolVar(f"v_{unit}_{t}") for t in periods]
        w = [solver.BoolVar(f"w_{unit}_{t}") for t in periods]
        u0 = int(instance["initial_status"][unit])
        for k in range(len(periods)):
            solver.Add(p[k] <= pmax * u[k])
            solver.Add(p[k] >= pmin * u[k])
            solver.Add(v[k] - w[k] == u[k] - (u[k - 1] if k else u0))  # exact start/stop indicators
            solver.Add(v[k] + w[k] <= 1)
            if has_min_up_down(instance):
                up, down = int(instance["min_up"][unit]), int(instance["min_down"][unit])
                solver.Add(sum(v[s] for s in range(max(0, k - up + 1), k + 1)) <= u[k])
                solver.Add(sum(w[s] for s in range(max(0, k - down + 1), k + 1)) <= 1 - u[k])
            if has_ramping(instance):
                before = p[k - 1] if k else initial_output(instance, unit)
                on_before = u[k - 1] if k else u0
                solver.Add(p[k] - before <= float(instance["ramp_up"][unit]) + pmax * (1 - on_before))
                solver.Add(before - p[k] <= float(instance["ramp_down"][unit]) + pmax * (1 - u[k]))
            objective.SetCoefficient(p[k], float(instance["cost"][unit]))
            objective.SetCoefficient(v[k], float(instance["startup_cost"][unit]))
            objective.SetCoefficient(w[k], float(instance.get("shutdown_cost", {}).get(unit, 0)))
        outputs[unit] = p
    for k, period in enumerate(periods):
        solver.Add(sum(outputs[unit][k] for unit in units) == float(instance["demand"][period]))
    objective.SetMinimization()
    status = solver.Solve(exact)
    if status != pywraplp.Solver.OPTIMAL:
        raise Rejected("cross-check: SCIP did not certify optimality", str(status))
    method = "OR-Tools pywraplp + SCIP (start/stop variables, aggregated up/down windows)"
    return method, round(float(objective.Value()), 6)


# --------------------------------------------------------------------------------------------------
# nontriviality


def peak_commitment(instance: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """The simple plan: the merit-order units whose maximum outputs cover the peak, on throughout."""
    units, periods = units_periods(instance)
    peak = max(instance["demand"].values())
    order = sorted(units, key=lambda g: (instance["cost"][g], g))
    chosen, total = [], 0
    for unit in order:
        if total >= peak:
            break
        chosen.append(unit)
        total += instance["pmax"][unit]
    return {g: dict.fromkeys(periods, int(g in chosen)) for g in units}


def myopic_commitment(instance: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """The other simple plan: each period on its own, the merit-order units covering its demand
    (startup costs and the other periods ignored)."""
    units, periods = units_periods(instance)
    order = sorted(units, key=lambda g: (instance["cost"][g], g))
    plan = {g: dict.fromkeys(periods, 0) for g in units}
    for period in periods:
        total = 0
        for unit in order:
            if total >= instance["demand"][period]:
                break
            plan[unit][period] = 1
            total += instance["pmax"][unit]
    return plan


SIMPLE_PLANS = {"peak_commitment": peak_commitment, "myopic_merit_order": myopic_commitment}


def fixed_commitment_cost(
    instance: Mapping[str, Any], commitment: Mapping[str, Mapping[str, int]]
) -> float | None:
    """The cheapest dispatch of a fixed commitment (None where it breaks a rule or a demand)."""
    result, _ = _highs(instance, fixed=commitment)
    return float(result.fun) if result.status == 0 else None


def simple_plan_costs(instance: Mapping[str, Any]) -> dict[str, float | None]:
    return {name: fixed_commitment_cost(instance, plan(instance)) for name, plan in SIMPLE_PLANS.items()}


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    solution = reference.solution
    if not any(solution["binding_capacity_periods"].values()):
        return ["nontrivial: no online unit ever runs at its maximum output"]
    for name, cost in simple_plan_costs(instance).items():
        if cost is not None and cost <= float(solution["objective_value"]) + 1e-6:
            return [f"nontrivial: the {name.replace('_', ' ')} plan is optimal"]
    if difficulty != "easy":
        commitment = solution["commitment"]
        _, periods = units_periods(instance)
        if all(len({row[t] for t in periods}) == 1 for row in commitment.values()):
            return ["nontrivial: the commitment never changes"]
    return []
