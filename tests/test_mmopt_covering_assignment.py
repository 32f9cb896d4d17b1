"""Set covering/partitioning, bipartite assignment and generalized assignment: generators,
validators, table visuals and the shipped packages.

Real solvers throughout (CP-SAT, SciPy's assignment solver, HiGHS); every shipped
``solver_ref.py`` runs as a subprocess in
``tests/test_mmopt_generation.py::test_shipped_solver_refs_reproduce_the_optimum`` (all subcategories).
"""

from __future__ import annotations

import copy
import hashlib
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from benchmark.suites.mmopt.generation import InstanceGenerator, build_instance
from benchmark.suites.mmopt.generation.package import package_files
from benchmark.suites.mmopt.generation.pipeline import text_value_problems
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution
from benchmark.suites.mmopt.generation.rendering import label_problems
from benchmark.suites.mmopt.generation.seeds import instance_seed
from benchmark.suites.mmopt.generation.tables import Table, TableCell, render_tables
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from benchmark.suites.mmopt.subcategories.bipartite_assignment import generator as ba_generator
from benchmark.suites.mmopt.subcategories.generalized_assignment_problem import generator as gap_generator
from benchmark.suites.mmopt.subcategories.set_covering_partitioning import generator as scp_generator
from tests.conftest import fail_missing_fixture

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt"
FAMILY = "location_covering_assignment"
PREFIXES = {
    "set_covering_partitioning": "scp",
    "bipartite_assignment": "ba",
    "generalized_assignment_problem": "gap",
}
SUBCATEGORIES = tuple(PREFIXES)


def _generator(name: str) -> InstanceGenerator:
    subcategory = get_subcategory(name)
    assert isinstance(subcategory, InstanceGenerator)
    return subcategory


def _packages(name: str | None = None) -> list[Path]:
    manifest = ROOT / "manifest.json"
    if not manifest.is_file():
        return []
    entries = json.loads(manifest.read_text())["packages"]
    wanted = [name] if name else SUBCATEGORIES
    return [ROOT / e["path"] for e in entries if e["family"] == FAMILY and e["subcategory"] in wanted]


def _load(package: Path, rel: str) -> Any:
    return json.loads((package / rel).read_text())


def _instance(name: str, difficulty: str, index: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    package = ROOT / FAMILY / name / difficulty / f"{PREFIXES[name]}_{difficulty[0]}_{index:03d}"
    if not package.is_dir():
        fail_missing_fixture(package)
    return _load(package, "ground_truth/instance_data.json"), _load(package, "ground_truth/solution_ref.json")


# ------------------------------------------------------------------------------------------------
# registry and determinism


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_registered_in_the_family_with_the_official_prefix(name):
    generator = _generator(name)
    assert (generator.family, generator.name, generator.id_prefix) == (FAMILY, name, PREFIXES[name])


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_same_seed_same_bytes(name):
    generator = _generator(name)
    seed = instance_seed(name, "hard", 4)
    first = package_files(build_instance(generator, "hard", "x_001", seed), "test")
    second = package_files(build_instance(generator, "hard", "x_001", seed), "test")
    assert first.keys() == second.keys()
    for rel in first:
        assert first[rel] == second[rel], rel
    other = package_files(build_instance(generator, "hard", "x_001", seed + 1), "test")
    assert other["ground_truth/instance_data.json"] != first["ground_truth/instance_data.json"]


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_shipped_package_regenerates_from_its_seed(name):
    """The medium package 002 rebuilt from the seed in its meta.json: every text and JSON file
    identical (PNG bytes may legitimately drift with the matplotlib version)."""
    package = ROOT / FAMILY / name / "medium" / f"{PREFIXES[name]}_m_002"
    if not package.is_dir():
        fail_missing_fixture(package)
    meta = _load(package, "meta.json")
    built = build_instance(_generator(name), "medium", meta["instance_id"], meta["seed"])
    files = package_files(built, meta["dataset_version"])
    for rel, data in files.items():
        if rel.endswith(".png") or rel == "meta.json":
            continue
        assert (package / rel).read_bytes() == data, rel
    regenerated_meta = json.loads(files["meta.json"])
    regenerated_meta.pop("checksums")
    meta.pop("checksums")
    assert regenerated_meta == meta


# ------------------------------------------------------------------------------------------------
# validators: accept the reference, catch planted faults


def test_set_covering_validator():
    instance, solution = _instance("set_covering_partitioning", "hard", 1)
    check = _generator("set_covering_partitioning").check_solution
    verdict = check(instance, solution)
    assert verdict.feasible and verdict.objective == solution["objective_value"]
    chosen = solution["selected_subsets"]
    costs = instance["subset_costs"]
    dropped = check(instance, {"selected_subsets": chosen[1:]})
    assert not dropped.feasible and any("is covered 0 times" in p for p in dropped.problems)
    assert dropped.objective == solution["objective_value"] - costs[chosen[0]]
    unknown = check(instance, {"selected_subsets": [*chosen, "S999"]})
    assert not unknown.feasible and "unknown subset S999" in unknown.problems
    lying = check(instance, {"selected_subsets": chosen, "objective_value": solution["objective_value"] - 1})
    assert not lying.feasible and any("reported objective" in p for p in lying.problems)
    assert not check(instance, {}).feasible

    extra = next(name for name in instance["sets"]["S"] if name not in chosen)
    with_extra = check(instance, {"selected_subsets": [*chosen, extra]})
    assert with_extra.objective == solution["objective_value"] + costs[extra]
    if instance["variant_type"] == "set_partitioning":
        assert not with_extra.feasible and any("not exactly once" in p for p in with_extra.problems)
    else:
        assert with_extra.feasible


def test_set_partitioning_rejects_double_cover_that_covering_accepts():
    instance, _ = _instance("set_covering_partitioning", "hard", 1)
    check = _generator("set_covering_partitioning").check_solution
    everything = list(instance["sets"]["S"])
    covering = {**instance, "variant_type": "set_covering"}
    partitioning = {**instance, "variant_type": "set_partitioning"}
    assert check(covering, {"selected_subsets": everything}).feasible
    assert not check(partitioning, {"selected_subsets": everything}).feasible


def test_bipartite_assignment_validator():
    """Strict verdicts on mutants of real shipped references: a worker left out, a task given twice,
    a forbidden pair, a misreported objective; a balanced (easy) instance needs every worker and
    every task, a matching only its required side: every worker when tasks are spare (ba_m_001),
    every task when workers are spare (ba_h_001)."""
    check = _generator("bipartite_assignment").check_solution
    for difficulty in ("easy", "medium", "hard"):
        instance, solution = _instance("bipartite_assignment", difficulty, 1)
        verdict = check(instance, solution)
        assert verdict.feasible and verdict.objective == solution["objective_value"]
        assignment = solution["assignments"]
        workers, tasks = instance["sets"]["left"], instance["sets"]["right"]
        w1, w2 = [w for w in workers if w in assignment][:2]

        missing = check(instance, {"assignments": {w: t for w, t in assignment.items() if w != w1}})
        assert not missing.feasible
        if difficulty == "easy":  # equal sides: the task w1 held is now unassigned as well
            assert f"row {w1} is not assigned" in missing.problems
            assert f"columns ['{assignment[w1]}'] are not assigned" in missing.problems
        elif difficulty == "medium":  # required_side "left": spare tasks may stay unassigned
            assert instance["matching_requirement"] == {"required_side": "left"}
            assert len(tasks) > len(workers) and missing.problems == (f"row {w1} is not assigned",)
        else:  # required_side "right": spare workers may stay idle, every task needs one
            assert instance["matching_requirement"] == {"required_side": "right"}
            assert len(workers) > len(tasks) == len(assignment)  # idle workers, yet feasible
            assert missing.problems == (f"columns ['{assignment[w1]}'] are not assigned",)

        shared = {**assignment, w2: assignment[w1]}
        twice = check(instance, {"assignments": shared})
        assert not twice.feasible and f"column {assignment[w1]} is assigned more than once" in twice.problems

        off = solution["objective_value"] + 3  # objective_exact is read first, as officially
        lying = check(instance, {**solution, "objective_exact": off, "objective_value": off})
        assert not lying.feasible and any("reported objective" in p for p in lying.problems)

    instance, solution = _instance("bipartite_assignment", "hard", 1)
    assignment = solution["assignments"]
    worker, task = next(
        (w, t) for w in instance["sets"]["left"] for t in instance["sets"]["right"]
        if t not in instance["feasible_assignments"][w]
    )  # fmt: skip
    forbidden = check(instance, {"assignments": {**assignment, worker: task}})
    assert not forbidden.feasible and f"assignment {worker} -> {task} is not allowed" in forbidden.problems
    unknown = check(instance, {"assignments": {**assignment, worker: "T99"}})
    assert not unknown.feasible and any("unknown row or column" in p for p in unknown.problems)
    assert not check(instance, {}).feasible and not check(instance, {"assignments": [["W1", "T1"]]}).feasible


def test_generalized_assignment_validator():
    instance, solution = _instance("generalized_assignment_problem", "hard", 1)
    check = _generator("generalized_assignment_problem").check_solution
    verdict = check(instance, solution)
    assert verdict.feasible and verdict.objective == solution["objective_value"]
    assignment = solution["assignments"]
    tasks, agents = instance["sets"]["tasks"], instance["sets"]["agents"]
    everything_to_one = check(instance, {"assignments": dict.fromkeys(tasks, agents[0])})
    assert not everything_to_one.feasible and any("exceeds capacity" in p for p in everything_to_one.problems)
    first = tasks[0]
    missing = check(instance, {"assignments": {j: a for j, a in assignment.items() if j != first}})
    assert not missing.feasible and f"task {first} is not assigned" in missing.problems
    unknown = check(instance, {"assignments": {**assignment, first: "A42"}})
    assert not unknown.feasible and f"task {first} may not go to agent A42" in unknown.problems
    lying = check(instance, {"assignments": assignment, "objective_value": solution["objective_value"] - 1})
    assert not lying.feasible


# ------------------------------------------------------------------------------------------------
# nontriviality helpers on hand-made instances


def _scp(variant: str, subsets: list[tuple[int, list[str]]]) -> dict[str, Any]:
    elements = sorted({e for _, members in subsets for e in members})
    records = [{"id": f"S{i}", "cost": c, "elements": m} for i, (c, m) in enumerate(subsets, 1)]
    return scp_generator.official_instance(variant, elements, records)


def test_greedy_set_cover_is_fooled_by_a_cheap_large_subset():
    """Greedy takes the big subset (lowest cost per element) and then needs two more; the two
    halves alone are cheaper."""
    instance = _scp("covering", [(5, ["a", "b", "c", "d"]), (4, ["a", "b", "e"]), (4, ["c", "d", "f"]),
                                 (4, ["e"]), (4, ["f"])])  # fmt: skip
    reference = scp_generator.reference_solve(instance)
    assert reference.solution["objective_exact"] == 8
    assert scp_generator.greedy_cost(instance) == 13
    assert scp_generator.solution_problems(instance, reference, "hard") == []
    stuck = _scp("partitioning", [(2, ["a", "b", "c"]), (3, ["a", "d"]), (3, ["b", "c", "e"])])
    assert scp_generator.reference_solve(stuck).solution["selected_subsets"] == ["S2", "S3"]
    assert scp_generator.greedy_cost(stuck) is None


def test_greedy_assignment_and_cheapest_agent_checks():
    costs = {"W1": {"T1": 1, "T2": 2}, "W2": {"T1": 2, "T2": 9}}
    instance = {
        "variant_type": "assignment",
        "sets": {"left": ["W1", "W2"], "right": ["T1", "T2"]},
        "cost_matrix": costs,
        "feasible_assignments": {w: list(row) for w, row in costs.items()},
    }
    reference = ba_generator.reference_solve(instance)
    assert reference.solution["assignments"] == {"W1": "T2", "W2": "T1"}
    assert ba_generator.greedy_total(instance) == 10
    assert ba_generator.solution_problems(instance, reference, "easy") == []

    gap = {
        "sets": {"agents": ["A1", "A2"], "tasks": ["J1", "J2"]},
        "cost_matrix": {"A1": {"J1": 1, "J2": 1}, "A2": {"J1": 5, "J2": 5}},
        "resource_matrix": {"A1": {"J1": 3, "J2": 3}, "A2": {"J1": 3, "J2": 3}},
        "agent_capacities": {"A1": 4, "A2": 4},
    }
    assert gap_generator.overloaded_by_cheapest(gap) == ["A1"]
    loose = {**gap, "agent_capacities": {"A1": 6, "A2": 4}}
    assert gap_generator.overloaded_by_cheapest(loose) == []
    solved = gap_generator.reference_solve(loose)
    assert gap_generator.solution_problems(loose, solved, "easy")


# ------------------------------------------------------------------------------------------------
# table visuals


def test_table_refuses_digits_in_decorative_text():
    table = Table("Costs", "row", [TableCell("c1")], [TableCell("r", key="row:r")], [[TableCell("", None)]])
    with pytest.raises(ValueError, match="decorative"):
        render_tables([table])
    with pytest.raises(ValueError, match="note"):
        render_tables([Table("Costs", "row", [], [], [])], ["take 3"])


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_label_audit_catches_an_extra_and_a_changed_value(name):
    """Render from a tampered record and audit against the true record: the audit names the cell."""
    instance, _ = _instance(name, "medium", 1)
    generator = _generator(name)
    expected = generator.expected_labels(instance)
    clean = generator.render(instance)
    for index, visual in enumerate(clean):
        wanted = expected if len(clean) == 1 else [e for e in expected if e.key.startswith(f"v{index}/")]
        assert label_problems(visual, wanted) == []
    tampered = copy.deepcopy(instance)
    if name == "set_covering_partitioning":
        first = instance["sets"]["S"][0]
        subset = tampered["candidate_subsets"][first]
        members = subset["covered_elements"]
        members.append(next(e for e in instance["sets"]["E"] if e not in members))
        subset["cost"] += 1
    elif name == "bipartite_assignment":
        worker = instance["sets"]["left"][0]
        task = next(iter(tampered["cost_matrix"][worker]))
        tampered["cost_matrix"][worker][task] += 1
        forbidden_worker, forbidden_task = ba_generator.forbidden(instance)[0]
        tampered["cost_matrix"][forbidden_worker][forbidden_task] = 7  # a forbidden cell now shows a number
    else:
        tampered["agent_capacities"][instance["sets"]["agents"][0]] += 1
    problems = [p for visual in generator.render(tampered) for p in label_problems(visual, expected)]
    assert any("drawn as" in p for p in problems), problems
    if name == "set_covering_partitioning":
        assert any("drawn but not part of the public record" in p for p in problems)
    if name == "bipartite_assignment":
        assert any(f"pair:{forbidden_worker}/{forbidden_task} drawn as '7'" in p for p in problems)


# ------------------------------------------------------------------------------------------------
# shipped packages


def test_thirty_packages_per_subcategory():
    for name in SUBCATEGORIES:
        packages = _packages(name)
        if not packages:
            fail_missing_fixture(ROOT / FAMILY / name)
        counts = {d: sum(p.parts[-2] == d for p in packages) for d in DIFFICULTIES}
        assert counts == dict.fromkeys(DIFFICULTIES, 10), name


@pytest.mark.parametrize("package", _packages(), ids=lambda p: p.name)
def test_shipped_package_is_verified_and_nontrivial(package):
    meta = _load(package, "meta.json")
    for rel, digest in meta["checksums"].items():
        assert hashlib.sha256((package / rel).read_bytes()).hexdigest() == digest, rel
    assert len(meta["visuals"]) == len(list((package / "visuals").glob("visual_*.png")))
    name, difficulty = meta["subcategory"], meta["difficulty"]
    generator = _generator(name)
    instance = _load(package, "ground_truth/instance_data.json")
    solution = _load(package, "ground_truth/solution_ref.json")
    assert solution["status"] == "optimal" and solution["objective_value"] == solution["objective_exact"]
    _, independent = generator.cross_check(instance)
    assert independent == pytest.approx(solution["objective_value"], abs=1e-6)
    check = generator.check_solution(instance, solution)
    assert check.feasible, check.problems
    assert check.objective == solution["objective_value"]
    reference = ReferenceSolution(solution=solution, method="shipped")
    assert generator.solution_problems(instance, reference, difficulty) == []
    task = (package / "task_input.txt").read_text()
    assert text_value_problems(task, generator.visual_values(instance), solution["objective_value"]) == []
    assert all(f"visual_{i}.png" in task for i in range(len(meta["visuals"])))
    task = " ".join(task.split())
    decision = {
        "set_covering_partitioning": '"selected_subsets"',
    }.get(name, '"assignments"')
    assert decision in task and '"objective_value"' in task
    if name == "set_covering_partitioning":
        assert ("exactly one selected subset" in task) == (instance["variant_type"] == "set_partitioning")
    if name == "bipartite_assignment":
        maximize = instance.get("objective_sense") == "maximize"
        assert ("maximize the total value" in task) == maximize
        assert instance["variant_type"] == ("assignment" if difficulty == "easy" else "matching")


@pytest.mark.parametrize("name", SUBCATEGORIES)
def test_formulation_size_grows_with_difficulty(name):
    packages = _packages(name)
    if not packages:
        fail_missing_fixture(ROOT / FAMILY / name)
    sizes: dict[str, list[dict[str, int]]] = {d: [] for d in DIFFICULTIES}
    for package in packages:
        meta = _load(package, "meta.json")
        sizes[meta["difficulty"]].append(meta["formulation_size"])
    for key in ("variables", "constraints"):
        easy, medium, hard = ([s[key] for s in sizes[d]] for d in DIFFICULTIES)
        assert max(easy) < min(medium) and max(medium) < min(hard), key
        assert statistics.median(easy) < statistics.median(medium) < statistics.median(hard)
