"""The ``optbench`` command: dataset generation and checks, and rebuilding a run's reports.

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

_DEFAULT_ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "mmopt"


def _generate(args: argparse.Namespace) -> int:
    from benchmark.suites.mmopt.generation import generate_dataset

    report = generate_dataset(
        Path(args.out), subcategories=args.subcategory or None, per_difficulty=args.per_difficulty
    )
    print(report)
    return 0


def _check_regeneration(args: argparse.Namespace) -> int:
    from benchmark.suites.mmopt.generation import check_regeneration

    differences = check_regeneration(Path(args.root))
    for line in differences:
        print(line)
    print(
        "regeneration reproduces every JSON and text file"
        if not differences
        else f"{len(differences)} differences"
    )
    return 1 if differences else 0


def _summarize(args: argparse.Namespace) -> int:
    from benchmark.plugin import summarize_run
    from benchmark.suites.base import get_suite

    paths = RunPaths(Path(args.run_dir))
    if not paths.results.exists():
        print(f"{paths.results}: no results file; is {args.run_dir} a run folder?", file=sys.stderr)
        return 2
    manifest = read_manifest(paths)
    suite = get_suite(str(manifest.get("suite", "mmopt")))
    run_info = {"model": manifest.get("model", {}).get("alias"), "suite": suite.name}
    summary = summarize_run(paths, run_info, suite)
    print(json.dumps(summary["metrics"], indent=2))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="optbench", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    generate = commands.add_parser("generate", help="generate MM-OptBench packages and the manifest")
    generate.add_argument("--out", default=str(_DEFAULT_ROOT), help="dataset root to write")
    generate.add_argument("--subcategory", action="append", help="only this subcategory (repeatable)")
    generate.add_argument("--per-difficulty", type=int, default=10, help="instances per difficulty")
    generate.set_defaults(handler=_generate)

    regenerate = commands.add_parser("check-regeneration", help="regenerate from recorded seeds and compare")
    regenerate.add_argument("root", nargs="?", default=str(_DEFAULT_ROOT))
    regenerate.set_defaults(handler=_check_regeneration)

    summarize = commands.add_parser("summarize", help="rebuild summary.json/summary.md from a run's records")
    summarize.add_argument("run_dir")
    summarize.set_defaults(handler=_summarize)

    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    raise SystemExit(main())
