"""``report.html``: one self-contained page per run, for the people who look at a run.

Everything is inline (plots as PNG data URIs drawn by matplotlib, image thumbnails, the style
sheet, a few lines of script for the case filter and sorting), so the file opens from disk or as a
CI artifact with no network. The numbers come from the same summary as ``summary.md``; the plots
and the case table come from the records. Each case's section shows its call timeline, why it
ended, the transcript (the messages as sent, images as thumbnails, each response and tool call),
its extracted code and sandbox output. The filter (also ``#q=WORDS`` in the URL) hides the rows
and the sections of the cases it leaves out; a column header sorts (also ``#sort=NAME`` or
``#sort=-NAME`` for descending).
"""

from __future__ import annotations

import base64
import html
import io
import os
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.categories import CaseOutcome
from benchmark.records import latest_records
from benchmark.reporting.render import accounting_lines, headline, summary_tables
from benchmark.run import RunPaths
from benchmark.schema import CaseRecord
from benchmark.suites.base import Grouping, get_suite, suite_names

#: Characters of a response, artifact or output shown per case (the run log has them whole).
TEXT_LIMIT = 20_000

#: Distinct images drawn as thumbnails in one page (the rest are named with their hash): about
#: 8 kB and 14 ms of one core each (320 px, 32 colours), so a whole MM-OptBench run's page stays small.
THUMBNAIL_LIMIT = 120
#: Longest side of a thumbnail, in pixels.
THUMBNAIL_PX = 320

_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#222}
h1{margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ccc;padding:2px 7px;text-align:right}
td:first-child,th:first-child{text-align:left}.headline{display:flex;gap:1em;flex-wrap:wrap}
.metric{border:1px solid #ccc;border-radius:6px;padding:.6em 1em;min-width:11em}
.metric b{font-size:1.6em;display:block}.plots img{max-width:48%;margin:0 1% 1em 0;vertical-align:top}
.pass{color:#17692b}.fail{color:#a11}.error{color:#a60}pre{white-space:pre-wrap;background:#f6f6f6;
padding:.5em;max-height:28em;overflow:auto}details{margin:.3em 0}#filter{width:30em;padding:3px}
#cases th{cursor:pointer;user-select:none}#cases th[aria-sort=ascending]::after{content:" ▲"}
#cases th[aria-sort=descending]::after{content:" ▼"}
.turn{border-left:3px solid #bbb;padding-left:.7em;margin:.6em 0}
.role{font-weight:bold;text-transform:uppercase;font-size:.8em;color:#555}.thumbs img{max-height:320px;
border:1px solid #ccc;margin:.2em .4em .2em 0}.muted{color:#777}
table.timeline td,table.timeline th,#cases .t{text-align:left}
.step td{color:#444;font-family:monospace;font-size:.85em;border-top:none}
"""

_SCRIPT = """
(function () {
  var input = document.getElementById('filter');
  var table = document.getElementById('cases');
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  function apply() {
    var words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (row) {
      var text = row.textContent.toLowerCase();
      var ok = words.every(function (w) { return text.indexOf(w) >= 0; });
      row.style.display = ok ? '' : 'none';
      var section = document.getElementById(row.getAttribute('data-section'));
      if (section) { section.style.display = ok ? '' : 'none'; }
      if (ok) { shown += 1; }
    });
    document.getElementById('shown').textContent = shown + ' of ' + rows.length + ' cases';
  }
  function sortBy(header, column, ascending) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute('aria-sort'); });
    header.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    function key(row) {
      var value = row.cells[column].getAttribute('data-v');
      var number = parseFloat(value);
      return value !== '' && !isNaN(number) && isFinite(value) ? number : value;
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      var order = (typeof x === typeof y) ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === 'number' ? -1 : 1);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
  headers.forEach(function (header, column) {
    header.addEventListener('click', function () {
      sortBy(header, column, header.getAttribute('aria-sort') !== 'ascending');
    });
  });
  input.addEventListener('input', apply);
  var match = /[#&]q=([^&]*)/.exec(window.location.hash);
  if (match) { input.value = decodeURIComponent(match[1]); }
  var order = /[#&]sort=(-?)([^&]*)/.exec(window.location.hash);  // #sort=-cost%20$: by cost, descending
  if (order) {
    var name = decodeURIComponent(order[2]);
    headers.forEach(function (header, column) {
      if (header.textContent === name) { sortBy(header, column, order[1] !== '-'); }
    });
  }
  apply();
  document.body.setAttribute('data-rendered', 'ok');
})();
"""


def case_seconds(record: CaseRecord) -> float | None:
    """A case's time: its model calls and execution, or its own wall time when that is longer. A
    model call the generation phase made before the case started counts here, though the case's
    own wall time (``total_time_s``) only waited for it."""
    parts = [record.total_time_s, record.model_time_s, record.execution_time_s]
    if all(p is None for p in parts):
        return None
    total, model, execution = (float(p or 0.0) for p in parts)
    return max(total, model + execution)


def _png(figure: Any) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


@dataclass
class _Heat:
    labels: list[str]
    row_field: str
    column_field: str | None
    rows: list[str]
    columns: list[str]
    grid: list[list[float | None]]


def _plots(
    summary: Mapping[str, Any], records: Sequence[CaseRecord], heat_axes: Sequence[Grouping]
) -> list[tuple[str, str]]:
    """(caption, data URI) of every plot the run has data for; ``heat_axes`` are the heat maps' row and
    column labels. Heat maps whose every cell equals an earlier one's (pass@1 and a score that is 1
    exactly when a case passes) are drawn once, with every name they show in the caption."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.ticker import MaxNLocator

    plots: list[tuple[str, str]] = []
    scored = [r for r in records if r.outcome in (CaseOutcome.PASSED, CaseOutcome.FAILED)]
    heats: list[_Heat] = []

    def add_heat(subset: Sequence[CaseRecord], value_of: Callable[[CaseRecord], float], label: str) -> None:
        heat = _heat_grid(subset, value_of, label, heat_axes)
        if heat is None:
            return
        same = next(
            (h for h in heats if (h.rows, h.columns, h.grid) == (heat.rows, heat.columns, heat.grid)), None
        )
        if same is not None:
            same.labels.append(label)
        else:
            heats.append(heat)

    add_heat(scored, lambda r: float(r.passed), "pass@1 (sample rate)")
    score_names = sorted({k for r in scored for k, v in r.scores.items() if isinstance(v, int | float)})
    for name in score_names:  # the suites' own per-case scores (EBC, O-Eval, …)
        scored_with = [r for r in scored if isinstance(r.scores.get(name), int | float)]
        add_heat(scored_with, _score_of(name), f"mean {name}")
    plots += [_draw_heat(plt, heat) for heat in heats]
    failures = summary.get("failure_categories") or {}
    if failures:
        figure, axes = plt.subplots(figsize=(6, 0.8 + 0.35 * len(failures)))
        names = list(failures)[::-1]
        axes.barh(names, [failures[n] for n in names], color="#c0504d")
        axes.set_xlabel("failed samples")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
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
    distributions: tuple[tuple[Callable[[CaseRecord], float | int | None], str], ...] = (
        (case_seconds, "seconds per case"),
        (lambda r: r.output_tokens, "output tokens per case"),
    )
    for value_of, label in distributions:
        values = [float(v) for v in map(value_of, records) if isinstance(v, int | float)]
        if values and max(values) > 0:
            figure, axes = plt.subplots(figsize=(6, 2.6))
            axes.hist(values, bins=min(30, max(5, len(values) // 3)), color="#8064a2")
            axes.set_xlabel(label)
            axes.set_ylabel("cases")
            axes.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts: 1, 2, 3, never 1.5
            plots.append((f"distribution of {label}", _png(figure)))
            plt.close(figure)
    return plots


def _score_of(name: str) -> Callable[[CaseRecord], float]:
    return lambda record: float(record.scores[name])


def _axis_value(record: CaseRecord, label: str) -> str | None:
    """A heat map axis's value of a record: one of the suite's labels, or its setting."""
    return record.setting if label == "setting" else record.label(label)


def _heat_grid(
    records: Sequence[CaseRecord],
    value_of: Callable[[CaseRecord], float],
    label: str,
    axes: Sequence[Grouping],
) -> _Heat | None:
    """Mean of ``value_of`` by the first of ``axes`` (or setting) × the second (or all), each
    label's values in its declared order; a label no record carries is left out."""

    def carried(grouping: Grouping) -> bool:
        return any(_axis_value(r, grouping.label) is not None for r in records)

    row_by = next((g for g in (*axes[:1], Grouping("setting")) if carried(g)), None)
    if row_by is None:
        return None
    column_by = axes[1] if len(axes) > 1 and carried(axes[1]) else None
    row_field, column_field = row_by.label, column_by.label if column_by else None
    rows = sorted({str(_axis_value(r, row_field)) for r in records}, key=row_by.sort_key)
    present = {str(_axis_value(r, column_field)) for r in records} if column_field else {"all"}
    columns = sorted(present, key=column_by.sort_key) if column_by else ["all"]
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for record in records:
        column = str(_axis_value(record, column_field)) if column_field else "all"
        cells[(str(_axis_value(record, row_field)), column)].append(value_of(record))
    grid = [[_mean(cells.get((r, c))) for c in columns] for r in rows]
    return _Heat([label], row_field, column_field, rows, columns, grid)


def _draw_heat(plt: Any, heat: _Heat) -> tuple[str, str]:
    figure, axes = plt.subplots(figsize=(1.8 + 1.3 * len(heat.columns), 0.9 + 0.45 * len(heat.rows)))
    image = axes.imshow(
        [[v if v is not None else float("nan") for v in row] for row in heat.grid],
        cmap="RdYlGn", vmin=0, vmax=1, aspect="auto",
    )  # fmt: skip
    for i, row in enumerate(heat.grid):
        for j, value in enumerate(row):
            axes.text(j, i, "n/a" if value is None else f"{100 * value:.0f}%", ha="center", va="center")
    axes.set_xticks(range(len(heat.columns)), heat.columns)
    axes.set_yticks(range(len(heat.rows)), heat.rows)
    figure.colorbar(image, ax=axes, label=heat.labels[0] if len(heat.labels) == 1 else "value")
    caption = f"{', '.join(heat.labels)} by {heat.row_field} × {heat.column_field or 'all'}"
    if len(heat.labels) > 1:
        caption += " (the same in every cell)"
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
    accounting = summary.get("accounting") or {}
    if accounting:
        calls, hits = int(accounting.get("model_calls") or 0), int(accounting.get("cache_hits") or 0)
        tokens_in, tokens_out = (
            int(accounting.get("input_tokens") or 0),
            int(accounting.get("output_tokens") or 0),
        )
        cost, sent = accounting.get("cost_usd"), accounting.get("cost_usd_sent")
        parts += [
            f"<div class='metric'>model calls<b>{calls}</b>{hits} from the cache</div>",
            f"<div class='metric'>tokens<b>{tokens_in + tokens_out:,}</b>"
            f"{tokens_in:,} in, {tokens_out:,} out; "
            f"{int(accounting.get('truncated') or 0)} truncated</div>",
            "<div class='metric'>cost this run<b>"
            + ("n/a" if sent is None else f"${float(sent):.4f}")
            + "</b>"
            + ("no prices known" if cost is None else f"${float(cost):.4f} as first asked")
            + "</div>",
            f"<div class='metric'>model time<b>{float(accounting.get('model_time_s') or 0):.1f} s</b>"
            f"execution {float(accounting.get('execution_time_s') or 0):.1f} s</div>",
        ]
    return "<div class='headline'>" + "".join(parts) + "</div>"


def _text_block(title: str, text: str, open_: bool = False) -> str:
    clipped = text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + f"\n… ({len(text) - TEXT_LIMIT} more)"
    return (
        f"<details{' open' if open_ else ''}><summary>{html.escape(title)}</summary>"
        f"<pre>{html.escape(clipped)}</pre></details>"
    )


class _Thumbnails:
    """Each distinct image of the page once, as a small inline PNG (by content hash). Drawing takes
    a few hundredths of a second per image, so at most :data:`THUMBNAIL_LIMIT` are drawn, the
    images of cases that did not pass first (those are the transcripts people read); the others,
    and images whose file is no longer where the record says, are named with their hash. Entered
    as a context, it draws them all on one thread per core while the page's plots are drawn:
    Pillow lets go of the GIL while it decodes, resizes and compresses, and the report is written
    when the cases are done, so the cores are free (the 120 of an MM-OptBench run were most of its
    report's time)."""

    def __init__(self, records: Sequence[CaseRecord]) -> None:
        unpassed = [r for r in records if not r.passed]
        chosen: dict[str, Path] = {}
        for record in [*unpassed, *(r for r in records if r.passed)]:
            for image in _images(record):
                if len(chosen) < THUMBNAIL_LIMIT and str(image.get("sha256")) not in chosen:
                    chosen[str(image.get("sha256"))] = Path(str(image.get("path", "")))
        self._chosen = chosen
        self._pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1)
        self._drawing: dict[str, Future[str | None]] = {}

    def __enter__(self) -> _Thumbnails:
        self._drawing = {digest: self._pool.submit(_thumbnail, path) for digest, path in self._chosen.items()}
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._pool.shutdown(cancel_futures=True)

    def html(self, image: Mapping[str, str]) -> str:
        name, digest = str(image.get("name", "image")), str(image.get("sha256", ""))
        label = html.escape(f"{name} (sha256 {digest[:12]})")
        if digest not in self._chosen:
            return f"<span class='muted'>[image {label}: past the page's {THUMBNAIL_LIMIT} thumbnails]</span>"
        uri = self._drawing[digest].result()
        if uri is None:
            return f"<span class='muted'>[image {label}: not drawn, the file is not here]</span>"
        return f"<img alt='{label}' title='{label}' src='{uri}'>"


def _images(record: CaseRecord) -> list[Mapping[str, str]]:
    return [image for turn in record.turns for message in turn.messages for image in message.images]


def _thumbnail(path: Path) -> str | None:
    """The image at ``path`` as a PNG data URI at most :data:`THUMBNAIL_PX` on a side, or None
    when it is not there or not an image. Made cheap where the eye does not see it: the alpha
    channel goes first (an RGBA resize premultiplies), ``reducing_gap`` shrinks by whole factors
    before the filter, the 32 colours come from the fast octree (a tenth of median cut's time) and
    the PNG is written without ``optimize``; decoding the full image is most of what is left."""
    from PIL import Image, UnidentifiedImageError

    if not path.is_file():
        return None
    try:
        with Image.open(path) as image:
            small = image.convert("RGB")
            small.thumbnail((THUMBNAIL_PX, THUMBNAIL_PX), reducing_gap=2.0)
            buffer = io.BytesIO()
            small.quantize(colors=32, method=Image.Quantize.FASTOCTREE).save(buffer, format="PNG")
    except (OSError, UnidentifiedImageError):
        return None
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _number(value: Any, digits: int) -> str:
    return "" if value is None else f"{float(value):.{digits}f}"


#: A suite's optional ``case_steps``: what a case did between its model calls (see suites.base).
Steps = Callable[[CaseRecord], list[dict[str, Any]]]


def _one_line(text: Any, limit: int = 160) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _timeline(record: CaseRecord, steps: Steps | None = None) -> str:
    """One row per model call (time, tokens, cache, how it finished, the tools it asked for), each
    followed by the steps the suite says the case took after it (an agent's tool runs)."""
    after: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for step in steps(record) if steps is not None else ():
        after[int(step.get("call") or 0)].append(step)
    rows = []
    for index, turn in enumerate(record.turns):
        usage = turn.usage
        tools = ", ".join(str(call.get("name")) for call in turn.tool_calls) or "—"
        rows.append(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(cell))}</td>"
                for cell in (
                    index + 1,
                    turn.key,
                    _number(turn.latency_s, 2),
                    f"{usage.get('input_tokens') or 0} / {usage.get('output_tokens') or 0}",
                    "hit" if turn.cache_hit else "sent",
                    turn.finish_reason or "",
                    tools,
                )
            )
            + "</tr>"
        )
        rows += [
            "<tr class='step'><td></td><td colspan='6'>"
            + html.escape(
                f"{step.get('tool')}: {_one_line(step.get('input'))} → {_one_line(step.get('result'))}"
            )
            + "</td></tr>"
            for step in after.get(index + 1, ())
        ]
    if not rows:
        return ""
    return (
        "<table class='timeline'><tr><th>call</th><th>request key</th><th>seconds</th>"
        "<th>tokens in / out</th><th>cache</th><th>finish</th><th>tool calls</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def _transcript(record: CaseRecord, thumbnails: _Thumbnails) -> str:
    """The messages as sent (each call shows what it added to the previous call's), the images as
    thumbnails, and each response with its tool calls."""
    parts = []
    for index, turn in enumerate(record.turns):
        shared = turn.context_messages
        body = [f"<p class='muted'>call {index + 1}: {html.escape(turn.key)}"]
        if shared:
            body.append(f" — after the {shared} messages already sent")
        body.append("</p>")
        for message in turn.messages:
            images = "".join(thumbnails.html(image) for image in message.images)
            calls = "".join(
                f"<pre>→ {html.escape(str(c.get('name')))}({html.escape(str(c.get('arguments')))})</pre>"
                for c in message.tool_calls
            )
            answering = f" (answer to {message.tool_call_id})" if message.tool_call_id else ""
            body.append(
                f"<div class='role'>{html.escape(message.role + answering)}</div>"
                f"<pre>{html.escape(_clip(message.text))}</pre>"
                + (f"<div class='thumbs'>{images}</div>" if images else "")
                + calls
            )
        body.append(f"<div class='role'>response</div><pre>{html.escape(_clip(turn.response))}</pre>")
        body += [
            f"<pre>→ {html.escape(str(c.get('name')))}({html.escape(_clip(str(c.get('arguments'))))})</pre>"
            for c in turn.tool_calls
        ]
        parts.append("<div class='turn'>" + "".join(body) + "</div>")
    if not parts:
        return ""
    return f"<details><summary>transcript ({len(parts)} model calls)</summary>{''.join(parts)}</details>"


def _clip(text: str) -> str:
    return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + f"\n… ({len(text) - TEXT_LIMIT} more)"


_COLUMNS = (
    "case", "outcome", "category", "ended", "tokens in", "tokens out", "cost $", "model s", "exec s",
    "case s", "cache",
)  # fmt: skip


def _case_table(records: Sequence[CaseRecord], thumbnails: _Thumbnails, steps: Steps | None = None) -> str:
    rows, details = [], []
    for index, record in enumerate(records):
        outcome = str(record.outcome)
        css = {CaseOutcome.PASSED: "pass", CaseOutcome.FAILED: "fail"}.get(record.outcome, "error")
        calls, hits = record.model_calls, record.cache_hits
        category, ended_by = record.category or "", record.end_reason or ""
        cells: list[tuple[str, Any]] = [
            (f"<a href='#case-{index}'>{html.escape(record.case)}</a>", record.case),
            (html.escape(outcome), outcome),
            (html.escape(category), category),
            (html.escape(ended_by), ended_by),
            (str(record.input_tokens or 0), record.input_tokens or 0),
            (str(record.output_tokens or 0), record.output_tokens or 0),
            (_number(record.cost_usd, 4), record.cost_usd if record.cost_usd is not None else ""),
            (_number(record.model_time_s, 2), record.model_time_s or 0),
            (_number(record.execution_time_s, 2), record.execution_time_s or 0),
            (_number(case_seconds(record), 2), case_seconds(record) or 0),
            (f"{hits}/{calls}" + (" truncated" if record.truncated else ""), hits),
        ]

        def css_of(column: int, css: str = css) -> str:
            """Text columns (case, outcome, category, end) align left; the outcome has its colour."""
            return f" class='t {css}'" if column == 1 else " class='t'" if column < 4 else ""

        rows.append(
            f"<tr data-section='case-{index}'>"
            + "".join(
                f"<td{css_of(i)} data-v='{html.escape(str(value))}'>{shown}</td>"
                for i, (shown, value) in enumerate(cells)
            )
            + "</tr>"
        )
        blocks = [_timeline(record, steps), _transcript(record, thumbnails)]
        blocks += [_text_block(f"code: {name}", text) for name, text in record.artifact.items()]
        blocks += [_text_block(f"output: {name}", text) for name, text in record.output.items()]
        if record.detail:
            blocks.append(_text_block("detail", record.detail))
        ended = f" · ended: {ended_by}" if ended_by else ""
        details.append(
            f"<section id='case-{index}'><h3>{html.escape(record.case)}</h3>"
            f"<p class='{css}'>{html.escape(outcome)} {html.escape(category)}"
            f"<span class='muted'>{html.escape(ended)}</span></p>" + "".join(blocks) + "</section>"
        )
    return (
        "<p><input id='filter' placeholder='filter cases: words such as failed hard maximum_flow'> "
        "<span id='shown'></span> <span class='muted'>(click a column to sort)</span></p>"
        "<table id='cases'><thead><tr>"
        + "".join(f"<th{' class=t' if i < 4 else ''}>{html.escape(c)}</th>" for i, c in enumerate(_COLUMNS))
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table><h2>Cases</h2>"
        + "".join(details)
    )


def to_html(
    summary: Mapping[str, Any],
    records: Sequence[CaseRecord],
    steps: Steps | None = None,
    groupings: Sequence[Grouping] = (),
) -> str:
    """The whole page; ``records`` are the latest record of every case of the run, ``steps`` the
    suite's ``case_steps`` when it declares them, ``groupings`` the suite's (the heat maps are
    drawn by its ``compare`` labels)."""
    esc = html.escape
    run = summary.get("run") or {}
    ordered = sorted(records, key=lambda r: r.case)
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>optbench run: {esc(str(run.get('model')))}</title><style>{_STYLE}</style></head><body>",
        "<h1>Benchmark run</h1>",
        "<p>" + "<br>".join(esc(line) for line in [*headline(summary), *accounting_lines(summary)]) + "</p>",
        "<p>"
        + " · ".join(
            f"{esc(k)}: {esc(str(run[k]))}"
            for k in ("model", "suite", "setting", "scoring", "schedule", "dataset", "sandbox")
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
    with _Thumbnails(ordered) as thumbnails:  # drawn while the plots are
        parts += [
            f"<img alt='{esc(caption)}' title='{esc(caption)}' src='{uri}'>"
            for caption, uri in _plots(summary, ordered, [g for g in groupings if g.compare])
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
        parts += ["<h2>Case table</h2>", _case_table(ordered, thumbnails, steps)]
    parts.append(f"<script>{_SCRIPT}</script></body></html>\n")
    return "".join(parts)


def write_html_report(
    paths: RunPaths, summary: Mapping[str, Any], records: Sequence[CaseRecord] | None = None
) -> None:
    """Write ``report.html`` beside ``summary.md`` (records read from the run log when not given)."""
    if records is None:
        records = latest_records(paths.results)
    suite = str((summary.get("run") or {}).get("suite"))
    steps = get_suite(suite).case_steps if suite in suite_names() else None
    groupings = get_suite(suite).groupings if suite in suite_names() else ()
    (paths.root / "report.html").write_text(to_html(summary, records, steps, groupings), encoding="utf-8")
