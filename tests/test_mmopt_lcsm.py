"""Logical constraint satisfaction models: exact answers, the validator, feasibility-type scoring,
the shipped packages (satisfiable and unsatisfiable, unsat certified by two solvers), visuals and
damaged copies.

Real solvers throughout (CP-SAT for the references, HiGHS for the cross-checks), checked against
exhaustive enumeration on the easy instances. Replayed wrong statuses and violating assignments are
planted into copies of real shipped solutions.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmark.suites.mmopt.generation import InstanceGenerator
from benchmark.suites.mmopt.generation.pipeline import visual_audit_problems
from benchmark.suites.mmopt.generation.validate import validate
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from benchmark.suites.mmopt.subcategories.logical_constraint_satisfaction_models.generator import (
    milp_feasible,
    reference_solve,
)
from benchmark.suites.mmopt.subcategories.logical_constraint_satisfaction_models.renderer import (
    ROWS_PER_FIGURE,
    matrix_rows,
)
from benchmark.suites.mmopt.subcategories.logical_constraint_satisfaction_models.validator import is_negative
from tests.mmopt_support import rewrite_json, score_answer

NAME = "logical_constraint_satisfaction_models"
ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt"
FOLDER = ROOT / "combinatorial_logical" / NAME


def _generator() -> InstanceGenerator:
    subcategory = get_subcategory(NAME)
    assert isinstance(subcategory, InstanceGenerator)
    return subcategory


def _packages() -> list[Path]:
    return sorted(p.parent for p in FOLDER.glob("*/*/meta.json"))


def _load(package: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    def read(rel: str) -> dict[str, Any]:
        return json.loads((package / rel).read_text(encoding="utf-8"))

    return read("ground_truth/instance_data.json"), read("ground_truth/solution_ref.json"), read("meta.json")


def _shipped(status: str, difficulty: str | None = None) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """A shipped package whose verified answer is ``status``, the hardest one first."""
    for package in reversed(_packages()):
        instance, solution, meta = _load(package)
        if solution["status"] == status and difficulty in (None, meta["difficulty"]):
            return package, instance, solution
    pytest.fail(f"no shipped {status} {NAME} package" + (f" at {difficulty}" if difficulty else ""))


def _score(
    instance: dict[str, Any], solution: dict[str, Any], returned: dict[str, Any], scoring: str = "strict"
):
    return score_answer(NAME, instance, solution, returned, scoring=scoring)


def _satisfying_count(instance: dict[str, Any]) -> int:
    """How many of the 2^n assignments satisfy every row, by enumeration (easy instances only)."""
    variables = instance["sets"]["variables"]
    n = len(variables)
    column = {v: j for j, v in enumerate(variables)}
    bits = ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1).astype(bool)
    ok = np.ones(1 << n, dtype=bool)
    for clause in instance["clauses"]:
        any_true = np.zeros(1 << n, dtype=bool)
        for lit in clause["literals"]:
            value = bits[:, column[lit["variable"]]]
            any_true |= ~value if is_negative(lit["sign"]) else value
        ok &= any_true
    for rule in instance["implications"]:
        ok &= ~bits[:, column[rule["if_variable"]]] | bits[:, column[rule["then_variable"]]]
    for group in instance["at_most_one_groups"]:
        ok &= bits[:, [column[v] for v in group["variables"]]].sum(axis=1) <= 1
    for row in instance.get("cardinality_constraints", []):
        ok &= bits[:, [column[v] for v in row["variables"]]].sum(axis=1) <= row["rhs"]
    return int(ok.sum())


# ------------------------------------------------------------------------------------------------
# shipped packages


def test_ten_packages_per_difficulty_with_official_ids_and_both_answers():
    packages = _packages()
    for difficulty in DIFFICULTIES:
        ids = sorted(p.name for p in packages if p.parent.name == difficulty)
        assert ids == [f"lcsm_{difficulty[0]}_{i:03d}" for i in range(1, 11)]
    statuses = {(m["difficulty"], s["status"]) for _, s, m in map(_load, packages)}
    assert statuses == {(d, s) for d in DIFFICULTIES for s in ("feasible", "infeasible")}
    for package in packages:
        instance, _, meta = _load(package)
        tags = meta["regime_tags"]
        assert ("all_different_block" in tags) == (meta["difficulty"] == "hard")
        assert ("cardinality_rows" in tags) == (meta["difficulty"] != "easy")
        assert len(meta["visuals"]) == -(-len(matrix_rows(instance)) // ROWS_PER_FIGURE)
    assert any(len(_load(p)[2]["visuals"]) >= 3 for p in packages)  # large matrices are split


@pytest.mark.parametrize("package", _packages(), ids=lambda p: p.name)
def test_answer_is_certified_by_two_solvers(package):
    instance, solution, meta = _load(package)
    generator = _generator()
    again = reference_solve(instance)  # CP-SAT
    assert again.solution == solution
    assert milp_feasible(instance) == (solution["status"] == "feasible")  # HiGHS
    assert meta["verification"]["cross_check_objective"] == (1.0 if solution["status"] == "feasible" else 0.0)
    if solution["status"] == "feasible":
        assert generator.check_solution(instance, solution).feasible
    assert instance["meta_parameters"]["satisfiable_flag"] == meta["satisfiable"]


@pytest.mark.parametrize("status", ["feasible", "infeasible"])
def test_easy_answers_match_exhaustive_enumeration(status):
    _, instance, solution = _shipped(status, "easy")
    count = _satisfying_count(instance)
    assert (count > 0) == (solution["status"] == "feasible")


# ------------------------------------------------------------------------------------------------
# validator


def test_assignment_is_read_in_every_written_form():
    generator = _generator()
    _, instance, solution = _shipped("feasible")
    assignment = solution["assignment"]
    variables = instance["sets"]["variables"]
    forms = (
        {"assignment": assignment},
        {"assignment": {v: bool(b) for v, b in assignment.items()}},
        {"assignment": {v.upper(): str(b) for v, b in assignment.items()}},
        {"assignment": [assignment[v] for v in variables]},
        {"true_variables": [v for v in variables if assignment[v]]},
    )
    for form in forms:
        assert generator.check_solution(instance, form).feasible, form


def test_each_kind_of_row_is_checked_and_named():
    generator = _generator()
    _, instance, solution = _shipped("feasible", "hard")
    base = solution["assignment"]
    clause = instance["clauses"][-1]
    falsified = {**base, **{lit["variable"]: int(is_negative(lit["sign"])) for lit in clause["literals"]}}
    assert any(
        p.startswith(f"clause {clause['name']} (") and p.endswith("is not satisfied")
        for p in generator.check_solution(instance, {"assignment": falsified}).problems
    )
    rule = instance["implications"][0]
    broken = {**base, rule["if_variable"]: 1, rule["then_variable"]: 0}
    assert f"implication {rule['name']} ({rule['if_variable']} -> {rule['then_variable']}) is violated" in (
        generator.check_solution(instance, {"assignment": broken}).problems
    )
    group = instance["at_most_one_groups"][-1]
    crowded = {**base, **dict.fromkeys(group["variables"], 1)}
    assert any(
        p.startswith(f"at-most-one group {group['name']} has")
        for p in generator.check_solution(instance, {"assignment": crowded}).problems
    )
    row = instance["cardinality_constraints"][0]
    over = {**base, **dict.fromkeys(row["variables"], 1)}
    assert any(
        p.startswith(f"cardinality row {row['name']} has {len(row['variables'])} true variables")
        for p in generator.check_solution(instance, {"assignment": over}).problems
    )
    missing = dict(base)
    del missing["x1"]
    assert "variable x1 has no value" in generator.check_solution(instance, {"assignment": missing}).problems
    assert generator.check_solution(instance, {"assignment": {**base, "x1": 2}}).problems == (
        "variable x1: value 2 is not 0/1 or true/false",
    )
    assert generator.check_solution(instance, {"status": "feasible"}).problems == ("no assignment returned",)


# ------------------------------------------------------------------------------------------------
# feasibility-type scoring (DESIGN §4)


@pytest.mark.parametrize("scoring", ["strict", "official"])
def test_unsatisfiable_instance_is_scored_on_its_status(scoring):
    _, instance, solution = _shipped("infeasible")
    for said in ({"status": "infeasible"}, {"status": "UNSAT"}, {"status": "done", "is_feasible": False}):
        assert _score(instance, solution, said, scoring).passed, said
    claimed = {"status": "feasible", "assignment": dict.fromkeys(instance["sets"]["variables"], 0)}
    wrong = _score(instance, solution, claimed, scoring)
    assert wrong.category == "wrong_objective" and "no solution exists" in wrong.detail


@pytest.mark.parametrize("scoring", ["strict", "official"])
def test_satisfiable_instance_is_scored_on_its_status_and_assignment(scoring):
    _, instance, solution = _shipped("feasible")
    assert _score(
        instance, solution, {"status": "feasible", "assignment": solution["assignment"]}, scoring
    ).passed
    said_no = _score(instance, solution, {"status": "infeasible"}, scoring)
    assert said_no.category == "wrong_objective" and "a solution exists" in said_no.detail
    clause = instance["clauses"][0]
    violating = copy.deepcopy(solution["assignment"])
    violating.update({lit["variable"]: int(is_negative(lit["sign"])) for lit in clause["literals"]})
    invalid = _score(instance, solution, {"status": "feasible", "assignment": violating}, scoring)
    assert invalid.category == "infeasible_solution" and f"clause {clause['name']} (" in invalid.detail


# ------------------------------------------------------------------------------------------------
# visuals


def test_every_matrix_row_and_mark_is_audited():
    generator = _generator()
    _, instance, _ = _shipped("infeasible", "hard")
    visuals = generator.render(instance)
    assert len(visuals) > 1
    assert visual_audit_problems(generator, instance, visuals) == []
    changed = copy.deepcopy(instance)
    literal = changed["clauses"][0]["literals"][0]
    literal["sign"] = "+" if is_negative(literal["sign"]) else "−"  # the figure no longer matches
    problems = visual_audit_problems(generator, changed, visuals)
    assert any(f"mark:{changed['clauses'][0]['name']}/{literal['variable']} drawn as" in p for p in problems)


# ------------------------------------------------------------------------------------------------
# validation of damaged copies


def test_validation_names_the_package_and_check_of_a_damaged_copy(tmp_path):
    source, _, solution = _shipped("infeasible", "easy")
    rel = source.relative_to(ROOT)
    intact = tmp_path / "intact" / rel
    shutil.copytree(source, intact)
    report = validate(tmp_path / "intact", processes=1)
    assert report.ok, report.summary()

    damaged = tmp_path / "damaged" / rel
    shutil.copytree(source, damaged)
    flipped = {**solution, "status": "feasible", "is_feasible": True}
    rewrite_json(damaged, "ground_truth/solution_ref.json", flipped)
    report = validate(tmp_path / "damaged", processes=1)
    checks = {(f.package, f.check) for f in report.failures}
    label = rel.as_posix()
    assert {(label, "reference_solve"), (label, "cross_check")} <= checks, report.summary()


# ------------------------------------------------------------------------------------------------
# replays through the harness


def _returning(value: dict[str, Any]) -> str:
    code = f"def solve():\n    return {json.dumps(value)}\n"
    return f"ASSUMPTIONS\nnone\n\nMATHEMATICAL_MODEL\nsee code\n\nPYTHON_CODE\n```python\n{code}```\n"


def _case_key(package: Path, sample: int) -> str:
    return f"mmopt/{package.relative_to(ROOT).as_posix()}/stage1/s{sample}"


@pytest.mark.slow
def test_replayed_answers_get_the_right_category(bench, tmp_path):
    """Through a real benchmark session (subprocess pytest, the sandbox): "infeasible" on a
    satisfiable instance, "feasible" on an unsatisfiable one, and an assignment violating a clause."""
    sat, _, solution = _shipped("feasible", "hard")
    unsat, instance, _ = _shipped("infeasible", "hard")
    sat_instance = _load(sat)[0]
    clause = sat_instance["clauses"][0]
    violating = {
        **solution["assignment"],
        **{lit["variable"]: int(is_negative(lit["sign"])) for lit in clause["literals"]},
    }
    answers = {
        _case_key(sat, 0): {"status": "infeasible"},
        _case_key(sat, 1): {"status": "feasible", "assignment": violating},
        _case_key(unsat, 0): {
            "status": "feasible",
            "assignment": dict.fromkeys(instance["sets"]["variables"], 1),
        },
        _case_key(unsat, 1): {"status": "infeasible"},
    }
    replay = tmp_path / "replay.jsonl"
    replay.write_text(
        "".join(json.dumps({"case": k, "response": _returning(v)}) + "\n" for k, v in answers.items())
    )
    run = bench(f"--model=replay:{replay}", "-k", f"{sat.name} or {unsat.name}", "--samples", "2")
    assert run.returncode == 1, run.output[-3000:]
    got = {r["case"]: (r["category"], r["detail"]) for r in run.records}
    assert set(got) == set(answers), run.output[-3000:]
    assert got[_case_key(sat, 0)][0] == "wrong_objective" and "a solution exists" in got[_case_key(sat, 0)][1]
    category, detail = got[_case_key(sat, 1)]
    assert category == "infeasible_solution" and f"clause {clause['name']} (" in detail
    assert (
        got[_case_key(unsat, 0)][0] == "wrong_objective"
        and "no solution exists" in got[_case_key(unsat, 0)][1]
    )
    assert {r["case"]: r["passed"] for r in run.records} == {
        key: key == _case_key(unsat, 1) for key in answers
    }
