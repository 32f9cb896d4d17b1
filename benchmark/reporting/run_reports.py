"""The report files of a run folder (``summary.json``, ``summary.md``, ``report.html``), built from
its records; written at the end of a session, by ``optbench summarize`` and by ``optbench merge``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.records import latest_by_case, read_records
from benchmark.reporting.html import write_html_report
from benchmark.reporting.render import to_markdown
from benchmark.reporting.summary import build_summary
from benchmark.run import RunPaths
from benchmark.suites.base import Suite


def summarize_run(
    paths: RunPaths, run_info: dict[str, Any], suite: Suite, selected: list[str] | None = None
) -> dict[str, Any]:
    """Build the summary of the run's latest record per case and write its report files."""
    records = list(latest_by_case(read_records(paths.results)).values())
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
    paths: RunPaths, summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]] | None = None
) -> None:
    """Write the report files of ``summary`` (again, once a gate has added its decision)."""
    paths.summary_json.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    paths.summary_md.write_text(to_markdown(summary), encoding="utf-8")
    write_html_report(paths, summary, records)
