"""``python -m benchmark rescore RUN_DIR``: score a run again from its log alone.

Every record keeps the case's :class:`~benchmark.attempt.Attempt` (the model's replies, the
artifact, the sandbox runs), so rescoring calls the suite's ``score`` on each stored attempt with
today's scoring code: no model, no sandbox, no pytest run, seconds for a whole run. It writes the
rescored records to ``RUN_DIR/rescore/results.jsonl`` and compares the verdict fields of every
scored case. A difference means the scoring changed (a new harness version, a fixed validator) or
is not deterministic; either way it is listed, case by case.

A run whose records keep no attempt that ``score`` can judge (records written before attempts were
kept, or a suite that still scores while it solves: see
:func:`benchmark.attempt.scored_while_solving`) is rescored as before: every record keeps the raw
response of each model call under the call's request key, so the log is written out as one replay
file and the run's own first command line runs again against it (the real sandbox, the same
dataset and settings; no model, no response cache) into ``RUN_DIR/rescore/run/``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmark.attempt import Attempt
from benchmark.cases import Case
from benchmark.categories import CaseOutcome
from benchmark.plugin.case_record import verdict_fields
from benchmark.plugin.evaluation import checked_verdict
from benchmark.records import FINISHED_OUTCOMES, append_record, latest_by_case, read_records
from benchmark.run import RunPaths, read_manifest
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
#: Options of the original command line that rescoring replaces or must not repeat.
_VALUE_OPTIONS_DROPPED = (
    "--model", "--report-dir", "--record", "--gate", "--gate-allow-unscored", "--cache", "--cache-dir",
    "--max-cost", "--models-file",
)  # fmt: skip
_FLAGS_DROPPED = ("--resume", "--offline")
_REPO = Path(__file__).resolve().parents[1]


def write_turns_replay(records: Sequence[Mapping[str, Any]], path: Path) -> int:
    """Every turn of every record as a replay line keyed by its request key; returns the count."""
    lines: dict[str, dict[str, Any]] = {}
    for record in records:
        for turn in record.get("turns") or ():
            lines.setdefault(
                str(turn["key"]),
                {
                    "case": turn["key"],
                    "response": turn["response"],
                    "finish_reason": turn.get("finish_reason"),
                    "usage": turn.get("usage") or None,
                },
            )
    path.write_text(
        "".join(json.dumps(lines[k], sort_keys=True) + "\n" for k in sorted(lines)), encoding="utf-8"
    )
    return len(lines)


def rescore_arguments(
    original: Sequence[str], model_options: Sequence[str] = (), replay: Path | None = None
) -> list[str]:
    """The original pytest arguments without the model, the run folder and run-control options;
    an option of ``model_options`` (another model the suite asks, e.g. a code modifier) is pointed
    at ``replay``, the log's turns, like the model under test."""
    kept: list[str] = []
    index = 0
    while index < len(original):
        arg = original[index]
        name = arg.split("=", 1)[0]
        if name in _VALUE_OPTIONS_DROPPED or name in model_options:
            index += 1 if "=" in arg else 2
            if name in model_options and replay is not None:
                kept.append(f"{name}=replay:{replay}")
            continue
        if arg not in _FLAGS_DROPPED:
            kept.append(arg)
        index += 1
    return kept


def compare(
    original: Mapping[str, Mapping[str, Any]], rescored: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """One line per scored case whose verdict fields differ (or that was not rescored)."""
    differences = []
    for case, record in sorted(original.items()):
        again = rescored.get(case)
        if again is None:
            differences.append(f"{case}: not rescored")
            continue
        changed = [f for f in VERDICT_FIELDS if _json(record.get(f)) != _json(again.get(f))]
        if changed:
            parts = ", ".join(f"{f}: {record.get(f)!r} -> {again.get(f)!r}" for f in changed)
            differences.append(f"{case}: {parts}")
    return differences


def rescorable(records: Sequence[Mapping[str, Any]]) -> bool:
    """Whether every record keeps an attempt that ``score`` can judge again."""
    return all(
        isinstance(r.get("attempt"), dict) and Attempt.from_record(r["attempt"]).rescorable for r in records
    )


def score_records(
    suite: Suite, dataset: Path, records: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Each record with its verdict fields made again by ``suite.score`` from its stored attempt
    (a case the scoring now cannot judge is skipped or an error, as a run would record it)."""
    instances = {ref.key: ref for ref in suite.discover(dataset)}
    rescored: dict[str, dict[str, Any]] = {}
    for key, record in records.items():
        instance = instances.get(key.rsplit("/", 2)[0])
        if instance is None:
            continue  # not in the dataset any more: listed as not rescored
        case = Case(instance, str(record["setting"]), int(record["sample"]), float(record["temperature"]))
        again = dict(record)
        try:
            verdict = checked_verdict(suite, suite.score(case, Attempt.from_record(record["attempt"])))
            again.update(verdict_fields(verdict))
        except NotEvaluable as exc:
            again.update({"outcome": CaseOutcome.SKIPPED, "passed": False, "category": "not_evaluable",
                          "detail": str(exc)})  # fmt: skip
        except DatasetError as exc:
            again.update({"outcome": CaseOutcome.ERROR, "passed": False, "category": "dataset_error",
                          "detail": str(exc)})  # fmt: skip
        rescored[key] = scrub(again, RECORD_FIELD_CHARS)
    return rescored


def rescore(run_dir: Path) -> int:
    paths = RunPaths(run_dir.resolve())
    if not paths.results.exists():
        print(f"{paths.results}: no results file; is {run_dir} a run folder?", file=sys.stderr)
        return 2
    manifest = read_manifest(paths)
    latest = latest_by_case(read_records(paths.results))
    scored = {k: r for k, r in latest.items() if r.get("outcome") in FINISHED_OUTCOMES}
    out = paths.root / "rescore"
    out.mkdir(exist_ok=True)
    if scored and rescorable(list(scored.values())):
        suite = get_suite(str(manifest.get("suite") or ""))
        dataset = Path(str((manifest.get("dataset") or {}).get("root") or suite.default_dataset()))
        rescored = score_records(suite, dataset, scored)
        (out / "results.jsonl").unlink(missing_ok=True)
        for key in sorted(rescored):
            append_record(out / "results.jsonl", rescored[key])
        source = "their stored attempts"
        where = out / "results.jsonl"
    else:
        replayed = _rerun(paths, manifest, latest, out)
        if replayed is None:
            return 2
        rescored, source, where = replayed
    differences = compare(scored, rescored)
    for line in differences:
        print(line)
    print(
        f"rescored {len(scored)} scored cases from {source}: "
        f"{len(scored) - len(differences)} identical, {len(differences)} differ (records in {where})"
    )
    return 1 if differences else 0


def _rerun(
    paths: RunPaths, manifest: Mapping[str, Any], latest: Mapping[str, Mapping[str, Any]], out: Path
) -> tuple[dict[str, dict[str, Any]], str, Path] | None:
    """The run's first command line again against a replay of its log (records without attempts)."""
    sessions = manifest.get("sessions") or []
    if not sessions:
        print(f"{paths.manifest}: no session recorded, so the run's command line is unknown", file=sys.stderr)
        return None
    replay = out / "turns.jsonl"
    turns = write_turns_replay(list(latest.values()), replay)
    suite = get_suite(str(manifest.get("suite") or ""))
    arguments = rescore_arguments(sessions[0]["args"], suite.model_options, replay)
    command = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *arguments,
        f"--model=replay:{replay}", f"--report-dir={out / 'run'}", f"--cache-dir={out / 'unused-cache'}",
        "--cache=off",
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"}
    subprocess.run(
        command, cwd=_REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    rescored = latest_by_case(read_records(RunPaths(out / "run").results))
    return rescored, f"{turns} recorded turns, run again", out / "run"


def _json(value: Any) -> str:
    """A verdict field as compared: key order is not a difference (records are written sorted)."""
    return json.dumps(value, sort_keys=True)
