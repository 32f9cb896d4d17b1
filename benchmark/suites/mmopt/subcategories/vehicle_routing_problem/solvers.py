"""The exact CVRP methods of the hard tier, where ``2^n`` subset tables no longer fit the budget.

:func:`column_milp` (the reference): every capacity-feasible customer subset is a candidate route,
priced by its optimal closed path from the depot (Held–Karp restricted to feasible subsets,
:func:`~benchmark.suites.mmopt.generation.routing.feasible_subset_paths`); HiGHS picks routes that
cover each customer exactly once, at most one per vehicle. Exact, because every feasible route's
best order is a column.

:func:`circuit_cpsat` (the cross-check): an arc model that shares nothing with the columns but the
cost matrix. One literal per directed arc, CP-SAT's multiple-circuit constraint (every customer
entered and left once, every cycle through the depot), at most one route leaving the depot per
vehicle, and loads ``u_j ≥ u_i + q_j`` on driven customer-to-customer arcs within ``[q_j, Q]``.
One worker, a fixed seed and a deterministic work limit, so whether an instance is certified does
not depend on the machine's load.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from benchmark.suites.mmopt.generation import routing

CPSAT_WORK_LIMIT = 10.0  # deterministic seconds
MILP_NODE_LIMIT = 20000
EXACT_SCALE = 10**6  # the exact rule's float legs as integers for CP-SAT


def column_milp(
    cost: np.ndarray, demands: Sequence[int], capacity: int, max_routes: int
) -> tuple[float, list[list[int]]] | None:
    """Optimal routes (customer nodes in travel order) and their total cost in ``cost`` units, or
    ``None`` when at most ``max_routes`` routes cannot serve everyone; ``RuntimeError`` when HiGHS
    does not prove optimality within its node limit.

    The LP relaxation (``x ≥ 0``) gives a bound ``LB`` and reduced costs ``r ≥ 0`` with
    ``cost(x) ≥ LB + r·x`` for every integer solution ``x`` (the fleet row's dual is ``≤ 0``), so a
    route with ``r_j > δ`` lies only in solutions costing more than ``LB + δ``. HiGHS solves the
    integer model over the routes with ``r_j ≤ δ``; an optimum within ``LB + δ`` is optimal over all
    routes; a routing costing ``z`` above it sets ``δ = z − LB`` (the next solve is the last), and an
    infeasible restriction multiplies ``δ`` by four (at worst every route is kept)."""
    m = cost.shape[0] - 1
    table = routing.feasible_subset_paths(cost, demands, capacity)
    if table.masks.size == 0:
        return None
    totals, lasts = table.closed()
    cover = ((table.masks[None, :] >> np.arange(m)[:, None]) & 1).astype(float)
    relaxed = linprog(
        totals,
        A_ub=np.ones((1, table.masks.size)),
        b_ub=[float(max_routes)],
        A_eq=cover,
        b_eq=np.ones(m),
        bounds=(0, None),
        method="highs",
    )
    if relaxed.status == 2:
        return None
    if relaxed.status != 0:
        raise RuntimeError(f"HiGHS did not solve the set-partitioning relaxation: {relaxed.message}")
    bound = float(relaxed.fun)
    reduced = totals - cover.T @ relaxed.eqlin.marginals - float(relaxed.ineqlin.marginals[0])
    delta = max(1e-6, 0.005 * abs(bound))
    while True:
        keep = np.flatnonzero(reduced <= delta + 1e-7)
        result = milp(
            totals[keep],
            constraints=[
                LinearConstraint(cover[:, keep], lb=1.0, ub=1.0),
                LinearConstraint(np.ones((1, keep.size)), lb=1.0, ub=float(max_routes)),
            ],
            integrality=np.ones(keep.size),
            bounds=Bounds(0, 1),
            options={"node_limit": MILP_NODE_LIMIT, "mip_rel_gap": 0.0},
        )
        everything = keep.size == table.masks.size
        if result.status == 0 and result.x is not None:
            if result.fun <= bound + delta + 1e-7 or everything:
                break
            delta = float(result.fun) - bound  # the next solve keeps every route that can beat it
        elif result.status == 2:
            if everything:
                return None
            delta *= 4.0
        else:
            raise RuntimeError(f"HiGHS did not solve the set-partitioning model: {result.message}")
    chosen = [int(keep[k]) for k, value in enumerate(result.x) if value > 0.5]
    routes = sorted(table.order(int(table.masks[row]), int(lasts[row])) for row in chosen)
    return float(sum(totals[row] for row in chosen)), routes


def integer_costs(cost: np.ndarray, exact: bool) -> np.ndarray:
    """Leg costs as integers: rounded rules already are (units of ``10^-d``); exact legs are scaled."""
    if not exact:
        return cost.astype(np.int64)
    scaled: np.ndarray = np.rint(cost * EXACT_SCALE).astype(np.int64)
    return scaled


def circuit_cpsat(
    cost: np.ndarray,
    demands: Sequence[int],
    capacity: int,
    vehicles: int,
    upper_bound: int | None = None,
    work_limit: float = CPSAT_WORK_LIMIT,
) -> list[list[int]] | None:
    """Optimal routes of the arc model for integer leg costs ``cost``; ``None`` when infeasible,
    ``RuntimeError`` when optimality is not proven within ``work_limit`` deterministic seconds."""
    n = cost.shape[0]
    model = cp_model.CpModel()
    loads = [model.new_constant(0)] + [
        model.new_int_var(int(demands[j]), capacity, f"u{j}") for j in range(1, n)
    ]
    arcs: list[tuple[int, int, cp_model.IntVar]] = []
    for i in range(n):
        for j in range(n):
            if i == j or (i > 0 and j > 0 and demands[i] + demands[j] > capacity):
                continue
            used = model.new_bool_var(f"x{i}_{j}")
            if i > 0 and j > 0:
                model.add(loads[j] >= loads[i] + int(demands[j])).only_enforce_if(used)
            arcs.append((i, j, used))
    model.add_multiple_circuit(arcs)
    model.add(sum(used for i, _, used in arcs if i == 0) <= vehicles)
    objective = sum(int(cost[i, j]) * used for i, j, used in arcs)
    if upper_bound is not None:
        model.add(objective <= upper_bound)
    model.minimize(objective)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.linearization_level = 2  # the LP with CP-SAT's routing cuts
    solver.parameters.max_deterministic_time = work_limit
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return None
    if status != cp_model.OPTIMAL:
        raise RuntimeError(f"CP-SAT did not prove the CVRP optimum: {solver.status_name(status)}")
    successor = {i: j for i, j, used in arcs if i > 0 and solver.boolean_value(used)}
    routes = []
    for i, j, used in arcs:
        if i == 0 and solver.boolean_value(used):
            route, node = [], j
            while node != 0:
                route.append(node)
                node = successor[node]
            routes.append(route)
    return sorted(routes)
