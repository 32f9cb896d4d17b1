"""The location subcategories (facility_location, p_median_center): generation, validators, fixtures.

Real solvers throughout (HiGHS through SciPy for the references, SCIP through OR-Tools and
exhaustive enumeration for the cross-checks); every shipped ``solver_ref.py`` runs as a subprocess in
``tests/test_mmopt_generation.py::test_shipped_solver_refs_reproduce_the_optimum`` (all subcategories).
Validator faults are planted into copies of real shipped solutions.
"""

from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt.generation import InstanceGenerator, build_instance
from benchmark.suites.mmopt.generation.package import package_files
from benchmark.suites.mmopt.generation.pipeline import text_value_problems
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution
from benchmark.suites.mmopt.generation.rendering import label_problems
from benchmark.suites.mmopt.generation.seeds import instance_seed
from benchmark.suites.mmopt.generation.spatial import resolve_name
from benchmark.suites.mmopt.scoring import score_execution
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from benchmark.suites.mmopt.subcategories.facility_location.generator import covers, facility_loads
from tests.conftest import fail_missing_fixture

FAMILY = "location_covering_assignment"
ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt" / FAMILY
SUBCATEGORIES = {"facility_location": "fl", "p_median_center": "pmc"}


def _generator(name: str) -> InstanceGenerator:
    subcategory = get_subcategory(name)
    assert isinstance(subcategory, InstanceGenerator)
    return subcategory


def _packages(name: str | None = None) -> list[Path]:
    names = [name] if name else list(SUBCATEGORIES)
    return sorted(p.parent for n in names for p in (ROOT / n).glob("*/*/meta.json"))


def _load(package: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    def read(rel: str) -> dict[str, Any]:
        return json.loads((package / rel).read_text())

    return read("ground_truth/instance_data.json"), read("ground_truth/solution_ref.json"), read("meta.json")


def _case(name: str, difficulty: str) -> tuple[dict[str, Any], dict[str, Any]]:
    packages = [p for p in _packages(name) if p.parent.name == difficulty]
    if not packages:
        fail_missing_fixture(ROOT / name / difficulty)
    instance, solution, _ = _load(packages[0])
    return instance, solution


# ------------------------------------------------------------------------------------------------
# registry and determinism


def test_both_subcategories_are_registered_in_the_family():
    for name, prefix in SUBCATEGORIES.items():
        generator = _generator(name)
        assert (generator.family, generator.name, generator.id_prefix) == (FAMILY, name, prefix)


@pytest.mark.parametrize("name", SUBCATEGORIES)
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_same_seed_same_bytes(name, difficulty):
    generator = _generator(name)
    seed = instance_seed(name, difficulty, 3)
    first = package_files(build_instance(generator, difficulty, "x_003", seed), "test")
    second = package_files(build_instance(generator, difficulty, "x_003", seed), "test")
    assert first.keys() == second.keys()
    assert {"visuals/visual_0.png", "visuals/visual_1.png"} <= first.keys()
    for rel in first:
        assert first[rel] == second[rel], rel
    other = package_files(build_instance(generator, difficulty, "x_003", seed + 1), "test")
    assert other["ground_truth/instance_data.json"] != first["ground_truth/instance_data.json"]


def test_resolve_name_accepts_case_and_bare_numbers_only_when_unambiguous():
    names = ["F1", "F2", "F10"]
    assert resolve_name("F10", names) == "F10"
    assert resolve_name(" f2 ", names) == "F2"
    assert resolve_name(10, names) == "F10"
    assert resolve_name("2", names) == "F2"
    assert resolve_name("F3", names) is None
    assert resolve_name(True, names) is None
    assert resolve_name(1, ["F1", "C1"]) is None  # two prefixes: a bare number is ambiguous


# ------------------------------------------------------------------------------------------------
# facility-location validator


FL = _generator("facility_location")


def test_fl_reference_passes_and_objective_is_recomputed():
    instance, solution = _case("facility_location", "hard")
    check = FL.check_solution(instance, solution)
    assert check.feasible, check.problems
    assert check.objective == solution["objective_value"]
    # the decisions alone give the same cost (objective keys removed, nested records accepted)
    bare = {
        "open_facilities": solution["open_facilities"],
        "assignments": {c: {"assigned_facility": f} for c, f in solution["assignments"].items()},
    }
    assert FL.check_solution(instance, bare).objective == solution["objective_value"]


def test_fl_instance_is_in_the_official_schema():
    for difficulty, variant in (("easy", "UFL"), ("medium", "CFL"), ("hard", "CFL")):
        instance, _ = _case("facility_location", difficulty)
        assert instance["problem_type"] == "facility_location"
        assert (instance["difficulty"], instance["variant_type"]) == (difficulty, variant)
        assert set(instance["facility"]) == set(instance["sets"]["F"])  # JSON sorts the keys
        assert set(instance["customer"]) == set(instance["sets"]["C"])
        for customer, allowed in instance["feasible_assignments"].items():
            assert allowed == [f for f in instance["sets"]["F"] if covers(instance, f, customer)]
            assert set(instance["assignment_cost_per_unit_demand"][customer]) == set(allowed)
        assert all(("capacity" in f) == (variant == "CFL") for f in instance["facility"].values())


def test_fl_closed_facility_used():
    instance, solution = _case("facility_location", "medium")
    broken = copy.deepcopy(solution)
    customer, facility = next(iter(broken["assignments"].items()))
    broken["open_facilities"].remove(facility)
    problems = FL.check_solution(instance, broken).problems
    assert f"customer {customer} is assigned to {facility}, which is not open" in problems


def test_fl_out_of_coverage():
    instance, solution = _case("facility_location", "hard")
    broken = copy.deepcopy(solution)
    customer, facility = next(
        (c, f) for c in instance["sets"]["C"] for f in instance["sets"]["F"] if not covers(instance, f, c)
    )
    broken["assignments"][customer] = facility
    broken["open_facilities"].append(facility)
    check = FL.check_solution(instance, broken)
    assert not check.feasible
    assert f"customer {customer} may not be served by {facility}" in check.problems


def test_fl_capacity_exceeded():
    instance, solution = _case("facility_location", "hard")
    loads = facility_loads(instance, solution["assignments"])
    facility = next(f for f in instance["sets"]["F"] if loads[f] > 0)
    tighter = copy.deepcopy(instance)  # the fault is planted in the instance: one unit less capacity
    tighter["facility"][facility]["capacity"] = loads[facility] - 1
    problems = FL.check_solution(tighter, solution).problems
    assert problems == (
        f"facility {facility}: load {loads[facility]} exceeds capacity {loads[facility] - 1}",
    )


def test_fl_objective_mismatch_missing_customer_and_unknown_names():
    instance, solution = _case("facility_location", "easy")
    assert FL.check_solution(
        instance, {**solution, "objective_value": solution["objective_value"] + 0.0009}
    ).feasible
    off = FL.check_solution(instance, {**solution, "objective_exact": solution["objective_value"] + 0.01})
    assert not off.feasible and off.problems[0].startswith("reported objective")
    missing = copy.deepcopy(solution)
    dropped = sorted(missing["assignments"])[0]
    del missing["assignments"][dropped]
    check = FL.check_solution(instance, missing)
    assert not check.feasible
    assert f"customer {dropped} is not assigned" in check.problems
    unknown = {**solution, "open_facilities": [*solution["open_facilities"], "F99"]}
    assert "unknown facility F99" in FL.check_solution(instance, unknown).problems
    stranger = copy.deepcopy(solution)
    stranger["assignments"]["C99"] = solution["open_facilities"][0]
    assert FL.check_solution(instance, stranger).problems == ("assignment names unknown customer C99",)
    empty = FL.check_solution(instance, {"objective_value": 1.0})
    assert not empty.feasible and all(p.endswith("is not assigned") for p in empty.problems[:-1])


@pytest.mark.parametrize(
    "answer",
    [None, [], "F1", {"assignments": ["C1", "F1"]}, {"assignments": {"C1": None}, "open_facilities": 3}],
    ids=["none", "list", "text", "assignment-list", "odd-values"],
)
def test_fl_malformed_answers_are_failures_not_exceptions(answer):
    instance, _ = _case("facility_location", "medium")
    check = FL.check_solution(instance, answer)
    assert not check.feasible and check.problems


def test_fl_unused_open_facility_pays_its_opening_cost():
    instance, solution = _case("facility_location", "medium")
    closed = next(f for f in instance["sets"]["F"] if f not in solution["open_facilities"])
    extra = {k: v for k, v in solution.items() if k not in ("objective_value", "objective_exact")}
    extra["open_facilities"] = [*solution["open_facilities"], closed]
    check = FL.check_solution(instance, extra)
    assert check.feasible
    assert check.objective == pytest.approx(
        solution["objective_value"] + instance["facility"][closed]["open_cost"], abs=1e-9
    )


def _unassigned(instance: dict[str, Any], answer: dict[str, Any]) -> None:
    del answer["assignments"][sorted(answer["assignments"])[0]]


def _closed_facility(instance: dict[str, Any], answer: dict[str, Any]) -> None:
    answer["open_facilities"].remove(answer["assignments"][instance["sets"]["C"][0]])


def _over_capacity(instance: dict[str, Any], answer: dict[str, Any]) -> None:
    """One customer moved to another open facility that covers it but lacks the room."""
    loads = facility_loads(instance, answer["assignments"])
    customer, target = next(
        (c, f)
        for c in instance["sets"]["C"]
        for f in instance["feasible_assignments"][c]
        if f in answer["open_facilities"]
        and f != answer["assignments"][c]
        and loads[f] + instance["customer"][c]["demand"] > instance["facility"][f]["capacity"]
    )
    answer["assignments"][customer] = target
    answer.pop("objective_exact")
    answer["objective_value"] = FL.check_solution(instance, answer).objective


def _misreported_objective(instance: dict[str, Any], answer: dict[str, Any]) -> None:
    answer["objective_value"] = answer["objective_exact"] = answer["objective_value"] + 1.0


def _worse_plan(instance: dict[str, Any], answer: dict[str, Any]) -> None:
    """A feasible plan that opens one facility too many, its cost reported truthfully."""
    answer["open_facilities"].append(
        next(f for f in instance["sets"]["F"] if f not in answer["open_facilities"])
    )
    answer.pop("objective_exact")
    answer["objective_value"] = FL.check_solution(instance, answer).objective


@pytest.mark.parametrize(
    ("difficulty", "change", "category", "said"),
    [
        ("easy", _unassigned, "infeasible_solution", "is not assigned"),
        ("medium", _closed_facility, "infeasible_solution", "which is not open"),
        ("hard", _over_capacity, "infeasible_solution", "exceeds capacity"),
        ("medium", _misreported_objective, "infeasible_solution", "reported objective"),
        ("easy", _worse_plan, "wrong_objective", "differs from the verified optimum"),
    ],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
def test_fl_mutated_answers_get_their_category_in_strict_mode(difficulty, change, category, said):
    instance, solution = _case("facility_location", difficulty)
    answer = copy.deepcopy(solution)
    change(instance, answer)
    ran = ExecutionResult(
        outcome=Outcome.OK, value=answer, stdout="", error="", wall_s=0.0, sandbox=SandboxKind.SUBPROCESS
    )
    verdict = score_execution(
        ran, subcategory="facility_location", instance=instance, solution_ref=solution, objective_only=False
    )
    assert not verdict.passed and verdict.category == category, verdict.detail
    assert said in verdict.detail
    reference = ExecutionResult(
        outcome=Outcome.OK, value=solution, stdout="", error="", wall_s=0.0, sandbox=SandboxKind.SUBPROCESS
    )
    for mode in ("strict", "official"):
        assert score_execution(
            reference,
            subcategory="facility_location",
            instance=instance,
            solution_ref=solution,
            objective_only=False,
            scoring=mode,
        ).passed


# ------------------------------------------------------------------------------------------------
# p-median / p-center validator


PMC = _generator("p_median_center")


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_pmc_reference_passes(difficulty):
    instance, solution = _case("p_median_center", difficulty)
    check = PMC.check_solution(instance, solution)
    assert check.feasible, check.problems
    assert check.objective == solution["objective_value"]  # recomputed, rounded to four decimals
    assert instance["variant_type"] == ("p_center" if difficulty == "hard" else "p_median")


def test_pmc_wrong_p_and_unselected_site():
    instance, solution = _case("p_median_center", "medium")
    p = instance["p_value"]
    fewer = {**solution, "open_sites": solution["open_sites"][:-1]}
    problems = PMC.check_solution(instance, fewer).problems
    assert f"{p - 1} sites open, the instance asks for {p}" in problems
    assert any("which is not open" in problem for problem in problems)
    spare = next(s for s in instance["sets"]["J"] if s not in solution["open_sites"])
    more = {**solution, "open_sites": [*solution["open_sites"], spare]}
    assert PMC.check_solution(instance, more).problems == (f"{p + 1} sites open, the instance asks for {p}",)


def test_pmc_objective_mismatch_and_worse_assignment_recomputed():
    for difficulty in ("easy", "hard"):
        instance, solution = _case("p_median_center", difficulty)
        assert PMC.check_solution(instance, _reporting(solution, 0.0009)).feasible  # tolerance 1e-3
        off = PMC.check_solution(instance, _reporting(solution, 0.01))
        assert not off.feasible and off.problems[0].startswith("reported objective")
        # every point to the first open site: only one site serves, so p sites are not all open
        first = solution["open_sites"][0]
        lazy = {"assignments": dict.fromkeys(solution["assignments"], first)}
        assert not PMC.check_solution(instance, lazy).feasible
        # with the p sites named, the same assignment is feasible and recomputed as worse
        named = {**lazy, "open_sites": solution["open_sites"]}
        check = PMC.check_solution(instance, named)
        assert check.feasible and check.objective is not None
        assert check.objective > solution["objective_value"]


def _reporting(solution: dict[str, Any], shift: float) -> dict[str, Any]:
    """The solution reporting its objective ``shift`` off (``objective_exact`` is read first, as the
    official scorer reads it)."""
    value = solution["objective_value"] + shift
    return {**solution, "objective_exact": value, "objective_value": value}


def test_pmc_unknown_demand_point_is_a_strict_finding():
    instance, solution = _case("p_median_center", "easy")
    extra = {**solution, "assignments": {**solution["assignments"], "D99": solution["open_sites"][0]}}
    check = PMC.check_solution(instance, extra)
    assert not check.feasible
    assert check.problems == ("the assignment names demand point D99, which is not in the instance",)


# ------------------------------------------------------------------------------------------------
# shipped packages


def test_ten_packages_per_difficulty_with_official_ids():
    for name, prefix in SUBCATEGORIES.items():
        packages = _packages(name)
        if not packages:
            fail_missing_fixture(ROOT / name)
        for difficulty in DIFFICULTIES:
            ids = sorted(p.name for p in packages if p.parent.name == difficulty)
            # the official release spells facility location's hard ids with two underscores
            separator = "__" if (name, difficulty) == ("facility_location", "hard") else "_"
            assert ids == [f"{prefix}_{difficulty[0]}{separator}{i:03d}" for i in range(1, 11)]


@pytest.mark.parametrize("package", _packages(), ids=lambda p: p.name)
def test_package_is_verified_and_cross_checked(package):
    instance, solution, meta = _load(package)
    generator = _generator(meta["subcategory"])
    assert solution["status"] == "optimal"
    assert solution["objective_value"] == round(solution["objective_value"], 4)
    method, independent = generator.cross_check(instance)
    assert method == meta["verification"]["cross_check"]
    assert independent == pytest.approx(solution["objective_value"], abs=1e-6)
    check = generator.check_solution(instance, solution)
    assert check.feasible, check.problems
    assert generator.solution_problems(instance, _reference(solution), meta["difficulty"]) == []
    task = (package / "task_input.txt").read_text()
    assert text_value_problems(task, generator.visual_values(instance), solution["objective_value"]) == []
    assert '"objective_value"' in task and '"assignments"' in task
    visuals = generator.render(instance)
    assert len(visuals) == len(meta["visuals"]) == 2
    expected = generator.expected_labels(instance)
    for index, visual in enumerate(visuals):
        mine = [e for e in expected if e.key.startswith(f"v{index}/")]
        assert label_problems(visual, mine) == []


def _reference(solution: dict[str, Any]) -> ReferenceSolution:
    return ReferenceSolution(solution=solution, method="shipped")


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_formulation_size_grows_with_difficulty(name):
    packages = _packages(name)
    if not packages:
        fail_missing_fixture(ROOT / name)
    sizes: dict[str, dict[str, list[int]]] = {d: {} for d in DIFFICULTIES}
    for package in packages:
        meta = json.loads((package / "meta.json").read_text())
        for key, value in meta["formulation_size"].items():
            sizes[meta["difficulty"]].setdefault(key, []).append(value)
    for key in ("variables", "constraints"):
        medians = [statistics.median(sizes[d][key]) for d in DIFFICULTIES]
        assert medians[0] < medians[1] < medians[2], (key, medians)
        assert max(sizes["easy"][key]) < min(sizes["hard"][key]), key
