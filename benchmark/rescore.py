"""``python -m benchmark rescore RUN_DIR``: score a run again from its log alone.

Every record keeps the raw response of each model call under the call's request key, so the log
is a replay file in all but layout. Rescoring writes those turns as one, runs the run's own first
command line again against it (the real sandbox, the same dataset and settings; no model, no
response cache) into ``RUN_DIR/rescore/``, and compares the verdict fields of every scored case.
A difference means the scoring changed (a new harness version, a fixed validator) or is not
deterministic; either way it is listed, case by case.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmark.records import FINISHED_OUTCOMES, latest_by_case, read_records
from benchmark.run import RunPaths, read_manifest
from benchmark.suites.base import get_suite

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
        changed = [f for f in VERDICT_FIELDS if json.dumps(record.get(f)) != json.dumps(again.get(f))]
        if changed:
            parts = ", ".join(f"{f}: {record.get(f)!r} -> {again.get(f)!r}" for f in changed)
            differences.append(f"{case}: {parts}")
    return differences


def rescore(run_dir: Path) -> int:
    paths = RunPaths(run_dir.resolve())
    if not paths.results.exists():
        print(f"{paths.results}: no results file; is {run_dir} a run folder?", file=sys.stderr)
        return 2
    manifest = read_manifest(paths)
    sessions = manifest.get("sessions") or []
    if not sessions:
        print(f"{paths.manifest}: no session recorded, so the run's command line is unknown", file=sys.stderr)
        return 2
    latest = latest_by_case(read_records(paths.results))
    scored = {k: r for k, r in latest.items() if r.get("outcome") in FINISHED_OUTCOMES}
    out = paths.root / "rescore"
    out.mkdir(exist_ok=True)
    replay = out / "turns.jsonl"
    turns = write_turns_replay(list(latest.values()), replay)
    (out / "results.jsonl").unlink(missing_ok=True)
    model_options = getattr(get_suite(str(manifest.get("suite") or "")), "model_options", ())
    arguments = rescore_arguments(sessions[0]["args"], model_options, replay)
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
    differences = compare(scored, rescored)
    for line in differences:
        print(line)
    print(
        f"rescored {len(scored)} scored cases from {turns} recorded turns: "
        f"{len(scored) - len(differences)} identical, {len(differences)} differ (run in {out / 'run'})"
    )
    return 1 if differences else 0
