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
    from benchmark.plugin import summarize_run

    paths = RunPaths(Path(args.run_dir))
    if not paths.results.exists():
        print(f"{paths.results}: no results file; is {args.run_dir} a run folder?", file=sys.stderr)
        return 2
    manifest = read_manifest(paths)
    suite = get_suite(str(manifest["suite"]))  # the schema makes every manifest name its suite
    run_info = {"model": manifest.get("model", {}).get("alias"), "suite": suite.name}
    sessions = manifest.get("sessions") or [{}]
    summary = summarize_run(paths, run_info, suite, sessions[-1].get("selected"))
    print(json.dumps(summary["metrics"], indent=2))
    return 0


def _rescore(args: argparse.Namespace) -> int:
    from benchmark.rescore import rescore

    return rescore(Path(args.run_dir))


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
    for name in suite_names():
        get_suite(name).add_commands(commands.add_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    raise SystemExit(main())
