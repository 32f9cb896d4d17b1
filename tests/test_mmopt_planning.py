"""The multi-period/system-planning family: generators, validators, visuals, the shipped packages,
damaged copies, the official release's packages and planted causes.

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
from benchmark.suites.mmopt.generation.protocol import Rejected
from benchmark.suites.mmopt.generation.seeds import instance_seed
from benchmark.suites.mmopt.generation.validate import validate
from benchmark.suites.mmopt.package import reference_value
from benchmark.suites.mmopt.scoring import tolerance_for
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from benchmark.suites.mmopt.subcategories.lot_sizing_production_planning.generator import simple_plan_costs
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
    shipped_package,
)

REPO = Path(__file__).resolve().parents[1]
ROOT = REPO / "fixtures" / "mmopt"
OFFICIAL = REPO / "tests" / "data" / "official_mmopt"
FAMILY = "multi_period_system_planning"
PREFIXES = {
    "lot_sizing_production_planning": "lspp",
    "energy_dispatch_unit_commitment": "educ",
    "inventory_routing_problem": "irp",
}
FLOORS = {"energy_dispatch_unit_commitment": 1e-6}  # the others: the official 1e-2
SUBCATEGORIES = tuple(PREFIXES)


def _package(name: str, difficulty: str, index: int = 1) -> Path:
    return shipped_package(FAMILY, name, PREFIXES[name], difficulty, index)


def _instance(name: str, difficulty: str, index: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    return instance_and_reference(_package(name, difficulty, index))


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_registered_in_the_family_with_the_official_prefix_and_floor(name):
    generator = generator_of(name)
    assert (generator.family, generator.name, generator.id_prefix) == (FAMILY, name, PREFIXES[name])
    assert tolerance_for(name) == FLOORS.get(name, 1e-2)


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_same_seed_same_bytes(name):
    generator = generator_of(name)
    seed = instance_seed(name, "medium", 4)
    first = package_files(build_instance(generator, "medium", "x_001", seed), "test")
    assert first == package_files(build_instance(generator, "medium", "x_001", seed), "test")
    other = package_files(build_instance(generator, "medium", "x_001", seed + 1), "test")
    assert other["ground_truth/instance_data.json"] != first["ground_truth/instance_data.json"]


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_shipped_package_regenerates_from_its_seed(name):
    package = _package(name, "hard", 2)
    meta = read_json(package, "meta.json")
    files = package_files(
        build_instance(generator_of(name), "hard", meta["instance_id"], meta["seed"]), meta["dataset_version"]
    )
    for rel, data in files.items():
        if not rel.endswith(".png") and rel != "meta.json":
            assert (package / rel).read_bytes() == data, rel
    regenerated = json.loads(files["meta.json"])
    regenerated.pop("checksums")
    meta.pop("checksums")
    assert regenerated == meta


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_size_grows_from_easy_to_hard(name):
    sizes: dict[str, list[int]] = {d: [] for d in DIFFICULTIES}
    for difficulty in DIFFICULTIES:
        for index in range(1, 11):
            meta = read_json(_package(name, difficulty, index), "meta.json")
            sizes[difficulty].append(meta["formulation_size"]["variables"])
    assert max(sizes["easy"]) < min(sizes["hard"])
    assert sum(sizes["easy"]) < sum(sizes["medium"]) < sum(sizes["hard"])


# ------------------------------------------------------------------------------------------------
# lot sizing: validator


def _lspp_check():
    return generator_of("lot_sizing_production_planning").check_solution


def test_lot_sizing_validator_accepts_the_reference_and_a_production_plan_alone():
    instance, solution = _instance("lot_sizing_production_planning", "hard", 1)
    check = _lspp_check()
    verdict = check(instance, solution)
    assert verdict.feasible, verdict.problems
    assert verdict.objective == solution["objective_value"]
    alone = check(instance, {"production": solution["production"]})
    assert alone.feasible and alone.objective == solution["objective_value"]
    periods = instance["sets"]["periods"]
    as_lists = {p: [row[t] for t in periods] for p, row in solution["production"].items()}
    assert check(instance, {"production": as_lists}).objective == solution["objective_value"]
    # within the official 1e-2 floor a rounding difference is not a fault
    nudged = copy.deepcopy(solution)
    nudged["objective_value"] += 0.004
    assert check(instance, nudged).feasible


def test_lot_sizing_validator_rejects_balance_capacity_and_setup_faults():
    instance, solution = _instance("lot_sizing_production_planning", "hard", 1)
    check = _lspp_check()
    product, periods = instance["sets"]["products"][0], instance["sets"]["periods"]
    producing = [t for t in periods if solution["production"][product][t] > 0]

    short = copy.deepcopy(solution)  # one unit less made: some demand goes unmet
    short["production"][product][producing[0]] -= 1
    short.pop("inventory")
    assert any(f"{product} short in" in p for p in check(instance, short).problems)

    broken = copy.deepcopy(solution)  # an inventory that does not follow from the plan
    broken["inventory"][product][periods[0]] += 1
    assert any("breaks the balance" in p for p in check(instance, broken).problems)

    no_setup = copy.deepcopy(solution)
    no_setup["setup"][product][producing[0]] = 0
    assert any("without a setup" in p for p in check(instance, no_setup).problems)

    binding = solution["capacity_binding_periods"][0]
    over = copy.deepcopy(solution)  # one unit more in a period whose capacity is already used up
    over.pop("inventory")
    mover = next(p for p in instance["sets"]["products"] if over["setup"][p][binding])
    over["production"][mover][binding] += 1
    assert any(f"period {binding} uses" in p for p in check(instance, over).problems)

    lying = {**solution, "objective_value": solution["objective_value"] - 1}
    assert any("reported objective_value" in p for p in check(instance, lying).problems)
    assert not check(instance, {}).feasible


def test_lot_sizing_regimes_bind_capacity_and_beat_simple_plans():

    for difficulty in ("medium", "hard"):
        for index in range(1, 11):
            instance, solution = _instance("lot_sizing_production_planning", difficulty, index)
            assert solution["capacity_binding_periods"]
            for cost in simple_plan_costs(instance).values():
                assert cost is None or cost > solution["objective_value"]
    hard, _ = _instance("lot_sizing_production_planning", "hard", 1)
    assert "setup_time" in hard and len(hard["sets"]["products"]) >= 3


# ------------------------------------------------------------------------------------------------
# official release packages


#: Release packages our two methods do not prove within their 60 s limits (each would spend them
#: here): ``validate`` reports them as not certified. Their validator and renderer are still run.
UNPROVEN = {
    # 5 products x 24 periods on a shared capacity binding in 7 periods: HiGHS and CP-SAT both stop
    # at their limit (the release's own HiGHS run took 42 s, Gurobi 2.6 s)
    "lspp_h_001": "time limit",
    # one vehicle, 8 customers x 8 periods: this test spent 64 s on it in a whole test run, and beside
    # other work HiGHS's reference stopped at its 60 s wall-clock limit (a verdict that hangs on load)
    "irp_h_001": "time limit",
    # the release limits every change of output between periods, start-ups and shutdowns included;
    # our model does not (4934 against the release's 5038): validate says "another variant"
    "educ_m_001": "another variant",
}


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_official_packages_pass_our_validator_and_solvers(name):
    packages = sorted(p.parent for p in (OFFICIAL / FAMILY / name).glob("*/*/ground_truth"))
    assert packages, f"no official {name} package under tests/data/official_mmopt"
    assert set(UNPROVEN) <= {p.name for p in OFFICIAL.glob(f"{FAMILY}/*/*/*")}
    generator = generator_of(name)
    for package in packages:
        instance = read_json(package, "ground_truth/instance_data.json")
        solution = read_json(package, "ground_truth/solution_ref.json")
        optimum = reference_value(solution)  # not every sample package keeps its meta.json
        verdict = generator.check_solution(instance, solution)
        assert verdict.feasible, verdict.problems
        assert verdict.objective == pytest.approx(optimum, abs=1e-2)
        assert generator.render(instance)
        if len(instance["sets"].get("vehicles") or ()) > 1:  # a release IRP fleet: not solved by us yet
            for method in (generator.reference_solve, generator.cross_check):
                with pytest.raises(Rejected, match="plan one vehicle, the instance has 2"):
                    method(instance)
            continue
        if package.name in UNPROVEN:
            continue
        assert generator.reference_solve(instance).objective == pytest.approx(optimum, abs=1e-2)
        assert generator.cross_check(instance)[1] == pytest.approx(optimum, abs=1e-2)


# ------------------------------------------------------------------------------------------------
# damaged copies


def test_damaged_lot_sizing_packages_are_named_with_their_check(tmp_path):
    base = f"{FAMILY}/lot_sizing_production_planning/medium"
    kinds = ("intact", "demand", "objective", "panel", "extra", "missing")
    names = {kind: f"{base}/lspp_m_00{k}" for k, kind in enumerate(kinds, 1)}
    copy_shipped(tmp_path, names.values())
    generator = generator_of("lot_sizing_production_planning")

    package = tmp_path / names["demand"]  # a changed demand the picture does not show
    instance = read_json(package, "ground_truth/instance_data.json")
    product, period = instance["sets"]["products"][0], instance["sets"]["periods"][0]
    instance["demand"][product][period] += 1
    rewrite_json(package, "ground_truth/instance_data.json", instance)

    package = tmp_path / names["objective"]
    misreport_objective(package)

    package = tmp_path / names["panel"]  # the cost panel is gone
    drop_last_visual(package)

    for kind, change in (("extra", 1), ("missing", -1)):  # a grid with a product more / fewer
        package = tmp_path / names[kind]
        instance = read_json(package, "ground_truth/instance_data.json")
        products = instance["sets"]["products"]
        if change > 0:
            new = f"P{len(products) + 1}"
            products.append(new)
            instance["demand"][new] = dict(instance["demand"][products[0]])
            for field in ("production_cost", "holding_cost", "setup_cost"):
                instance[field][new] = dict(instance[field][products[0]])
            instance["initial_inventory"][new] = 0
        else:
            products.pop()
        rewrite_checksummed(package, "visuals/visual_0.png", generator.render(instance)[0].png)

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
    ("lspp_e_002", "misread_value"),
    ("lspp_m_001", "drop_constraint"),
    ("lspp_e_003", "heuristic"),
)


@pytest.mark.slow
def test_planted_causes_are_recovered_with_their_category(tmp_path):
    assert_planted_causes_recovered(tmp_path, PLANTED_MIX, lambda ref: ref.path[0] == FAMILY)
