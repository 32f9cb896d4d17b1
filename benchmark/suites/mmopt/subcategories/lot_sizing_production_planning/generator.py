"""Capacitated lot sizing (multi-period/system-planning family, prefix ``lspp``).

Products are made in periods to meet per-period demand without backlog; a period in which a product
is made pays its setup cost (and, at hard, uses setup time of the shared capacity); stock carried
into the next period pays holding cost; all products share one capacity per period. The costs are
constant over the horizon per product, stored in the official per-period shape.

Regimes (App. D.2): easy has one or two products over six periods and a loose capacity, medium two
or three products over eight periods with seasonal demand and a capacity that binds, hard three or
four products over ten to twelve periods with setup times and a tight capacity.

Rejection rules (App. D): a candidate whose cumulative capacity falls below its cumulative demand in
some prefix of periods cannot be planned (the prefix-feasibility rule, checked before solving); at
medium and hard the verified optimum must use the whole capacity in some period (a binding capacity
period), and at every difficulty the optimum must differ from both simple plans, lot-for-lot
(produce each period's demand in that period) and one setup per product, so setups and holding
really trade off.

Reference: HiGHS MILP (SciPy) with a certificate; cross-check: CP-SAT on the same model with integer
production, which is exact here because, for fixed setups, the remaining problem is a network flow
with integral data and so has an integral optimum.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

SOLVE_LIMIT_S = 60.0


@dataclass(frozen=True)
class Regime:
    products: tuple[int, int]
    periods: tuple[int, int]
    demand: tuple[int, int]
    seasonal: bool
    tightness: tuple[float, float]  # capacity = tightness × average total demand per period
    setup_cost: tuple[int, int]
    setup_time: tuple[int, int] | None
    binding_required: bool
    demand_pattern: str
    capacity_regime: str


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        (1, 2), (6, 6), (4, 14), False, (1.6, 2.2), (12, 40), None, False, "random_level", "loose"
    ),
    "medium": Regime(
        (2, 3), (8, 8), (3, 16), True, (1.15, 1.35), (20, 60), None, True, "seasonal", "binding"
    ),
    "hard": Regime(
        (3, 4), (10, 10), (3, 18), True, (1.35, 1.55), (25, 80), (2, 6), True, "seasonal", "tight"
    ),
}


@dataclass(frozen=True)
class Structure:
    products: tuple[str, ...]
    periods: tuple[str, ...]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    products = tuple(f"P{i}" for i in range(1, rng.randint(*regime.products) + 1))
    periods = tuple(f"t{t}" for t in range(1, rng.randint(*regime.periods) + 1))
    return Structure(products=products, periods=periods)


def formulation_size(instance: Mapping[str, Any]) -> dict[str, int]:
    products, periods = len(instance["sets"]["products"]), len(instance["sets"]["periods"])
    return {
        "variables": 3 * products * periods,
        "binary_variables": products * periods,
        "constraints": 2 * products * periods + periods,
        "products": products,
        "periods": periods,
    }


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    low, high = regime.demand
    demand: dict[str, dict[str, int]] = {}
    for product in structure.products:
        phase = rng.uniform(-2.2, -0.9)  # the season starts near a trough and peaks mid-horizon
        demand[product] = {}
        for k, period in enumerate(structure.periods):
            level = rng.randint(low, high)
            if regime.seasonal:  # a smooth wave of ±40 % around the level, product-specific phase
                level = max(
                    1, round(level * (1 + 0.4 * np.sin(phase + 2 * np.pi * k / len(structure.periods))))
                )
            demand[product][period] = int(level)

    def constant(values: Mapping[str, int]) -> dict[str, dict[str, int]]:
        return {p: dict.fromkeys(structure.periods, values[p]) for p in structure.products}

    production_cost = {p: rng.randint(2, 6) for p in structure.products}
    holding_cost = {p: rng.randint(1, 3) for p in structure.products}
    setup_cost = {p: rng.randint(*regime.setup_cost) for p in structure.products}
    average = sum(sum(d.values()) for d in demand.values()) / len(structure.periods)
    tightness = rng.uniform(*regime.tightness)
    capacity_value = round(tightness * average)
    instance: dict[str, Any] = {
        "variant": "lot_sizing_production_planning",
        "scenario": "lot_sizing_production_planning",
        "difficulty": difficulty,
        "sets": {"products": list(structure.products), "periods": list(structure.periods)},
        "demand": demand,
        "production_cost": constant(production_cost),
        "holding_cost": constant(holding_cost),
        "setup_cost": constant(setup_cost),
        "initial_inventory": dict.fromkeys(structure.products, 0),
        "capacity": dict.fromkeys(structure.periods, capacity_value),
    }
    if regime.setup_time is not None:
        instance["setup_time"] = {p: rng.randint(*regime.setup_time) for p in structure.products}
    instance["big_m"] = {p: sum(demand[p].values()) for p in structure.products}
    instance["meta_parameters"] = {
        "number_periods": len(structure.periods),
        "number_products": len(structure.products),
        "demand_pattern": regime.demand_pattern,
        "capacity_regime": regime.capacity_regime,
        "multi_product_flag": len(structure.products) > 1,
        "setup_time_flag": regime.setup_time is not None,
        "visual_type": "demand_grid_and_cost_table" if difficulty == "easy" else "dual_visual_dashboard",
        "formulation_size": formulation_size(
            {"sets": {"products": list(structure.products), "periods": list(structure.periods)}}
        )["variables"],
    }
    return instance


def setup_time(instance: Mapping[str, Any], product: str) -> int:
    return int(instance.get("setup_time", {}).get(product, 0))


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    """Prefix capacity feasibility: cumulative capacity (less one setup time per product that still
    has demand to meet) must cover cumulative net demand in every prefix of periods."""
    products, periods = instance["sets"]["products"], instance["sets"]["periods"]
    demand_so_far, capacity_so_far = 0, 0
    for k, period in enumerate(periods):
        demand_so_far += sum(instance["demand"][p][period] for p in products)
        capacity_so_far += instance["capacity"][period]
        needed = sum(
            setup_time(instance, p)
            for p in products
            if any(instance["demand"][p][q] for q in periods[: k + 1])
        )
        if demand_so_far - sum(instance["initial_inventory"].values()) > capacity_so_far - needed:
            return ["structure: cumulative capacity below cumulative demand in a prefix of periods"]
    for p in products:
        if any(
            instance["demand"][p][t] + setup_time(instance, p) > instance["capacity"][t] for t in periods[:1]
        ):
            return ["structure: the first period's demand of a product exceeds the capacity"]
    return []


def _index(instance: Mapping[str, Any]) -> tuple[list[str], list[str], int]:
    products, periods = instance["sets"]["products"], instance["sets"]["periods"]
    return products, periods, len(products) * len(periods)


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """HiGHS MILP: variables production x, inventory s, setup y (blocks of P×T, product-major)."""
    products, periods, block = _index(instance)
    n = 3 * block
    cost = np.zeros(n)
    upper = np.zeros(n)

    def var(kind: int, p: int, t: int) -> int:
        return kind * block + p * len(periods) + t

    rows: list[np.ndarray] = []
    lower_b: list[float] = []
    upper_b: list[float] = []
    for p, product in enumerate(products):
        total = sum(instance["demand"][product].values())
        for t, period in enumerate(periods):
            cost[var(0, p, t)] = instance["production_cost"][product][period]
            cost[var(1, p, t)] = instance["holding_cost"][product][period]
            cost[var(2, p, t)] = instance["setup_cost"][product][period]
            upper[var(0, p, t)] = upper[var(1, p, t)] = total
            upper[var(2, p, t)] = 1
            balance = np.zeros(n)  # s_{t-1} + x_t - s_t = d_t
            balance[var(0, p, t)] = 1
            balance[var(1, p, t)] = -1
            previous = instance["initial_inventory"][product] if t == 0 else 0
            if t:
                balance[var(1, p, t - 1)] = 1
            rows.append(balance)
            lower_b.append(instance["demand"][product][period] - previous)
            upper_b.append(instance["demand"][product][period] - previous)
            linking = np.zeros(n)  # x_t <= M y_t
            linking[var(0, p, t)] = 1
            linking[var(2, p, t)] = -min(total, instance["capacity"][period])
            rows.append(linking)
            lower_b.append(-np.inf)
            upper_b.append(0)
    for t, period in enumerate(periods):
        capacity = np.zeros(n)
        for p, product in enumerate(products):
            capacity[var(0, p, t)] = 1
            capacity[var(2, p, t)] = setup_time(instance, product)
        rows.append(capacity)
        lower_b.append(-np.inf)
        upper_b.append(instance["capacity"][period])
    integrality = np.zeros(n)
    integrality[2 * block :] = 1
    result = milp(
        c=cost,
        constraints=[LinearConstraint(np.array(rows), lb=np.array(lower_b), ub=np.array(upper_b))],
        integrality=integrality,
        bounds=Bounds(np.zeros(n), upper),
        options={"time_limit": SOLVE_LIMIT_S},
    )
    if result.status == 2:
        raise Rejected("structure: no plan meets every demand")
    if result.status != 0:
        raise Rejected("reference: solver did not certify optimality", str(result.message))
    x = np.rint(result.x[:block]).astype(int).reshape(len(products), len(periods))
    setups = np.rint(result.x[2 * block :]).astype(int).reshape(len(products), len(periods))
    production = {
        product: {period: int(x[p, t]) for t, period in enumerate(periods)}
        for p, product in enumerate(products)
    }
    setup = {
        product: {period: int(setups[p, t] if x[p, t] > 0 else 0) for t, period in enumerate(periods)}
        for p, product in enumerate(products)
    }
    solution = solution_record(instance, production, setup)
    if abs(solution["objective_value"] - float(result.fun)) > 1e-6 * max(1.0, abs(float(result.fun))):
        raise Rejected("reference: rounded plan does not reproduce the MILP optimum")
    return ReferenceSolution(solution=solution, method="scipy.optimize.milp (HiGHS, proven optimal)")


def inventories(
    instance: Mapping[str, Any], production: Mapping[str, Mapping[str, float]]
) -> dict[str, dict[str, float]]:
    """End-of-period stock implied by ``production`` (negative where demand is not met)."""
    stock: dict[str, dict[str, float]] = {}
    for product in instance["sets"]["products"]:
        level = float(instance["initial_inventory"][product])
        stock[product] = {}
        for period in instance["sets"]["periods"]:
            level += float(production[product][period]) - instance["demand"][product][period]
            stock[product][period] = level
    return stock


def plan_cost(
    instance: Mapping[str, Any],
    production: Mapping[str, Mapping[str, float]],
    setup: Mapping[str, Mapping[str, int]],
) -> float:
    stock = inventories(instance, production)
    total = 0.0
    for product in instance["sets"]["products"]:
        for period in instance["sets"]["periods"]:
            total += instance["production_cost"][product][period] * float(production[product][period])
            total += instance["holding_cost"][product][period] * stock[product][period]
            total += instance["setup_cost"][product][period] * setup[product][period]
    return total


def capacity_usage(
    instance: Mapping[str, Any],
    production: Mapping[str, Mapping[str, float]],
    setup: Mapping[str, Mapping[str, int]],
) -> dict[str, float]:
    return {
        period: sum(
            float(production[p][period]) + setup_time(instance, p) * setup[p][period]
            for p in instance["sets"]["products"]
        )
        for period in instance["sets"]["periods"]
    }


def solution_record(
    instance: Mapping[str, Any],
    production: Mapping[str, Mapping[str, int]],
    setup: Mapping[str, Mapping[str, int]],
) -> dict[str, Any]:
    stock = inventories(instance, production)
    usage = capacity_usage(instance, production, setup)
    total = plan_cost(instance, production, setup)
    value: int | float = round(total) if abs(total - round(total)) < 1e-9 else total
    return {
        "status": "optimal",
        "objective_value": value,
        "objective_exact": value,
        "production": {p: dict(v) for p, v in production.items()},
        "inventory": {p: {t: round(v) for t, v in row.items()} for p, row in stock.items()},
        "setup": {p: dict(v) for p, v in setup.items()},
        "capacity_usage": {t: round(v) for t, v in usage.items()},
        "capacity_binding_periods": [
            t for t in instance["sets"]["periods"] if round(usage[t]) == instance["capacity"][t]
        ],
    }


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """CP-SAT on the same model with integer production (exact: see the module docstring)."""
    products, periods, _ = _index(instance)
    model = cp_model.CpModel()
    x, s, y = {}, {}, {}
    for product in products:
        total = sum(instance["demand"][product].values())
        for period in periods:
            x[product, period] = model.new_int_var(0, total, f"x_{product}_{period}")
            s[product, period] = model.new_int_var(0, total, f"s_{product}_{period}")
            y[product, period] = model.new_bool_var(f"y_{product}_{period}")
            model.add(x[product, period] == 0).only_enforce_if(~y[product, period])
        for k, period in enumerate(periods):
            previous = s[product, periods[k - 1]] if k else instance["initial_inventory"][product]
            model.add(
                previous + x[product, period] - s[product, period] == instance["demand"][product][period]
            )
    for period in periods:
        model.add(
            sum(x[p, period] + setup_time(instance, p) * y[p, period] for p in products)
            <= instance["capacity"][period]
        )
    model.minimize(
        sum(
            instance["production_cost"][p][t] * x[p, t]
            + instance["holding_cost"][p][t] * s[p, t]
            + instance["setup_cost"][p][t] * y[p, t]
            for p in products
            for t in periods
        )
    )
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise Rejected("cross-check: CP-SAT did not certify optimality", solver.status_name(status))
    return "ortools.sat CP-SAT (integer production, proven optimal)", float(solver.objective_value)


def simple_plan_costs(instance: Mapping[str, Any]) -> dict[str, float | None]:
    """Costs of lot-for-lot and of one setup per product (None where capacity forbids the plan)."""
    products, periods = instance["sets"]["products"], instance["sets"]["periods"]
    plans: dict[str, float | None] = {}
    lot = {p: {t: instance["demand"][p][t] for t in periods} for p in products}
    once = {
        p: {t: (sum(instance["demand"][p].values()) if k == 0 else 0) for k, t in enumerate(periods)}
        for p in products
    }
    for name, production in (("lot_for_lot", lot), ("one_setup", once)):
        setup = {p: {t: int(production[p][t] > 0) for t in periods} for p in products}
        usage = capacity_usage(instance, production, setup)
        feasible = all(usage[t] <= instance["capacity"][t] for t in periods)
        plans[name] = plan_cost(instance, production, setup) if feasible else None
    return plans


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    optimum = float(reference.solution["objective_value"])
    for name, cost in simple_plan_costs(instance).items():
        if cost is not None and abs(cost - optimum) < 1e-6:
            return [f"nontrivial: the {name.replace('_', '-')} plan is optimal"]
    if REGIMES[difficulty].binding_required and not reference.solution["capacity_binding_periods"]:
        return ["nontrivial: no period uses the whole capacity"]
    return []
