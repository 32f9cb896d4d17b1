"""Workforce planning and shift scheduling (``wpss``): generator, validator, visuals, the shipped
packages, damaged copies, the official release's package, replays of wrong answers and planted causes.

Real solvers throughout (HiGHS, CP-SAT); every shipped ``solver_ref.py`` runs as a subprocess in
``tests/test_mmopt_generation.py::test_shipped_solver_refs_reproduce_the_optimum`` (all subcategories).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.suites.mmopt.generation import build_instance
from benchmark.suites.mmopt.generation.package import package_files
from benchmark.suites.mmopt.generation.seeds import instance_seed
from benchmark.suites.mmopt.generation.validate import validate
from benchmark.suites.mmopt.package import reference_value
from benchmark.suites.mmopt.scoring import tolerance_for
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from benchmark.suites.mmopt.subcategories.workforce_planning_shift_scheduling.generator import (
    cheapest_staffing_cost,
    solve_milp,
)
from tests.mmopt_support import (
    assert_planted_causes_recovered,
    copy_shipped,
    drop_last_visual,
    failures_by_check,
    generator_of,
    instance_and_reference,
    misreport_objective,
    read_json,
    rewrite_checksummed,
    rewrite_json,
    score_answer,
    shipped_package,
)

REPO = Path(__file__).resolve().parents[1]
ROOT = REPO / "fixtures" / "mmopt"
OFFICIAL = REPO / "tests" / "data" / "official_mmopt"
FAMILY = "multi_period_system_planning"
NAME = "workforce_planning_shift_scheduling"


def _package(difficulty: str, index: int = 1) -> Path:
    return shipped_package(FAMILY, NAME, "wpss", difficulty, index)


def _instance(difficulty: str, index: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    return instance_and_reference(_package(difficulty, index))


def test_registered_in_the_family_with_the_official_prefix_and_floor():
    generator = generator_of(NAME)
    assert (generator.family, generator.name, generator.id_prefix) == (FAMILY, NAME, "wpss")
    assert tolerance_for(NAME) == 1e-2


def test_same_seed_same_bytes():
    generator = generator_of(NAME)
    seed = instance_seed(NAME, "medium", 4)
    first = package_files(build_instance(generator, "medium", "x_001", seed), "test")
    assert first == package_files(build_instance(generator, "medium", "x_001", seed), "test")
    other = package_files(build_instance(generator, "medium", "x_001", seed + 1), "test")
    assert other["ground_truth/instance_data.json"] != first["ground_truth/instance_data.json"]


def test_shipped_package_regenerates_from_its_seed():
    package = _package("hard", 2)
    meta = read_json(package, "meta.json")
    files = package_files(
        build_instance(generator_of(NAME), "hard", meta["instance_id"], meta["seed"]), meta["dataset_version"]
    )
    for rel, data in files.items():
        if not rel.endswith(".png") and rel != "meta.json":
            assert (package / rel).read_bytes() == data, rel
    regenerated = json.loads(files["meta.json"])
    regenerated.pop("checksums")
    meta.pop("checksums")
    assert regenerated == meta


def test_size_and_rules_grow_from_easy_to_hard():
    sizes: dict[str, list[int]] = {d: [] for d in DIFFICULTIES}
    for difficulty in DIFFICULTIES:
        for index in range(1, 11):
            meta = read_json(_package(difficulty, index), "meta.json")
            sizes[difficulty].append(meta["formulation_size"]["variables"])
    assert max(sizes["easy"]) < min(sizes["medium"]) and max(sizes["medium"]) < min(sizes["hard"])
    easy, _ = _instance("easy")
    medium, _ = _instance("medium")
    hard, _ = _instance("hard")
    assert "regular_shift_limit" not in easy and "constraint_flags" not in easy
    assert medium["constraint_flags"] == {"night_limit": True, "consecutive": True, "rest_rule": False}
    assert hard["constraint_flags"]["rest_rule"] is True


def test_regimes_are_nontrivial_and_caps_bind():
    for difficulty in DIFFICULTIES:
        for index in range(1, 11):
            instance, solution = _instance(difficulty, index)
            assert cheapest_staffing_cost(instance) < solution["objective_value"]
            if difficulty != "easy":
                relaxed = solve_milp(instance, horizon_rules=False)
                assert relaxed is not None and relaxed[0] < solution["objective_value"]
                assert solution["workers_at_regular_cap"]


# ------------------------------------------------------------------------------------------------
# validator


def _check(instance: dict[str, Any], solution: dict[str, Any]):
    return generator_of(NAME).check_solution(instance, solution)


def test_validator_accepts_the_reference_in_both_shapes():
    instance, solution = _instance("hard", 1)
    verdict = _check(instance, solution)
    assert verdict.feasible, verdict.problems
    assert verdict.objective == solution["objective_value"]
    by_day = _check(instance, {"assignments_by_day": solution["assignments_by_day"]})
    assert by_day.feasible and by_day.objective == solution["objective_value"]
    alone = _check(instance, {"worker_schedule": solution["worker_schedule"]})
    assert alone.feasible and alone.objective == solution["objective_value"]
    nudged = {**solution, "objective_value": solution["objective_value"] + 0.004}  # inside the 1e-2 floor
    assert _check(instance, nudged).feasible


def _first_worked(solution: dict[str, Any], shift: str | None = None) -> tuple[str, str]:
    for worker, row in solution["worker_schedule"].items():
        for day, value in row.items():
            if value != "OFF" and (shift is None or value == shift):
                return worker, day
    raise AssertionError("no worked shift")


def test_validator_rejects_understaffing_availability_limits_and_balance_faults():
    instance, solution = _instance("hard", 1)
    worker, day = _first_worked(solution)
    shift = solution["worker_schedule"][worker][day]
    roster = {"worker_schedule": copy.deepcopy(solution["worker_schedule"])}

    short = copy.deepcopy(roster)  # one assignment removed: the pair is below its requirement
    short["worker_schedule"][worker][day] = "OFF"
    problems = _check(instance, short).problems
    if instance["demand"][day][shift] == solution["coverage_realized"][day][shift]:
        assert any(f"{day} {shift} is understaffed" in p for p in problems), problems

    twice = {"assignments_by_day": copy.deepcopy(solution["assignments_by_day"])}
    other = next(s for s in instance["sets"]["shifts"] if s != shift)
    twice["assignments_by_day"][day][other].append(worker)
    assert any(f"{worker} works 2 shifts on {day}" in p for p in _check(instance, twice).problems)

    off_worker, off_day = next(
        (w, d) for w, row in instance["availability_code"].items() for d, code in row.items() if code == "OFF"
    )
    unavailable = copy.deepcopy(roster)
    unavailable["worker_schedule"][off_worker][off_day] = "D"
    assert any(f"{off_worker} is not available" in p for p in _check(instance, unavailable).problems)

    night_worker = min(instance["sets"]["workers"], key=lambda w: instance["max_night_shifts"][w])
    nights = copy.deepcopy(roster)
    for d in instance["sets"]["days"]:
        nights["worker_schedule"][night_worker][d] = "N"
    problems = _check(instance, nights).problems
    assert any(f"{night_worker} works {len(instance['sets']['days'])} Night shifts" in p for p in problems)
    assert any(f"{night_worker} works" in p and "consecutive days" in p for p in problems)

    rest = copy.deepcopy(roster)
    days = instance["sets"]["days"]
    rest["worker_schedule"][worker][days[0]] = "N"
    rest["worker_schedule"][worker][days[1]] = "D"
    assert any("rest rule" in p for p in _check(instance, rest).problems)

    overtime = copy.deepcopy(solution)
    overtime["worker_overtime"][worker] += 1
    assert any(f"worker_overtime[{worker}]" in p for p in _check(instance, overtime).problems)
    lying = {**solution, "objective_value": solution["objective_value"] - 1}
    assert any("reported objective_value" in p for p in _check(instance, lying).problems)
    assert not _check(instance, {}).feasible


# ------------------------------------------------------------------------------------------------
# replays of typical wrong answers, scored as the benchmark scores them


def _score(instance: dict[str, Any], solution_ref: dict[str, Any], answer: dict[str, Any]):
    return score_answer(NAME, instance, solution_ref, answer, scoring="strict")


def test_replayed_wrong_rosters_get_their_category():
    instance, solution = _instance("medium", 1)
    assert _score(instance, solution, solution).passed
    worker, day = _first_worked(solution)
    shift = solution["worker_schedule"][worker][day]
    understaffed = {"worker_schedule": copy.deepcopy(solution["worker_schedule"])}
    understaffed["worker_schedule"][worker][day] = "OFF"
    if solution["coverage_realized"][day][shift] == instance["demand"][day][shift]:
        verdict = _score(instance, solution, {**understaffed, "objective_value": solution["objective_value"]})
        assert not verdict.passed and verdict.category == "infeasible_solution", verdict.detail
    # a feasible but suboptimal roster: one more worker on a pair that already has enough
    spare = next(
        (w, d, s)
        for w, row in solution["worker_schedule"].items()
        for d, v in row.items()
        if v == "OFF"
        for s in instance["availability_legend"][instance["availability_code"][w][d]]
    )
    w, d, s = spare
    padded = copy.deepcopy(solution["worker_schedule"])
    padded[w][d] = s
    check = _check(instance, {"worker_schedule": padded})
    if check.feasible:
        verdict = _score(instance, solution, {"worker_schedule": padded, "objective_value": check.objective})
        assert not verdict.passed and verdict.category == "wrong_objective", verdict.detail
        assert check.objective > solution["objective_value"]


# ------------------------------------------------------------------------------------------------
# the official release's package


def test_official_packages_pass_our_validator_and_solvers():
    packages = sorted(p.parent for p in (OFFICIAL / FAMILY / NAME).glob("*/*/ground_truth"))
    assert packages, f"no official {NAME} package under tests/data/official_mmopt"
    generator = generator_of(NAME)
    for package in packages:
        instance = read_json(package, "ground_truth/instance_data.json")
        solution = read_json(package, "ground_truth/solution_ref.json")
        optimum = reference_value(solution)  # not every sample package keeps its meta.json
        verdict = generator.check_solution(instance, solution)
        assert verdict.feasible, verdict.problems
        assert verdict.objective == pytest.approx(optimum, abs=1e-2)
        assert generator.reference_solve(instance).objective == pytest.approx(optimum, abs=1e-2)
        assert generator.cross_check(instance)[1] == pytest.approx(optimum, abs=1e-2)
        assert generator.render(instance)


# ------------------------------------------------------------------------------------------------
# damaged copies


def test_damaged_packages_are_named_with_their_check(tmp_path):
    base = f"{FAMILY}/{NAME}/medium"
    kinds = ("intact", "demand", "objective", "panel", "extra", "missing")
    names = {kind: f"{base}/wpss_m_00{k}" for k, kind in enumerate(kinds, 1)}
    copy_shipped(tmp_path, names.values())
    generator = generator_of(NAME)

    package = tmp_path / names["demand"]  # a changed requirement the picture does not show
    instance = read_json(package, "ground_truth/instance_data.json")
    day = instance["sets"]["days"][0]
    instance["demand"][day]["D"] += 1
    rewrite_json(package, "ground_truth/instance_data.json", instance)

    package = tmp_path / names["objective"]
    misreport_objective(package)

    package = tmp_path / names["panel"]  # the worker profile and availability panel is gone
    drop_last_visual(package)

    for kind, change in (("extra", 1), ("missing", -1)):  # a profile table with a worker more / fewer
        package = tmp_path / names[kind]
        instance = read_json(package, "ground_truth/instance_data.json")
        workers = instance["sets"]["workers"]
        if change > 0:
            new = f"W{len(workers) + 1}"
            workers.append(new)
            for field in ("shift_cost", "regular_shift_limit", "overtime_cost", "max_night_shifts"):
                instance[field][new] = copy.deepcopy(instance[field][workers[0]])
            instance["max_consecutive_days"][new] = instance["max_consecutive_days"][workers[0]]
            instance["availability_code"][new] = dict(instance["availability_code"][workers[0]])
        else:
            workers.pop()
        rewrite_checksummed(package, "visuals/visual_1.png", generator.render(instance)[1].png)

    report = validate(tmp_path, processes=2)
    assert failures_by_check(report, names["intact"]) == {}
    demand = failures_by_check(report, names["demand"])
    assert "visual_png" in demand and "regeneration" in demand and "artifacts" not in demand
    assert {"reference_solve", "cross_check", "validator"} <= set(
        failures_by_check(report, names["objective"])
    )
    panel = failures_by_check(report, names["panel"])
    assert any("renders 2 visual(s), the package ships 1" in m for m in panel["visual_png"]), panel
    for kind in ("extra", "missing"):
        checks = failures_by_check(report, names[kind])
        assert "visual_png" in checks and "artifacts" not in checks, checks


# ------------------------------------------------------------------------------------------------
# planted causes, run as a user runs the benchmark (two-stage setting)

PLANTED_MIX = (
    ("wpss_e_002", "misread_value"),
    ("wpss_e_001", "drop_constraint"),
    ("wpss_e_004", "heuristic"),
)


@pytest.mark.slow
def test_planted_causes_are_recovered_with_their_category(tmp_path):
    assert_planted_causes_recovered(tmp_path, PLANTED_MIX, lambda ref: ref.path[:2] == (FAMILY, NAME))
