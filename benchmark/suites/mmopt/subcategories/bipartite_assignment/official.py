"""Bipartite assignment / matching under the official rules.

Official instance: ``sets.drivers``/``sets.routes`` (or ``left``/``right``), ``cost_matrix:
{row: {column: cost}}``, optional ``feasible_assignments: {row: [columns]}``, and
``variant_type`` (``assignment`` or ``matching``; a matching names the side that must be fully
covered in ``matching_requirement.required_side``). The answer maps rows to columns (or columns
to rows); no column twice, only feasible pairs, every row (and column) covered as the variant
requires; the objective is the summed cost.

No subcategory-specific strict additions: ``strict`` differs here only by the rules common to all
subcategories (status, a reported objective, the recomputed objective against the optimum).
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
#: Looked up but absent in plain assignment instances.
OPTIONAL_KEYS: frozenset[str] = frozenset({"matching_requirement", "left", "right", "drivers", "routes"})


def reads(instance: Mapping[str, Any]) -> bool:
    return isinstance(instance.get("cost_matrix"), Mapping) and "variant_type" in instance


def check(output: Any, instance: Mapping[str, Any], tolerance: float) -> OfficialCheck:
    answer = read.payload(output)
    if answer is None:
        return infeasible("the returned value is not a dict")
    costs = instance["cost_matrix"]
    rows = [str(x) for x in read.named_list(instance, "drivers")] or [
        str(x) for x in read.named_list(instance, "left")
    ]
    rows = rows or [str(x) for x in costs]
    cols = [str(x) for x in read.named_list(instance, "routes")] or [
        str(x) for x in read.named_list(instance, "right")
    ]
    if not cols:
        cols = sorted({str(c) for row in costs.values() if isinstance(row, Mapping) for c in row})
    pairs = read.assignment(answer, rows, cols)
    feasible_pairs = instance.get("feasible_assignments")
    requirement = instance.get("matching_requirement")
    side = requirement.get("required_side") if isinstance(requirement, Mapping) else None
    matching = instance.get("variant_type") == "matching"
    problems: list[str] = []
    if matching and side not in {"drivers", "routes", "left", "right"}:
        problems.append("the matching instance names no supported required_side")
    need_rows = not matching or side in {"drivers", "left"}
    need_cols = not matching or side in {"routes", "right"}
    if need_rows:
        problems.extend(f"row {row} is not assigned" for row in rows if row not in pairs)
    used: set[str] = set()
    computed = 0.0
    for row, col in pairs.items():
        if row not in rows or col not in cols:
            problems.append(f"assignment {row} -> {col} names an unknown row or column")
            continue
        if col in used:
            problems.append(f"column {col} is assigned more than once")
        used.add(col)
        allowed = feasible_pairs.get(row) if isinstance(feasible_pairs, Mapping) else None
        if isinstance(allowed, list) and col not in [str(x) for x in allowed]:
            problems.append(f"assignment {row} -> {col} is not allowed")
        row_costs = costs.get(row)
        cost = read.number(row_costs.get(col)) if isinstance(row_costs, Mapping) else None
        if cost is None:
            problems.append(f"no cost for {row} -> {col}")
            continue
        computed += cost
    if need_cols and used != set(cols):
        problems.append(f"columns {sorted(set(cols) - used)} are not assigned")
    reported = read.reported_objective(answer, OBJECTIVE_KEYS)
    if reported is not None and abs(reported - computed) > tolerance:
        problems.append(f"reported objective {reported:g} but the assignment costs {computed:g}")
    return make_check(problems, reported, computed)
