"""The run log's schema is enforced where records, manifests and replay lines are written and read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark.categories import CaseOutcome
from benchmark.records import RecordSchemaError, append_record, read_records
from benchmark.run import RunPaths, read_manifest, write_manifest
from benchmark.schema import SCHEMA_VERSION, CaseRecord

GOOD = {"suite": "mmopt", "case": "mmopt/a/b/c/d/stage1/s0", "outcome": "passed", "passed": True,
        "setting": "stage1", "sample": 0}  # fmt: skip


def test_records_are_written_with_their_schema_version_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    given = GOOD | {
        "turns": [{"key": GOOD["case"], "response": "text"}],
        "custom": "x",
        "returned_objective": 5,
    }
    append_record(path, given)
    (record,) = read_records(path)
    assert isinstance(record, CaseRecord)
    assert record.schema_version == SCHEMA_VERSION and record.label("custom") == "x"
    assert record.turns[0].response == "text" and record.outcome is CaseOutcome.PASSED
    # written again it is the same JSON: the given keys only, and an integer stays an integer
    assert json.loads(path.read_text()) == {"schema_version": SCHEMA_VERSION, **given}
    append_record(path, record)
    first, second = path.read_text().splitlines()
    assert first == second and '"returned_objective": 5,' in first


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"outcome": "maybe"}, "'outcome'"),
        ({"sample": -1}, "'sample'"),
        ({"turns": [{"key": "k"}]}, "'turns.0.response'"),
    ],
)
def test_a_record_that_does_not_fit_is_refused_naming_the_case_and_field(
    tmp_path: Path, change: dict, field: str
) -> None:
    with pytest.raises(RecordSchemaError, match=rf"record of case 'mmopt/a/b/c/d/stage1/s0': .*{field}"):
        append_record(tmp_path / "results.jsonl", GOOD | change)
    assert not (tmp_path / "results.jsonl").exists()


def test_a_reader_names_the_line_that_does_not_fit_and_skips_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    append_record(path, GOOD)
    with path.open("a") as fh:
        fh.write('{"case": "x", "outcome": "passed"')  # torn by a crash
    assert len(read_records(path)) == 1
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({"case": "y"}) + "\n")
    with pytest.raises(RecordSchemaError, match=r"results.jsonl:2: 'suite': Field required"):
        read_records(path)


def test_a_record_from_a_newer_schema_is_not_misread(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(
        json.dumps(GOOD) + "\n" + json.dumps(GOOD | {"schema_version": SCHEMA_VERSION + 1}) + "\n"
    )
    with pytest.raises(
        RecordSchemaError, match=rf"results.jsonl:2: schema_version {SCHEMA_VERSION + 1} is newer"
    ):
        read_records(path)


def test_a_record_of_an_older_schema_without_an_upgrade_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(GOOD | {"schema_version": 0}) + "\n")
    with pytest.raises(RecordSchemaError, match=r"results.jsonl:1: schema_version 0 is older .* no upgrade"):
        read_records(path)


def test_manifests_carry_the_schema_version_and_must_name_the_suite(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path)
    write_manifest(paths, {"suite": "mmopt", "sessions": [{"args": ["--model=oracle"]}]})
    assert read_manifest(paths)["schema_version"] == SCHEMA_VERSION
    with pytest.raises(ValueError, match="suite"):
        write_manifest(paths, {"sessions": []})


def test_request_lines_are_checked_when_written_and_only_they_count_as_spend(tmp_path: Path) -> None:
    from benchmark.ledger import LEDGER_FILE, RequestLedger, read_request_lines
    from benchmark.schema import ValidationError

    path = tmp_path / LEDGER_FILE
    ledger = RequestLedger(path, "s1")
    ledger.append({"case": "c1", "ok": True, "wall_s": 0.5, "retries": 1, "cost_usd": 0.25})
    with pytest.raises(ValidationError, match="cost_usdd"):
        ledger.append({"case": "c2", "ok": True, "wall_s": 0.1, "cost_usdd": 9.0})  # a mistyped field
    with pytest.raises(ValidationError, match="wall_s"):
        ledger.append({"case": "c2", "ok": False})
    with path.open("a", encoding="utf-8") as fh:  # another session's line, and lines of no request
        fh.write(json.dumps({"session": "s2", "at": "t", "ok": True, "wall_s": 1, "cost_usd": 5.0}) + "\n")
        fh.write(json.dumps({"session": "s1", "cost_usd": 7.0}) + "\n" + "not json\n")
    (line, other) = read_request_lines(path)
    assert (line.case, line.cost_usd, line.retries, other.session) == ("c1", 0.25, 1, "s2")
    spend = RequestLedger(path, "s1").spend()
    assert (spend.requests, spend.cost_usd, spend.retries) == (1, 0.25, 1)


def test_a_built_summary_fits_its_schema_and_a_damaged_one_is_not_written(tmp_path: Path) -> None:
    from benchmark.reporting.run_reports import write_summary
    from benchmark.reporting.summary import build_summary
    from benchmark.schema import RunSummary, ValidationError

    summary = build_summary([CaseRecord.model_validate(GOOD)], {"model": "m"}, selected=[GOOD["case"]])
    assert RunSummary.model_validate(summary).counts.passed == 1
    paths = RunPaths(tmp_path)
    damaged = {**summary, "counts": {**summary["counts"], "passed": "one"}}
    with pytest.raises(ValidationError, match=r"counts\.passed"):
        write_summary(paths, damaged, [])
    assert not paths.summary_json.exists()
