"""Known causes in, the same causes out: a planted mix over shipped instances, run as a user runs the
benchmark (subprocess pytest, ``-n 2``, the real sandbox) under all four settings, must be recovered
exactly by the attribution tables in ``summary.json``; the official numbers must not move."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from adapters.planted import STAGE2_FAULTS, PlanError, PlantedAdapter, damage_code, damage_stage2
from benchmark.schema import CaseRecord
from benchmark.suites.mmopt.attribution import COMPACT_GROUP, FINE_LABELS
from benchmark.suites.mmopt.attribution_tables import (
    ATTRIBUTIONS,
    COMPACT_LABELS,
    FINE_TITLE,
    ORACLE_READING_TITLE,
    PARSE_FAILURE_TITLE,
    SOLVED_SHARE_TITLE,
    SUBTYPE_LABELS,
    TWO_STAGE_TITLE,
)
from benchmark.suites.mmopt.package import discover, load_package
from benchmark.suites.mmopt.planting import plant, write_plan
from benchmark.suites.mmopt.stage2 import parse_stage2, stage2_reference
from benchmark.suites.mmopt.suite import SUITE
from tests.conftest import FIXTURES, REPO, BenchRun, run_bench

#: (instance, planted cause, Stage-2 fault): every cause and every parse-failure subtype at least once.
MIX: tuple[tuple[str, str, str | None], ...] = (
    ("mf_e_001", "misread_value", None),
    ("mf_m_001", "misread_value", None),
    ("mcf_e_001", "misread_value", None),
    ("mf_e_002", "drop_constraint", None),
    ("mcf_e_002", "drop_constraint", "incomplete_json"),
    ("mf_e_003", "heuristic", None),
    ("mcf_e_003", "heuristic", "python_literal"),
    ("mf_e_004", "relax_integrality", None),
    ("mcf_e_004", "relax_integrality", None),
    ("mf_e_005", "syntax", "other_malformed_json"),
    ("mcf_e_005", "missing_package", "unquoted_numeric_keys"),
    ("mf_e_006", "infinite_loop", None),
    ("mcf_e_006", "omit_solve", "empty_response"),
    ("mf_h_001", "heuristic", None),
    ("mcf_h_001", "drop_constraint", None),
)
UNPLANTED: tuple[str, ...] = ("mf_e_007", "mcf_e_007")
SETTINGS: tuple[str, ...] = ("stage1", "two_stage", "oracle_reading", "verified_extraction")


def _refs() -> dict[str, Any]:
    return {ref.path[-1]: ref for ref in discover(FIXTURES)}


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Plan the mix, run it under every setting; the runs are shared by the tests below."""
    root = tmp_path_factory.mktemp("planted")
    refs = _refs()
    plan = {refs[i].key: plant(load_package(refs[i]), cause, fault) for i, cause, fault in MIX}
    plan_path = write_plan(root / "plan.json", plan)
    selection = " or ".join([i for i, _, _ in MIX] + list(UNPLANTED))
    runs: dict[str, BenchRun] = {}
    for setting in SETTINGS:
        run = run_bench(
            root / setting,
            f"--model=planted:{plan_path}",
            f"--setting={setting}",
            "-k",
            selection,
            "-n",
            "2",
            "--exec-timeout=8",
        )
        assert (run.run_dir / "summary.json").exists(), run.output[-3000:]
        assert "error" not in Counter(r["outcome"] for r in run.records), run.output[-3000:]
        runs[setting] = run
    expected = {refs[i].key: plan[refs[i].key]["expected"] for i, _, _ in MIX}
    return {"runs": runs, "expected": expected, "instances": len(MIX) + len(UNPLANTED)}


def _table(run: BenchRun, title: str) -> dict[str, list[str]]:
    table = next(t for t in run.summary["suite_tables"] if t["title"] == title)
    return {"headers": table["headers"], **{row[0]: row for row in table["rows"]}}


def _count(cell: str) -> int:
    return int(cell.split("/")[0])


def _instance(record: dict[str, Any]) -> str:
    return record["case"].rsplit("/", 2)[0]


def _failing(expected: dict[str, dict[str, Any]], key: str = "stage1_category") -> list[dict[str, Any]]:
    return [e for e in expected.values() if e[key] is not None]


pytestmark = pytest.mark.slow


def test_every_case_gets_the_planted_category_in_every_setting(planted: dict[str, Any]) -> None:
    expected = planted["expected"]
    for setting in ("stage1", "two_stage", "oracle_reading"):
        records = planted["runs"][setting].records
        assert len(records) == planted["instances"]
        field = "downstream_category" if setting == "oracle_reading" else "stage1_category"
        for record in records:
            want = expected.get(_instance(record), {}).get(field)
            assert record["category"] == want, (setting, record["case"], record["detail"])


def test_official_numbers_are_the_same_with_and_without_diagnostics(planted: dict[str, Any]) -> None:
    stage1, two_stage = planted["runs"]["stage1"], planted["runs"]["two_stage"]
    official = {_instance(r): (r["passed"], r["category"], r["detail"]) for r in stage1.records}
    diagnosed = {_instance(r): (r["passed"], r["category"], r["detail"]) for r in two_stage.records}
    assert diagnosed == official
    for metric in ("pass@1", "valid_code_rate"):
        assert two_stage.summary["metrics"][metric] == stage1.summary["metrics"][metric]
    assert two_stage.summary["failure_categories"] == stage1.summary["failure_categories"]


def test_two_stage_table_recovers_reading_downstream_and_unresolved(planted: dict[str, Any]) -> None:
    failing = _failing(planted["expected"])
    wanted = Counter(
        {"mismatched": "reading_mismatch", "matched": "downstream_after_matched_extraction"}.get(
            e["stage2"], "unresolved"
        )
        for e in failing
    )
    run = planted["runs"]["two_stage"]
    row = _table(run, TWO_STAGE_TITLE)[run.summary["run"]["model"]]
    counts = dict(zip(ATTRIBUTIONS, (_count(cell) for cell in row[1:4]), strict=True))
    assert counts == {name: wanted[name] for name in ATTRIBUTIONS}
    assert row[4] == f"{len(failing)}/{planted['instances']}"
    assert wanted["reading_mismatch"] == 3 and wanted["unresolved"] == 5


def test_unresolved_subtypes_are_recovered(planted: dict[str, Any]) -> None:
    wanted = Counter(e["stage2_fault"] for e in _failing(planted["expected"]) if e["stage2_fault"])
    table = _table(planted["runs"]["two_stage"], PARSE_FAILURE_TITLE)
    assert {fault: int(table[SUBTYPE_LABELS[fault]][1]) for fault in STAGE2_FAULTS} == {
        fault: wanted[fault] for fault in STAGE2_FAULTS
    }
    assert all(wanted[fault] == 1 for fault in STAGE2_FAULTS)


def test_a_reading_mismatch_names_the_misread_field(planted: dict[str, Any]) -> None:
    mismatches = [
        r for r in planted["runs"]["two_stage"].records if r["extra"].get("attribution") == "reading_mismatch"
    ]
    assert len(mismatches) == 3
    for record in mismatches:
        (difference,) = record["extra"]["stage2"]["differences"]
        assert " read as " in difference
        assert difference.startswith("arc (") if "maximum_flow" in record["case"] else "supply[" in difference


def test_fine_taxonomy_recovers_every_planted_class(planted: dict[str, Any]) -> None:
    expected = planted["expected"]
    stage1_classes = Counter(e["stage1_class"] for e in _failing(expected))
    two_stage_classes = Counter(
        {"mismatched": "upstream_reading", "unresolved": "unresolved"}.get(e["stage2"], e["stage1_class"])
        for e in _failing(expected)
    )
    oracle_classes = Counter(e["downstream_class"] for e in _failing(expected, "downstream_category"))
    for setting, wanted in (
        ("stage1", stage1_classes),
        ("two_stage", two_stage_classes),
        ("oracle_reading", oracle_classes),
    ):
        table = _table(planted["runs"][setting], FINE_TITLE)
        column = table["headers"].index(setting)
        for category, label in FINE_LABELS.items():
            cell = table[label][column]
            assert (0 if cell == "-" else int(cell)) == wanted[category], (setting, category)
    assert set(stage1_classes) == {
        "structural_modeling",
        "solution_procedure",
        "undecidable",
        "execution_level",
        "other_code_artifact",
    }


def test_oracle_reading_table_and_solved_share(planted: dict[str, Any]) -> None:
    expected = planted["expected"]
    run = planted["runs"]["oracle_reading"]
    failing = _failing(expected, "downstream_category")
    wanted = Counter(COMPACT_GROUP[e["downstream_class"]] for e in failing)
    row = _table(run, ORACLE_READING_TITLE)[run.summary["run"]["model"]]
    assert {group: _count(cell) for group, cell in zip(COMPACT_LABELS, row[1:4], strict=True)} == {
        group: wanted[group] for group in COMPACT_LABELS
    }
    combined = planted["runs"]["stage1"].records + run.records
    typed = [CaseRecord.model_validate(record) for record in combined]
    share = next(t for t in SUITE.report_tables(typed) if t.title == SOLVED_SHARE_TITLE)
    solved = {row[1]: row[2] for row in share.rows}
    total = planted["instances"]
    assert solved["stage1 (official)"] == f"{total - len(_failing(expected))}/{total}"
    assert solved["oracle_reading"] == f"{total - len(failing)}/{total}"


def test_verified_extraction_scores_only_matching_extractions(planted: dict[str, Any]) -> None:
    expected = planted["expected"]
    run = planted["runs"]["verified_extraction"]
    not_evaluable = {k for k, e in expected.items() if e["stage2"] != "matched"}
    skipped = {_instance(r) for r in run.records if r["outcome"] == "skipped"}
    assert skipped == not_evaluable
    scored = {_instance(r): r["category"] for r in run.records if r["outcome"] in ("passed", "failed")}
    assert len(scored) == planted["instances"] - len(not_evaluable)
    assert all(
        category == expected.get(key, {}).get("downstream_category") for key, category in scored.items()
    )
    row = next(r for r in _table(run, SOLVED_SHARE_TITLE).values() if r[1] == "verified_extraction")
    assert int(row[4]) == len(not_evaluable)
    assert run.summary["counts"]["failed"] == sum(1 for c in scored.values() if c is not None)


@pytest.mark.parametrize("fault", STAGE2_FAULTS)
def test_each_stage2_fault_parses_as_its_subtype(fault: str) -> None:
    package = load_package(_refs()["mcf_e_005"])
    assert parse_stage2(damage_stage2(stage2_reference(package), fault)).unresolved == fault


def test_plans_that_cannot_be_planted_fail_loudly(tmp_path: Path) -> None:
    package = load_package(_refs()["mf_e_001"])
    with pytest.raises(PlanError, match="numeric object keys"):
        damage_stage2(stage2_reference(package), "unquoted_numeric_keys")  # max flow has none
    with pytest.raises(PlanError, match="unknown code fault"):
        damage_code("def solve():\n    return {}\n", "typo")
    bad = tmp_path / "plan.json"
    bad.write_text(json.dumps({"plants": {"x": {"code_fault": "syntax", "colour": 1}}}))
    with pytest.raises(PlanError, match="unknown field"):
        PlantedAdapter(bad)


def test_planted_is_no_alias_of_a_production_run(tmp_path: Path) -> None:
    """Only the tests' plugin makes ``planted:`` an alias; a user's pytest does not know it."""
    plan = write_plan(tmp_path / "plan.json", {})
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--model=planted:{plan}",
               f"--report-dir={tmp_path / 'run'}", "-k", "mf_e_001"]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR and "unknown model alias 'planted:" in done.stderr
    assert not (tmp_path / "run").exists()
    with_plugin = run_bench(tmp_path / "run", f"--model=planted:{plan}", "-k", "mf_e_001")
    assert with_plugin.returncode == 0 and [r["outcome"] for r in with_plugin.records] == ["passed"]
