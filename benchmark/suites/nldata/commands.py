"""The NLData2Opt subcommands of ``python -m benchmark``: generating or checking the fixtures, and
comparing runs of several models (the Fig. 5 heatmap: mean EBC by setting × model)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from benchmark.records import latest_by_case, read_records
from benchmark.reporting.render import Table
from benchmark.schema import CaseRecord


def _generate(args: argparse.Namespace) -> int:
    from benchmark.suites.nldata.generation import main

    return main(["--check"] if args.check else [])


def _markdown(table: Table) -> list[str]:
    lines = [f"## {table.title}", "", "| " + " | ".join(table.headers) + " |"]
    lines.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(table.headers))) + "|")
    return [*lines, *("| " + " | ".join(row) + " |" for row in table.rows), ""]


def _heatmap_png(table: Table, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = list(table.headers[1:])
    settings = [row[0] for row in table.rows]
    values = [[float(cell) if cell != "n/a" else float("nan") for cell in row[1:]] for row in table.rows]
    figure, axes = plt.subplots(figsize=(4.5 + 1.3 * len(models), 1.2 + 0.45 * len(settings)))
    image = axes.imshow(values, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    labels = [m if len(m) <= 24 else m[:10] + "..." + m[-11:] for m in models]
    axes.set_xticks(range(len(models)), labels, rotation=30, ha="right")
    axes.set_yticks(range(len(settings)), settings)
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            axes.text(j, i, "n/a" if value != value else f"{value:.2f}", ha="center", va="center",
                      color="white" if value > 0.6 else "black", fontsize=8)  # fmt: skip
    figure.colorbar(image, ax=axes, label="mean EBC")
    axes.set_title("NLData2Opt: mean EBC by setting and model")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def _compare(args: argparse.Namespace) -> int:
    from benchmark.suites.nldata.reporting import report_tables

    records: list[CaseRecord] = []
    for run in args.runs:
        found = read_records(Path(run) / "results.jsonl")
        if not found:
            print(f"{run}: no results.jsonl with records")
            return 2
        records.extend(latest_by_case(found).values())
    tables = report_tables(records)
    if not tables:
        print("no scored nldata records in these runs")
        return 2
    text = "\n".join(
        ["# NLData2Opt comparison", "", *(line for table in tables for line in _markdown(table))]
    )
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    print(text)
    if args.png:
        _heatmap_png(next(t for t in tables if t.title.startswith("Mean EBC")), Path(args.png))
        print(f"heatmap: {args.png}")
    return 0


def add_commands(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    generate = add_command("nldata-generate", help="generate the NLData2Opt fixtures (or --check them)")
    generate.add_argument("--check", action="store_true", help="regenerate in memory and compare")
    generate.set_defaults(handler=_generate)
    compare = add_command(
        "nldata-compare", help="NLData2Opt tables over several runs: by setting, setting x model, errors"
    )
    compare.add_argument("runs", nargs="+", help="run folders (each with results.jsonl)")
    compare.add_argument("--out", help="also write the Markdown to this file")
    compare.add_argument("--png", help="also draw the setting x model heatmap (mean EBC) as a PNG")
    compare.set_defaults(handler=_compare)
