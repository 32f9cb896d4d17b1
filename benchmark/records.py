"""Result records: one JSON line per case in ``<run>/results.jsonl``, written as the case finishes.

Appends take an exclusive ``flock`` and write the whole line in one call, so xdist workers never
interleave lines and a crash loses at most the case in flight. Readers tolerate a torn last line
(the only damage a crash can do) and keep the newest record per case, which is what ``--resume``
and the reports need. Both sides check records against :class:`benchmark.schema.CaseRecord`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from benchmark.categories import CaseOutcome
from benchmark.files import append_lines, split_lines
from benchmark.schema import CaseRecord, SchemaVersionError, ValidationError, problems, upgraded

RESULTS_FILE = "results.jsonl"
#: Outcomes that finish a case; ``error`` (infrastructure) and ``skipped`` cases are run again on resume.
FINISHED_OUTCOMES = frozenset({CaseOutcome.PASSED, CaseOutcome.FAILED})


class RecordSchemaError(ValueError):
    """A record that does not fit the schema (names the file, the line or case, and the fields)."""


def append_record(path: Path, record: CaseRecord | Mapping[str, Any]) -> None:
    """Append one record; fields given as a mapping are checked against :class:`CaseRecord`
    first, and what is written is the model's JSON (the fields it was given, keys sorted)."""
    if not isinstance(record, CaseRecord):
        fields = record
        record = case_record(fields, f"{path}: record of case {fields.get('case')!r}")
    append_lines(path, json.dumps(record.as_json(), sort_keys=True) + "\n", fsync=True)


def case_record(fields: Mapping[str, Any], where: str) -> CaseRecord:
    """``fields`` as a :class:`CaseRecord` (upgraded from an older schema version), or a
    :class:`RecordSchemaError` naming ``where`` and the bad fields."""
    try:
        return CaseRecord.model_validate(upgraded(dict(fields), where))
    except SchemaVersionError as exc:
        raise RecordSchemaError(str(exc)) from None
    except ValidationError as exc:
        raise RecordSchemaError(f"{where}: {problems(exc)}") from None


def read_records(path: Path) -> list[CaseRecord]:
    """Every intact record, in file order (a torn line from a crash is skipped; a whole line that
    does not fit the schema is an error naming FILE:LINE)."""
    if not path.exists():
        return []
    records = []
    for number, line in enumerate(split_lines(path.read_text(encoding="utf-8")), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        except RecursionError:
            raise RecordSchemaError(f"{path}:{number}: nested too deeply to be a record") from None
        if not isinstance(value, dict):
            raise RecordSchemaError(f"{path}:{number}: a record is a JSON object, not {type(value).__name__}")
        records.append(case_record(value, f"{path}:{number}"))
    return records


def latest_by_case(records: Iterable[CaseRecord]) -> dict[str, CaseRecord]:
    return {record.case: record for record in records}


def latest_records(path: Path) -> list[CaseRecord]:
    """The newest record per case, in the order the cases were first recorded: what the report
    writers (summary, HTML, JUnit, the suites' tables) take."""
    return list(latest_by_case(read_records(path)).values())


def finished_cases(path: Path) -> dict[str, CaseRecord]:
    """Cases whose newest record is a model verdict (passed or failed): ``--resume`` skips these."""
    return {key: r for key, r in latest_by_case(read_records(path)).items() if r.outcome in FINISHED_OUTCOMES}
