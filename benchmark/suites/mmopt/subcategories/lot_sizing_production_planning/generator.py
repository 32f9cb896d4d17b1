"""Capacitated lot sizing (multi-period/system-planning family, prefix ``lspp``).

Products are made in periods to meet per-period demand without backlog; a period in which a product
is made pays its setup cost (and, at hard, uses setup time of the shared capacity); stock carried
into the next period pays holding cost; all products share one capacity per period. The costs are
constant over the horizon per product, stored in the official per-period shape.

Regimes (App. D.2; medium and hard at the official release's sizes): easy has one or two products
over six periods and a loose capacity, medium three to five products over fifteen to twenty periods
with seasonal demand, hard five to seven products over thirty to forty periods with seasonal demand
and setup times. At medium and hard the capacity is ample in most periods and dips below the
period's demand in a few "maintenance" periods (the release's alternating tight/loose capacity), so
production has to be built ahead of the dips and some capacity binds; a capacity tight in every
period at these sizes takes HiGHS tens of seconds to prove, too slow for the replayed reference.

Rejection rules (App. D): a candidate whose cumulative capacity falls below its cumulative demand in
some prefix of periods cannot be planned (the prefix-feasibility rule, checked before solving); at
medium and hard the verified optimum must use the whole capacity in some period (a binding capacity
period), and at every difficulty the optimum must differ from both simple plans, lot-for-lot
(produce each period's demand in that period) and one setup per product, so setups and holding
really trade off.

Reference: HiGHS MILP with a certificate (SciPy at easy; at medium and hard HiGHS on the
facility-location reformulation, whose units made in period s for the demand of period t give an LP
bound close to the optimum, under a node budget and a relative gap of 0); cross-check: CP-SAT on
the aggregate model with integer production under a deterministic time budget, which is exact here
because, for fixed setups, the remaining problem is a network flow with integral data and so has an
integral optimum. A candidate either method does not prove within its budget is rejected.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import highspy
import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csc_matrix

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

SOLVE_LIMIT_S = 60.0  # easy's SciPy reference only (its instances solve in milliseconds)
#: Branch-and-bound nodes the medium/hard reference (HiGHS, facility-location model) may use.
REFERENCE_NODE_LIMIT = 2000
#: Simplex iterations (over all nodes and cut rounds) the medium/hard reference may use: a counted,
#: deterministic budget that keeps the replayed solver_ref.py within about a second.
REFERENCE_ITERATION_LIMIT = 3000
#: Deterministic time (CP-SAT's work units, not seconds) the cross-check may use.
CROSS_CHECK_WORK_LIMIT = 30.0


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
    #: number of maintenance periods (never the first) and their capacity as a share of the
    #: period's total demand; None keeps one capacity for every period
    dips: tuple[int, int] | None = None
    dip_share: tuple[float, float] = (0.0, 0.0)


MEDIUM_TIGHTNESS, MEDIUM_DIPS, MEDIUM_DIP_SHARE = (2.0, 2.4), (2, 4), (0.5, 0.8)
HARD_TIGHTNESS, HARD_DIPS, HARD_DIP_SHARE = (2.2, 2.6), (3, 6), (0.5, 0.8)

REGIMES: dict[str, Regime] = {
    "easy": Regime(
        (1, 2), (6, 6), (4, 14), False, (1.6, 2.2), (12, 40), None, False, "random_level", "loose"
    ),
    "medium": Regime(
        (3, 5),
        (15, 20),
        (3, 16),
        True,
        MEDIUM_TIGHTNESS,
        (20, 60),
        None,
        True,
        "seasonal",
        "binding_dips",
        MEDIUM_DIPS,
        MEDIUM_DIP_SHARE,
    ),
    "hard": Regime(
        (5, 7),
        (30, 40),
        (3, 18),
        True,
        HARD_TIGHTNESS,
        (25, 80),
        (2, 6),
        True,
        "seasonal",
        "tight_dips",
        HARD_DIPS,
        HARD_DIP_SHARE,
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
    capacity = dict.fromkeys(structure.periods, capacity_value)
    if regime.dips is not None:
        count = rng.randint(*regime.dips)
        for period in sorted(rng.sample(structure.periods[1:], count), key=structure.periods.index):
            period_demand = sum(demand[p][period] for p in structure.products)
            capacity[period] = max(1, round(rng.uniform(*regime.dip_share) * period_demand))
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
        "capacity": capacity,
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
    """Easy: the aggregate MILP through SciPy; medium and hard: the facility-location MILP."""
    if str(instance.get("difficulty")) == "easy":
        return _aggregate_reference(instance)
    return _facility_location_reference(instance)


def net_demand(instance: Mapping[str, Any], product: str) -> list[int]:
    """The product's demand per period left after its initial stock is used up, earliest first."""
    left = int(instance["initial_inventory"][product])
    net = []
    for period in instance["sets"]["periods"]:
        demand = int(instance["demand"][product][period])
        used = min(left, demand)
        left -= used
        net.append(demand - used)
    return net


def _facility_location_reference(instance: Mapping[str, Any]) -> ReferenceSolution:
    """HiGHS on the facility-location model: z[p, s, t] units of p made in s for the (net) demand of
    t (s <= t), setup y[p, s]; sum_s z[p, s, t] = d[p, t], z[p, s, t] <= d[p, t] y[p, s], and per
    period s the units made plus setup times stay within the capacity. Single thread, fixed seed,
    relative gap 0 and a node budget (never a wall-clock limit) decide the verdict."""
    products, periods, _ = _index(instance)
    n_t = len(periods)
    cost: list[float] = []
    upper: list[float] = []
    integral: list[bool] = []
    setup_col: dict[tuple[int, int], int] = {}
    unit_col: dict[tuple[int, int, int], int] = {}
    demand = [net_demand(instance, product) for product in products]
    for p, product in enumerate(products):
        holding = [float(instance["holding_cost"][product][period]) for period in periods]
        for s, period in enumerate(periods):
            setup_col[p, s] = len(cost)
            cost.append(float(instance["setup_cost"][product][period]))
            upper.append(1.0)
            integral.append(True)
            unit = float(instance["production_cost"][product][period])
            for t in range(s, n_t):
                if demand[p][t]:
                    unit_col[p, s, t] = len(cost)
                    cost.append(unit)
                    upper.append(float(demand[p][t]))
                    integral.append(False)
                unit += holding[t]
    rows: list[int] = []
    cols: list[int] = []
    values: list[float] = []
    lower_b: list[float] = []
    upper_b: list[float] = []

    def add_row(entries: list[tuple[int, float]], low: float, high: float) -> None:
        for column, value in entries:
            rows.append(len(lower_b))
            cols.append(column)
            values.append(value)
        lower_b.append(low)
        upper_b.append(high)

    for p in range(len(products)):
        for t in range(n_t):
            if not demand[p][t]:
                continue
            add_row([(unit_col[p, s, t], 1.0) for s in range(t + 1)], demand[p][t], demand[p][t])
            for s in range(t + 1):
                add_row([(unit_col[p, s, t], 1.0), (setup_col[p, s], -float(demand[p][t]))], -np.inf, 0)
    for s, period in enumerate(periods):
        entries = [
            (unit_col[p, s, t], 1.0)
            for p in range(len(products))
            for t in range(s, n_t)
            if (p, s, t) in unit_col
        ]
        entries += [
            (setup_col[p, s], float(setup_time(instance, product)))
            for p, product in enumerate(products)
            if setup_time(instance, product)
        ]
        add_row(entries, -np.inf, float(instance["capacity"][period]))
    matrix = csc_matrix((values, (rows, cols)), shape=(len(lower_b), len(cost)))
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = len(cost), len(lower_b)
    model.col_cost_ = np.array(cost)
    model.col_lower_ = np.zeros(len(cost))
    model.col_upper_ = np.array(upper)
    model.row_lower_ = np.array(lower_b)
    model.row_upper_ = np.array(upper_b)
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = matrix.indptr
    model.a_matrix_.index_ = matrix.indices
    model.a_matrix_.value_ = matrix.data
    model.integrality_ = [
        highspy.HighsVarType.kInteger if flag else highspy.HighsVarType.kContinuous for flag in integral
    ]
    highspy.Highs.resetGlobalScheduler(True)  # threads=1 holds after any earlier solve
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    highs.setOptionValue("random_seed", 0)
    highs.setOptionValue("mip_rel_gap", 0.0)
    highs.setOptionValue("mip_max_nodes", REFERENCE_NODE_LIMIT)
    highs.passModel(model)
    highs.run()
    status = highs.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        raise Rejected("structure: no plan meets every demand")
    if status != highspy.HighsModelStatus.kOptimal:
        raise Rejected(
            "reference: solver did not certify optimality within its node budget",
            f"HiGHS: {highs.modelStatusToString(status)} after {highs.getInfo().mip_node_count} nodes",
        )
    iterations = int(highs.getInfo().simplex_iteration_count)
    if iterations > REFERENCE_ITERATION_LIMIT:
        raise Rejected(
            "reference: proof over its simplex iteration budget",
            f"HiGHS: {iterations} simplex iterations, budget {REFERENCE_ITERATION_LIMIT}",
        )
    x = np.asarray(highs.getSolution().col_value)
    production = {
        product: {
            period: round(sum(x[unit_col[p, s, t]] for t in range(s, n_t) if (p, s, t) in unit_col))
            for s, period in enumerate(periods)
        }
        for p, product in enumerate(products)
    }
    setup = {
        product: {period: int(production[product][period] > 0) for period in periods} for product in products
    }
    solution = solution_record(instance, production, setup)
    optimum = float(highs.getInfo().objective_function_value) + sum(
        _initial_holding(instance, product) for product in products
    )
    if abs(solution["objective_value"] - optimum) > 1e-6 * max(1.0, abs(optimum)):
        raise Rejected("reference: rounded plan does not reproduce the MILP optimum")
    return ReferenceSolution(
        solution=solution,
        method="HiGHS MILP on the facility-location model (relative gap 0, proven optimal)",
    )


def _initial_holding(instance: Mapping[str, Any], product: str) -> float:
    """Holding cost of the initial stock while it waits for the demand it meets (a constant that
    the facility-location model leaves out)."""
    left = int(instance["initial_inventory"][product])
    total = 0.0
    for period in instance["sets"]["periods"]:
        left -= min(left, int(instance["demand"][product][period]))
        total += float(instance["holding_cost"][product][period]) * left
    return total


def _aggregate_reference(instance: Mapping[str, Any]) -> ReferenceSolution:
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
    solver.parameters.max_deterministic_time = CROSS_CHECK_WORK_LIMIT
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise Rejected(
            "cross-check: CP-SAT did not certify optimality within its deterministic budget",
            solver.status_name(status),
        )
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
