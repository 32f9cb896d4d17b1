"""Set covering / partitioning under the official rules.

Official instance: ``sets.E`` (elements), ``candidate_subsets: {S: {covered_elements, cost}}``
and ``variant_type`` (``set_covering`` or ``set_partitioning``). The answer lists the selected
subsets (``selected_subsets``, ``selected_sets`` or ``selected_groups``; a 0/1 dict works too).
Covering: every element covered at least once; partitioning: exactly once. The objective is the
summed cost of the selected subsets.

No subcategory-specific strict additions: ``strict`` differs here only by the rules common to all
subcategories (status, a reported objective, the recomputed objective against the optimum).
"""

from __future__ import annotations

from collections import Counter
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
SELECTION_KEYS: tuple[str, ...] = ("selected_subsets", "selected_sets", "selected_groups")
OPTIONAL_KEYS: frozenset[str] = frozenset({"E"})


def reads(instance: Mapping[str, Any]) -> bool:
    return isinstance(instance.get("candidate_subsets"), Mapping)


def check(output: Any, instance: Mapping[str, Any], tolerance: float) -> OfficialCheck:
    answer = read.payload(output)
    if answer is None:
        return infeasible("the returned value is not a dict")
    subsets = instance["candidate_subsets"]
    chosen = read.selection(answer, SELECTION_KEYS)
    problems: list[str] = []
    coverage: Counter[str] = Counter()
    computed = 0.0
    for name in chosen:
        subset_entry = subsets.get(name)
        if not isinstance(subset_entry, Mapping):
            problems.append(f"unknown subset {name}")
            continue
        computed += read.number(subset_entry.get("cost")) or 0.0
        covered = subset_entry.get("covered_elements")
        if not isinstance(covered, list):
            problems.append(f"subset {name} lists no covered elements")
            continue
        coverage.update(str(e) for e in covered)
    elements = [str(x) for x in read.named_list(instance, "E")] or sorted(
        {str(e) for r in subsets.values() if isinstance(r, Mapping) for e in r.get("covered_elements", [])}
    )
    partition = "partition" in str(instance.get("variant_type") or "set_covering")
    for element in elements:
        if partition and coverage[element] != 1:
            problems.append(f"element {element} is covered {coverage[element]} times, not exactly once")
        elif not partition and coverage[element] < 1:
            problems.append(f"element {element} is not covered")
    reported = read.reported_objective(answer, OBJECTIVE_KEYS)
    if reported is not None and abs(reported - computed) > tolerance:
        problems.append(f"reported objective {reported:g} but the selection costs {computed:g}")
    return make_check(problems, reported, computed)
