"""``python -m benchmark rescore RUN_DIR``: score a run again from its log alone.

Every record keeps the case's :class:`~benchmark.attempt.Attempt` (the model's replies, the
artifact, the sandbox runs), so rescoring calls the suite's ``score`` on each stored attempt with
today's scoring code: no model, no sandbox, no pytest run, seconds for a whole run. It writes the
rescored records to ``RUN_DIR/rescore/results.jsonl`` and compares the verdict fields of every
scored case. A difference means the scoring changed (a new harness version, a fixed validator) or
is not deterministic; either way it is listed, case by case.

A run written before records kept their attempt is refused with that reason: its cases must be
run again (``--model=replay:FILE`` answers them with the recorded responses).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmark.attempt import Attempt
from benchmark.cases import Case
from benchmark.categories import CaseOutcome, InfrastructureCategory, SkipCategory
from benchmark.plugin.case_record import verdict_fields
from benchmark.plugin.evaluation import checked_verdict
from benchmark.records import FINISHED_OUTCOMES, append_record, case_record, latest_by_case, read_records
from benchmark.run import RunPaths, read_manifest
from benchmark.schema import CaseRecord
from benchmark.suites.base import Suite, get_suite
from benchmark.textsafe import RECORD_FIELD_CHARS, scrub
from benchmark.verdict import DatasetError, NotEvaluable

#: The fields of a record that are its verdict; rescoring must reproduce them exactly.
VERDICT_FIELDS: tuple[str, ...] = (
    "outcome",
    "passed",
    "category",
    "detail",
    "valid_code",
    "expected_objective",
    "returned_objective",
    "recomputed_objective",
    "scores",
)


def compare(original: Mapping[str, CaseRecord], rescored: Mapping[str, CaseRecord]) -> list[str]:
    """One line per scored case whose verdict fields differ (or that was not rescored)."""
    differences = []
    for case, record in sorted(original.items()):
        again = rescored.get(case)
        if again is None:
            differences.append(f"{case}: not rescored")
            continue
        before, after = record.as_json(), again.as_json()
        changed = [f for f in VERDICT_FIELDS if _json(before.get(f)) != _json(after.get(f))]
        if changed:
            parts = ", ".join(f"{f}: {before.get(f)!r} -> {after.get(f)!r}" for f in changed)
            differences.append(f"{case}: {parts}")
    return differences


def record_responses(record: CaseRecord) -> list[str]:
    """The responses of a record's model calls, in order (what its attempt's replies point to)."""
    return [turn.response for turn in record.turns]


def missing_attempts(records: Mapping[str, CaseRecord]) -> list[str]:
    """The cases whose record keeps no attempt (written before records kept one)."""
    return [key for key, record in records.items() if record.attempt is None]


def score_records(suite: Suite, dataset: Path, records: Mapping[str, CaseRecord]) -> dict[str, CaseRecord]:
    """Each record with its verdict fields made again by ``suite.score`` from its stored attempt
    (a case the scoring now cannot judge is skipped or an error, as a run would record it)."""
    instances = {ref.key: ref for ref in suite.discover(dataset)}
    rescored: dict[str, CaseRecord] = {}
    for key, record in records.items():
        instance = instances.get(key.rsplit("/", 2)[0])
        if instance is None or record.attempt is None:
            continue  # not in the dataset any more: listed as not rescored
        case = Case(instance, record.setting, record.sample, float(record.temperature or 0.0))
        again = record.as_json()
        try:
            attempt = Attempt.from_record(record.attempt, record_responses(record))
            verdict = checked_verdict(suite, suite.score(case, attempt))
            again.update(verdict_fields(verdict))
        except NotEvaluable as exc:
            again.update({"outcome": CaseOutcome.SKIPPED, "passed": False,
                          "category": SkipCategory.NOT_EVALUABLE, "detail": str(exc)})  # fmt: skip
        except DatasetError as exc:
            again.update({"outcome": CaseOutcome.ERROR, "passed": False,
                          "category": InfrastructureCategory.DATASET_ERROR, "detail": str(exc)})  # fmt: skip
        rescored[key] = case_record(scrub(again, RECORD_FIELD_CHARS), f"rescored record of case {key!r}")
    return rescored


def rescore(run_dir: Path) -> int:
    paths = RunPaths(run_dir.resolve())
    if not paths.results.exists():
        print(f"{paths.results}: no results file; is {run_dir} a run folder?", file=sys.stderr)
        return 2
    manifest = read_manifest(paths)
    latest = latest_by_case(read_records(paths.results))
    scored = {k: r for k, r in latest.items() if r.outcome in FINISHED_OUTCOMES}
    missing = missing_attempts(scored)
    if missing:
        print(
            f"{paths.results}: {len(missing)} scored records keep no attempt (written before records "
            f"kept one, e.g. {missing[0]}); run those cases again to rescore them",
            file=sys.stderr,
        )
        return 2
    suite = get_suite(str(manifest.get("suite") or ""))
    dataset = Path(str((manifest.get("dataset") or {}).get("root") or suite.default_dataset()))
    rescored = score_records(suite, dataset, scored)
    out = paths.root / "rescore"
    out.mkdir(exist_ok=True)
    (out / "results.jsonl").unlink(missing_ok=True)
    for key in sorted(rescored):
        append_record(out / "results.jsonl", rescored[key])
    differences = compare(scored, rescored)
    for line in differences:
        print(line)
    print(
        f"rescored {len(scored)} scored cases from their stored attempts: "
        f"{len(scored) - len(differences)} identical, {len(differences)} differ "
        f"(records in {out / 'results.jsonl'})"
    )
    return 1 if differences else 0


def _json(value: Any) -> str:
    """A verdict field as compared: key order is not a difference (records are written sorted)."""
    return json.dumps(value, sort_keys=True)
