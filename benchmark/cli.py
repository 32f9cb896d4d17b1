"""The ``optbench`` command: rebuilding a run's reports, and each suite's own subcommands
(dataset generation and checks), which the suites declare.

Running the benchmark itself is pytest's job (``pytest --model=oracle -n 2``); this command covers
the work around it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmark.run import RunPaths, read_manifest
from benchmark.suites.base import get_suite, suite_names


def _summarize(args: argparse.Namespace) -> int:
    from benchmark.reporting.run_reports import run_info_from_manifest, summarize_run

    paths = RunPaths(Path(args.run_dir))
    if not paths.results.exists():
        print(f"{paths.results}: no results file; is {args.run_dir} a run folder?", file=sys.stderr)
        return 2
    manifest = read_manifest(paths)
    suite = get_suite(str(manifest["suite"]))  # the schema makes every manifest name its suite
    run_info = run_info_from_manifest(manifest, suite)
    sessions = manifest.get("sessions") or [{}]
    summary = summarize_run(paths, run_info, suite, sessions[-1].get("selected"))
    print(json.dumps(summary["metrics"], indent=2))
    return 0


def _rescore(args: argparse.Namespace) -> int:
    from benchmark.rescore import rescore

    return rescore(Path(args.run_dir))


def _compare(args: argparse.Namespace) -> int:
    from benchmark.reporting.compare import CompareError, run_compare, to_markdown

    try:
        comparison = run_compare(
            Path(args.run_a), Path(args.run_b), Path(args.out) if args.out else None, args.allow_mismatch
        )
    except CompareError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(to_markdown(comparison))
    return 0


def _contamination(args: argparse.Namespace) -> int:
    from benchmark.reporting.compare import CompareError
    from benchmark.reporting.contamination import ContaminationError, run_contamination, to_markdown

    try:
        report = run_contamination(
            Path(args.public_run), Path(args.fresh_run), Path(args.out) if args.out else None
        )
    except (CompareError, ContaminationError) as exc:
        print(exc, file=sys.stderr)
        return 2
    print(to_markdown(report))
    return 0


def _merge(args: argparse.Namespace) -> int:
    from benchmark.gate import GateError, parse_allowance
    from benchmark.records import latest_records
    from benchmark.reporting.baseline import junit_properties, run_gate
    from benchmark.reporting.junit import label_junit
    from benchmark.reporting.merge import MergeError, merge_runs, shard_run_info
    from benchmark.reporting.render import to_text
    from benchmark.reporting.run_reports import summarize_run, write_summary

    try:
        allowance = parse_allowance(args.gate_allow_unscored or "0")
        merged = merge_runs([Path(d) for d in args.run_dirs], Path(args.out))
    except (MergeError, GateError) as exc:
        print(exc, file=sys.stderr)
        return 2
    manifest = read_manifest(merged.paths)
    suite = get_suite(str(manifest["suite"]))
    selected = manifest["sessions"][-1]["selected"]
    summary = summarize_run(merged.paths, shard_run_info(Path(args.run_dirs[0])), suite, selected)
    status = 1 if merged.missing else 0
    if args.gate:
        try:
            baseline = Path(args.gate_baseline) if args.gate_baseline else None
            result = run_gate(summary, merged.paths.root, args.gate, allowance, baseline)
        except (GateError, ValueError) as exc:
            print(exc, file=sys.stderr)
            return 2
        write_summary(merged.paths, summary)
        status = status or (0 if result.passed else 1)
    gate = summary["run"].get("gate")
    records = latest_records(merged.paths.results)
    label_junit(merged.paths.junit, summary, records, junit_properties(gate) if gate else None)
    for line in to_text(summary):
        print(line)
    for line in (summary["run"].get("gate") or {}).get("lines", ()):
        print(f"gate: {line}")
    print(f"merged {len(args.run_dirs)} shards: {merged.records} records of {merged.selected} selected cases")
    if merged.missing:
        print(f"{len(merged.missing)} selected case(s) recorded by no shard, e.g. {merged.missing[0]}")
    return status


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="optbench", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    summarize = commands.add_parser("summarize", help="rebuild summary.json/summary.md from a run's records")
    summarize.add_argument("run_dir")
    summarize.set_defaults(handler=_summarize)
    rescore = commands.add_parser(
        "rescore", help="score a run again from its records alone (no model, no cache) and compare"
    )
    rescore.add_argument("run_dir")
    rescore.set_defaults(handler=_rescore)
    compare = commands.add_parser(
        "compare", help="paired per-instance comparison of two runs (differences, intervals, flipped cases)"
    )
    compare.add_argument("run_a")
    compare.add_argument("run_b")
    compare.add_argument("--out", help="also write compare.json, compare.md and compare.html here")
    compare.add_argument(
        "--allow-mismatch", action="store_true", help="compare runs of different datasets or scoring modes"
    )
    compare.set_defaults(handler=_compare)
    contamination = commands.add_parser(
        "contamination",
        help="the same model on the public set and on a held-out split: the paired pass-rate gap, overall "
        "and per group of instances",
    )
    contamination.add_argument("public_run", help="run folder of the public (shipped) dataset")
    contamination.add_argument("fresh_run", help="run folder of a held-out split (generate --split)")
    contamination.add_argument("--out", help="also write contamination.json, .md and .html here")
    contamination.set_defaults(handler=_contamination)
    merge = commands.add_parser("merge", help="merge shard run folders (--shard I/N) into one run")
    merge.add_argument("run_dirs", nargs="+")
    merge.add_argument("--out", required=True, help="folder of the merged run")
    merge.add_argument("--gate", help="release gate on the merged run, e.g. pass@1>=baseline-0.02")
    merge.add_argument("--gate-baseline", help="baseline run folder for relative gate conditions")
    merge.add_argument("--gate-allow-unscored", help="unscored cases the gate accepts: N or P%%")
    merge.set_defaults(handler=_merge)
    for name in suite_names():
        get_suite(name).add_commands(commands.add_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    raise SystemExit(main())
