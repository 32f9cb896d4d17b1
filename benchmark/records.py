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
from benchmark.schema import SCHEMA_VERSION, CaseRecord, ValidationError, problems

RESULTS_FILE = "results.jsonl"
#: Outcomes that finish a case; ``error`` (infrastructure) and ``skipped`` cases are run again on resume.
FINISHED_OUTCOMES = frozenset({CaseOutcome.PASSED, CaseOutcome.FAILED})


class RecordSchemaError(ValueError):
    """A record that does not fit the schema (names the file, the line or case, and the fields)."""


def append_record(path: Path, record: Mapping[str, Any]) -> None:
    body = {"schema_version": SCHEMA_VERSION, **record}
    try:
        CaseRecord.model_validate(body)
    except ValidationError as exc:
        raise RecordSchemaError(f"{path}: record of case {record.get('case')!r}: {problems(exc)}") from None
    append_lines(path, json.dumps(body, sort_keys=True, default=str) + "\n", fsync=True)


def read_records(path: Path) -> list[dict[str, Any]]:
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
        try:
            CaseRecord.model_validate(value)
        except ValidationError as exc:
            raise RecordSchemaError(f"{path}:{number}: {problems(exc)}") from None
        records.append(value)
    return records


def latest_by_case(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    latest: dict[str, dict[str, Any]] = {}
    for record in records:
        latest[str(record["case"])] = dict(record)
    return latest


def finished_cases(path: Path) -> dict[str, dict[str, Any]]:
    """Cases whose newest record is a model verdict (passed or failed): ``--resume`` skips these."""
    return {
        key: r
        for key, r in latest_by_case(read_records(path)).items()
        if r.get("outcome") in FINISHED_OUTCOMES
    }
