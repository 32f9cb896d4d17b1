"""p-median / p-center under the official rules.

Official instance: ``sets.I`` (demand points) / ``sets.J`` (candidate sites), ``candidate_sites``,
``demand_points``, ``distance_matrix: {I: {J: distance}}``, optional ``demand_weights``,
``p_value`` and ``variant_type`` (``p_median`` or ``p_center``). The answer gives the open sites
(or they are read off the assignment) and each demand point's site (nested records such as
``{"assigned_site": "F3", "distance": …}`` accepted). Exactly ``p`` sites open, every point
assigned to an open site; the objective is Σ weight × distance (p-median) or the largest
assigned distance (p-center).

Strict additions: an assignment entry naming a demand point that is not in the instance is an
error (the official scorer ignores it), and so is an open-site list naming a site twice or a site
the instance lacks (the official scorer counts the distinct names against p: a repeated name is
not noticed, and an unknown one passes for an open site that serves nobody).
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
    "total_weighted_distance",
    "total_distance",
    "max_assignment_distance",
)
OPEN_KEYS: tuple[str, ...] = ("open_sites", "selected_sites", "open_facilities")
OPTIONAL_KEYS: frozenset[str] = frozenset({"I", "J", "demand_weights"})


def reads(instance: Mapping[str, Any]) -> bool:
    return isinstance(instance.get("distance_matrix"), Mapping) and isinstance(
        instance.get("candidate_sites"), Mapping
    )


def check(output: Any, instance: Mapping[str, Any], tolerance: float) -> OfficialCheck:
    answer = read.payload(output)
    if answer is None:
        return infeasible("the returned value is not a dict")
    sites, points, distances = (
        instance["candidate_sites"],
        instance.get("demand_points"),
        instance["distance_matrix"],
    )
    if not isinstance(points, Mapping):
        return infeasible("the instance has no demand points")
    site_names = [str(x) for x in read.named_list(instance, "J")] or [str(k) for k in sites]
    point_names = [str(x) for x in read.named_list(instance, "I")] or [str(k) for k in points]
    pairs = read.assignment(answer, point_names, site_names)
    listed = read.selection(answer, OPEN_KEYS)
    open_set = set(listed or sorted(set(pairs.values())))
    p = int(read.number(instance.get("p_value")) or len(open_set))
    raw_weights = instance.get("demand_weights")
    weights: Mapping[str, Any] = raw_weights if isinstance(raw_weights, Mapping) else {}
    problems: list[str] = []
    weighted, largest = 0.0, 0.0
    for point in point_names:
        site = pairs.get(point)
        if site is None:
            problems.append(f"demand point {point} is not assigned")
            continue
        if site not in open_set:
            problems.append(f"demand point {point} is assigned to {site}, which is not open")
        row = distances.get(point)
        distance = read.number(row.get(site)) if isinstance(row, Mapping) else None
        if distance is None:
            problems.append(f"no distance for {point} -> {site}")
            continue
        weighted += (read.number(weights.get(point)) or 1.0) * distance
        largest = max(largest, distance)
    if len(open_set) != p:
        problems.append(f"{len(open_set)} sites open, the instance asks for {p}")
    computed = largest if "center" in str(instance.get("variant_type") or "") else weighted
    reported = read.reported_objective(answer, OBJECTIVE_KEYS)
    if reported is not None and abs(reported - computed) > tolerance:
        problems.append(f"reported objective {reported:g} but the assignment gives {computed:g}")
    strict = [
        f"the assignment names demand point {p_}, which is not in the instance"
        for p_ in pairs
        if p_ not in point_names
    ]
    strict += [f"open site {s} is not a candidate site" for s in sorted(open_set) if s not in site_names]
    strict += [f"open site {s} is listed more than once" for s in sorted(open_set) if listed.count(s) > 1]
    return make_check(problems, reported, computed, strict)
