"""The MM-OptBench generation pipeline and the shipped fixtures it produced.

Real solvers throughout: OR-Tools for references, networkx / HiGHS for cross-checks, the shipped
``solver_ref.py`` files run as scripts (``__main__``, what they print read back) in the sandbox's
solver environment, each in a fresh process that sees nothing of its package.

Every shipped package is checked exhaustively once per CI run, by ``make bench``: the oracle run
replays every ``solver_ref.py`` in the sandbox and ``python -m benchmark validate`` runs the cheap
part of the validation stack on every package. The tests here check a deterministic sample of every
subcategory the manifest holds (new subcategories join it without an edit): the first package of
each difficulty against the tests' own assertions and as a standalone script, and one package per
subcategory through the whole stack, regeneration and re-rendering included.
"""

from __future__ import annotations

import hashlib
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from benchmark.sandbox import Limits, Outcome, Sandbox, create_sandbox
from benchmark.suites.mmopt.generation import (
    DATASET_NAME,
    InstanceGenerator,
    build_instance,
    check_regeneration,
    compare_regeneration,
    generate_dataset,
)
from benchmark.suites.mmopt.generation.dataset import GENERATION_REPORT
from benchmark.suites.mmopt.generation.package import package_files
from benchmark.suites.mmopt.generation.pipeline import text_value_problems
from benchmark.suites.mmopt.generation.protocol import (
    ACCEPTED_STATUSES,
    DrawnLabel,
    ExpectedLabel,
    ReferenceSolution,
    RenderedVisual,
)
from benchmark.suites.mmopt.generation.rendering import label_problems
from benchmark.suites.mmopt.generation.seeds import instance_seed
from benchmark.suites.mmopt.generation.validate import validate
from benchmark.suites.mmopt.scoring import tolerance_for
from benchmark.suites.mmopt.subcategories import all_subcategories, get_subcategory
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from tests.conftest import fail_missing_fixture

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt"
SUBCATEGORIES = ("maximum_flow", "minimum_cost_flow")  # the core's two, used to exercise the pipeline
PER_DIFFICULTY = 10  # packages the fixtures hold per subcategory and difficulty
PACKAGE_FILES = (
    "task_input.txt",
    "canonical_specification.txt",
    "meta.json",
    "ground_truth/instance_data.json",
    "ground_truth/math_model.md",
    "ground_truth/solver_ref.py",
    "ground_truth/solution_ref.json",
)


def _generator(name: str) -> InstanceGenerator:
    subcategory = get_subcategory(name)
    assert isinstance(subcategory, InstanceGenerator)
    return subcategory


def _manifest() -> dict[str, Any]:
    path = ROOT / "manifest.json"
    if not path.is_file():
        fail_missing_fixture(path)
    return json.loads(path.read_text())


def _generator_names() -> list[str]:
    """Every registered subcategory that can generate packages (the fixtures must hold them all)."""
    return sorted(name for name, sub in all_subcategories().items() if isinstance(sub, InstanceGenerator))


def _packages() -> list[dict[str, Any]]:
    path = ROOT / "manifest.json"
    return json.loads(path.read_text())["packages"] if path.is_file() else []


def _first_of_each_difficulty() -> list[dict[str, Any]]:
    """The sample the per-package tests check: each (subcategory, difficulty)'s first package."""
    first: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in _packages():  # sorted by path
        first.setdefault((entry["subcategory"], entry["difficulty"]), entry)
    return list(first.values())


def _one_per_subcategory() -> set[str]:
    """One package path per subcategory, its difficulty rotating with the subcategory's rank, so the
    whole-stack sample covers every difficulty."""
    names = sorted({entry["subcategory"] for entry in _packages()})
    chosen = {
        (entry["subcategory"], entry["difficulty"]): entry["path"] for entry in _first_of_each_difficulty()
    }
    return {chosen[(name, DIFFICULTIES[rank % len(DIFFICULTIES)])] for rank, name in enumerate(names)}


# ------------------------------------------------------------------------------------------------
# registry and pipeline


def test_registry_discovers_both_subcategories():
    registry = all_subcategories()
    assert set(SUBCATEGORIES) <= set(registry)
    assert get_subcategory("no_such_subcategory") is None
    for name in SUBCATEGORIES:
        generator = _generator(name)
        assert generator.family == "network_optimization"
        assert generator.name == name
    assert _generator("maximum_flow").id_prefix == "mf"
    assert _generator("minimum_cost_flow").id_prefix == "mcf"


def test_seeds_are_stable_and_distinct():
    names = _generator_names()
    seeds = {
        instance_seed(s, d, i) for s in names for d in DIFFICULTIES for i in range(1, PER_DIFFICULTY + 1)
    }
    assert len(seeds) == len(names) * len(DIFFICULTIES) * PER_DIFFICULTY
    assert instance_seed("maximum_flow", "easy", 1) == instance_seed("maximum_flow", "easy", 1)


@pytest.mark.parametrize("name", SUBCATEGORIES)
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_same_seed_same_bytes(name, difficulty):
    generator = _generator(name)
    seed = instance_seed(name, difficulty, 7)
    first = package_files(build_instance(generator, difficulty, "x_001", seed), "test")
    second = package_files(build_instance(generator, difficulty, "x_001", seed), "test")
    assert first.keys() == second.keys()
    for rel in first:
        assert first[rel] == second[rel], rel
    other = package_files(build_instance(generator, difficulty, "x_001", seed + 1), "test")
    assert other["ground_truth/instance_data.json"] != first["ground_truth/instance_data.json"]


def test_generate_dataset_and_regeneration_roundtrip(tmp_path):
    report = generate_dataset(tmp_path, subcategories=list(SUBCATEGORIES), per_difficulty=1)
    assert report.packages == 6
    for name in SUBCATEGORIES:
        assert report.subcategories[name].accepted == 3
        assert report.subcategories[name].attempts >= 3
    generation = json.loads((tmp_path / GENERATION_REPORT).read_text())["subcategories"]
    assert sorted(generation) == sorted(SUBCATEGORIES)
    for name in SUBCATEGORIES:
        tallies = generation[name]["difficulties"]
        assert {d: t["accepted"] for d, t in tallies.items()} == dict.fromkeys(DIFFICULTIES, 1)
        for difficulty, tally in tallies.items():
            assert tally["candidates"] == 1 + sum(tally["rejections"].values())
            assert tally["rejections"] == dict(
                report.subcategories[name].by_difficulty[difficulty].rejections
            )
        assert generation[name]["generator_version"] == _generator(name).version
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["dataset"] == DATASET_NAME
    assert [p["path"] for p in manifest["packages"]] == sorted(p["path"] for p in manifest["packages"])
    assert check_regeneration(tmp_path) == []

    package = tmp_path / manifest["packages"][0]["path"]
    (package / "ground_truth" / "solution_ref.json").write_text("{}\n")
    (package / "visuals" / "visual_0.png").write_bytes(b"not a png")
    diff = compare_regeneration(tmp_path)
    assert len(diff.text) == 1 and "ground_truth/solution_ref.json differs" in diff.text[0]
    assert len(diff.png) == 1 and "visuals/visual_0.png differs" in diff.png[0]
    flat = check_regeneration(tmp_path)
    assert flat[0] == diff.text[0] and flat[1] == "png: " + diff.png[0]


def test_generating_one_subcategory_keeps_the_other(tmp_path):
    generate_dataset(tmp_path, subcategories=["maximum_flow"], per_difficulty=1)
    generate_dataset(tmp_path, subcategories=["minimum_cost_flow"], per_difficulty=1)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert {p["subcategory"] for p in manifest["packages"]} == set(SUBCATEGORIES)
    generation = json.loads((tmp_path / GENERATION_REPORT).read_text())["subcategories"]
    assert sorted(generation) == sorted(SUBCATEGORIES)  # merged, not overwritten
    with pytest.raises(ValueError, match="unknown subcategory"):
        generate_dataset(tmp_path, subcategories=["no_such_subcategory"], per_difficulty=1)


def test_label_audit_catches_missing_wrong_overlapping_and_small_labels():
    visual = RenderedVisual(
        png=b"",
        labels=(
            DrawnLabel("arc:1_2", "14", (10, 10, 30, 25), 11),
            DrawnLabel("arc:2_3", "7", (25, 12, 40, 27), 11),
            DrawnLabel("node:1", "1", (100, 100, 110, 115), 8),
            DrawnLabel("note:title", "Capacity 5", (0, 0, 50, 8), 12),
        ),
        width_px=120,
        height_px=120,
    )
    expected = [
        ExpectedLabel("arc:1_2", "14"),
        ExpectedLabel("arc:2_3", "9"),
        ExpectedLabel("node:1", "1"),
        ExpectedLabel("arc:3_4", "2"),
    ]
    problems = label_problems(visual, expected)
    assert "arc:2_3 drawn as '7', record says '9'" in problems
    assert "arc:3_4 not drawn" in problems
    assert "labels arc:1_2 and arc:2_3 overlap" in problems
    assert "node:1 font 8 pt below 9 pt" in problems
    assert "note:title drawn but not part of the public record" in problems


def test_task_text_may_not_state_visual_values():
    assert text_value_problems("Read visual_0.png; capacities are in the figure.", {0, 12}, 40) == []
    assert text_value_problems("The arc has capacity 12.", {12}, 40) == [
        "artifact: task text states a value the visual carries"
    ]
    assert text_value_problems("The answer is 40.", {12}, 40) == ["artifact: task text leaks the optimum"]


# ------------------------------------------------------------------------------------------------
# shipped fixtures


def test_manifest_lists_every_generator_subcategory_at_every_difficulty():
    manifest = _manifest()
    packages = manifest["packages"]
    assert manifest["dataset"] == DATASET_NAME and manifest["version"]
    assert [p["path"] for p in packages] == sorted(p["path"] for p in packages)
    counts: dict[tuple[str, str], int] = {}
    for entry in packages:
        family, subcategory, difficulty, instance_id = entry["path"].split("/")
        assert (family, subcategory, difficulty, instance_id) == (
            entry["family"],
            entry["subcategory"],
            entry["difficulty"],
            entry["instance_id"],
        )
        generator = _generator(subcategory)
        assert generator.family == family
        # the official release spells facility location's hard ids with two underscores
        separator = "__" if (subcategory, difficulty) == ("facility_location", "hard") else "_"
        assert re.fullmatch(rf"{generator.id_prefix}_{difficulty[0]}{separator}0(0[1-9]|10)", instance_id)
        counts[(subcategory, difficulty)] = counts.get((subcategory, difficulty), 0) + 1
    expected = {(s, d): PER_DIFFICULTY for s in _generator_names() for d in DIFFICULTIES}
    assert counts == expected
    assert len(packages) == len(_generator_names()) * len(DIFFICULTIES) * PER_DIFFICULTY


def test_the_samples_cover_every_subcategory_and_difficulty():
    subcategories = {entry["subcategory"] for entry in _manifest()["packages"]}
    sample = _first_of_each_difficulty()
    assert {(e["subcategory"], e["difficulty"]) for e in sample} == {
        (s, d) for s in subcategories for d in DIFFICULTIES
    }
    assert all(e["instance_id"].endswith("_001") for e in sample)
    whole_stack = _one_per_subcategory()
    assert {path.split("/")[1] for path in whole_stack} == subcategories
    assert {path.split("/")[2] for path in whole_stack} == set(DIFFICULTIES)


@pytest.mark.parametrize("entry", _first_of_each_difficulty(), ids=lambda e: e["instance_id"])
def test_fixture_package_is_complete_and_verified(entry):
    package = ROOT / entry["path"]
    meta = json.loads((package / "meta.json").read_text())
    visuals = [visual["file"] for visual in meta["visuals"]]
    assert visuals and visuals == [f"visuals/visual_{i}.png" for i in range(len(visuals))]
    for rel in (*PACKAGE_FILES, *visuals):
        assert (package / rel).is_file(), rel
    assert set(meta["checksums"]) == (set(PACKAGE_FILES) | set(visuals)) - {"meta.json"}
    for rel, digest in meta["checksums"].items():
        assert hashlib.sha256((package / rel).read_bytes()).hexdigest() == digest, rel
    assert meta["instance_id"] == entry["instance_id"]
    assert meta["seed"] == instance_seed(
        entry["subcategory"], entry["difficulty"], int(entry["instance_id"][-3:])
    )

    generator = _generator(entry["subcategory"])
    tolerance = tolerance_for(entry["subcategory"])
    instance = json.loads((package / "ground_truth/instance_data.json").read_text())
    solution = json.loads((package / "ground_truth/solution_ref.json").read_text())
    reference = ReferenceSolution(solution=solution, method="shipped")
    assert solution["status"] in ACCEPTED_STATUSES
    if "objective_exact" in solution:
        assert solution["objective_value"] == solution["objective_exact"]
    _, independent = generator.cross_check(instance)
    assert independent == pytest.approx(reference.objective, abs=tolerance)  # 1.0/0.0 for a decision
    if solution["status"] != "infeasible":  # a proven "no solution" has no decisions to check
        check = generator.check_solution(instance, solution)
        assert check.feasible, check.problems
        if not reference.is_feasibility_type:
            assert check.objective == pytest.approx(solution["objective_value"], abs=tolerance)
    assert meta["formulation_size"]["variables"] > 0 and meta["formulation_size"]["constraints"] > 0

    task = (package / "task_input.txt").read_text()
    assert text_value_problems(task, generator.visual_values(instance), reference.objective) == []
    assert ('"status"' if reference.is_feasibility_type else "objective_value") in task
    if entry["subcategory"] in SUBCATEGORIES:  # the flow families' size and decision conventions
        assert meta["formulation_size"]["arcs"] == len(instance["arcs"])
        assert meta["formulation_size"]["nodes"] == len(instance["nodes"])
        assert "u_v" in task


def _run_solver_ref(package: Path, sandbox: Sandbox) -> dict[str, Any]:
    source = (package / "ground_truth" / "solver_ref.py").read_text()
    run = sandbox.run_script(source, Limits(wall_timeout_s=60.0))
    assert run.outcome is Outcome.OK, f"{package.name}: {run.error}"
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_shipped_solver_refs_reproduce_the_optimum():
    """Each sampled solver_ref.py runs on its own (a fresh process in the sandbox, which shows none
    of the package, so nothing can be read from disk) and prints a dict whose objective equals
    solution_ref's and whose decisions are feasible. The warm pool forks each run from an
    interpreter that has imported the solver stack once, instead of importing it per script."""
    _manifest()
    packages = [ROOT / entry["path"] for entry in _first_of_each_difficulty()]
    with create_sandbox([ROOT]) as sandbox, ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda p: _run_solver_ref(p, sandbox), packages))
    for package, result in zip(packages, results, strict=True):
        solution = json.loads((package / "ground_truth/solution_ref.json").read_text())
        instance = json.loads((package / "ground_truth/instance_data.json").read_text())
        assert result["status"] == solution["status"], package.name
        tolerance = tolerance_for(package.parts[-3])
        if solution["status"] == "optimal":
            assert result["objective_value"] == pytest.approx(solution["objective_value"], abs=tolerance), (
                package.name
            )
        generator = _generator(package.parts[-3])
        if solution["status"] != "infeasible":
            assert generator.check_solution(instance, result).feasible, package.name
        source = (package / "ground_truth/solver_ref.py").read_text()
        assert "open(" not in source and "instance_data" not in source


def test_one_package_per_subcategory_passes_the_whole_validation_stack():
    """Regeneration from the seed and the re-rendered visuals, which CI's exhaustive run leaves out."""
    _manifest()
    chosen = _one_per_subcategory()
    report = validate(ROOT, processes=2, select=lambda ref: "/".join(ref.path) in chosen)
    assert report.failures == []
    assert sorted(p.package for p in report.packages) == sorted(chosen)
    assert all(p.skipped == () and p.reference_seconds is not None for p in report.packages)


def test_ci_validates_every_package_and_fails_on_a_failure():
    """``.ci/run`` stops at the first failing target, and ``make bench`` validates the whole root
    (exit 1 on any failure, tested in test_mmopt_validate.py)."""
    repo = ROOT.parents[1]
    ci = (repo / ".ci" / "run").read_text()
    assert "set -euo pipefail" in ci and "\nmake bench\n" in ci
    makefile = (repo / "Makefile").read_text()
    bench = makefile.split("\nbench:", 1)[1].split("\n\n", 1)[0]
    validate_lines = [line for line in bench.splitlines() if "-m benchmark validate" in line]
    assert len(validate_lines) == 1  # on the default root, fixtures/mmopt
