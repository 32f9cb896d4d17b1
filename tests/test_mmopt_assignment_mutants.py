"""Strict-mode verdicts on mutants of our shipped bipartite-assignment and p-median/center
references, scored end to end by :func:`benchmark.suites.mmopt.scoring.score_execution` (the path a
benchmark case takes): the reference is correct, each planted fault gets its category.

Both subcategories' packages are in the official schema, so these are the official rules plus the
strict additions; the official sample packages are covered by ``tests/test_official_parity.py``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt.scoring import score_execution
from benchmark.suites.mmopt.subcategories.p_median_center.generator import nearest_assignment
from benchmark.verdict import Verdict
from tests.conftest import fail_missing_fixture

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt" / "location_covering_assignment"
Change = Callable[[dict[str, Any], dict[str, Any]], None]


def _package(subcategory: str, instance_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    difficulty = {"e": "easy", "m": "medium", "h": "hard"}[instance_id.split("_")[1]]
    package = ROOT / subcategory / difficulty / instance_id
    if not package.is_dir():
        fail_missing_fixture(package)
    read = lambda rel: json.loads((package / "ground_truth" / rel).read_text(encoding="utf-8"))  # noqa: E731
    return read("instance_data.json"), read("solution_ref.json")


def _strict(subcategory: str, instance_id: str, change: Change | None = None) -> Verdict:
    instance, reference = _package(subcategory, instance_id)
    answer = copy.deepcopy(reference)
    if change is not None:
        change(answer, instance)
    ran = ExecutionResult(
        outcome=Outcome.OK, value=answer, stdout="", error="", wall_s=0.0, sandbox=SandboxKind.SUBPROCESS
    )
    return score_execution(
        ran,
        subcategory=subcategory,
        instance=instance,
        solution_ref=reference,
        objective_only=False,
        scoring="strict",
    )


# ------------------------------------------------------------------------------------------------
# bipartite assignment: ba_e_001 is a balanced minimizing assignment (every pair allowed), ba_m_007 a
# minimizing matching with more tasks than workers (every worker covered), ba_h_002 a minimizing and
# ba_h_001 a maximizing matching with more workers than tasks (every task covered); the matchings
# have forbidden pairs

BA = ["ba_e_001", "ba_m_007", "ba_h_002", "ba_h_001"]


def _assigned(answer: dict[str, Any], instance: dict[str, Any]) -> list[str]:
    """The workers the reference gives a task, in worker order (all of them unless workers are spare)."""
    return [w for w in instance["sets"]["left"] if w in answer["assignments"]]


def _drop_first_worker(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    """The first assigned worker loses its task: that worker, or that task, is left uncovered."""
    del answer["assignments"][_assigned(answer, instance)[0]]


def _first_two_workers_share_a_task(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    first, second = _assigned(answer, instance)[:2]
    answer["assignments"][second] = answer["assignments"][first]


def _forbidden_pair(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    allowed = instance["feasible_assignments"]
    worker, task = next(
        (w, t) for w in instance["sets"]["left"] for t in instance["sets"]["right"] if t not in allowed[w]
    )
    answer["assignments"][worker] = task


def _misreported_objective(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    answer["objective_value"] = answer["objective_exact"] = answer["objective_value"] + 1


def _worse_assignment(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    """Two workers swap tasks (both pairs allowed), and the objective is reported truthfully."""
    assignment, allowed = answer["assignments"], instance["feasible_assignments"]
    workers = _assigned(answer, instance)
    a, b = next(
        (a, b) for i, a in enumerate(workers) for b in workers[i + 1 :]
        if assignment[b] in allowed[a] and assignment[a] in allowed[b]
        and instance["cost_matrix"][a][assignment[a]] + instance["cost_matrix"][b][assignment[b]]
        != instance["cost_matrix"][a][assignment[b]] + instance["cost_matrix"][b][assignment[a]]
    )  # fmt: skip
    assignment[a], assignment[b] = assignment[b], assignment[a]
    total = sum(instance["cost_matrix"][w][t] for w, t in assignment.items())
    answer["objective_value"] = answer["objective_exact"] = total


@pytest.mark.parametrize("instance_id", BA)
def test_ba_reference_is_correct(instance_id: str) -> None:
    verdict = _strict("bipartite_assignment", instance_id)
    assert verdict.passed, verdict.detail


@pytest.mark.parametrize("instance_id", BA)
@pytest.mark.parametrize(
    ("change", "category", "finding"),
    [
        (_drop_first_worker, "infeasible_solution", "not assigned"),
        (_first_two_workers_share_a_task, "infeasible_solution", "assigned more than once"),
        (_misreported_objective, "infeasible_solution", "reported objective"),
        (_worse_assignment, "wrong_objective", ""),
    ],
)
def test_ba_mutant_gets_its_category(instance_id: str, change: Change, category: str, finding: str) -> None:
    verdict = _strict("bipartite_assignment", instance_id, change)
    assert not verdict.passed and verdict.category == category, verdict
    assert finding in verdict.detail


@pytest.mark.parametrize("instance_id", BA[1:])
def test_ba_forbidden_pair_is_infeasible(instance_id: str) -> None:
    verdict = _strict("bipartite_assignment", instance_id, _forbidden_pair)
    assert not verdict.passed and verdict.category == "infeasible_solution", verdict
    assert "is not allowed" in verdict.detail


def test_ba_hard_instance_maximizes_and_a_worse_answer_is_lower() -> None:
    instance, reference = _package("bipartite_assignment", "ba_h_001")
    assert instance["objective_sense"] == "maximize"
    verdict = _strict("bipartite_assignment", "ba_h_001", _worse_assignment)
    assert (
        verdict.returned_objective is not None and verdict.returned_objective < reference["objective_value"]
    )


# ------------------------------------------------------------------------------------------------
# p-median (pmc_e_001, weighted sum) and p-center (pmc_h_001, largest distance)


def _one_site_too_many(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    spare = next(s for s in instance["sets"]["J"] if s not in answer["open_sites"])
    answer["open_sites"].append(spare)


def _point_to_closed_site(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    closed = next(s for s in instance["sets"]["J"] if s not in answer["open_sites"])
    answer["assignments"][instance["sets"]["I"][0]] = closed


def _pmc_misreported_objective(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    answer["objective_value"] = answer["objective_exact"] = answer["objective_value"] + 0.01


def _other_open_sites(answer: dict[str, Any], instance: dict[str, Any]) -> None:
    """A different feasible selection (one open site swapped for a closed one), nearest-site
    assignment, its objective reported truthfully: feasible but not optimal."""
    closed = next(s for s in instance["sets"]["J"] if s not in answer["open_sites"])
    opened = [*answer["open_sites"][1:], closed]
    answer["open_sites"], answer["assignments"] = opened, nearest_assignment(instance, opened)
    distances = [instance["distance_matrix"][d][s] for d, s in answer["assignments"].items()]
    if instance["variant_type"] == "p_median":
        weights = instance["demand_weights"]
        value = sum(weights[d] * instance["distance_matrix"][d][s] for d, s in answer["assignments"].items())
    else:
        value = max(distances)
    answer["objective_value"] = answer["objective_exact"] = round(value, 4)


@pytest.mark.parametrize("instance_id", ["pmc_e_001", "pmc_h_001"])
def test_pmc_reference_is_correct(instance_id: str) -> None:
    verdict = _strict("p_median_center", instance_id)
    assert verdict.passed, verdict.detail


@pytest.mark.parametrize("instance_id", ["pmc_e_001", "pmc_h_001"])
@pytest.mark.parametrize(
    ("change", "category", "finding"),
    [
        (_one_site_too_many, "infeasible_solution", "sites open, the instance asks for"),
        (_point_to_closed_site, "infeasible_solution", "which is not open"),
        (_pmc_misreported_objective, "infeasible_solution", "reported objective"),
        (_other_open_sites, "wrong_objective", ""),
    ],
)
def test_pmc_mutant_gets_its_category(instance_id: str, change: Change, category: str, finding: str) -> None:
    verdict = _strict("p_median_center", instance_id, change)
    assert not verdict.passed and verdict.category == category, verdict
    assert finding in verdict.detail


def test_pmc_variants_are_median_at_easy_and_center_at_hard() -> None:
    easy, _ = _package("p_median_center", "pmc_e_001")
    hard, _ = _package("p_median_center", "pmc_h_001")
    assert (easy["variant_type"], hard["variant_type"]) == ("p_median", "p_center")
    assert "demand_weights" in easy and "demand_weights" not in hard


# ------------------------------------------------------------------------------------------------
# malformed answers: a failure verdict, never an exception


MALFORMED: list[Any] = [
    {"assignments": None, "objective_value": 1},
    {"assignments": [["W1", "T1"]], "objective_value": 1},
    {"assignments": {"W1": {"x": 1}, "D1": ["S1", "S2"]}, "objective_value": "many"},
    {"assignments": {"W1": 3.5, "D1": None}, "open_sites": 5, "objective_value": 1},
    {"assignments": {"1": "1"}, "open_sites": {"S1": "yes"}, "objective_value": float("nan")},
    {"solution": "none"},
]  # a value that is not a dict never reaches scoring: the sandbox fails such a solve()


@pytest.mark.parametrize("instance_id", ["ba_e_001", "ba_h_001", "pmc_e_001", "pmc_h_001"])
@pytest.mark.parametrize("answer", MALFORMED, ids=[f"malformed{i}" for i in range(len(MALFORMED))])
def test_malformed_answer_is_a_failure(instance_id: str, answer: Any) -> None:
    subcategory = "bipartite_assignment" if instance_id.startswith("ba_") else "p_median_center"

    instance, reference = _package(subcategory, instance_id)
    ran = ExecutionResult(
        outcome=Outcome.OK, value=answer, stdout="", error="", wall_s=0.0, sandbox=SandboxKind.SUBPROCESS
    )
    for mode in ("strict", "official"):
        verdict = score_execution(
            ran, subcategory=subcategory, instance=instance, solution_ref=reference, objective_only=False,
            scoring=mode,
        )  # fmt: skip
        assert not verdict.passed and verdict.category, (mode, verdict)
