"""The combinatorial/logical family: graph colouring with feasibility-type scoring, fixtures, damage.

Real solvers throughout (CP-SAT for the references, HiGHS for the cross-checks); every shipped
``solver_ref.py`` runs as a subprocess in
``tests/test_mmopt_generation.py::test_shipped_solver_refs_reproduce_the_optimum``. Replayed wrong
statuses and invalid colourings are planted into copies of real shipped solutions.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt.feasibility import claims_infeasible
from benchmark.suites.mmopt.generation import InstanceGenerator
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution
from benchmark.suites.mmopt.generation.validate import validate
from benchmark.suites.mmopt.package import discover, load_package
from benchmark.suites.mmopt.scoring import score_execution
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from benchmark.suites.mmopt.subcategories.graph_coloring.generator import (
    chromatic,
    graph_of,
    max_clique,
    milp_colourable,
)
from tests.conftest import fail_missing_fixture
from tests.mmopt_support import rewrite_json, score_answer

FAMILY = "combinatorial_logical"
ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt"
SUBCATEGORIES = {"graph_coloring": "gc", "multi_dim_knapsack": "mdkp", "set_packing": "sp"}
GC = "graph_coloring"


def _generator(name: str) -> InstanceGenerator:
    subcategory = get_subcategory(name)
    assert isinstance(subcategory, InstanceGenerator)
    return subcategory


def _packages(name: str | None = None) -> list[Path]:
    names = [name] if name else list(SUBCATEGORIES)
    return sorted(p.parent for n in names for p in (ROOT / FAMILY / n).glob("*/*/meta.json"))


def _load(package: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    def read(rel: str) -> dict[str, Any]:
        return json.loads((package / rel).read_text())

    return read("ground_truth/instance_data.json"), read("ground_truth/solution_ref.json"), read("meta.json")


def _kind(kind: str) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """A shipped graph colouring package of one task kind (decision_feasible, decision_infeasible,
    optimization), preferring the hardest difficulty."""
    for package in reversed(_packages(GC)):
        instance, solution, meta = _load(package)
        if kind in meta["regime_tags"]:
            return package, instance, solution
    fail_missing_fixture(f"a {kind} package in fixtures/mmopt/{FAMILY}/{GC}")


def _score(instance: dict[str, Any], solution: dict[str, Any], returned: dict[str, Any], **kwargs: Any):
    return score_answer(GC, instance, solution, returned, objective_only=kwargs.get("objective_only", False))


# ------------------------------------------------------------------------------------------------
# exact answers


def test_chromatic_number_matches_known_graphs():
    cases = {
        "odd cycle": (nx.cycle_graph(7), 3),
        "even cycle": (nx.cycle_graph(8), 2),
        "Petersen": (nx.petersen_graph(), 3),
        "K5": (nx.complete_graph(5), 5),
        "Mycielski (triangle-free)": (nx.mycielski_graph(4), 4),
    }
    for name, (graph, expected) in cases.items():
        relabelled = nx.relabel_nodes(graph, {v: i + 1 for i, v in enumerate(sorted(graph.nodes))})
        colours, colouring = chromatic(relabelled)
        assert colours == expected, name
        assert all(colouring[u] != colouring[v] for u, v in relabelled.edges), name
        assert milp_colourable(relabelled, expected) and not milp_colourable(relabelled, expected - 1), name
    assert len(max_clique(nx.mycielski_graph(4))) == 2  # the clique bound is not always tight


# ------------------------------------------------------------------------------------------------
# validator


def test_reference_colourings_pass_in_every_written_form():
    generator = _generator(GC)
    for kind in ("decision_feasible", "optimization"):
        _, instance, solution = _kind(kind)
        check = generator.check_solution(instance, solution)
        assert check.feasible, check.problems
        colouring = solution["color_assignment"]
        as_ints = {int(v): c for v, c in colouring.items()}
        as_list = [colouring[str(v)] for v in instance["sets"]["vertices"]]
        named = {v: f"colour-{c}" for v, c in colouring.items()}
        for form in (as_ints, as_list, named):
            assert generator.check_solution(instance, {"coloring": form}).feasible, (kind, form)


def test_improper_colouring_missing_vertex_and_too_many_colours():
    generator = _generator(GC)
    _, instance, solution = _kind("decision_feasible")
    u, v = instance["edges"][0]
    clash = copy.deepcopy(solution["color_assignment"])
    clash[str(v)] = clash[str(u)]
    problems = generator.check_solution(instance, {"color_assignment": clash}).problems
    assert f"edge {u}-{v}: both ends have colour {clash[str(u)]!r}" in problems
    missing = copy.deepcopy(solution["color_assignment"])
    del missing["1"]
    assert (
        "vertex 1 has no colour" in generator.check_solution(instance, {"color_assignment": missing}).problems
    )
    rainbow = {str(v): v for v in instance["sets"]["vertices"]}  # proper, but one colour per vertex
    k = len(instance["sets"]["colors"])
    problems = generator.check_solution(instance, {"color_assignment": rainbow}).problems
    assert problems == (f"{len(rainbow)} colours used, only {k} available",)


# ------------------------------------------------------------------------------------------------
# feasibility-type scoring (DESIGN §4)


def test_infeasible_instance_is_scored_on_its_status():
    _, instance, solution = _kind("decision_infeasible")
    assert solution["status"] == "infeasible" and "color_assignment" not in solution
    for said in ({"status": "infeasible"}, {"status": "UNSAT"}, {"status": "done", "is_k_colorable": False}):
        assert _score(instance, solution, said).passed, said
    wrong = _score(instance, solution, {"status": "feasible", "color_assignment": {"1": 1}})
    assert wrong.category == "wrong_objective" and "no solution exists" in wrong.detail
    assert (
        _score(instance, solution, {"status": "optimal", "objective_value": 3}).category == "wrong_objective"
    )


def test_feasible_instance_is_scored_on_its_status_and_colouring():
    _, instance, solution = _kind("decision_feasible")
    returned = {"status": "feasible", "color_assignment": solution["color_assignment"]}
    assert _score(instance, solution, returned).passed
    assert _score(instance, solution, {"color_assignment": solution["color_assignment"]}).passed  # no status
    said_no = _score(instance, solution, {"status": "infeasible"})
    assert said_no.category == "wrong_objective" and "a solution exists" in said_no.detail
    u, v = instance["edges"][0]
    clash = {**solution["color_assignment"], str(v): solution["color_assignment"][str(u)]}
    invalid = _score(instance, solution, {"status": "feasible", "color_assignment": clash})
    assert invalid.category == "infeasible_solution" and f"edge {u}-{v}" in invalid.detail
    missing = _score(instance, solution, {"status": "feasible"})
    assert missing.category == "infeasible_solution" and "no color_assignment returned" in missing.detail
    # with objective_only (no decision check) a feasible claim is all that is scored
    assert _score(instance, solution, {"status": "feasible"}, objective_only=True).passed


def test_optimization_instance_is_scored_on_the_chromatic_number():
    _, instance, solution = _kind("optimization")
    colouring = solution["color_assignment"]
    good = {
        "status": "optimal",
        "objective_value": solution["objective_value"],
        "color_assignment": colouring,
    }
    assert _score(instance, solution, good).passed
    rainbow = {str(v): v for v in instance["sets"]["vertices"]}
    worse = _score(
        instance,
        solution,
        {"status": "optimal", "objective_value": len(rainbow), "color_assignment": rainbow},
    )
    assert worse.category == "wrong_objective"
    lying = _score(instance, solution, {**good, "color_assignment": rainbow})
    assert lying.category == "infeasible_solution" and "reported objective" in lying.detail


def test_claims_infeasible_reads_statuses_and_boolean_answers():
    assert claims_infeasible({"status": "Not colorable"})
    assert claims_infeasible({"satisfiable": False})
    assert not claims_infeasible({"status": "feasible"})
    assert not claims_infeasible({"is_k_colorable": True})


# ------------------------------------------------------------------------------------------------
# shipped packages


def test_ten_packages_per_difficulty_with_official_ids_and_every_task_kind():
    packages = _packages(GC)
    if not packages:
        fail_missing_fixture(ROOT / FAMILY / GC)
    for difficulty in DIFFICULTIES:
        ids = sorted(p.name for p in packages if p.parent.name == difficulty)
        assert ids == [f"gc_{difficulty[0]}_{i:03d}" for i in range(1, 11)]
    kinds = {
        tag for p in packages for tag in _load(p)[2]["regime_tags"] if tag.startswith(("decision", "optim"))
    }
    assert kinds == {"decision_feasible", "decision_infeasible", "optimization"}
    assert any("clique_below_chromatic" in _load(p)[2]["regime_tags"] for p in packages)


@pytest.mark.parametrize("package", _packages(GC), ids=lambda p: p.name)
def test_colouring_answer_is_certified_by_two_solvers(package):
    instance, solution, meta = _load(package)
    generator = _generator(meta["subcategory"])
    reference = ReferenceSolution(solution=solution, method="shipped")
    method, independent = generator.cross_check(instance)
    assert method == meta["verification"]["cross_check"]
    assert independent == reference.objective  # 1.0 / 0.0 for decisions, χ for optimization
    graph = graph_of(instance)
    chromatic = meta["chromatic_number"]
    assert len(max_clique(graph)) == meta["max_clique_size"] <= chromatic
    # χ itself, by HiGHS with colours in order of first use (without that symmetry breaking, the
    # proof that gc_h_008 needs 7 colours took 74 s of CI; a proof with it, a few seconds)
    assert milp_colourable(graph, chromatic, True) and not milp_colourable(graph, chromatic - 1, True)
    if solution["status"] != "infeasible":
        assert generator.check_solution(instance, solution).feasible
    assert generator.solution_problems(instance, reference, meta["difficulty"]) == []
    assert load_package(next(r for r in discover(ROOT) if r.location == package)).expected_objective == (
        solution.get("objective_value")
    )


# ------------------------------------------------------------------------------------------------
# multi-dimensional knapsack

MDKP = "multi_dim_knapsack"


def _first(name: str, difficulty: str) -> tuple[dict[str, Any], dict[str, Any]]:
    packages = [p for p in _packages(name) if p.parent.name == difficulty]
    if not packages:
        fail_missing_fixture(ROOT / FAMILY / name / difficulty)
    instance, solution, _ = _load(packages[0])
    return instance, solution


def _knapsack_brute_force(instance: dict[str, Any]) -> int:
    best = 0
    n = len(instance["values"])
    for mask in range(1 << n):
        chosen = [i for i in range(n) if mask >> i & 1]
        if all(
            sum(instance["weights"][i][r] for i in chosen) <= c for r, c in enumerate(instance["capacities"])
        ):
            best = max(best, sum(instance["values"][i] for i in chosen))
    return best


def test_mdkp_easy_optimum_matches_exhaustive_search():
    instance, solution = _first(MDKP, "easy")
    assert _knapsack_brute_force(instance) == solution["objective_value"]


def test_mdkp_selection_forms_capacity_and_value_faults():
    generator = _generator(MDKP)
    instance, solution = _first(MDKP, "hard")
    chosen = solution["selected_items"]
    for form in (
        {"selected_items": [str(i) for i in chosen]},
        {"decision_variables": solution["decision_variables"]},
        {"items": {f"item {i}": 1 for i in chosen}},
    ):
        check = generator.check_solution(instance, form)
        assert check.feasible and check.objective == solution["objective_value"], (form, check.problems)
    everything = {"selected_items": instance["sets"]["items"]}
    problems = generator.check_solution(instance, everything).problems
    assert any(p.startswith("resource R1: use") and "exceeds capacity" in p for p in problems)
    assert "item 99 selected" not in " ".join(problems)
    assert generator.check_solution(instance, {"selected_items": [*chosen, chosen[0]]}).problems[0] == (
        f"item {chosen[0]} selected twice"
    )
    fewer = {"selected_items": chosen[:-1], "objective_value": solution["objective_value"]}
    assert "reported objective" in generator.check_solution(instance, fewer).problems[0]
    honest = {"selected_items": chosen[:-1]}
    value = generator.check_solution(instance, honest).objective
    assert value is not None and value < solution["objective_value"]
    execution = ExecutionResult(
        outcome=Outcome.OK,
        value={**honest, "objective_value": value},
        stdout="",
        error="",
        wall_s=0.1,
        sandbox=SandboxKind.BWRAP,
    )
    verdict = score_execution(
        execution, subcategory=MDKP, instance=instance, solution_ref=solution, objective_only=False
    )
    assert verdict.category == "wrong_objective"


def test_mdkp_ten_packages_per_difficulty_with_official_ids():
    packages = _packages(MDKP)
    if not packages:
        fail_missing_fixture(ROOT / FAMILY / MDKP)
    for difficulty in DIFFICULTIES:
        ids = sorted(p.name for p in packages if p.parent.name == difficulty)
        assert ids == [f"mdkp_{difficulty[0]}_{i:03d}" for i in range(1, 11)]


def test_mdkp_regimes_grow_and_bind():
    packages = _packages(MDKP)
    if not packages:
        fail_missing_fixture(ROOT / FAMILY / MDKP)
    for package in packages:
        instance, solution, meta = _load(package)
        if meta["difficulty"] == "hard":
            assert instance["meta_parameters"]["profit_weight_correlation_type"] == "strongly_correlated"
            assert solution["binding_constraint_count"] >= 2
        if meta["difficulty"] != "easy":
            assert "greedy_suboptimal" in meta["regime_tags"]


# ------------------------------------------------------------------------------------------------
# set packing

SP = "set_packing"


def test_sp_easy_optimum_matches_exhaustive_search():
    instance, solution = _first(SP, "easy")
    names = instance["sets"]["candidate_groups"]
    best = 0
    for mask in range(1 << len(names)):
        chosen = [n for j, n in enumerate(names) if mask >> j & 1]
        members = [e for n in chosen for e in instance["subsets"][n]["elements"]]
        if len(members) == len(set(members)):
            best = max(best, sum(instance["subsets"][n]["weight"] for n in chosen))
    assert best == solution["objective_value"]


def test_sp_overlap_unknown_group_and_suboptimal_packing():
    generator = _generator(SP)
    instance, solution = _first(SP, "hard")
    chosen = solution["selected_groups"]
    assert generator.check_solution(instance, {"selected_groups": [c.lower() for c in chosen]}).feasible
    assert generator.check_solution(instance, {"groups": {c: 1 for c in chosen}}).feasible
    clash = next(
        n
        for n in instance["sets"]["candidate_groups"]
        if n not in chosen
        and set(instance["subsets"][n]["elements"]) & set(instance["subsets"][chosen[0]]["elements"])
    )
    execution = ExecutionResult(
        outcome=Outcome.OK,
        value={"objective_value": 1.0, "selected_groups": [*chosen, clash]},
        stdout="",
        error="",
        wall_s=0.1,
        sandbox=SandboxKind.BWRAP,
    )
    verdict = score_execution(
        execution, subcategory=SP, instance=instance, solution_ref=solution, objective_only=False
    )
    assert verdict.category == "infeasible_solution" and "selected groups" in verdict.detail
    assert "unknown group 'G99'" in generator.check_solution(instance, {"selected_groups": ["G99"]}).problems
    fewer = chosen[:-1]
    value = generator.check_solution(instance, {"selected_groups": fewer}).objective
    execution = ExecutionResult(
        outcome=Outcome.OK,
        value={"objective_value": value, "selected_groups": fewer},
        stdout="",
        error="",
        wall_s=0.1,
        sandbox=SandboxKind.BWRAP,
    )
    verdict = score_execution(
        execution, subcategory=SP, instance=instance, solution_ref=solution, objective_only=False
    )
    assert verdict.category == "wrong_objective"


def test_sp_ten_packages_per_difficulty_and_greedy_fails_above_easy():
    packages = _packages(SP)
    if not packages:
        fail_missing_fixture(ROOT / FAMILY / SP)
    for difficulty in DIFFICULTIES:
        ids = sorted(p.name for p in packages if p.parent.name == difficulty)
        assert ids == [f"sp_{difficulty[0]}_{i:03d}" for i in range(1, 11)]
    for package in packages:
        _, _, meta = _load(package)
        if meta["difficulty"] != "easy":
            assert "greedy_suboptimal" in meta["regime_tags"]


# ------------------------------------------------------------------------------------------------
# validation of damaged copies


def test_validation_names_the_package_and_check_of_a_damaged_copy(tmp_path):
    source, _, solution = _kind("decision_infeasible")
    rel = source.relative_to(ROOT)
    intact = tmp_path / "intact" / rel
    shutil.copytree(source, intact)
    report = validate(tmp_path / "intact", processes=1)
    assert report.ok, report.summary()

    damaged = tmp_path / "damaged" / rel
    shutil.copytree(source, damaged)
    flipped = {**solution, "status": "feasible", "is_k_colorable": True}
    rewrite_json(damaged, "ground_truth/solution_ref.json", flipped)
    report = validate(tmp_path / "damaged", processes=1)
    checks = {(f.package, f.check) for f in report.failures}
    label = rel.as_posix()
    assert {(label, "schema"), (label, "reference_solve"), (label, "cross_check")} <= checks, report.summary()
