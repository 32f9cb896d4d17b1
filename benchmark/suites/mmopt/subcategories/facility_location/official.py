"""Facility location under the official rules.

Official instance: ``sets.F``/``sets.C``, ``facility: {F: {xy, open_cost, radius[, capacity]}}``,
``customer: {C: {xy, demand}}``, ``feasible_assignments: {C: [F …]}``,
``assignment_cost_per_unit_demand: {C: {F: cost}}``, ``variant_type`` and
``structural_extension`` (e.g. ``{"type": "budget", "budget_limit": 65}``). The answer gives the
open facilities (or they are read off the assignment) and the customer → facility assignment
(nested records such as ``{"assigned_facility": …}`` accepted). Every customer is assigned to an
open, feasible facility within capacity; the objective is Σ opening cost + Σ demand × unit cost.

Strict additions: the instance's structural extension is enforced (a ``budget`` extension caps
the total opening cost; the official scorer does not check it), and an assignment naming a
customer the instance lacks is a mistake (the official scorer ignores it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt import official_answers as read
from benchmark.suites.mmopt.official import infeasible, make_check
from benchmark.suites.mmopt.subcategories.base import OfficialCheck

REFERENCE_KEYS: tuple[str, ...] = ("objective_exact", "objective_value")
OBJECTIVE_KEYS: tuple[str, ...] = (
    "objective_exact",
    "objective",
    "objective_value",
    "total_cost",
    "total_value",
)
OPEN_KEYS: tuple[str, ...] = ("open_facilities", "open_sites", "selected_sites", "opened_facilities")
#: ``capacity`` is absent from uncapacitated facilities; ``F``/``C`` are looked up at the top level first;
#: easy and medium official instances have no ``structural_extension``.
OPTIONAL_KEYS: frozenset[str] = frozenset({"capacity", "F", "C", "budget_limit", "structural_extension"})


def reads(instance: Mapping[str, Any]) -> bool:
    return isinstance(instance.get("facility"), Mapping) and isinstance(instance.get("customer"), Mapping)


def check(output: Any, instance: Mapping[str, Any], tolerance: float) -> OfficialCheck:
    answer = read.payload(output)
    if answer is None:
        return infeasible("the returned value is not a dict")
    facilities, customers = instance["facility"], instance["customer"]
    facility_names = [str(x) for x in read.named_list(instance, "F")] or [str(k) for k in facilities]
    customer_names = [str(x) for x in read.named_list(instance, "C")] or [str(k) for k in customers]
    pairs = read.assignment(answer, customer_names, facility_names)
    opened = read.selection(answer, OPEN_KEYS) or sorted(set(pairs.values()))
    open_set = set(opened)
    allowed_pairs = instance.get("feasible_assignments")
    unit_costs = instance.get("assignment_cost_per_unit_demand")
    problems: list[str] = []
    load = dict.fromkeys(facility_names, 0.0)
    assignment_cost = 0.0
    for customer in customer_names:
        facility = pairs.get(customer)
        if facility is None:
            problems.append(f"customer {customer} is not assigned")
            continue
        if facility not in open_set:
            problems.append(f"customer {customer} is assigned to {facility}, which is not open")
        allowed = allowed_pairs.get(customer) if isinstance(allowed_pairs, Mapping) else None
        if isinstance(allowed, list) and facility not in [str(x) for x in allowed]:
            problems.append(f"customer {customer} may not be served by {facility}")
        entry = customers.get(customer)
        demand = (read.number(entry.get("demand")) or 1.0) if isinstance(entry, Mapping) else 1.0
        load[facility] = load.get(facility, 0.0) + demand
        row = unit_costs.get(customer) if isinstance(unit_costs, Mapping) else None
        unit = read.number(row.get(facility)) if isinstance(row, Mapping) else None
        if unit is None:
            problems.append(f"no assignment cost for {customer} -> {facility}")
            continue
        assignment_cost += demand * unit
    opening_cost = 0.0
    for facility in sorted(open_set):
        entry = facilities.get(facility)
        if not isinstance(entry, Mapping):
            problems.append(f"unknown facility {facility}")
            continue
        opening_cost += read.number(entry.get("open_cost")) or 0.0
        capacity = read.number(entry.get("capacity"))
        if capacity is not None and load.get(facility, 0.0) - capacity > tolerance:
            problems.append(f"facility {facility}: load {load[facility]:g} exceeds capacity {capacity:g}")
    computed = opening_cost + assignment_cost
    reported = read.reported_objective(answer, OBJECTIVE_KEYS)
    if reported is not None and abs(reported - computed) > tolerance:
        problems.append(f"reported objective {reported:g} but the plan costs {computed:g}")
    unknown = sorted(set(pairs) - set(customer_names))
    strict = [f"assignment names unknown customer {name}" for name in unknown]
    extension = instance.get("structural_extension")
    if isinstance(extension, Mapping) and extension.get("type") == "budget":
        limit = read.number(extension.get("budget_limit"))
        if limit is not None and opening_cost - limit > tolerance:
            strict.append(f"opening cost {opening_cost:g} exceeds the budget {limit:g}")
    return make_check(problems, reported, computed, strict)
