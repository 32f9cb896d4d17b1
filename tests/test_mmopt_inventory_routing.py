"""Inventory routing (``irp``): validator, regimes, replays of typical wrong answers through the
scorer, and planted causes.

The generic checks (registration, the 1e-2 floor, determinism, regeneration, size growth, the
official package) run for this subcategory in ``tests/test_mmopt_planning.py``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from benchmark.suites.mmopt.package import SETTING_FILES, discover, load_package
from benchmark.suites.mmopt.planting import plant
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.inventory_routing_problem.generator import just_in_time_cost
from tests.mmopt_support import (
    assert_planted_causes_recovered,
    instance_and_reference,
    score_answer,
    shipped_package,
)

REPO = Path(__file__).resolve().parents[1]
ROOT = REPO / "fixtures" / "mmopt"
FAMILY = "multi_period_system_planning"
NAME = "inventory_routing_problem"
SUBCATEGORY = get_subcategory(NAME)


def _package(difficulty: str, index: int = 1) -> Path:
    return shipped_package(FAMILY, NAME, "irp", difficulty, index)


def _instance(difficulty: str, index: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    return instance_and_reference(_package(difficulty, index))


def _problems(instance: dict[str, Any], answer: dict[str, Any]) -> tuple[str, ...]:
    assert SUBCATEGORY is not None
    return SUBCATEGORY.check_solution(instance, answer).problems


def test_validator_accepts_the_reference_in_its_shapes():
    assert SUBCATEGORY is not None
    instance, solution = _instance("hard", 1)
    verdict = SUBCATEGORY.check_solution(instance, solution)
    assert verdict.feasible, verdict.problems
    assert verdict.objective == pytest.approx(solution["objective_value"], abs=1e-9)
    lean = {"deliveries": solution["deliveries"], "routes": solution["route_by_period"]}
    assert SUBCATEGORY.check_solution(instance, lean).feasible
    periods = instance["sets"]["periods"]
    as_lists = {c: [row[t] for t in periods] for c, row in solution["deliveries"].items()}
    assert SUBCATEGORY.check_solution(instance, {**solution, "deliveries": as_lists}).feasible
    nudged = {**solution, "objective_value": solution["objective_value"] + 0.004}  # within the floor
    assert SUBCATEGORY.check_solution(instance, nudged).feasible


def test_a_malformed_ending_inventory_is_named_as_such():
    instance, solution = _instance("easy", 1)
    customer, period = instance["sets"]["customers"][0], instance["sets"]["periods"][0]
    bad = copy.deepcopy(solution)
    bad["ending_inventory"][customer][period] = "many"
    bad["ending_inventory"]["deliveries"] = {}
    problems = _problems(instance, bad)
    assert f"ending_inventory[{customer}][{period}] = 'many' is not a number" in problems
    assert "ending_inventory: unknown customer 'deliveries'" in problems


def test_validator_rejects_balance_capacity_route_and_objective_faults():
    instance, solution = _instance("medium", 2)
    periods = instance["sets"]["periods"]
    served = next((c, t) for c, row in solution["deliveries"].items() for t, q in row.items() if q > 0)
    customer, period = served

    broken = copy.deepcopy(solution)  # an end stock that does not follow from the deliveries
    broken["ending_inventory"][customer][period] += 1
    assert any("breaks the balance" in p for p in _problems(instance, broken))

    short = copy.deepcopy(solution)  # one unit less delivered: a shortage
    short["deliveries"][customer][period] -= 1
    short.pop("ending_inventory")
    assert any(f"{customer} short in" in p for p in _problems(instance, short))

    binding = solution["capacity_binding_periods"][0]
    over = copy.deepcopy(solution)  # one unit more on a trip that already leaves full
    over.pop("ending_inventory")
    mover = next(c for c in instance["sets"]["customers"] if c in solution["route_by_period"][binding])
    over["deliveries"][mover][binding] += 1
    assert any(f"in {binding} exceeds the vehicle capacity" in p for p in _problems(instance, over))

    skipped = copy.deepcopy(solution)  # goods left at a customer the trip does not visit
    skipped["route_by_period"][period] = [s for s in skipped["route_by_period"][period] if s != customer]
    if skipped["route_by_period"][period] == ["Depot", "Depot"]:
        skipped["route_by_period"][period] = []
    assert any("the route does not visit it" in p for p in _problems(instance, skipped))

    open_route = copy.deepcopy(solution)
    open_route["route_by_period"][period] = open_route["route_by_period"][period][:-1]
    assert any("start and end at the depot" in p for p in _problems(instance, open_route))

    lying = {**solution, "objective_value": solution["objective_value"] - 0.5}
    assert any("reported objective_value" in p for p in _problems(instance, lying))
    assert _problems(instance, {"deliveries": solution["deliveries"]}) == ("no routes returned",)
    assert set(periods) == set(solution["route_by_period"])


def test_regimes_bind_the_vehicle_and_beat_just_in_time():
    for difficulty in ("easy", "medium", "hard"):
        for index in range(1, 11):
            instance, solution = _instance(difficulty, index)
            assert solution["capacity_binding_periods"]
            cost = just_in_time_cost(instance)
            assert cost is None or cost > solution["objective_value"] + 1e-6
    easy, _ = _instance("easy")
    hard, _ = _instance("hard")
    assert easy["fixed_dispatch_cost"] == 0 < hard["fixed_dispatch_cost"]
    assert len(hard["sets"]["customers"]) > len(easy["sets"]["customers"])


# ------------------------------------------------------------------------------------------------
# replays of typical wrong answers, scored as a run scores them


def _score(package: Path, answer: dict[str, Any]):
    return score_answer(NAME, *instance_and_reference(package), answer)


def test_replayed_wrong_plans_get_their_category():
    package = _package("easy", 3)
    instance, solution = _instance("easy", 3)
    assert _score(package, solution).passed

    customer = instance["sets"]["customers"][0]
    period = instance["sets"]["periods"][0]
    unbalanced = copy.deepcopy(solution)  # the inventory of a misread demand
    unbalanced["ending_inventory"][customer][period] -= 1
    verdict = _score(package, unbalanced)
    assert (verdict.passed, verdict.category) == (False, "infeasible_solution"), verdict.detail

    binding = solution["capacity_binding_periods"][0]
    overloaded = copy.deepcopy(solution)  # the vehicle capacity ignored
    overloaded.pop("ending_inventory")
    mover = next(c for c in instance["sets"]["customers"] if c in solution["route_by_period"][binding])
    overloaded["deliveries"][mover][binding] += 1
    verdict = _score(package, overloaded)
    assert (verdict.passed, verdict.category) == (False, "infeasible_solution"), verdict.detail

    code = plant(load_package(_ref(package)), "heuristic")["stage1_code"]  # feasible but dearer
    namespace: dict[str, Any] = {"__name__": "replay"}
    exec(compile(code, "replay.py", "exec"), namespace)
    dearer = namespace["solve"]()
    assert SUBCATEGORY is not None and SUBCATEGORY.check_solution(instance, dearer).feasible
    verdict = _score(package, dearer)
    assert (verdict.passed, verdict.category) == (False, "wrong_objective"), verdict.detail


def _ref(package: Path):
    return next(ref for ref in discover(ROOT) if ref.path[-1] == package.name)


# ------------------------------------------------------------------------------------------------
# planted causes, run as a user runs the benchmark (two-stage setting)

PLANTED_MIX = (
    ("irp_m_002", "misread_value"),
    ("irp_e_004", "drop_constraint"),
    ("irp_e_003", "heuristic"),
)


@pytest.mark.slow
def test_planted_causes_are_recovered_with_their_category(tmp_path):
    assert_planted_causes_recovered(tmp_path, PLANTED_MIX, lambda ref: ref.path[1] == NAME)


OFFICIAL_FLEET = (
    REPO / "tests/data/official_mmopt/multi_period_system_planning/inventory_routing_problem/medium/irp_m_008"
)


def _fleet() -> tuple[dict[str, Any], dict[str, Any]]:
    return instance_and_reference(OFFICIAL_FLEET)


def test_an_official_two_vehicle_reference_loads_and_scores_in_both_modes():
    """The release's medium/hard packages store routes per vehicle (route_by_vehicle_period and
    route_arcs_by_vehicle_period); the package's own reference must pass, costed per vehicle."""
    root = OFFICIAL_FLEET.parents[3]
    ref = next(ref for ref in discover(root) if ref.location == OFFICIAL_FLEET)
    package = load_package(ref, SETTING_FILES["stage1"])
    instance, solution = package.instance_data, package.solution_ref
    check = SUBCATEGORY.check_solution(instance, solution)
    assert check.feasible, check.problems
    assert check.objective == pytest.approx(184.23, abs=1e-9)  # 141.94 routing + 24.29 holding + 18 dispatch
    for scoring in ("strict", "official"):
        verdict = score_answer(NAME, instance, solution, solution, scoring=scoring)
        assert verdict.passed, (scoring, verdict.detail)


def test_per_vehicle_routes_are_read_from_either_official_key():
    instance, solution = _fleet()
    nodes_only = {k: v for k, v in solution.items() if k != "route_arcs_by_vehicle_period"}
    arcs_only = {k: v for k, v in solution.items() if k != "route_by_vehicle_period"}
    for answer in (nodes_only, arcs_only):
        check = SUBCATEGORY.check_solution(instance, answer)
        assert check.feasible and check.objective == pytest.approx(184.23), check.problems
    # a malformed redundant key is passed over, as the official scorer does, for the intact one
    damaged = {**solution, "route_arcs_by_vehicle_period": "n/a"}
    assert SUBCATEGORY.check_solution(instance, damaged).feasible
    assert not SUBCATEGORY.check_solution(
        instance, {**arcs_only, "route_arcs_by_vehicle_period": "n/a"}
    ).feasible
    broken_chain = copy.deepcopy(arcs_only)
    broken_chain["route_arcs_by_vehicle_period"]["V1"]["t3"] = [["Depot", "C4"], ["C3", "Depot"]]
    assert any("one chain" in p for p in _problems(instance, broken_chain))


def test_per_vehicle_rules_are_checked():
    instance, solution = _fleet()
    answer = {k: v for k, v in solution.items() if k != "route_arcs_by_vehicle_period"}
    twice = copy.deepcopy(answer)  # V2 also calls at C4, which V1 serves in t3
    twice["route_by_vehicle_period"]["V2"]["t3"] = ["Depot", "C7", "C8", "C4", "Depot"]
    assert any("C4 is visited by V1, V2 in t3" in p for p in _problems(instance, twice))
    overloaded = copy.deepcopy(answer)  # move V2's t3 load onto V1, which visits C3 and C4 only
    overloaded["deliveries_by_vehicle_period"]["V1"]["t3"]["C3"] = 8.0
    assert any("V1 carries 12 in t3, above its capacity 8" in p for p in _problems(instance, overloaded))
    unknown = copy.deepcopy(answer)
    unknown["route_by_vehicle_period"]["V9"] = unknown["route_by_vehicle_period"].pop("V2")
    assert any("unknown vehicle 'V9'" in p for p in _problems(instance, unknown))
    dropped = copy.deepcopy(answer)  # without V2's trip in t4, C5 and C6 get goods nobody brings
    dropped["route_by_vehicle_period"]["V2"]["t4"] = []
    assert any(
        "C5 receives 4 in t4 but the route does not visit it" in p for p in _problems(instance, dropped)
    )
