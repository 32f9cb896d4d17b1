"""The scheduling/sequencing family: generators, validators, visuals, the shipped packages, damaged
copies and the official release's packages.

Real solvers throughout (CP-SAT, HiGHS); every shipped ``solver_ref.py`` runs as a subprocess in
``tests/test_mmopt_generation.py::test_shipped_solver_refs_reproduce_the_optimum`` (all subcategories).
"""

from __future__ import annotations

import copy
import itertools
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
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from benchmark.suites.mmopt.subcategories.rcpsp.generator import critical_path
from tests.conftest import fail_missing_fixture
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
FAMILY = "scheduling_sequencing"
PREFIXES = {"job_shop_scheduling": "jss", "parallel_machine_scheduling": "pms", "rcpsp": "rcpsp"}
SUBCATEGORIES = tuple(PREFIXES)


def _package(name: str, difficulty: str, index: int = 1) -> Path:
    return shipped_package(FAMILY, name, PREFIXES[name], difficulty, index)


def _instance(name: str, difficulty: str, index: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    return instance_and_reference(_package(name, difficulty, index))


# ------------------------------------------------------------------------------------------------
# registry, determinism, regeneration, difficulty


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_registered_in_the_family_with_the_official_prefix(name):
    generator = generator_of(name)
    assert (generator.family, generator.name, generator.id_prefix) == (FAMILY, name, PREFIXES[name])


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_same_seed_same_bytes(name):
    generator = generator_of(name)
    seed = instance_seed(name, "medium", 4)
    first = package_files(build_instance(generator, "medium", "x_001", seed), "test")
    second = package_files(build_instance(generator, "medium", "x_001", seed), "test")
    assert first == second
    other = package_files(build_instance(generator, "medium", "x_001", seed + 1), "test")
    assert other["ground_truth/instance_data.json"] != first["ground_truth/instance_data.json"]


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_shipped_package_regenerates_from_its_seed(name):
    """A hard package rebuilt from the seed in its meta.json: every text and JSON file identical."""
    package = _package(name, "hard", 2)
    meta = read_json(package, "meta.json")
    built = build_instance(generator_of(name), "hard", meta["instance_id"], meta["seed"])
    files = package_files(built, meta["dataset_version"])
    for rel, data in files.items():
        if rel.endswith(".png") or rel == "meta.json":
            continue
        assert (package / rel).read_bytes() == data, rel
    regenerated = json.loads(files["meta.json"])
    regenerated.pop("checksums")
    meta.pop("checksums")
    assert regenerated == meta


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_size_grows_from_easy_to_hard(name):
    manifest = ROOT / "manifest.json"
    entries = (
        [e for e in json.loads(manifest.read_text())["packages"] if e["subcategory"] == name]
        if manifest.is_file()
        else []
    )
    if not entries:
        fail_missing_fixture(f"{name} packages in {manifest.relative_to(REPO)}")
    sizes: dict[str, list[int]] = {d: [] for d in DIFFICULTIES}
    for entry in entries:
        meta = read_json(ROOT / entry["path"], "meta.json")
        sizes[meta["difficulty"]].append(meta["formulation_size"]["variables"])
    assert all(len(sizes[d]) == 10 for d in DIFFICULTIES)
    assert max(sizes["easy"]) < min(sizes["hard"])
    assert sum(sizes["easy"]) < sum(sizes["medium"]) < sum(sizes["hard"])


# ------------------------------------------------------------------------------------------------
# job shop: validator


def _jss_check():
    return generator_of("job_shop_scheduling").check_solution


def test_job_shop_validator_accepts_the_reference_in_every_shape():
    instance, solution = _instance("job_shop_scheduling", "hard", 1)
    check = _jss_check()
    verdict = check(instance, solution)
    assert verdict.feasible, verdict.problems
    assert verdict.objective == solution["objective_value"]
    nested: dict[str, dict[str, int]] = {}
    for item in solution["schedule"]:
        nested.setdefault(item["job"], {})[item["operation"]] = item["start"]
    assert check(instance, {"schedule": nested}).objective == solution["makespan"]
    flat = {f"{item['job']}-{item['operation']}": item["start"] for item in solution["schedule"]}
    assert check(instance, {"start_times": flat, "makespan": solution["makespan"]}).feasible
    numbered = [
        {"job": int(i["job"][1:]), "operation": i["operation"], "start": i["start"]}
        for i in solution["schedule"]
    ]
    assert check(instance, {"schedule": numbered}).feasible


def _shifted(solution: dict[str, Any], job: str, op: str, delta: float) -> dict[str, Any]:
    damaged = copy.deepcopy(solution)
    for item in damaged["schedule"]:
        if (item["job"], item["operation"]) == (job, op):
            item["start"] += delta
            item["finish"] += delta
    return damaged


def test_job_shop_validator_rejects_overlap_precedence_and_misreads():
    instance, solution = _instance("job_shop_scheduling", "hard", 1)
    check = _jss_check()
    schedule = solution["schedule"]
    # two operations back to back on one machine: start the second one unit early → overlap
    by_machine: dict[str, list[dict[str, Any]]] = {}
    for item in schedule:
        by_machine.setdefault(item["machine"], []).append(item)
    first_pair = next(
        (a, b)
        for items in by_machine.values()
        for a, b in zip(
            sorted(items, key=lambda i: i["start"]), sorted(items, key=lambda i: i["start"])[1:], strict=False
        )
        if b["start"] == a["finish"] and b["start"] >= 1
    )
    a, b = first_pair
    overlapping = _shifted(solution, b["job"], b["operation"], -1)
    overlapping.pop("objective_value")
    overlapping.pop("makespan")
    overlapping.pop("objective_exact")
    verdict = check(instance, overlapping)
    assert not verdict.feasible
    assert any(f"machine {a['machine']}" in p and "overlaps" in p for p in verdict.problems), verdict.problems

    # the second operation of a job moved before its first one ends
    job = instance["sets"]["jobs"][0]
    o1, o2 = instance["sets"]["operations"][job][:2]
    start_o1 = next(i["start"] for i in schedule if (i["job"], i["operation"]) == (job, o1))
    start_o2 = next(i["start"] for i in schedule if (i["job"], i["operation"]) == (job, o2))
    early = _shifted(solution, job, o2, start_o1 - start_o2)
    verdict = check(instance, early)
    assert not verdict.feasible and any(f"job {job}: {o2} starts at" in p for p in verdict.problems)

    # a misread duration shows as a finish that is not start + duration, a missing operation is named
    misread = copy.deepcopy(solution)
    misread["schedule"][0]["finish"] += 1
    assert any("is not start" in p for p in check(instance, misread).problems)
    missing = {"schedule": schedule[1:]}
    gone = schedule[0]
    assert (
        f"operation {gone['job']}-{gone['operation']} has no start time" in check(instance, missing).problems
    )
    wrong_machine = copy.deepcopy(solution)
    wrong_machine["schedule"][0]["machine"] = "M99"
    assert not check(instance, wrong_machine).feasible
    lying = {**solution, "objective_value": solution["objective_value"] - 1}
    assert any("reported objective_value" in p for p in check(instance, lying).problems)
    assert not check(instance, {}).feasible


def test_job_shop_semi_active_reference_is_tight():
    """The stored schedule is semi-active: no operation could start earlier given the machine orders."""
    instance, solution = _instance("job_shop_scheduling", "medium", 3)
    starts = {(i["job"], i["operation"]): i["start"] for i in solution["schedule"]}
    finish = {(i["job"], i["operation"]): i["finish"] for i in solution["schedule"]}
    for job, ops in instance["sets"]["operations"].items():
        for k, op in enumerate(ops):
            ready = [finish[job, ops[k - 1]]] if k else [0]
            machine = instance["machine_assignment"][job][op]
            order = [tuple(x.split("-")) for x in solution["machine_orders"][machine]]
            position = order.index((job, op))
            if position:
                ready.append(finish[order[position - 1]])
            assert starts[job, op] == max(ready)


def test_job_shop_hard_regime_has_bottlenecks_and_active_conflicts():
    for index in range(1, 11):
        instance, solution = _instance("job_shop_scheduling", "hard", index)
        meta = instance["meta_parameters"]
        assert meta["bottleneck_machine_flag"] and 1 <= len(meta["bottleneck_machines"]) <= 2
        for route in instance["job_routes"].values():
            assert set(meta["bottleneck_machines"]) <= set(route)
        longest = max(sum(times.values()) for times in instance["processing_time"].values())
        assert solution["objective_value"] > longest


# ------------------------------------------------------------------------------------------------
# parallel machines: validator and regimes


def _pms_check():
    return generator_of("parallel_machine_scheduling").check_solution


def test_parallel_machine_validator_accepts_the_reference_and_an_assignment_alone():
    instance, solution = _instance("parallel_machine_scheduling", "hard", 1)
    check = _pms_check()
    verdict = check(instance, solution)
    assert verdict.feasible, verdict.problems
    assert verdict.objective == solution["objective_value"]
    # the assignment fixes the best makespan (earliest release first on each machine)
    alone = check(instance, {"assignment": solution["assignment"], "objective_value": solution["makespan"]})
    assert alone.feasible and alone.objective == solution["makespan"]
    as_starts = {item["job"]: item["start"] for item in solution["schedule"]}
    assert check(instance, {"assignment": solution["assignment"], "start_times": as_starts}).feasible


def test_parallel_machine_validator_rejects_eligibility_release_overlap_and_setup_misreads():
    instance, solution = _instance("parallel_machine_scheduling", "hard", 1)
    check = _pms_check()
    job = next(
        j
        for j in instance["sets"]["jobs"]
        if len(instance["eligibility"][j]) < len(instance["sets"]["machines"])
    )
    banned = next(m for m in instance["sets"]["machines"] if m not in instance["eligibility"][job])
    ineligible = copy.deepcopy(solution)
    ineligible["assignment"][job] = banned
    assert any(f"not eligible for machine {banned}" in p for p in check(instance, ineligible).problems)

    # hard has no release times since generator 2.0.0 (as in the release): each job gets its
    # reference start as its release, which the reference meets and one unit earlier violates
    timed = {**instance, "release_time": {item["job"]: item["start"] for item in solution["schedule"]}}
    assert check(timed, solution).feasible
    released = next(i for i in solution["schedule"] if timed["release_time"][i["job"]] >= 1)
    early = copy.deepcopy(solution)
    for item in early["schedule"]:
        if item["job"] == released["job"]:
            item["start"] = timed["release_time"][item["job"]] - 1
            item["finish"] = item["start"] + item["duration"]
    assert any("before its release" in p for p in check(timed, early).problems)

    # two consecutive jobs on one machine: the second one starting a unit early overlaps the first
    ordered = sorted(solution["schedule"], key=lambda i: (i["machine"], i["start"]))
    first, second = next(
        (a, b)
        for a, b in itertools.pairwise(ordered)
        if a["machine"] == b["machine"] and b["start"] == a["finish"]
    )
    overlap = copy.deepcopy(solution)
    for item in overlap["schedule"]:
        if item["job"] == second["job"]:
            item["start"] -= 1
            item["finish"] -= 1
    assert any(
        f"machine {first['machine']}" in p and "overlaps" in p for p in check(instance, overlap).problems
    )

    no_setup = copy.deepcopy(solution)  # a model that forgot the setup times ends every job early
    for item in no_setup["schedule"]:
        item["finish"] -= instance["setup_time"][item["job"]]
    assert any("start + setup + processing" in p for p in check(instance, no_setup).problems)
    lying = {**solution, "objective_value": solution["objective_value"] - 1}
    assert not check(instance, lying).feasible
    missing = {"assignment": {j: m for j, m in solution["assignment"].items() if j != job}}
    assert not check(instance, missing).feasible


def test_parallel_machine_regimes():
    """Easy: identical machines; medium: uniform machines, eligibility and setups; hard: unrelated
    machines, eligibility and setups at the release's scale (42-54 jobs on 6-8 machines), without
    release times as in the release; every machine used by the optimum."""
    for index in range(1, 11):
        easy, _ = _instance("parallel_machine_scheduling", "easy", index)
        medium, _ = _instance("parallel_machine_scheduling", "medium", index)
        hard, solution = _instance("parallel_machine_scheduling", "hard", index)
        assert easy["meta_parameters"]["machine_type"] == "identical" and "release_time" not in easy
        assert medium["meta_parameters"]["machine_type"] == "uniform" and "setup_time" in medium
        assert 18 <= len(medium["sets"]["jobs"]) <= 24 and 4 <= len(medium["sets"]["machines"]) <= 5
        assert hard["meta_parameters"]["machine_type"] == "unrelated"
        assert (
            hard["meta_parameters"]["restricted_eligibility_flag"]
            and "release_time" not in hard
            and "setup_time" in hard
        )
        assert 42 <= len(hard["sets"]["jobs"]) <= 54 and 6 <= len(hard["sets"]["machines"]) <= 8
        assert len(set(solution["assignment"].values())) == len(hard["sets"]["machines"])


# ------------------------------------------------------------------------------------------------
# RCPSP: validator, regimes and the two-panel visual


def test_rcpsp_validator_accepts_the_reference_and_rejects_precedence_and_resource_faults():
    instance, solution = _instance("rcpsp", "hard", 1)
    check = generator_of("rcpsp").check_solution
    verdict = check(instance, solution)
    assert verdict.feasible, verdict.problems
    assert verdict.objective == solution["objective_value"]
    as_records = [{"activity": a, "start": t} for a, t in solution["activity_start_times"].items()]
    assert check(instance, {"schedule": as_records}).objective == solution["makespan"]

    starts = solution["activity_start_times"]
    u, v = next(
        (u, v) for u, v in instance["precedence_arcs"] if u in starts and v in starts and u != "Start"
    )
    early = {**starts, v: starts[u]}
    assert any(
        f"before its predecessor {u}" in p for p in check(instance, {"activity_start_times": early}).problems
    )
    everything_at_once = dict.fromkeys(instance["sets"]["real_activities"], 0)
    crowded = check(instance, {"activity_start_times": everything_at_once})
    assert any(p.startswith("resource ") and "capacity" in p for p in crowded.problems)
    missing = {a: t for a, t in starts.items() if a != instance["sets"]["real_activities"][0]}
    assert not check(instance, {"activity_start_times": missing}).feasible
    lying = {**solution, "objective_value": solution["objective_value"] - 1}
    assert any("reported objective_value" in p for p in check(instance, lying).problems)


def test_rcpsp_resources_bind_and_hard_has_a_binding_bottleneck():
    for difficulty in DIFFICULTIES:
        for index in range(1, 11):
            instance, solution = _instance("rcpsp", difficulty, index)
            assert solution["objective_value"] > critical_path(instance)
            if difficulty == "hard":
                assert instance["sets"]["resources"][0] in solution["binding_resources"]


def test_a_missing_rcpsp_panel_is_named(tmp_path):
    rel = f"{FAMILY}/rcpsp/medium/rcpsp_m_001"
    copy_shipped(tmp_path, [rel])
    package = tmp_path / rel
    drop_last_visual(package)
    checks = failures_by_check(validate(tmp_path, processes=1), rel)
    assert any("renders 2 visual(s), the package ships 1" in m for m in checks["visual_png"]), checks


# ------------------------------------------------------------------------------------------------
# official release packages (tests/data/official_mmopt): our validator and solvers on their schema


def _official(subcategory: str) -> list[Path]:
    return sorted(p.parent for p in (OFFICIAL / FAMILY / subcategory).glob("*/*/ground_truth"))


#: Release packages whose cross-check declines within its node budget (it names the budget; it
#: never gives another value): the reference model alone certifies them in ``validate``.
CROSS_CHECK_DECLINES = {"jss_m_001": "node budget"}


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_official_packages_pass_our_validator_and_solvers(name):
    packages = _official(name)
    assert packages, f"no official {name} package under tests/data/official_mmopt"
    generator = generator_of(name)
    for package in packages:
        instance, solution = instance_and_reference(package)
        optimum = reference_value(solution)
        verdict = generator.check_solution(instance, solution)
        assert verdict.feasible, verdict.problems
        assert verdict.objective == pytest.approx(optimum, abs=1e-6)
        if instance.get("meta_parameters", {}).get("objective_type", "makespan") != "makespan":
            continue  # our generators build and solve makespan instances only; the validator reads all
        assert generator.reference_solve(instance).objective == pytest.approx(optimum)
        if package.name in CROSS_CHECK_DECLINES:
            with pytest.raises(Rejected, match=CROSS_CHECK_DECLINES[package.name]):
                generator.cross_check(instance)
        else:
            assert generator.cross_check(instance)[1] == pytest.approx(optimum)
        assert generator.render(instance)  # the renderer reads the official record as it is


# ------------------------------------------------------------------------------------------------
# damaged copies: the validation stack names the package and the check


def _render_from(name: str, package: Path, instance: dict[str, Any]) -> None:
    visual = generator_of(name).render(instance)[0]
    rewrite_checksummed(package, "visuals/visual_0.png", visual.png)


def test_damaged_job_shop_packages_are_named_with_their_check(tmp_path):
    base = f"{FAMILY}/job_shop_scheduling/easy"
    names = {
        kind: f"{base}/jss_e_00{k}"
        for k, kind in enumerate(("intact", "duration", "objective", "extra", "missing"), 1)
    }
    copy_shipped(tmp_path, names.values())

    package = tmp_path / names["duration"]
    instance = read_json(package, "ground_truth/instance_data.json")
    job, op = instance["operation_records"][0]["job"], instance["operation_records"][0]["operation"]
    instance["processing_time"][job][op] += 1
    instance["operation_records"][0]["duration"] += 1
    rewrite_json(package, "ground_truth/instance_data.json", instance)

    package = tmp_path / names["objective"]
    misreport_objective(package)

    package = tmp_path / names["extra"]  # a picture with one operation more than the record
    instance = read_json(package, "ground_truth/instance_data.json")
    job = instance["sets"]["jobs"][0]
    extra = f"O{len(instance['sets']['operations'][job]) + 1}"
    instance["sets"]["operations"][job].append(extra)
    instance["machine_assignment"][job][extra] = instance["sets"]["machines"][0]
    instance["processing_time"][job][extra] = 3
    _render_from("job_shop_scheduling", package, instance)

    package = tmp_path / names["missing"]  # a picture with one operation fewer
    instance = read_json(package, "ground_truth/instance_data.json")
    job = instance["sets"]["jobs"][-1]
    instance["sets"]["operations"][job].pop()
    _render_from("job_shop_scheduling", package, instance)

    report = validate(tmp_path, processes=2)
    assert failures_by_check(report, names["intact"]) == {}
    duration = failures_by_check(report, names["duration"])
    assert "visual_png" in duration and "regeneration" in duration and "artifacts" not in duration
    objective = failures_by_check(report, names["objective"])
    assert {"reference_solve", "cross_check", "validator"} <= set(objective)
    for kind in ("extra", "missing"):
        checks = failures_by_check(report, names[kind])
        assert "visual_png" in checks and "artifacts" not in checks, checks


# ------------------------------------------------------------------------------------------------
# planted causes: a misread value, a dropped constraint and a heuristic answer per subcategory,
# run as a user runs the benchmark (subprocess pytest, the real sandbox), two-stage setting

PLANTED_MIX: tuple[tuple[str, str, str], ...] = (
    *(
        (name, f"{PREFIXES[name]}_{instance}", cause)
        for name in ("job_shop_scheduling", "parallel_machine_scheduling")
        for instance, cause in (
            ("e_002", "misread_value"),
            ("m_001", "drop_constraint"),
            ("h_003", "heuristic"),
        )
    ),
    # rcpsp: the serial schedule is optimal on h_003, so its heuristic is planted in h_004
    ("rcpsp", "rcpsp_e_002", "misread_value"),
    ("rcpsp", "rcpsp_m_001", "drop_constraint"),
    ("rcpsp", "rcpsp_h_004", "heuristic"),
)


@pytest.mark.slow
def test_planted_causes_are_recovered_with_their_category(tmp_path):
    assert_planted_causes_recovered(
        tmp_path, [(i, cause) for _, i, cause in PLANTED_MIX], lambda ref: ref.path[0] == FAMILY
    )
