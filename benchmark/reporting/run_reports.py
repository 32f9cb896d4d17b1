"""The report files of a run folder (``summary.json``, ``summary.md``, ``report.html``), built from
its records; written at the end of a session, by ``optbench summarize`` and by ``optbench merge``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.records import latest_records
from benchmark.reporting.html import write_html_report
from benchmark.reporting.render import to_markdown
from benchmark.reporting.summary import build_summary
from benchmark.run import RunPaths
from benchmark.sandbox import isolation_warning
from benchmark.schema import CaseRecord, RunSummary
from benchmark.suites.base import Suite


def run_info_from_manifest(manifest: Mapping[str, Any], suite: Suite) -> dict[str, Any]:
    """The run lines of every summary (model, suite, setting, schedule, dataset, sandbox and what
    the suite records about its scoring), read from the run's manifest, so the summary written at
    the end of a session and one rebuilt later by ``optbench summarize`` say the same."""
    decoding = manifest.get("decoding") or {}
    schedule = decoding.get("schedule")
    sandbox = manifest.get("sandbox") or {}
    warning = isolation_warning(sandbox) if sandbox else None
    run_info: dict[str, Any] = {
        "model": (manifest.get("model") or {}).get("alias"),
        "suite": suite.name,
        "setting": manifest.get("setting"),
        "schedule": schedule
        if schedule in (None, "paper")
        else f"{schedule} ({decoding.get('samples')} samples)",
        "dataset": (manifest.get("dataset") or {}).get("root"),
        "sandbox": f"{sandbox.get('kind')} ({warning})" if warning else sandbox.get("kind"),
    }
    for key in suite.run_info():
        run_info[key] = manifest.get(key)
    return run_info


def summarize_run(
    paths: RunPaths, run_info: dict[str, Any], suite: Suite, selected: list[str] | None = None
) -> dict[str, Any]:
    """Build the summary of the run's latest record per case and write its report files."""
    records = latest_records(paths.results)
    summary = build_summary(
        records,
        run_info,
        suite.report_tables(records),
        suite.official_settings,
        selected=selected,
        groupings=suite.groupings,
        failure_categories=suite.failure_categories,
    )
    write_summary(paths, summary, records)
    return summary


def write_summary(
    paths: RunPaths, summary: Mapping[str, Any], records: Sequence[CaseRecord] | None = None
) -> None:
    """Write the report files of ``summary`` (again, once a gate has added its decision), checked
    against :class:`RunSummary` first."""
    RunSummary.model_validate(summary)
    paths.summary_json.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    paths.summary_md.write_text(to_markdown(summary), encoding="utf-8")
    write_html_report(paths, summary, records)
