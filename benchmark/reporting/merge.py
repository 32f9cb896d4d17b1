"""``python -m benchmark merge RUN_DIR… --out DIR``: shard run folders (``--shard I/N``) into one run.

The merged folder is a run like any other: its ``results.jsonl`` holds every shard's records, its
manifest the shards' sessions, its ``junit.xml`` every shard's test cases, and its summary is
computed from the merged records exactly as a single-machine run's is. Shards that do not belong
to one run (another dataset version, model, setting, decoding or scoring mode, another shard count,
a shard given twice or missing) are refused with the reason; a case recorded by two shards is
refused; a selected case that no shard recorded is counted as ``not recorded`` in the summary.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from benchmark.records import latest_by_case, read_records
from benchmark.run import RunPaths, read_manifest, write_manifest

#: Manifest fields every shard of one run shares.
RUN_IDENTITY: tuple[tuple[str, ...], ...] = (
    ("suite",), ("dataset", "name"), ("dataset", "version"), ("dataset", "sha256"), ("model", "alias"),
    ("decoding",), ("setting",), ("scoring",), ("objective_only",), ("execution",),
)  # fmt: skip


class MergeError(ValueError):
    """Run folders that are not the shards of one run."""


@dataclass(frozen=True)
class MergeResult:
    paths: RunPaths
    records: int
    selected: int
    missing: list[str]


def _field(manifest: Mapping[str, Any], path: Sequence[str]) -> Any:
    value: Any = manifest
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _check_shards(manifests: Sequence[tuple[Path, dict[str, Any]]]) -> None:
    first_dir, first = manifests[0]
    problems = []
    for root, manifest in manifests:
        if not manifest:
            problems.append(f"{root}: no manifest.json")
            continue
        for path in RUN_IDENTITY:
            if _field(manifest, path) != _field(first, path):
                problems.append(
                    f"{'.'.join(path)} differs: {_field(first, path)!r} in {first_dir} vs "
                    f"{_field(manifest, path)!r} in {root}"
                )
    shards = [(root, manifest.get("shard")) for root, manifest in manifests if manifest]
    unsharded = [str(root) for root, shard in shards if not shard]
    if unsharded:
        problems.append(f"not a shard (run without --shard): {', '.join(unsharded)}")
    counts = {shard["count"] for _, shard in shards if shard}
    if len(counts) > 1:
        problems.append(f"shards of different shard counts: {sorted(counts)}")
    elif counts and not unsharded:
        count = counts.pop()
        indices = [shard["index"] for _, shard in shards if shard]
        doubled = sorted({i for i in indices if indices.count(i) > 1})
        absent = sorted(set(range(1, count + 1)) - set(indices))
        if doubled:
            problems.append(f"shard(s) given twice: {', '.join(f'{i}/{count}' for i in doubled)}")
        if absent:
            problems.append(f"shard(s) missing: {', '.join(f'{i}/{count}' for i in absent)}")
    if problems:
        raise MergeError("refusing to merge: " + "; ".join(problems))


def _merge_junit(sources: Sequence[Path], target: Path) -> None:
    """One ``<testsuite>`` with every shard's test cases and summed counters. Its time is the span
    from the first shard's start to the last one's end (shards run side by side, so their times
    do not add up), or the sum when a shard's file has no timestamp."""
    merged = ElementTree.Element("testsuite", {"name": "pytest"})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    spans: list[tuple[datetime, datetime]] = []
    stamps_complete = True
    for source in sources:
        if not source.exists():
            continue
        root = ElementTree.parse(source).getroot()
        for suite in [root] if root.tag == "testsuite" else root.iter("testsuite"):
            for name in totals:
                totals[name] += int(suite.get(name, "0"))
            duration = float(suite.get("time", "0"))
            seconds += duration
            started = _timestamp(suite.get("timestamp"))
            if started is None:
                stamps_complete = False
            else:
                spans.append((started, started + timedelta(seconds=duration)))
            merged.extend(suite.findall("testcase"))
    for name, value in totals.items():
        merged.set(name, str(value))
    if spans and stamps_complete:
        first = min(start for start, _ in spans)
        seconds = (max(end for _, end in spans) - first).total_seconds()
        merged.set("timestamp", first.isoformat())
    merged.set("time", f"{seconds:.3f}")
    document = ElementTree.Element("testsuites", {"time": f"{seconds:.3f}"})
    document.append(merged)
    ElementTree.ElementTree(document).write(target, encoding="utf-8", xml_declaration=True)


def _timestamp(text: str | None) -> datetime | None:
    try:
        stamp = datetime.fromisoformat(text) if text else None
    except ValueError:
        return None
    return stamp.astimezone() if stamp is not None and stamp.tzinfo is None else stamp


def merge_runs(shard_dirs: Sequence[Path], out: Path) -> MergeResult:
    """Write the merged run into ``out`` (records, manifest, JUnit); the caller summarizes it."""
    if not shard_dirs:
        raise MergeError("no run folders to merge")
    shard_paths = [RunPaths(d) for d in shard_dirs]
    for paths in shard_paths:
        if not paths.results.exists():
            raise MergeError(f"{paths.results}: no results file; is {paths.root} a run folder?")
    manifests = [(p.root, read_manifest(p)) for p in shard_paths]
    _check_shards(manifests)
    owner: dict[str, Path] = {}
    records: dict[str, dict[str, Any]] = {}
    duplicated = []
    for paths in shard_paths:
        for key, record in latest_by_case(read_records(paths.results)).items():
            if key in owner:
                duplicated.append(f"{key} ({owner[key]} and {paths.root})")
            owner[key] = paths.root
            records[key] = record.as_json()
    if duplicated:
        shown = "; ".join(duplicated[:10])
        raise MergeError(f"refusing to merge: {len(duplicated)} case(s) recorded by two shards: {shown}")
    selected: list[str] = []
    sessions: list[dict[str, Any]] = []
    for _, manifest in manifests:
        shard_sessions = manifest.get("sessions") or [{}]
        selected += shard_sessions[-1].get("selected") or []
        sessions += [
            {**session, "shard": manifest.get("shard")} for session in manifest.get("sessions") or ()
        ]
    missing = sorted(set(selected) - set(records))
    merged = RunPaths(out)
    out.mkdir(parents=True, exist_ok=True)
    merged.results.write_text(
        "".join(json.dumps(records[key], sort_keys=True) + "\n" for key in sorted(records)), encoding="utf-8"
    )
    body = {k: v for k, v in manifests[0][1].items() if k not in ("schema_version", "harness_version")}
    body.update(
        shard=None,
        merged_from=[{"run": str(root), "shard": manifest.get("shard")} for root, manifest in manifests],
        sessions=[*sessions, {"merged": True, "selected": sorted(set(selected))}],
    )
    write_manifest(merged, body)
    _merge_junit([p.junit for p in shard_paths], merged.junit)
    return MergeResult(merged, len(records), len(set(selected)), missing)


def shard_run_info(shard_dir: Path) -> dict[str, Any]:
    """The run description a shard's summary carries (model, suite, setting, …), without its gate."""
    summary_path = RunPaths(shard_dir).summary_json
    run = json.loads(summary_path.read_text(encoding="utf-8")).get("run", {}) if summary_path.exists() else {}
    return {k: v for k, v in run.items() if k not in ("gate", "recording")}
