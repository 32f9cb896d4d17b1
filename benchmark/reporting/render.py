"""Turning a summary into tables, then into Markdown (``summary.md``) or aligned terminal text.

One set of tables feeds both renderings, so the terminal and the Markdown report cannot disagree.
The Markdown layout is locked by a snapshot test: change it on purpose, review the diff.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Table:
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{100.0 * float(value):.1f}%"


def _pass_columns(block: Mapping[str, Any]) -> list[str]:
    return sorted(
        (key for key in block if key.startswith("pass@") and "_" not in key), key=lambda k: int(k[5:])
    )


def _interval(block: Mapping[str, Any], metric: str) -> str:
    bounds = (block.get("ci95") or {}).get(metric)
    return "n/a" if not bounds else f"{100 * bounds[0]:.1f}–{100 * bounds[1]:.1f}%"


def _metric_row(name: str, block: Mapping[str, Any], columns: Sequence[str]) -> tuple[str, ...]:
    return (
        name,
        str(block["instances"]),
        str(block["samples"]),
        *(_pct(block.get(column)) for column in columns),
        _interval(block, "pass@1"),
        _pct(block.get("valid_code_rate")),
        _interval(block, "valid_code_rate"),
    )


def summary_tables(summary: Mapping[str, Any]) -> list[Table]:
    metrics = summary["metrics"]
    columns = _pass_columns(metrics)
    headers = ("", "instances", "samples", *columns, "pass@1 95% CI", "valid code", "valid code 95% CI")
    tables = [Table("Overall", headers, (_metric_row("all", metrics, columns),))]
    over_runs = metrics.get("pass@1_over_runs")
    if over_runs:
        vcr = metrics["valid_code_rate_over_runs"]
        rows: tuple[tuple[str, ...], ...] = (
            ("pass@1", f"{100 * over_runs['mean']:.1f}% ± {100 * over_runs['std']:.1f}%"),
            ("valid code rate", f"{100 * vcr['mean']:.1f}% ± {100 * vcr['std']:.1f}%"),
        )
        rows += tuple(
            (key.replace("_stochastic_runs", " (stochastic runs)"), _pct(value))
            for key, value in metrics.items()
            if key.endswith("_stochastic_runs")
        )
        tables.append(Table(f"Over {metrics['runs']} runs (mean ± std)", ("metric", "value"), rows))
    for grouping in summary.get("groupings") or ():
        groups = summary.get(f"by_{grouping}")
        if groups:
            rows = tuple(_metric_row(name, block, columns) for name, block in groups.items())
            tables.append(Table(f"By {grouping}", (grouping, *headers[1:]), rows))
    settings = summary.get("by_setting")
    if settings:
        rows = tuple(
            (f"{name}{'' if block['official'] else ' (diagnostic)'}", *_metric_row(name, block, columns)[1:])
            for name, block in settings.items()
        )
        title = "By setting (only official settings count above)"
        tables.append(Table(title, ("setting", *headers[1:]), rows))
    counts = summary["counts"]
    failures = summary.get("failure_categories") or {}
    if failures:
        failed = max(1, counts["failed"])
        rows = tuple((name, str(n), _pct(n / failed)) for name, n in failures.items())
        tables.append(Table("Failures by category", ("category", "samples", "share of failures"), rows))
    infra = summary.get("infrastructure") or {}
    if infra or counts["skipped"]:
        rows = tuple((name, str(n)) for name, n in infra.items())
        rows += tuple(
            (f"skipped: {reason}", str(n)) for reason, n in (summary.get("skipped_reasons") or {}).items()
        )
        tables.append(Table("Not scored (infrastructure errors and skips)", ("reason", "cases"), rows))
    for table in summary.get("suite_tables") or ():
        tables.append(
            Table(table["title"], tuple(table["headers"]), tuple(tuple(row) for row in table["rows"]))
        )
    return tables


def headline(summary: Mapping[str, Any]) -> list[str]:
    """The first lines of every summary: what was selected, recorded and scored, and why the rest
    was not, so a run that lost cases cannot read as complete."""
    counts = summary["counts"]
    selected = counts.get("selected")
    first = f"selected {selected}, " if selected is not None else ""
    lines = [
        f"{first}recorded {counts['recorded']}, scored {counts['scored']} "
        f"({counts['passed']} passed, {counts['failed']} failed)"
    ]
    not_scored = summary.get("not_scored") or {}
    if not_scored:
        reasons = ", ".join(f"{reason} {n}" for reason, n in not_scored.items())
        lines.append(f"not scored {sum(not_scored.values())}: {reasons}")
    else:
        lines.append("not scored 0")
    shared = (summary.get("accounting") or {}).get("shared_replies")
    if shared:
        lines.append(f"{shared} cases got the cached reply of another case with the identical request")
    return lines


def accounting_lines(summary: Mapping[str, Any]) -> list[str]:
    """The model side of the run in words: calls and cache, tokens and truncation, cost (what this
    run sent beside what the replies first cost) and time."""
    a = summary.get("accounting") or {}
    if not a:
        return []
    calls, hits = int(a.get("model_calls") or 0), int(a.get("cache_hits") or 0)
    lines = [f"model calls {calls}, {hits} answered from the cache"]
    lines.append(
        f"tokens {int(a.get('input_tokens') or 0):,} in, {int(a.get('output_tokens') or 0):,} out; "
        f"{int(a.get('truncated') or 0)} cases truncated at the token limit"
    )
    if a.get("cost_usd") is None:
        lines.append("cost not known (no prices for this model)")
    else:
        sent = a.get("cost_usd_sent")
        shown = "n/a" if sent is None else f"${float(sent):.4f}"
        lines.append(f"cost {shown} sent by this run (${float(a['cost_usd']):.4f} as the replies first cost)")
    lines.append(
        f"model time {float(a.get('model_time_s') or 0):.1f} s over all calls, "
        f"execution {float(a.get('execution_time_s') or 0):.1f} s"
    )
    return lines


def to_markdown(summary: Mapping[str, Any]) -> str:
    run = summary.get("run") or {}
    counts = summary["counts"]
    lines = ["# Benchmark run", "", *(f"**{line}**  " for line in headline(summary)), ""]
    for key in ("model", "suite", "setting", "scoring", "schedule", "dataset", "sandbox"):
        if run.get(key) is not None:
            lines.append(f"- **{key}**: {run[key]}")
    lines.append(
        f"- **cases**: {counts['cases']} ({counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['infrastructure_errors']} infrastructure errors, {counts['skipped']} skipped)"
    )
    lines += [f"- {line}" for line in accounting_lines(summary)]
    method = (summary["metrics"].get("ci95") or {}).get("method")
    if method:
        lines.append(f"- **95% intervals**: {method}")
    gate = run.get("gate")
    if gate:
        lines.append(f"- **gate**: {'passed' if gate['passed'] else 'FAILED'} ({'; '.join(gate['lines'])})")
    lines.append("")
    for table in summary_tables(summary):
        lines += [f"## {table.title}", "", "| " + " | ".join(table.headers) + " |"]
        lines.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(table.headers))) + "|")
        lines += ["| " + " | ".join(row) + " |" for row in table.rows]
        lines.append("")
    return "\n".join(lines)


def to_text(summary: Mapping[str, Any]) -> list[str]:
    """Aligned plain-text tables for the terminal summary."""
    out: list[str] = [*headline(summary), *accounting_lines(summary), ""]
    for table in summary_tables(summary):
        widths = [max(len(h), *(len(r[i]) for r in table.rows)) for i, h in enumerate(table.headers)]
        out.append(table.title)
        out.append(
            "  ".join(
                h.ljust(w) if i == 0 else h.rjust(w)
                for i, (h, w) in enumerate(zip(table.headers, widths, strict=True))
            )
        )
        for row in table.rows:
            out.append(
                "  ".join(
                    c.ljust(w) if i == 0 else c.rjust(w)
                    for i, (c, w) in enumerate(zip(row, widths, strict=True))
                )
            )
        out.append("")
    return out
