"""Every deliberate difference between ``--scoring=strict`` and ``--scoring=official`` listed in
the README, shown on the shipped official sample: the same answer, the two verdicts (for the
subcategories scored by their own validator, on every sample package of theirs)."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt.feasibility import is_feasibility_type
from benchmark.suites.mmopt.official import official_rules
from benchmark.suites.mmopt.package import SETTING_FILES, Package, discover, load_package
from benchmark.suites.mmopt.scoring import OBJECTIVE_KEYS as SCORED_OBJECTIVE_KEYS
from benchmark.suites.mmopt.scoring import score_execution
from benchmark.verdict import Verdict

SAMPLE = Path(__file__).parent / "data" / "official_mmopt"
OBJECTIVE_KEYS = ("objective_value", "objective_exact", "objective", "total_cost")


def _package(instance_id: str) -> Package:
    ref = next(r for r in discover(SAMPLE) if r.path[-1] == instance_id)
    return load_package(ref, SETTING_FILES["stage1"])


def _verdicts(
    instance_id: str, change: Callable[[dict[str, Any], dict[str, Any]], None]
) -> dict[str, Verdict]:
    package = _package(instance_id)
    answer, instance = copy.deepcopy(package.solution_ref), copy.deepcopy(package.instance_data)
    change(answer, instance)
    ran = ExecutionResult(
        outcome=Outcome.OK, value=answer, stdout="", error="", wall_s=0.0, sandbox=SandboxKind.SUBPROCESS
    )
    return {
        mode: score_execution(
            ran,
            subcategory=package.subcategory,
            instance=instance,
            solution_ref=package.solution_ref,
            objective_only=False,
            scoring=mode,
        )
        for mode in ("official", "strict")
    }


def _failure_status(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    answer["status"] = "infeasible"


def _no_objective(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    for key in OBJECTIVE_KEYS:
        answer.pop(key, None)


def _unknown_arc(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    answer["flows"]["1_9"] = 0


def _flow_on_uninstalled_arc(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    answer["installation_indicator"]["e5"] = 0
    answer["installed_arc_ids"].remove("e5")


def _disagreeing_path(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    answer["optimal_path"] = [1, 2, 4, 6, 7]


def _dual_resource_bound_exceeded(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    """The instance rewritten in the official dual-resource form, which has no ``resource_bound``."""
    instance.pop("resource_bound")
    instance["resource_names"] = [instance["resource_name"]]
    instance["resource_bounds"] = {instance["resource_name"]: 5}  # the reference path uses 6
    for arc in instance["arcs"]:
        arc["resource_values"] = {instance["resource_name"]: arc.pop("resource")}


def _path_over_one_bound(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    """Another path of the optimal cost 6 whose exposure (11) exceeds its bound (8)."""
    path = [1, 5, 8, 12, 14, 15]
    answer["optimal_path"] = path
    answer["selected_arcs"] = [list(arc) for arc in itertools.pairwise(path)]
    answer.pop("arc_selection")


def _inventory_off_storage(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    answer["inventory_by_node"]["2"] = {"t1": 0, "t2": 0, "t3": 0}


def _budget_lowered(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    instance["structural_extension"]["budget_limit"] = 60.0


def _unknown_customer(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    answer["assignments"]["C99"] = "F1"


def _unknown_task(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    answer["assignments"]["T99"] = "A1"


def _unknown_demand_point(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    answer["assignments"]["D99"] = "F3"


def _open_site_listed_twice(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    """Three names for the two open sites (p = 2): one of them listed again."""
    answer["open_sites"] = [*answer["open_sites"], answer["open_sites"][0]]


def _unknown_open_site(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    """p raised to 3 with a third open site the instance lacks: three names, two real sites."""
    instance["p_value"] = 3
    answer["open_sites"] = [*answer["open_sites"], "F99"]


@pytest.mark.parametrize(
    ("instance_id", "change", "strict_category"),
    [
        ("mcf_m_002", _failure_status, "wrong_objective"),
        ("ba_e_001", _no_objective, "output_format"),
        ("mcf_m_002", _unknown_arc, "infeasible_solution"),
        ("cnd_e_001", _flow_on_uninstalled_arc, "infeasible_solution"),
        ("rcsp_e_001", _disagreeing_path, "infeasible_solution"),
        ("rcsp_e_001", _dual_resource_bound_exceeded, "infeasible_solution"),
        ("rcsp_h_001", _path_over_one_bound, "infeasible_solution"),
        ("tempnf_e_001", _inventory_off_storage, "infeasible_solution"),
        ("fl_h__004", _budget_lowered, "infeasible_solution"),
        ("fl_h__004", _unknown_customer, "infeasible_solution"),
        ("gap_h_009", _unknown_task, "infeasible_solution"),
        ("pmc_e_004", _unknown_demand_point, "infeasible_solution"),
        ("pmc_e_004", _open_site_listed_twice, "infeasible_solution"),
        ("pmc_e_004", _unknown_open_site, "infeasible_solution"),
    ],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
def test_strict_rejects_what_official_accepts(
    instance_id: str, change: Callable, strict_category: str
) -> None:
    verdicts = _verdicts(instance_id, change)
    assert verdicts["official"].passed, verdicts["official"].detail
    assert not verdicts["strict"].passed and verdicts["strict"].category == strict_category


def test_strict_reads_top_level_keys_beside_a_nested_solution() -> None:
    def split(answer: dict[str, Any], instance: dict[str, Any]) -> None:
        objective = answer.pop("objective_value")
        answer.pop("objective_exact")
        answer["solution"] = {"objective_value": objective}

    verdicts = _verdicts("ba_e_001", split)
    assert not verdicts["official"].passed and verdicts["official"].category == "infeasible_solution"
    assert verdicts["strict"].passed, verdicts["strict"].detail


def test_maximum_flow_status_counts_in_both_modes() -> None:
    verdicts = _verdicts("mf_e_001", _failure_status)
    assert not verdicts["official"].passed and not verdicts["strict"].passed


def _validator_scored() -> list[str]:
    """Sample packages of the subcategories scored by their own validator in both modes (built
    on the official schema from the start, no ``official.py``) whose answer is an optimum."""
    found = []
    for ref in discover(SAMPLE):
        package = load_package(ref, SETTING_FILES["stage1"])
        if official_rules(package.subcategory) is None and not is_feasibility_type(package.solution_ref):
            found.append(package.instance_id)
    return found


def _no_objective_alias(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    # e.g. ``makespan`` too, which scheduling answers also carry, and workforce's assignment_cost,
    # which the official scorer reads last (wpss_m_003's leaves out its overtime)
    for key in (*SCORED_OBJECTIVE_KEYS, "assignment_cost"):
        answer.pop(key, None)


@pytest.mark.parametrize("instance_id", _validator_scored())
def test_validator_scored_subcategories_differ_only_in_status_and_a_missing_objective(
    instance_id: str,
) -> None:
    """The same validator checks the decisions in both modes (feasibility, every constraint, the
    recomputed objective); ``official`` ignores a failure status and falls back to the objective
    recomputed from the decisions when none is reported."""
    for change, strict_category in (
        (_failure_status, "wrong_objective"),
        (_no_objective_alias, "output_format"),
    ):
        verdicts = _verdicts(instance_id, change)
        assert verdicts["official"].passed, verdicts["official"].detail
        assert not verdicts["strict"].passed and verdicts["strict"].category == strict_category
    nested = _verdicts(instance_id, lambda answer, instance: answer.update(solution=answer.copy()))
    assert nested["official"].passed and nested["strict"].passed
