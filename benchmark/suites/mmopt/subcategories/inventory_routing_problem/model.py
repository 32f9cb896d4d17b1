"""The inventory-routing rules every artifact shares, in the official release's instance shape.

One vehicle of capacity Q may leave the depot once per period, visit a set of customers and return
in the same period; it pays the fixed dispatch cost when it leaves and the travel cost of its legs
(Euclidean distance between the coordinates, each leg rounded to two decimals, the official
``travel_cost_rule``). A customer receives goods only in a period in which the vehicle visits it.
End-of-period inventory I_it = I_i,t-1 + q_it - d_it must stay between zero and the customer's
storage capacity and pays the customer's holding cost per unit. Costs are handled in cents so sums
are exact; the reported total is rounded to two decimals (the official tolerance floor is 1e-2).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

DEPOT = "Depot"


def customers_periods(instance: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    return list(instance["sets"]["customers"]), list(instance["sets"]["periods"])


def leg_cents(instance: Mapping[str, Any], a: str, b: str) -> int:
    """A leg's cost in cents: the instance's distance matrix where it has one, else the rule."""
    matrix = instance.get("distance_matrix")
    if matrix is not None:
        return round(float(matrix[a][b]) * 100)
    return round(round(math.dist(instance["coordinates"][a], instance["coordinates"][b]), 2) * 100)


def cents(value: float) -> int:
    return round(float(value) * 100)


def route_cents(instance: Mapping[str, Any], stops: Sequence[str]) -> int:
    """Cost of a closed route from the depot through ``stops`` (customers, in order) and back."""
    if not stops:
        return 0
    path = [DEPOT, *stops, DEPOT]
    return sum(leg_cents(instance, a, b) for a, b in itertools.pairwise(path))


def inventories(
    instance: Mapping[str, Any], deliveries: Mapping[str, Mapping[str, float]]
) -> dict[str, dict[str, float]]:
    """End-of-period inventory implied by ``deliveries`` (negative where demand is not met)."""
    customers, periods = customers_periods(instance)
    stock: dict[str, dict[str, float]] = {}
    for customer in customers:
        level = float(instance["initial_inventory"][customer])
        stock[customer] = {}
        for period in periods:
            level += float(deliveries[customer][period]) - float(instance["demands"][customer][period])
            stock[customer][period] = level
    return stock


def plan_cents(
    instance: Mapping[str, Any],
    routes: Mapping[str, Sequence[str]],
    deliveries: Mapping[str, Mapping[str, float]],
) -> dict[str, float]:
    """Routing, holding and dispatch cost (in cents) of a plan; ``routes`` maps each period to its
    customers in visiting order (empty: no dispatch)."""
    customers, periods = customers_periods(instance)
    stock = inventories(instance, deliveries)
    routing = sum(route_cents(instance, routes.get(t, [])) for t in periods)
    holding = sum(cents(instance["holding_cost"][c]) * stock[c][t] for c in customers for t in periods)
    dispatch = cents(instance.get("fixed_dispatch_cost", 0)) * sum(1 for t in periods if routes.get(t))
    return {"routing": routing, "holding": holding, "dispatch": dispatch}


def report(total_cents: float) -> float:
    """A total in cents as reported: two decimals, never -0.0."""
    return round(total_cents / 100, 2) + 0.0
