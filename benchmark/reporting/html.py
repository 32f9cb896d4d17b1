"""``report.html``: one self-contained page per run, for the people who look at a run.

Everything is inline (plots as PNG data URIs drawn by matplotlib, the style sheet, a few lines of
script for the case filter), so the file opens from disk or as a CI artifact with no network. The
numbers come from the same summary as ``summary.md``; the plots and the case table come from the
records, and each case links to its response, extracted code and sandbox output.
"""

from __future__ import annotations

import base64
import html
import io
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from benchmark.records import latest_by_case, read_records
from benchmark.reporting.render import headline, summary_tables
from benchmark.run import RunPaths

#: Characters of a response, artifact or output shown per case (the run log has them whole).
TEXT_LIMIT = 20_000

_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#222}
h1{margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ccc;padding:2px 7px;text-align:right}
td:first-child,th:first-child{text-align:left}.headline{display:flex;gap:1em;flex-wrap:wrap}
.metric{border:1px solid #ccc;border-radius:6px;padding:.6em 1em;min-width:11em}
.metric b{font-size:1.6em;display:block}.plots img{max-width:48%;margin:0 1% 1em 0;vertical-align:top}
.pass{color:#17692b}.fail{color:#a11}.error{color:#a60}pre{white-space:pre-wrap;background:#f6f6f6;
padding:.5em;max-height:28em;overflow:auto}details{margin:.3em 0}#filter{width:30em;padding:3px}
"""

_SCRIPT = """
(function () {
  var input = document.getElementById('filter');
  var rows = Array.prototype.slice.call(document.querySelectorAll('#cases tbody tr'));
  function apply() {
    var words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (row) {
      var text = row.textContent.toLowerCase();
      var ok = words.every(function (w) { return text.indexOf(w) >= 0; });
      row.style.display = ok ? '' : 'none';
      if (ok) { shown += 1; }
    });
    document.getElementById('shown').textContent = shown + ' of ' + rows.length + ' cases';
  }
  input.addEventListener('input', apply);
  var match = /[#&]q=([^&]*)/.exec(window.location.hash);
  if (match) { input.value = decodeURIComponent(match[1]); }
  apply();
  document.body.setAttribute('data-rendered', 'ok');
})();
"""


def _png(figure: Any) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _plots(summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(caption, data URI) of every plot the run has data for."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    plots: list[tuple[str, str]] = []
    scored = [r for r in records if r.get("outcome") in ("passed", "failed")]
    heat = _heat_map(plt, scored, lambda r: float(bool(r["passed"])), "pass@1 (sample rate)")
    if heat:
        plots.append(heat)
    score_names = sorted(
        {k for r in scored for k, v in (r.get("scores") or {}).items() if isinstance(v, int | float)}
    )
    for name in score_names:  # the suites' own per-case scores (EBC, O-Eval, …)
        scored_with = [r for r in scored if isinstance((r.get("scores") or {}).get(name), int | float)]
        heat = _heat_map(plt, scored_with, lambda r, n=name: float(r["scores"][n]), f"mean {name}")
        if heat:
            plots.append(heat)
    failures = summary.get("failure_categories") or {}
    if failures:
        figure, axes = plt.subplots(figsize=(6, 0.8 + 0.35 * len(failures)))
        names = list(failures)[::-1]
        axes.barh(names, [failures[n] for n in names], color="#c0504d")
        axes.set_xlabel("failed samples")
        plots.append(("failures by category", _png(figure)))
        plt.close(figure)
    settings = summary.get("by_setting") or {}
    if settings:
        figure, axes = plt.subplots(figsize=(6, 0.8 + 0.35 * len(settings)))
        names = list(settings)[::-1]
        axes.barh(names, [settings[n].get("pass@1") or 0.0 for n in names], color="#4f81bd")
        axes.set_xlim(0, 1)
        axes.set_xlabel("pass@1")
        plots.append(("pass@1 by setting", _png(figure)))
        plt.close(figure)
    for field, label in (("total_time_s", "seconds per case"), ("output_tokens", "output tokens per case")):
        values = [float(r[field]) for r in records if isinstance(r.get(field), int | float)]
        if values and max(values) > 0:
            figure, axes = plt.subplots(figsize=(6, 2.6))
            axes.hist(values, bins=min(30, max(5, len(values) // 3)), color="#8064a2")
            axes.set_xlabel(label)
            axes.set_ylabel("cases")
            plots.append((f"distribution of {label}", _png(figure)))
            plt.close(figure)
    return plots


def _heat_map(
    plt: Any, records: Sequence[Mapping[str, Any]], value_of: Callable[[Mapping[str, Any]], float], label: str
) -> tuple[str, str] | None:
    """Mean of ``value_of`` by family (or setting) × difficulty (or all), as a captioned plot."""
    row_field = next((f for f in ("family", "setting") if any(r.get(f) is not None for r in records)), None)
    if row_field is None:
        return None
    column_field = "difficulty" if any(r.get("difficulty") is not None for r in records) else None
    rows = sorted({str(r.get(row_field)) for r in records})
    present = {str(r.get(column_field)) for r in records} if column_field else {"all"}
    columns = [d for d in ("easy", "medium", "hard") if d in present] + sorted(
        present - {"easy", "medium", "hard"}
    )
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for record in records:
        column = str(record.get(column_field)) if column_field else "all"
        cells[(str(record.get(row_field)), column)].append(value_of(record))
    grid = [[_mean(cells.get((r, c))) for c in columns] for r in rows]
    figure, axes = plt.subplots(figsize=(1.8 + 1.3 * len(columns), 0.9 + 0.45 * len(rows)))
    image = axes.imshow(
        [[v if v is not None else float("nan") for v in row] for row in grid],
        cmap="RdYlGn", vmin=0, vmax=1, aspect="auto",
    )  # fmt: skip
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            axes.text(j, i, "n/a" if value is None else f"{100 * value:.0f}%", ha="center", va="center")
    axes.set_xticks(range(len(columns)), columns)
    axes.set_yticks(range(len(rows)), rows)
    figure.colorbar(image, ax=axes, label=label)
    caption = f"{label} by {row_field} × {column_field or 'all'}"
    uri = _png(figure)
    plt.close(figure)
    return caption, uri


def _mean(values: Sequence[float] | None) -> float | None:
    return sum(values) / len(values) if values else None


def _headline_metrics(summary: Mapping[str, Any]) -> str:
    metrics = summary["metrics"]
    intervals = metrics.get("ci95") or {}
    parts = []
    for name, label in (("pass@1", "pass@1"), ("valid_code_rate", "Valid Code Rate")):
        value = metrics.get(name)
        bounds = intervals.get(name)
        interval = f"95% CI {100 * bounds[0]:.1f}–{100 * bounds[1]:.1f}%" if bounds else "95% CI n/a"
        shown = "n/a" if value is None else f"{100 * value:.1f}%"
        parts.append(f"<div class='metric'>{label}<b>{shown}</b>{interval}</div>")
    over_runs = metrics.get("pass@1_over_runs")
    if over_runs:
        parts.append(
            f"<div class='metric'>pass@1 over {metrics['runs']} runs<b>{100 * over_runs['mean']:.1f}%</b>"
            f"± {100 * over_runs['std']:.1f}% (std)</div>"
        )
    parts.append(
        f"<div class='metric'>instances<b>{metrics['instances']}</b>{metrics['samples']} samples</div>"
    )
    return "<div class='headline'>" + "".join(parts) + "</div>"


def _text_block(title: str, text: str) -> str:
    clipped = text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + f"\n… ({len(text) - TEXT_LIMIT} more)"
    return f"<details><summary>{html.escape(title)}</summary><pre>{html.escape(clipped)}</pre></details>"


def _case_table(records: Sequence[Mapping[str, Any]]) -> str:
    rows, details = [], []
    for index, record in enumerate(records):
        outcome = str(record.get("outcome"))
        css = {"passed": "pass", "failed": "fail"}.get(outcome, "error")
        seconds = record.get("total_time_s")
        rows.append(
            f"<tr><td><a href='#case-{index}'>{html.escape(str(record['case']))}</a></td>"
            f"<td class='{css}'>{html.escape(outcome)}</td>"
            f"<td>{html.escape(str(record.get('category') or ''))}</td>"
            f"<td>{'' if seconds is None else f'{float(seconds):.2f}'}</td></tr>"
        )
        blocks = [
            _text_block(f"response ({turn.get('key')})", str(turn.get("response", "")))
            for turn in record.get("turns") or ()
        ]
        blocks += [
            _text_block(f"code: {name}", str(text)) for name, text in (record.get("artifact") or {}).items()
        ]
        blocks += [
            _text_block(f"output: {name}", str(text)) for name, text in (record.get("output") or {}).items()
        ]
        if record.get("detail"):
            blocks.append(_text_block("detail", str(record["detail"])))
        details.append(
            f"<section id='case-{index}'><h3>{html.escape(str(record['case']))}</h3>"
            f"<p class='{css}'>{html.escape(outcome)} {html.escape(str(record.get('category') or ''))}</p>"
            + "".join(blocks)
            + "</section>"
        )
    return (
        "<p><input id='filter' placeholder='filter cases: words such as failed hard maximum_flow'> "
        "<span id='shown'></span></p><table id='cases'><thead><tr><th>case</th><th>outcome</th>"
        "<th>category</th><th>seconds</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table><h2>Cases</h2>"
        + "".join(details)
    )


def to_html(summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> str:
    """The whole page; ``records`` are the latest record of every case of the run."""
    esc = html.escape
    run = summary.get("run") or {}
    ordered = sorted(records, key=lambda r: str(r["case"]))
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>optbench run: {esc(str(run.get('model')))}</title><style>{_STYLE}</style></head><body>",
        "<h1>Benchmark run</h1>",
        "<p>" + "<br>".join(esc(line) for line in headline(summary)) + "</p>",
        "<p>"
        + " · ".join(
            f"{esc(k)}: {esc(str(run[k]))}"
            for k in ("model", "suite", "setting", "scoring", "schedule")
            if run.get(k) is not None
        )
        + "</p>",
    ]
    gate = run.get("gate")
    if gate:
        verdict = "passed" if gate["passed"] else "FAILED"
        parts.append(
            f"<p><b>gate {verdict}</b>: " + "<br>".join(esc(line) for line in gate["lines"]) + "</p>"
        )
    parts += [
        "<h2>Headline (95% confidence intervals)</h2>",
        _headline_metrics(summary),
        "<div class='plots'>",
    ]
    parts += [
        f"<img alt='{esc(caption)}' title='{esc(caption)}' src='{uri}'>"
        for caption, uri in _plots(summary, ordered)
    ]
    parts.append("</div>")
    for table in summary_tables(summary):
        parts.append(
            f"<h2>{esc(table.title)}</h2><table><tr>"
            + "".join(f"<th>{esc(h)}</th>" for h in table.headers)
            + "</tr>"
        )
        parts += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in table.rows]
        parts.append("</table>")
    parts += ["<h2>Case table</h2>", _case_table(ordered), f"<script>{_SCRIPT}</script></body></html>\n"]
    return "".join(parts)


def write_html_report(
    paths: RunPaths, summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]] | None = None
) -> None:
    """Write ``report.html`` beside ``summary.md`` (records read from the run log when not given)."""
    if records is None:
        records = list(latest_by_case(read_records(paths.results)).values())
    (paths.root / "report.html").write_text(to_html(summary, records), encoding="utf-8")
