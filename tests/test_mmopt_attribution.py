"""The fine failure taxonomy (Table 9) decided from evidence, and the attribution tables built from
records. Real packages, the real subcategory validators; the returned values are written by hand
because each one is a specific piece of evidence."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark.categories import CaseOutcome
from benchmark.schema import CaseRecord
from benchmark.suites.mmopt.attribution import classify_artifact, fine_category, objective_sense
from benchmark.suites.mmopt.attribution_tables import (
    ORACLE_READING_TITLE,
    SOLVED_SHARE_TITLE,
    TWO_STAGE_TITLE,
    attribution_tables,
)
from benchmark.suites.mmopt.package import Package, discover, load_package
from benchmark.verdict import Verdict
from tests.conftest import FIXTURES


def _package(instance_id: str) -> Package:
    return load_package(next(r for r in discover(FIXTURES) if r.path[-1] == instance_id))


@pytest.fixture(scope="module")
def mf() -> Package:
    return _package("mf_e_001")


@pytest.fixture(scope="module")
def mcf() -> Package:
    return _package("mcf_e_002")


def _failed(category: str = "wrong_objective", detail: str = "objective differs") -> Verdict:
    return Verdict.fail(category, detail)


def test_objective_sense_comes_from_the_math_model(mf: Package, mcf: Package) -> None:
    assert objective_sense(mf.math_model) == "max"
    assert objective_sense(mcf.math_model) == "min"
    assert objective_sense("## Objective\nminimize the cost\n## Constraints\nmax degree 3") == "min"
    assert objective_sense("no objective stated") is None


@pytest.mark.parametrize(
    ("category", "expected"),
    [
        ("response_contract", "other_code_artifact"),
        ("output_format", "other_code_artifact"),
        ("syntax", "execution_level"),
        ("dependency", "execution_level"),
        ("runtime", "execution_level"),
        ("timeout", "execution_level"),
    ],
)
def test_pipeline_failures_map_to_their_class(mf: Package, category: str, expected: str) -> None:
    assert classify_artifact(_failed(category, "x"), None, mf).failure_class == expected


def test_feasible_but_worse_points_to_the_solution_procedure() -> None:
    # an empty knapsack is feasible and worse (a suboptimal maximum flow cannot be: the official
    # max-flow rules ask for a min cut matching the flow value)
    mdkp = _package("mdkp_e_001")
    picks = {key: 0 for key in mdkp.solution_ref["decision_variables"]}
    value = {"status": "optimal", "objective_value": 0, "decision_variables": picks}
    evidence = classify_artifact(_failed(), value, mdkp)
    assert evidence.failure_class == "solution_procedure"
    assert "worse than the verified optimum" in evidence.evidence


def test_infeasible_decisions_point_to_the_model(mcf: Package) -> None:
    flows = dict(mcf.solution_ref["flows"])
    arc = next(a for a in mcf.instance_data["arcs"] if a["capacity"] > 0)
    flows[f"{arc['from']}_{arc['to']}"] = arc["capacity"] + 3
    value = {"status": "optimal", "objective_value": 1, "flows": flows}
    evidence = classify_artifact(_failed("infeasible_solution"), value, mcf)
    assert evidence.failure_class == "structural_modeling"
    assert "violate the instance" in evidence.evidence


def test_a_reported_objective_its_decisions_do_not_give_points_to_the_model(mf: Package) -> None:
    value = {**mf.solution_ref, "objective_value": mf.solution_ref["objective_value"] + 4}
    value.pop("objective_exact")
    assert classify_artifact(_failed("infeasible_solution"), value, mf).failure_class == "structural_modeling"


def test_an_objective_better_than_the_optimum_points_to_the_model_without_a_validator(
    mf: Package, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No subcategory lacks a validator yet, so the missing validator is simulated (the only mock here).
    monkeypatch.setattr("benchmark.suites.mmopt.attribution.check_decisions", lambda *args: None)
    optimum = mf.solution_ref["objective_value"]
    better = classify_artifact(_failed(), {"status": "optimal", "objective_value": optimum + 5}, mf)
    worse = classify_artifact(_failed(), {"status": "optimal", "objective_value": optimum - 5}, mf)
    assert better.failure_class == "structural_modeling"
    assert worse.failure_class == "undecidable"  # worse, but nobody checked the decisions


@pytest.mark.parametrize(
    ("status", "expected"), [("infeasible", "structural_modeling"), ("error", "undecidable")]
)
def test_a_status_without_a_solution(mcf: Package, status: str, expected: str) -> None:
    value = {"status": status, "objective_value": None}
    assert classify_artifact(_failed(), value, mcf).failure_class == expected


def _record(model: str, setting: str, passed: bool, **extra: Any) -> CaseRecord:
    return CaseRecord(
        suite="mmopt",
        case=f"mmopt/x/{setting}/s0",
        setting=setting,
        sample=0,
        model=model,
        outcome=CaseOutcome.PASSED if passed else CaseOutcome.FAILED,
        passed=passed,
        extra=extra,
    )


def test_fine_category_follows_the_two_stage_split() -> None:
    assert (
        fine_category(_record("m", "two_stage", False, attribution="reading_mismatch")) == "upstream_reading"
    )
    assert fine_category(_record("m", "two_stage", False, attribution="unresolved")) == "unresolved"
    matched = _record("m", "two_stage", False, attribution="downstream_after_matched_extraction")
    matched.extra["failure_class"] = "execution_level"
    assert fine_category(matched) == "execution_level"
    assert fine_category(_record("m", "stage1", True)) is None


def _table(tables: list[Any], title: str) -> dict[str, tuple[str, ...]]:
    table = next(t for t in tables if t.title == title)
    return {row[0]: row for row in table.rows}


def test_tables_count_per_model_and_pooled_with_shares_of_failures() -> None:
    records = [
        _record("a", "two_stage", False, attribution="reading_mismatch"),
        _record("a", "two_stage", False, attribution="downstream_after_matched_extraction"),
        _record("a", "two_stage", True),
        _record("a", "two_stage", True),
        _record(
            "b",
            "two_stage",
            False,
            attribution="unresolved",
            stage2={"status": "unresolved", "unresolved": "python_literal"},
        ),
        _record("b", "oracle_reading", False),  # no class recorded: undecidable, so modeling/algorithmic
        _record("b", "oracle_reading", False, failure_class="execution_level"),
        _record("b", "oracle_reading", True),
        _record("b", "stage1", True),
    ]
    tables = attribution_tables(records)
    two_stage = _table(tables, TWO_STAGE_TITLE)
    assert two_stage["a"][1:] == ("1/4 (50.0%)", "1/4 (50.0%)", "0/4 (0.0%)", "2/4")
    assert two_stage["pooled"][1:] == ("1/5 (33.3%)", "1/5 (33.3%)", "1/5 (33.3%)", "3/5")
    oracle = _table(tables, ORACLE_READING_TITLE)
    assert oracle["b"][1:] == ("1/3 (50.0%)", "1/3 (50.0%)", "0/3 (0.0%)", "2/3")
    shares = {
        (row[0], row[1]): row[2:4] for row in next(t for t in tables if t.title == SOLVED_SHARE_TITLE).rows
    }
    assert shares[("b", "stage1 (official)")] == ("1/1", "100.0%")
    assert shares[("b", "oracle_reading")] == ("1/3", "33.3%")
    assert shares[("pooled", "two_stage (official)")] == ("2/5", "40.0%")


def test_no_diagnostic_setting_no_table_beyond_taxonomy_and_share() -> None:
    tables = attribution_tables([_record("a", "stage1", True)])
    assert [t.title for t in tables] == ["Failure taxonomy (Table 9)", SOLVED_SHARE_TITLE]
    assert attribution_tables([]) == []
