"""The dataset report: what a generated root holds and whether its difficulty ladder is real.

Issue 3 item 4, the analogue of MM-OptBench App. F.6 Table 18: counts per subcategory × difficulty,
formulation sizes (``meta.json`` ``formulation_size``: variables + constraints) and reference
runtimes by difficulty with median / p95 / max per family and per subcategory, the growth from easy
to hard with every subcategory flagged where size or runtime does not grow, the rejection reasons
that :func:`~.dataset.generate_dataset` persisted in ``generation_report.json``, PNG plots of size
and runtime by difficulty, and contact sheets (a few visuals per subcategory tiled together) for a
person to look at.

Runtimes are measured here, not read from the dataset (packages hold no timings, so that they
regenerate byte for byte): the wall time of the subcategory's ``reference_solve`` on the shipped
``instance_data.json``, in-process (model build plus solve, no interpreter start-up), best of
``repeats`` runs to damp the noise of a shared machine.
"""

from __future__ import annotations

import json
import multiprocessing
import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.image
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from benchmark.cases import InstanceRef
from benchmark.reporting.render import Table
from benchmark.suites.mmopt.generation.dataset import GENERATION_REPORT
from benchmark.suites.mmopt.generation.protocol import InstanceGenerator
from benchmark.suites.mmopt.generation.rendering import default_style, png_bytes
from benchmark.suites.mmopt.generation.sizes import comparison_markdown
from benchmark.suites.mmopt.generation.validate import RUNTIME_BUDGET_S
from benchmark.suites.mmopt.package import discover
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES

REPORT_NAME = "dataset_report.md"
SIZE_PLOT = "size_by_difficulty.png"
RUNTIME_PLOT = "runtime_by_difficulty.png"
FAMILY_TITLES: dict[str, str] = {
    "network_optimization": "Network Optimization",
    "location_covering_assignment": "Location / Covering / Assignment",
    "scheduling_sequencing": "Scheduling / Sequencing",
    "multi_period_system_planning": "Multi-Period / System Planning",
    "routing_tour_optimization": "Routing / Tour Optimization",
    "combinatorial_logical": "Combinatorial / Logical Models",
}
_DIFFICULTY_COLORS = {"easy": "#4c9f70", "medium": "#e0a030", "hard": "#c0392b"}


@dataclass(frozen=True)
class PackageFacts:
    """What the report needs of one package: its place, its size and its measured runtime."""

    path: str
    family: str
    subcategory: str
    difficulty: str
    variables: int | None
    constraints: int | None
    runtime_s: float | None  # None: the subcategory has no generator plug-in to re-solve with

    @property
    def size(self) -> int | None:
        if self.variables is None or self.constraints is None:
            return None
        return self.variables + self.constraints


@dataclass(frozen=True)
class Quantiles:
    count: int
    median: float
    p95: float
    maximum: float

    @classmethod
    def of(cls, values: Iterable[float]) -> Quantiles | None:
        data = sorted(values)
        if not data:
            return None
        return cls(len(data), statistics.median(data), float(np.percentile(data, 95)), data[-1])


@dataclass(frozen=True)
class Growth:
    """Median size and runtime at each difficulty of one subcategory, and whether they grow."""

    subcategory: str
    size: dict[str, float]
    runtime: dict[str, float]

    @property
    def size_grows(self) -> bool:
        return _grows(self.size)

    @property
    def runtime_grows(self) -> bool:
        return _grows(self.runtime)


def _grows(medians: Mapping[str, float]) -> bool:
    """Easy to hard is a strict increase of the median (medium is shown, not required in between)."""
    return "easy" in medians and "hard" in medians and medians["hard"] > medians["easy"]


@dataclass
class DatasetReport:
    root: Path
    facts: list[PackageFacts]
    generation: dict[str, Any]
    repeats: int
    processes: int
    unreadable: list[str] = field(default_factory=list)  # "<path>: <problem>", left out of every table
    tables: dict[str, Table] = field(default_factory=dict)
    growth: list[Growth] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    seconds: float = 0.0
    official_sizes: list[str] = field(default_factory=list)  # ours-vs-official table (Markdown lines)

    @property
    def not_growing(self) -> list[str]:
        """``"<subcategory>: size"`` / ``"<subcategory>: runtime"`` for each flagged subcategory."""
        flags = []
        for growth in self.growth:
            if not growth.size_grows:
                flags.append(f"{growth.subcategory}: size")
            if not growth.runtime_grows:
                flags.append(f"{growth.subcategory}: runtime")
        return flags


# ------------------------------------------------------------------------------------------------
# measuring


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def time_reference_solve(instance: Mapping[str, Any], generator: InstanceGenerator, repeats: int) -> float:
    """Best wall time in seconds of ``repeats`` in-process reference solves of ``instance``."""
    best = float("inf")
    for _ in range(max(1, repeats)):
        started = time.perf_counter()
        generator.reference_solve(instance)
        best = min(best, time.perf_counter() - started)
    return best


def _package_facts(job: tuple[InstanceRef, int]) -> PackageFacts | str:
    """The package's facts, or why it could not be read (damage is ``validate``'s business; the
    report leaves such a package out and lists it)."""
    ref, repeats = job
    family, subcategory, difficulty, _ = ref.path
    try:
        meta = json.loads((ref.location / "meta.json").read_text(encoding="utf-8"))
        generator = get_subcategory(subcategory)
        runtime = None
        if isinstance(generator, InstanceGenerator):
            instance_path = ref.location / "ground_truth/instance_data.json"
            runtime = time_reference_solve(
                json.loads(instance_path.read_text(encoding="utf-8")), generator, repeats
            )
    except (OSError, ValueError) as exc:
        return f"{'/'.join(ref.path)}: {exc}"
    size = meta.get("formulation_size") or {}
    return PackageFacts(
        path="/".join(ref.path),
        family=family,
        subcategory=subcategory,
        difficulty=difficulty,
        variables=_int_or_none(size.get("variables")),
        constraints=_int_or_none(size.get("constraints")),
        runtime_s=runtime,
    )


def collect_facts(
    root: Path, *, repeats: int = 3, processes: int = 1
) -> tuple[list[PackageFacts], list[str]]:
    """Sizes from every ``meta.json`` and a timed reference solve of every package with a plug-in,
    and the packages that could not be read.

    One process by default: parallel solves on a shared machine time each other's contention.
    """
    jobs = [(ref, repeats) for ref in discover(root)]
    if processes <= 1 or len(jobs) <= 1:
        results = [_package_facts(job) for job in jobs]
    else:
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            results = list(pool.imap(_package_facts, jobs, chunksize=4))
    facts = [result for result in results if isinstance(result, PackageFacts)]
    return facts, [result for result in results if isinstance(result, str)]


# ------------------------------------------------------------------------------------------------
# tables


def _milliseconds(seconds: float) -> str:
    """Three significant digits (whole milliseconds from 100 ms on): sub-millisecond solves stay
    distinguishable from each other, and no value is printed in exponent notation."""
    milliseconds = 1000.0 * seconds
    return f"{milliseconds:.0f}" if milliseconds >= 100 else f"{milliseconds:.3g}"


def _number(value: float) -> str:
    return f"{value:g}" if float(value).is_integer() else f"{value:.1f}"


def _difficulties(facts: Sequence[PackageFacts]) -> list[str]:
    present = {fact.difficulty for fact in facts}
    return [d for d in DIFFICULTIES if d in present] + sorted(present - set(DIFFICULTIES))


def counts_table(facts: Sequence[PackageFacts]) -> Table:
    difficulties = _difficulties(facts)
    rows = []
    for (family, subcategory), group in _grouped(facts, lambda f: (f.family, f.subcategory)).items():
        per = [sum(1 for f in group if f.difficulty == d) for d in difficulties]
        rows.append((family, subcategory, *map(str, per), str(len(group))))
    totals = [sum(1 for f in facts if f.difficulty == d) for d in difficulties]
    rows.append(("all", "", *map(str, totals), str(len(facts))))
    return Table(
        "Packages per subcategory and difficulty",
        ("family", "subcategory", *difficulties, "total"),
        tuple(rows),
    )


def _grouped(facts: Iterable[PackageFacts], key: Any) -> dict[Any, list[PackageFacts]]:
    groups: dict[Any, list[PackageFacts]] = {}
    for fact in sorted(facts, key=lambda f: f.path):
        groups.setdefault(key(fact), []).append(fact)
    return groups


def family_runtime_table(facts: Sequence[PackageFacts], budget_s: float = RUNTIME_BUDGET_S) -> Table:
    """The Table 18 analogue: runtime quantiles per family and overall."""
    rows = []
    timed = [f for f in facts if f.runtime_s is not None]
    groups = [*_grouped(timed, lambda f: f.family).items(), ("Overall", timed)]
    for family, group in groups:
        runtimes = [f.runtime_s for f in group if f.runtime_s is not None]
        q = Quantiles.of(runtimes)
        if q is None:
            continue
        over = sum(1 for r in runtimes if r > budget_s)
        name = FAMILY_TITLES.get(family, family)
        rows.append(
            (
                name,
                str(q.count),
                _milliseconds(q.median),
                _milliseconds(q.p95),
                _milliseconds(q.maximum),
                str(over),
            )
        )
    headers = ("family", "instances", "median (ms)", "p95 (ms)", "max (ms)", f"# > {budget_s:g} s")
    return Table(
        "Reference-solve runtime per family (analogue of MM-OptBench Table 18)", headers, tuple(rows)
    )


def _quantile_cells(values: Sequence[float], fmt: Any) -> tuple[str, str, str]:
    q = Quantiles.of(values)
    return ("n/a", "n/a", "n/a") if q is None else (fmt(q.median), fmt(q.p95), fmt(q.maximum))


def by_difficulty_table(facts: Sequence[PackageFacts]) -> Table:
    """Per subcategory and difficulty: size and runtime median / p95 / max."""
    rows = []
    for subcategory, packages in _grouped(facts, lambda f: f.subcategory).items():
        for difficulty in _difficulties(packages):
            group = [f for f in packages if f.difficulty == difficulty]
            rows.append(
                (
                    subcategory,
                    difficulty,
                    str(len(group)),
                    *_quantile_cells([f.variables for f in group if f.variables is not None], _number),
                    *_quantile_cells([f.constraints for f in group if f.constraints is not None], _number),
                    *_quantile_cells([f.size for f in group if f.size is not None], _number),
                    *_quantile_cells([f.runtime_s for f in group if f.runtime_s is not None], _milliseconds),
                )
            )
    stats = ("median", "p95", "max")
    headers = (
        "subcategory",
        "difficulty",
        "n",
        *(f"variables {s}" for s in stats),
        *(f"constraints {s}" for s in stats),
        *(f"size {s}" for s in stats),
        *(f"runtime {s} (ms)" for s in stats),
    )
    return Table("Formulation size and reference runtime by difficulty", headers, tuple(rows))


def growth_rows(facts: Sequence[PackageFacts]) -> list[Growth]:
    growth = []
    for subcategory, group in _grouped(facts, lambda f: f.subcategory).items():
        size, runtime = {}, {}
        for difficulty in DIFFICULTIES:
            sizes = [f.size for f in group if f.difficulty == difficulty and f.size is not None]
            runtimes = [f.runtime_s for f in group if f.difficulty == difficulty and f.runtime_s is not None]
            if sizes:
                size[difficulty] = float(statistics.median(sizes))
            if runtimes:
                runtime[difficulty] = float(statistics.median(runtimes))
        growth.append(Growth(subcategory, size, runtime))
    return growth


def growth_table(growth: Sequence[Growth]) -> Table:
    rows = []
    for item in growth:
        sizes = [_number(item.size[d]) if d in item.size else "n/a" for d in DIFFICULTIES]
        runtimes = [_milliseconds(item.runtime[d]) if d in item.runtime else "n/a" for d in DIFFICULTIES]
        flags = [
            name for name, grows in (("size", item.size_grows), ("runtime", item.runtime_grows)) if not grows
        ]
        rows.append(
            (
                item.subcategory,
                " → ".join(sizes),
                " → ".join(runtimes),
                "yes" if not flags else "**NO: " + ", ".join(flags) + " does not grow**",
            )
        )
    headers = (
        "subcategory",
        "median size easy → medium → hard",
        "median runtime (ms) easy → medium → hard",
        "grows",
    )
    return Table("Growth from easy to hard", headers, tuple(rows))


def rejection_tables(generation: Mapping[str, Any]) -> tuple[Table, Table]:
    """(acceptance per subcategory × difficulty, rejection reasons with counts) from
    ``generation_report.json``."""
    acceptance, reasons = [], []
    for subcategory, entry in sorted(generation.get("subcategories", {}).items()):
        difficulties = entry.get("difficulties", {})
        for difficulty in [d for d in DIFFICULTIES if d in difficulties]:
            tally = difficulties[difficulty]
            accepted, candidates = int(tally["accepted"]), int(tally["candidates"])
            rate = f"{100.0 * accepted / candidates:.0f}%" if candidates else "n/a"
            acceptance.append((subcategory, difficulty, str(accepted), str(candidates), rate))
            for reason, count in sorted(
                tally.get("rejections", {}).items(), key=lambda item: (-item[1], item[0])
            ):
                reasons.append((subcategory, difficulty, reason, str(count)))
    return (
        Table(
            "Candidates per accepted package",
            ("subcategory", "difficulty", "accepted", "candidates", "acceptance"),
            tuple(acceptance),
        ),
        Table("Rejection reasons", ("subcategory", "difficulty", "reason", "rejected"), tuple(reasons)),
    )


# ------------------------------------------------------------------------------------------------
# figures


def _canvas(width_in: float, height_in: float) -> Figure:
    fig = Figure(figsize=(width_in, height_in), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _panel_grid(fig: Figure, count: int, columns: int) -> list[Axes]:
    rows = max(1, -(-count // columns))
    return [fig.add_subplot(rows, columns, index + 1) for index in range(count)]


def _by_difficulty_plot(facts: Sequence[PackageFacts], value: str, ylabel: str, path: Path) -> Path:
    """One panel per subcategory: every package as a dot per difficulty, the median as a bar."""
    groups = _grouped(facts, lambda f: f.subcategory)
    columns = 4
    rows = max(1, -(-len(groups) // columns))
    with default_style():
        fig = _canvas(4.0 * columns, 3.0 * rows)
        for ax, (subcategory, group) in zip(
            _panel_grid(fig, len(groups), columns), groups.items(), strict=True
        ):
            for position, difficulty in enumerate(DIFFICULTIES):
                values = [getattr(f, value) for f in group if f.difficulty == difficulty]
                values = [v for v in values if v is not None]
                if not values:
                    continue
                jitter = np.linspace(-0.15, 0.15, len(values)) if len(values) > 1 else np.zeros(1)
                ax.scatter(position + jitter, values, s=14, color=_DIFFICULTY_COLORS[difficulty], alpha=0.8)
                median = statistics.median(values)
                ax.hlines(median, position - 0.3, position + 0.3, color="black", linewidth=2)
            ax.set_xticks(range(len(DIFFICULTIES)), DIFFICULTIES)
            ax.set_xlim(-0.5, len(DIFFICULTIES) - 0.5)
            ax.set_yscale("log")
            ax.set_title(subcategory.replace("_", " "), fontsize=10)
            ax.set_ylabel(ylabel, fontsize=9)
            ax.grid(axis="y", alpha=0.3)
        fig.suptitle(f"{ylabel} by difficulty (dots: packages, bar: median)")
        fig.tight_layout()
        path.write_bytes(png_bytes(fig))
    return path


def contact_sheets(
    root: Path, facts: Sequence[PackageFacts], out: Path, per_subcategory: int = 3
) -> list[Path]:
    """One PNG per family: a row per subcategory with the first visual of ``per_subcategory``
    packages spread over the difficulties (first instance of each difficulty, then the next ones)."""
    sheets = []
    for family, group in _grouped(facts, lambda f: f.family).items():
        rows = []
        for subcategory, packages in _grouped(group, lambda f: f.subcategory).items():
            rows.append((subcategory, _spread(packages, per_subcategory)))
        with default_style():
            tile_w, tile_h, header_in = 6.5, 4.4, 1.0
            height = tile_h * len(rows) + header_in
            fig = _canvas(tile_w * per_subcategory, height)
            for row, (subcategory, chosen) in enumerate(rows):
                for column in range(per_subcategory):
                    ax = fig.add_subplot(len(rows), per_subcategory, row * per_subcategory + column + 1)
                    ax.set_axis_off()
                    if column >= len(chosen):
                        continue
                    visuals = sorted((root / chosen[column].path / "visuals").glob("visual_*.png"))
                    ax.imshow(matplotlib.image.imread(visuals[0]))
                    more = f" (1 of {len(visuals)} visuals)" if len(visuals) > 1 else ""
                    name = chosen[column].path.rsplit("/", 1)[-1]
                    ax.set_title(f"{subcategory} / {name}{more}", fontsize=11)
            fig.suptitle(
                f"{FAMILY_TITLES.get(family, family)}: visual_0.png of a few packages per subcategory",
                fontsize=14,
                y=1 - 0.3 / height,  # inside the header band, clear of the first row's titles
            )
            fig.subplots_adjust(
                left=0.01, right=0.99, bottom=0.01, top=1 - header_in / height, wspace=0.04, hspace=0.12
            )
            path = out / f"contact_sheet_{family}.png"
            path.write_bytes(png_bytes(fig))
        sheets.append(path)
    return sheets


def _spread(packages: Sequence[PackageFacts], count: int) -> list[PackageFacts]:
    """Round-robin over difficulties (easy, medium, hard, easy …) in instance order."""
    queues = [[p for p in packages if p.difficulty == d] for d in DIFFICULTIES]
    chosen: list[PackageFacts] = []
    while len(chosen) < count and any(queues):
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop(0))
    return chosen


# ------------------------------------------------------------------------------------------------
# the report


def markdown_table(table: Table) -> list[str]:
    lines = [f"## {table.title}", "", "| " + " | ".join(table.headers) + " |"]
    lines.append("|" + "|".join("---" if i < 2 else "---:" for i in range(len(table.headers))) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in table.rows]
    return [*lines, ""]


def build_dataset_report(
    root: Path,
    out: Path,
    *,
    repeats: int = 3,
    processes: int = 1,
    per_subcategory: int = 3,
    official: Path | None = None,
) -> DatasetReport:
    """Measure, tabulate and draw; writes ``dataset_report.md``, the plots and the contact sheets
    into ``out`` and returns the report with its tables (the numbers the Markdown shows), with our
    instance sizes against the release's per tier (:mod:`.sizes`): a copy of the release's
    ``dataset/`` at ``official``, or the release's counts shipped with the code without one."""
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    facts, unreadable = collect_facts(root, repeats=repeats, processes=processes)
    generation_path = root / GENERATION_REPORT
    generation = json.loads(generation_path.read_text(encoding="utf-8")) if generation_path.is_file() else {}
    report = DatasetReport(
        root=root,
        facts=facts,
        generation=generation,
        repeats=repeats,
        processes=processes,
        unreadable=unreadable,
    )
    report.growth = growth_rows(facts)
    report.official_sizes = comparison_markdown(root, official)
    acceptance, reasons = rejection_tables(generation)
    report.tables = {
        "counts": counts_table(facts),
        "family_runtime": family_runtime_table(facts),
        "by_difficulty": by_difficulty_table(facts),
        "growth": growth_table(report.growth),
        "acceptance": acceptance,
        "rejections": reasons,
    }
    if facts:
        report.files.append(_by_difficulty_plot(facts, "size", "variables + constraints", out / SIZE_PLOT))
        timed = [f for f in facts if f.runtime_s is not None]
        if timed:
            report.files.append(
                _by_difficulty_plot(timed, "runtime_s", "reference solve (s)", out / RUNTIME_PLOT)
            )
        report.files += contact_sheets(root, facts, out, per_subcategory)
    report.seconds = time.perf_counter() - started
    markdown = out / REPORT_NAME
    markdown.write_text(_markdown(report, out), encoding="utf-8")
    report.files.insert(0, markdown)
    return report


def _markdown(report: DatasetReport, out: Path) -> str:
    untimed = sum(1 for f in report.facts if f.runtime_s is None)
    lines = [
        "# Dataset report",
        "",
        f"- **root**: `{report.root}`",
        f"- **packages**: {len(report.facts)}",
        f"- **runtimes**: wall time of each subcategory's `reference_solve` on the shipped "
        f"`instance_data.json`, in-process (model build + solve), best of {report.repeats} run(s), "
        f"{report.processes} process(es) on this machine"
        + (f"; {untimed} package(s) without a generator plug-in not timed" if untimed else ""),
        "- **size**: `variables + constraints` from `meta.json` `formulation_size`; "
        "p95 by linear interpolation between order statistics",
    ]
    flags = report.not_growing
    lines.append(
        "- **growth easy → hard**: "
        + (
            "every subcategory grows in size and runtime"
            if not flags
            else "does NOT grow: " + "; ".join(flags)
        )
    )
    if not report.generation:
        lines.append(f"- **rejections**: no `{GENERATION_REPORT}` at the root")
    if report.unreadable:
        lines.append(f"- **left out** ({len(report.unreadable)} unreadable; run `validate`):")
        lines += [f"  - {problem}" for problem in report.unreadable]
    lines.append("")
    for key in ("counts", "family_runtime", "growth", "by_difficulty", "acceptance", "rejections"):
        lines += markdown_table(report.tables[key])
    if report.official_sizes:
        lines += ["## Instance sizes: ours versus the official release (medians per tier)", ""]
        lines += [*report.official_sizes, ""]
    figures = [path for path in report.files if path.suffix == ".png"]
    if figures:
        lines += ["## Figures", ""]
        lines += [f"![{path.stem}]({path.relative_to(out).as_posix()})" for path in figures]
        lines.append("")
    return "\n".join(lines)
