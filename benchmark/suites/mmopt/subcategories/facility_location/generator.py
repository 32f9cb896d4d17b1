"""Facility-location instances (MM-OptBench App. D.3 and E.2, the family's representative pipeline).

Candidate facilities and customers sit on an integer grid. Each facility has an opening cost and a
coverage radius; a customer may only be served by a facility whose circle contains it. Serving a
customer costs its demand times the exact Euclidean distance; the objective adds the opening costs
of the open facilities and is rounded to four decimals at the end (see
:mod:`~benchmark.suites.mmopt.generation.spatial`). Easy instances are uncapacitated; medium and
hard ones give each facility a capacity and serve every customer from exactly one facility, with
tighter coverage and capacity margins at hard, where the capacities must actually bind.

The verified optimum must be informative: at least two facilities open and at least one stays
closed; from medium on, dropping the coverage circles would change the optimum; at hard, dropping
the capacities would too.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from ortools.linear_solver import pywraplp
from scipy.optimize import LinearConstraint, milp

from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected
from benchmark.suites.mmopt.generation.spatial import (
    Point,
    distance,
    min_separation,
    round_objective,
    sample_points,
)

AMBIGUITY_MARGIN = 0.3  # no customer may lie this close to a coverage circle (in grid units)
MATTERS_BY = 1e-3  # a relaxation must beat the optimum by more than the scoring tolerance
UNCAPACITATED, CAPACITATED = "UFL", "CFL"  # the official ``variant_type`` names


@dataclass(frozen=True)
class Regime:
    """One difficulty regime (inclusive ranges)."""

    facilities: tuple[int, int]
    customers: tuple[int, int]
    grid: int
    separation: float
    radius: tuple[int, int]  # coverage radii in half units between these bounds
    near_facilities: int  # customers are drawn within reach of at least this many facility sites
    opening_cost: tuple[int, int]
    demand: tuple[int, int]
    capacity_ratio: tuple[float, float] | None  # total capacity / total demand; None: uncapacitated
    coverage_density: tuple[float, float]  # share of (customer, facility) pairs inside a circle
    coverage_must_bind: bool
    capacity_must_bind: bool


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        facilities=(4, 4),
        customers=(5, 6),
        grid=12,
        separation=2.0,
        radius=(4, 8),
        near_facilities=1,
        opening_cost=(15, 50),
        demand=(1, 8),
        capacity_ratio=None,
        coverage_density=(0.4, 0.85),
        coverage_must_bind=False,
        capacity_must_bind=False,
    ),
    "medium": Regime(
        facilities=(6, 6),
        customers=(9, 11),
        grid=16,
        separation=2.0,
        radius=(4, 7),
        near_facilities=2,
        opening_cost=(30, 90),
        demand=(2, 10),
        capacity_ratio=(1.5, 1.9),
        coverage_density=(0.3, 0.65),
        coverage_must_bind=True,
        capacity_must_bind=False,
    ),
    "hard": Regime(
        facilities=(8, 8),
        customers=(16, 17),
        grid=20,
        separation=2.0,
        radius=(5, 8),
        near_facilities=2,
        opening_cost=(60, 140),
        demand=(2, 12),
        capacity_ratio=(1.25, 1.5),
        coverage_density=(0.2, 0.45),
        coverage_must_bind=True,
        capacity_must_bind=True,
    ),
}


@dataclass(frozen=True)
class Layout:
    """Stage-2 structure: facility sites with coverage radii, customer locations."""

    facilities: tuple[Point, ...]
    radii: tuple[float, ...]
    customers: tuple[Point, ...]


def sample_structure(rng: random.Random, difficulty: str) -> Layout:
    regime = REGIMES[difficulty]
    n_facilities = rng.randint(*regime.facilities)
    n_customers = rng.randint(*regime.customers)
    facilities = sample_points(rng, n_facilities, 1, regime.grid - 1, regime.separation + 1.0)
    reach = regime.radius[1] - 0.5

    def near_enough(point: Point) -> bool:
        return sum(distance(point, site) <= reach for site in facilities) >= regime.near_facilities

    customers = sample_points(
        rng, n_customers, 1, regime.grid - 1, regime.separation, avoid=facilities, accept=near_enough
    )
    radii = []
    for site in facilities:
        # half-unit radii whose circle passes clearly between customers, so that membership is
        # also visible on the map
        clear = [
            r / 2
            for r in range(2 * regime.radius[0], 2 * regime.radius[1] + 1)
            if all(abs(distance(site, c) - r / 2) >= AMBIGUITY_MARGIN for c in customers)
        ]
        if not clear:
            raise Rejected("structure: a customer lies on a coverage circle")
        radii.append(rng.choice(clear))
    return Layout(facilities=tuple(facilities), radii=tuple(radii), customers=tuple(customers))


def _capacities(rng: random.Random, layout: Layout, demands: list[int], ratio: float) -> list[int]:
    """Capacities laid over a random single-source witness plan (each customer to a random covering
    facility), so every candidate is feasible by construction (App. E.2: "infeasibility is avoided
    without making capacity constraints vacuous"); the rest of the total goes out as random slack."""
    loads = [0] * len(layout.facilities)
    for point, demand in zip(layout.customers, demands, strict=True):
        options = [
            i
            for i, (site, radius) in enumerate(zip(layout.facilities, layout.radii, strict=True))
            if distance(site, point) <= radius
        ]
        if not options:
            raise Rejected("structure: a customer is outside every coverage circle")
        loads[rng.choice(options)] += demand
    spare = max(0, round(sum(demands) * ratio) - sum(demands))
    weights = [rng.random() for _ in loads]
    slack = [int(spare * w / sum(weights)) for w in weights]
    floor = max(demands)  # no facility so small that it could serve nobody
    return [max(load + extra, floor) for load, extra in zip(loads, slack, strict=True)]


def instantiate(rng: random.Random, layout: Layout, difficulty: str) -> dict[str, Any]:
    """The official instance schema: ``sets.F``/``sets.C``, ``facility: {F: {xy, open_cost, radius
    [, capacity]}}``, ``customer: {C: {xy, demand}}``, the covered pairs as ``feasible_assignments``
    and their exact Euclidean distances as ``assignment_cost_per_unit_demand``."""
    regime = REGIMES[difficulty]
    demands = [rng.randint(*regime.demand) for _ in layout.customers]
    capacities = None
    if regime.capacity_ratio is not None:
        capacities = _capacities(rng, layout, demands, rng.uniform(*regime.capacity_ratio))
    facility: dict[str, dict[str, Any]] = {}
    for index, ((x, y), radius) in enumerate(zip(layout.facilities, layout.radii, strict=True)):
        site: dict[str, Any] = {
            "xy": [x, y],
            "open_cost": rng.randint(*regime.opening_cost),
            "radius": int(radius) if radius.is_integer() else radius,
        }
        if capacities is not None:
            site["capacity"] = capacities[index]
        facility[f"F{index + 1}"] = site
    customer = {
        f"C{index + 1}": {"xy": [x, y], "demand": demand}
        for index, ((x, y), demand) in enumerate(zip(layout.customers, demands, strict=True))
    }
    instance: dict[str, Any] = {
        "problem_type": "facility_location",
        "difficulty": difficulty,
        "variant_type": UNCAPACITATED if capacities is None else CAPACITATED,
        "sets": {"F": list(facility), "C": list(customer)},
        "facility": facility,
        "customer": customer,
        "structural_extension": {"type": "none"},
    }
    instance.update(assignment_data(instance))
    return instance


# --------------------------------------------------------------------------------------------------
# Shared instance arithmetic (the templates and the renderer use the same functions)


def facility_names(instance: Mapping[str, Any]) -> list[str]:
    return list(instance["sets"]["F"])


def customer_names(instance: Mapping[str, Any]) -> list[str]:
    return list(instance["sets"]["C"])


def is_capacitated(instance: Mapping[str, Any]) -> bool:
    return bool(instance["variant_type"] == CAPACITATED)


def dist(instance: Mapping[str, Any], facility: str, customer: str) -> float:
    """The exact Euclidean distance between a facility and a customer (never rounded)."""
    return distance(instance["facility"][facility]["xy"], instance["customer"][customer]["xy"])


def covers(instance: Mapping[str, Any], facility: str, customer: str) -> bool:
    """Inside or on the circle, decided exactly on the integer squared distance."""
    (fx, fy), (cx, cy) = instance["facility"][facility]["xy"], instance["customer"][customer]["xy"]
    return bool((fx - cx) ** 2 + (fy - cy) ** 2 <= instance["facility"][facility]["radius"] ** 2)


def assignment_data(instance: Mapping[str, Any]) -> dict[str, Any]:
    """The fields derived from the geometry: the covered (customer, facility) pairs in facility
    order, their exact distances as the per-unit assignment costs, and the share of pairs covered
    (four decimals, as the official release states it)."""
    facilities, customers = facility_names(instance), customer_names(instance)
    feasible = {c: [f for f in facilities if covers(instance, f, c)] for c in customers}
    return {
        "feasible_assignments": feasible,
        "assignment_cost_per_unit_demand": {
            c: {f: dist(instance, f, c) for f in allowed} for c, allowed in feasible.items()
        },
        "assignment_graph_density": round(
            sum(map(len, feasible.values())) / (len(facilities) * len(customers)), 4
        ),
    }


def opening_cost(instance: Mapping[str, Any], open_names: list[str]) -> int:
    return sum(int(instance["facility"][name]["open_cost"]) for name in open_names)


def service_cost(instance: Mapping[str, Any], assignment: Mapping[str, str]) -> float:
    """Σ demand × exact distance over every customer, unrounded."""
    total: float = sum(
        instance["customer"][c]["demand"] * dist(instance, assignment[c], c) for c in customer_names(instance)
    )
    return total


def total_cost(instance: Mapping[str, Any], open_names: list[str], assignment: Mapping[str, str]) -> float:
    """Opening costs of ``open_names`` plus demand × distance of every assignment, rounded."""
    return round_objective(opening_cost(instance, open_names) + service_cost(instance, assignment))


def facility_loads(instance: Mapping[str, Any], assignment: Mapping[str, str]) -> dict[str, int]:
    loads = dict.fromkeys(facility_names(instance), 0)
    for c in customer_names(instance):
        loads[assignment[c]] += instance["customer"][c]["demand"]
    return loads


# --------------------------------------------------------------------------------------------------
# Stage checks and solves


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    facilities, customers = facility_names(instance), customer_names(instance)
    facility, customer = instance["facility"], instance["customer"]
    points = [tuple(site["xy"]) for site in (*facility.values(), *customer.values())]
    if not regime.facilities[0] <= len(facilities) <= regime.facilities[1]:
        return ["structure: facility count outside the regime"]
    if not regime.customers[0] <= len(customers) <= regime.customers[1]:
        return ["structure: customer count outside the regime"]
    if min_separation(points) < regime.separation or not all(
        0 <= v <= regime.grid for p in points for v in p
    ):
        return ["structure: points overlap or leave the grid"]
    if any(
        abs(dist(instance, f, c) - facility[f]["radius"]) < AMBIGUITY_MARGIN
        for f in facilities
        for c in customers
    ):
        return ["structure: a customer lies on a coverage circle"]
    if {key: instance[key] for key in assignment_data(instance)} != assignment_data(instance):
        return ["structure: feasible assignments or unit costs disagree with the geometry"]
    if is_capacitated(instance) != all("capacity" in site for site in facility.values()):
        return ["structure: variant_type disagrees with the facility capacities"]
    feasible = instance["feasible_assignments"]
    if not all(feasible[c] for c in customers):
        return ["structure: a customer is outside every coverage circle"]
    density = instance["assignment_graph_density"]
    if not regime.coverage_density[0] <= density <= regime.coverage_density[1]:
        return ["structure: coverage density outside the regime"]
    if difficulty != "easy" and any(all(f in feasible[c] for c in customers) for f in facilities):
        return ["structure: one facility covers every customer"]
    if is_capacitated(instance):
        if sum(site["capacity"] for site in facility.values()) < sum(
            site["demand"] for site in customer.values()
        ):
            return ["structure: total capacity below total demand"]
        for c in customers:
            if not any(facility[f]["capacity"] >= customer[c]["demand"] for f in feasible[c]):
                return ["structure: a customer fits no covering facility"]
    return []


def _milp(
    instance: Mapping[str, Any], *, coverage: bool = True, capacity: bool = True
) -> tuple[list[str], dict[str, str]] | None:
    """HiGHS (through SciPy) on the strong formulation: y_f open, x_cf serve; ``None`` if infeasible."""
    facilities, customers = facility_names(instance), customer_names(instance)
    pairs = [
        (i, j)
        for j, c in enumerate(customers)
        for i, f in enumerate(facilities)
        if not coverage or covers(instance, f, c)
    ]
    n_f = len(facilities)
    n = n_f + len(pairs)
    cost = np.zeros(n)
    cost[:n_f] = [instance["facility"][f]["open_cost"] for f in facilities]
    for k, (i, j) in enumerate(pairs):
        cost[n_f + k] = instance["customer"][customers[j]]["demand"] * dist(
            instance, facilities[i], customers[j]
        )
    rows, lower, upper = [], [], []
    for j in range(len(customers)):
        row = np.zeros(n)
        row[[n_f + k for k, (_, jj) in enumerate(pairs) if jj == j]] = 1.0
        rows.append(row)
        lower.append(1.0)
        upper.append(1.0)
    for k, (i, _) in enumerate(pairs):
        row = np.zeros(n)
        row[n_f + k], row[i] = 1.0, -1.0
        rows.append(row)
        lower.append(-np.inf)
        upper.append(0.0)
    if capacity and is_capacitated(instance):
        for i, f in enumerate(facilities):
            row = np.zeros(n)
            for k, (ii, j) in enumerate(pairs):
                if ii == i:
                    row[n_f + k] = instance["customer"][customers[j]]["demand"]
            row[i] = -instance["facility"][f]["capacity"]
            rows.append(row)
            lower.append(-np.inf)
            upper.append(0.0)
    result = milp(
        cost,
        constraints=LinearConstraint(np.array(rows), lower, upper),
        integrality=np.ones(n),
        bounds=(0, 1),
        options={"mip_rel_gap": 0.0},
    )
    if result.status == 2:
        return None
    if result.status != 0 or result.x is None:
        raise Rejected("reference: solver did not certify optimality", str(result.message))
    open_names = [facilities[i] for i in range(n_f) if result.x[i] > 0.5]
    assignment = {customers[j]: facilities[i] for k, (i, j) in enumerate(pairs) if result.x[n_f + k] > 0.5}
    return open_names, assignment


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """The official solution shape: objective (exact and value), its opening and assignment parts,
    the open facilities and the customer → facility ``assignments``."""
    solved = _milp(instance)
    if solved is None:
        raise Rejected("reference: instance is infeasible")
    open_names, assignment = solved
    objective = total_cost(instance, open_names, assignment)
    solution = {
        "status": "optimal",
        "objective_exact": objective,
        "objective_value": objective,
        "opening_cost": opening_cost(instance, open_names),
        "assignment_cost": round_objective(service_cost(instance, assignment)),
        "open_facilities": open_names,
        "assignments": assignment,
    }
    return ReferenceSolution(solution=solution, method="scipy.optimize.milp (HiGHS branch-and-cut, zero gap)")


def _enumerate_uncapacitated(instance: Mapping[str, Any]) -> float:
    """Every nonempty set of open facilities; each customer then takes its cheapest covering one."""
    facilities, customers = facility_names(instance), customer_names(instance)
    best = None
    for size in range(1, len(facilities) + 1):
        for chosen in itertools.combinations(facilities, size):
            assignment = {}
            for c in customers:
                options = [f for f in chosen if covers(instance, f, c)]
                if not options:
                    break
                assignment[c] = min(options, key=partial(dist, instance, customer=c))
            else:
                value = total_cost(instance, list(chosen), assignment)
                best = value if best is None else min(best, value)
    if best is None:
        raise Rejected("cross-check: enumeration finds no feasible open set")
    return best


def _scip(instance: Mapping[str, Any]) -> float:
    """The same model in OR-Tools' linear-solver wrapper on SCIP, with a zero relative gap."""
    facilities, customers = facility_names(instance), customer_names(instance)
    demand = {c: instance["customer"][c]["demand"] for c in customers}
    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:
        raise RuntimeError("OR-Tools was built without SCIP")
    y = {f: solver.BoolVar(f"y_{f}") for f in facilities}
    x = {
        (f, c): solver.BoolVar(f"x_{f}_{c}") for f in facilities for c in customers if covers(instance, f, c)
    }
    for c in customers:
        solver.Add(sum(x[f, c] for f in facilities if (f, c) in x) == 1)
    for (f, _), var in x.items():
        solver.Add(var <= y[f])
    for f in facilities:
        load = [demand[c] * x[f, c] for c in customers if (f, c) in x]
        solver.Add(sum(load) <= instance["facility"][f]["capacity"] * y[f])
    solver.Minimize(
        sum(instance["facility"][f]["open_cost"] * y[f] for f in facilities)
        + sum(demand[c] * dist(instance, f, c) * var for (f, c), var in x.items())
    )
    parameters = pywraplp.MPSolverParameters()
    parameters.SetDoubleParam(parameters.RELATIVE_MIP_GAP, 0.0)
    if solver.Solve(parameters) != pywraplp.Solver.OPTIMAL:
        raise Rejected("cross-check: SCIP did not certify optimality")
    open_names = [f for f, var in y.items() if var.solution_value() > 0.5]
    assignment = {c: f for (f, c), var in x.items() if var.solution_value() > 0.5}
    return total_cost(instance, open_names, assignment)


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    if is_capacitated(instance):
        return "ortools pywraplp SCIP (same model, second solver, zero gap)", _scip(instance)
    return "exhaustive enumeration of open sets, cheapest covering facility per customer", (
        _enumerate_uncapacitated(instance)
    )


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    regime = REGIMES[difficulty]
    optimum = reference.objective
    opened = len(reference.solution["open_facilities"])
    if opened < 2:
        return ["nontrivial: a single facility serves every customer"]
    if opened == len(facility_names(instance)):
        return ["nontrivial: every facility opens"]
    if regime.coverage_must_bind and _relaxed_optimum(instance, coverage=False) > optimum - MATTERS_BY:
        return ["nontrivial: coverage circles do not change the optimum"]
    if regime.capacity_must_bind and _relaxed_optimum(instance, capacity=False) > optimum - MATTERS_BY:
        return ["nontrivial: capacities do not bind"]
    return []


def _relaxed_optimum(instance: Mapping[str, Any], *, coverage: bool = True, capacity: bool = True) -> float:
    solved = _milp(instance, coverage=coverage, capacity=capacity)
    if solved is None:
        raise Rejected("reference: relaxation is infeasible")
    return total_cost(instance, *solved)
