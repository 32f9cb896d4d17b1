"""Energy dispatch and unit commitment (``educ``): validator, regimes, visuals per difficulty,
damaged copies, replays of typical wrong answers through the scorer, and planted causes.

The generic checks (registration, determinism, regeneration, size growth, the official package)
run for this subcategory in ``tests/test_mmopt_planning.py``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from benchmark.suites.mmopt.generation.certify import certify_package
from benchmark.suites.mmopt.generation.validate import validate
from benchmark.suites.mmopt.package import discover, load_package
from benchmark.suites.mmopt.planting import plant
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.generator import (
    simple_plan_costs,
)
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.validator import (
    release_problems,
)
from tests.mmopt_support import (
    assert_planted_causes_recovered,
    copy_shipped,
    drop_last_visual,
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
FAMILY = "multi_period_system_planning"
NAME = "energy_dispatch_unit_commitment"
SUBCATEGORY = get_subcategory(NAME)


def _package(difficulty: str, index: int = 1) -> Path:
    return shipped_package(FAMILY, NAME, "educ", difficulty, index)


def _instance(difficulty: str, index: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    return instance_and_reference(_package(difficulty, index))


def _problems(instance: dict[str, Any], answer: dict[str, Any]) -> tuple[str, ...]:
    assert SUBCATEGORY is not None
    return SUBCATEGORY.check_solution(instance, answer).problems


def test_validator_accepts_the_reference_and_a_generation_plan_alone():
    assert SUBCATEGORY is not None
    for difficulty in ("easy", "medium", "hard"):
        instance, solution = _instance(difficulty)
        verdict = SUBCATEGORY.check_solution(instance, solution)
        assert verdict.feasible, verdict.problems
        assert verdict.objective == pytest.approx(solution["objective_value"], abs=1e-6)
        alone = SUBCATEGORY.check_solution(instance, {"generation": solution["generation"]})
        if difficulty == "easy":  # no zero-output unit kept on: the commitment follows from outputs
            assert alone.feasible and alone.objective == pytest.approx(solution["objective_value"])
        periods = instance["sets"]["periods"]
        as_lists = {g: [row[t] for t in periods] for g, row in solution["generation"].items()}
        listed = SUBCATEGORY.check_solution(instance, {**solution, "generation": as_lists})
        assert listed.feasible, listed.problems


def test_validator_rejects_balance_range_startup_and_objective_faults():
    instance, solution = _instance("easy", 2)
    periods = instance["sets"]["periods"]
    on = next((g, t) for g in solution["generation"] for t in periods if solution["commitment"][g][t])
    unit, period = on

    short = copy.deepcopy(solution)  # one unit of demand unserved
    short["generation"][unit][period] -= 1
    assert any(f"power balance broken in {period}" in p for p in _problems(instance, short))

    above = copy.deepcopy(solution)  # output beyond the unit's maximum
    above["generation"][unit][period] = instance["pmax"][unit] + 1
    assert any(f"{unit} is on in {period}" in p for p in _problems(instance, above))

    off = copy.deepcopy(solution)  # output while switched off
    off["commitment"][unit][period] = 0
    assert any(f"{unit} is off in {period}" in p for p in _problems(instance, off))

    started = next((g, t) for g, row in solution["startup"].items() for t, flag in row.items() if flag)
    free = copy.deepcopy(solution)  # a start that pays no startup cost
    free["startup"][started[0]][started[1]] = 0
    assert any("without a startup flagged" in p for p in _problems(instance, free))

    lying = {**solution, "objective_value": solution["objective_value"] - 1}
    assert any("reported objective_value" in p for p in _problems(instance, lying))
    assert _problems(instance, {}) == ("no generation plan returned",)


def test_validator_rejects_minimum_up_time_and_ramp_faults():
    instance, solution = _instance("medium", 1)
    periods = instance["sets"]["periods"]
    unit = next(g for g in instance["sets"]["generators"] if instance["min_up"][g] > 1)
    assert not instance["initial_status"][unit]
    flicker = copy.deepcopy(solution)  # on in the second period only: shorter than its minimum up time
    for k, period in enumerate(periods):
        flicker["commitment"][unit][period] = int(k == 1)
        flicker["generation"][unit][period] = instance["pmin"][unit] if k == 1 else 0
    flicker.pop("startup")
    problems = _problems(instance, flicker)
    assert any(f"{unit} starts in {periods[1]}" in p and "minimum up time" in p for p in problems), problems

    instance, solution = _instance("hard", 1)
    ramp = copy.deepcopy(instance)  # the reference plan under ramp limits of zero
    for g in ramp["ramp_up"]:
        ramp["ramp_up"][g] = ramp["ramp_down"][g] = 0
    assert any("ramps" in p for p in _problems(ramp, solution))


def test_regimes_grow_bind_and_beat_simple_plans():
    for difficulty, figures in (("easy", 1), ("medium", 2), ("hard", 3)):
        for index in range(1, 11):
            package = _package(difficulty, index)
            instance, solution = _instance(difficulty, index)
            assert len(read_json(package, "meta.json")["visuals"]) == figures
            assert any(solution["binding_capacity_periods"].values())
            for cost in simple_plan_costs(instance).values():
                assert cost is None or cost > solution["objective_value"] + 1e-6
            peak = max(instance["demand"].values())
            assert peak <= sum(instance["pmax"].values())
    medium, _ = _instance("medium")
    hard, _ = _instance("hard")
    assert "min_up" in medium and "ramp_up" not in medium
    assert "ramp_up" in hard and any(hard["initial_status"].values())


# ------------------------------------------------------------------------------------------------
# replays of typical wrong answers, scored as a run scores them


def _score(package: Path, answer: dict[str, Any]):
    return score_answer(NAME, *instance_and_reference(package), answer)


def test_replayed_wrong_plans_get_their_category():
    package = _package("medium", 3)
    instance, solution = _instance("medium", 3)
    assert _score(package, solution).passed
    periods = instance["sets"]["periods"]
    unit = next(g for g in solution["generation"] if solution["commitment"][g][periods[0]])

    unbalanced = copy.deepcopy(solution)  # reads a demand one too high
    unbalanced["generation"][unit][periods[0]] += 1
    unbalanced["objective_value"] += instance["cost"][unit]
    verdict = _score(package, unbalanced)
    assert (verdict.passed, verdict.category) == (False, "infeasible_solution"), verdict.detail

    over = copy.deepcopy(solution)  # a unit pushed past its maximum output
    over["generation"][unit][periods[0]] = instance["pmax"][unit] + 1
    verdict = _score(package, over)
    assert (verdict.passed, verdict.category) == (False, "infeasible_solution"), verdict.detail

    assert SUBCATEGORY is not None
    plan = next(iter(simple_plan_costs(instance)))  # a feasible but dearer commitment
    heuristic_code = plant(load_package(_ref(package)), "heuristic")["stage1_code"]
    namespace: dict[str, Any] = {"__name__": "replay"}
    exec(compile(heuristic_code, "replay.py", "exec"), namespace)
    dearer = namespace["solve"]()
    assert SUBCATEGORY.check_solution(instance, dearer).feasible, plan
    verdict = _score(package, dearer)
    assert (verdict.passed, verdict.category) == (False, "wrong_objective"), verdict.detail


def _ref(package: Path):
    return next(ref for ref in discover(ROOT) if ref.path[-1] == package.name)


# ------------------------------------------------------------------------------------------------
# damaged copies


def test_damaged_unit_commitment_packages_are_named_with_their_check(tmp_path):
    assert SUBCATEGORY is not None
    base = f"{FAMILY}/{NAME}/hard"
    kinds = ("intact", "demand", "objective", "panel", "extra", "missing")
    names = {kind: f"{base}/educ_h_00{k}" for k, kind in enumerate(kinds, 1)}
    copy_shipped(tmp_path, names.values())

    package = tmp_path / names["demand"]  # a changed demand the timeline does not show
    instance = read_json(package, "ground_truth/instance_data.json")
    instance["demand"][instance["sets"]["periods"][0]] += 1
    rewrite_json(package, "ground_truth/instance_data.json", instance)

    package = tmp_path / names["objective"]
    misreport_objective(package)

    package = tmp_path / names["panel"]  # the output-range panel is gone
    drop_last_visual(package)

    for kind, change in (("extra", 1), ("missing", -1)):  # a table with a generator more / fewer
        package = tmp_path / names[kind]
        instance = read_json(package, "ground_truth/instance_data.json")
        units = instance["sets"]["generators"]
        if change > 0:
            new = f"G{len(units) + 1}"
            for field in ("cost", "startup_cost", "pmin", "pmax", "min_up", "min_down", "ramp_up",
                          "ramp_down", "initial_status", "initial_output"):  # fmt: skip
                instance[field][new] = instance[field][units[-1]]
            units.append(new)
        else:
            units.pop()
        rewrite_checksummed(package, "visuals/visual_0.png", SUBCATEGORY.render(instance)[0].png)

    report = validate(tmp_path, processes=2)
    found: dict[str, set[str]] = {}
    for failure in report.failures:
        found.setdefault(failure.package, set()).add(failure.check)
    assert names["intact"] not in found
    assert {"visual_png", "regeneration"} <= found[names["demand"]]
    assert "artifacts" not in found[names["demand"]]
    assert {"reference_solve", "cross_check", "validator"} <= found[names["objective"]]
    panel = [f.message for f in report.failures if f.package == names["panel"] and f.check == "visual_png"]
    assert any("renders 3 visual(s), the package ships 2" in m for m in panel), panel
    for kind in ("extra", "missing"):
        assert "visual_png" in found[names[kind]] and "artifacts" not in found[names[kind]]


# ------------------------------------------------------------------------------------------------
# planted causes, run as a user runs the benchmark (two-stage setting)

PLANTED_MIX = (
    ("educ_e_004", "misread_value"),
    ("educ_m_002", "drop_constraint"),
    ("educ_h_003", "heuristic"),
)


@pytest.mark.slow
def test_planted_causes_are_recovered_with_their_category(tmp_path):
    assert_planted_causes_recovered(tmp_path, PLANTED_MIX, lambda ref: ref.path[1] == NAME)


OFFICIAL = REPO / "tests" / "data" / "official_mmopt"


def test_release_ramp_reading_decides_the_certificate_of_a_release_package():
    """The release limits start-ups by the ramp limits too (from the initial output 0), and its
    medium reference is optimal only under that reading: our model's cheaper plan (G1 starts at 36
    with a ramp limit of 20) holds under our rule, so the certificate is "not certified", never a
    "not optimal" charge against the release; our own hard packages shut units down faster than
    the release's reading allows, as our rule does, so scoring does not apply it."""
    refs = {ref.path[-1]: ref for ref in discover(OFFICIAL) if ref.path[1] == NAME}
    medium = certify_package(refs["educ_m_001"], 60.0)
    assert (medium.verdict, medium.official, medium.recomputed) == ("not certified", 5038.0, 5038.0)
    assert medium.ours == pytest.approx(4934.0)
    assert "G1 ramps up by 36 into t1 (the release's ramp reading)" in medium.note
    assert certify_package(refs["educ_h_001"], 60.0).verdict == "optimal"
    reference = load_package(
        refs["educ_m_001"], ("ground_truth/instance_data.json", "ground_truth/solution_ref.json")
    )
    instance, solution = reference.instance_data, reference.solution_ref
    assert release_problems(instance, solution) == []
    faster = copy.deepcopy(instance)
    faster["ramp_up"]["G1"] = 19  # the reference starts G1 at 20 from 0: only the release objects
    assert SUBCATEGORY.check_solution(faster, solution).feasible
    assert release_problems(faster, solution) == ["G1 ramps up by 20 into t1 (the release's ramp reading)"]
    hard_instance, hard_solution = _instance("hard", 1)  # ours shut units down faster than the release allows
    assert SUBCATEGORY.check_solution(hard_instance, hard_solution).feasible
    assert any("ramps down" in problem for problem in release_problems(hard_instance, hard_solution))
