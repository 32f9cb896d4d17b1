"""The MM-OptBench subcommands of ``python -m benchmark``: generating the packages, checking that
they regenerate, validating any dataset root and writing the dataset report."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

DEFAULT_ROOT = Path(__file__).resolve().parents[3] / "fixtures" / "mmopt"


def _generate(args: argparse.Namespace) -> int:
    from benchmark.suites.mmopt.generation import generate_dataset
    from benchmark.suites.mmopt.generation.split import DEFAULT_PER_DIFFICULTY, Split

    if (args.split is None) != (args.seed_base is None):
        raise SystemExit("generate: --split and --seed-base go together")
    if args.split is not None and args.out == str(DEFAULT_ROOT):
        raise SystemExit("generate: a held-out split needs its own --out DIR, not the shipped fixtures")
    try:
        split = None if args.split is None else Split(args.split, args.seed_base)
    except ValueError as exc:
        raise SystemExit(f"generate: {exc}") from None
    per_difficulty = args.per_difficulty or (DEFAULT_PER_DIFFICULTY if split else 10)
    try:
        report = generate_dataset(
            Path(args.out), subcategories=args.subcategory or None, per_difficulty=per_difficulty, split=split
        )
    except ValueError as exc:
        raise SystemExit(f"generate: {exc}") from None
    print(report.summary())
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


def _validate(args: argparse.Namespace) -> int:
    from benchmark.suites.mmopt.generation.validate import RUNTIME_BUDGET_S, validate

    budget = RUNTIME_BUDGET_S if args.solve_budget is None else args.solve_budget
    root = Path(args.dataset or args.root)
    try:
        chosen = frozenset(args.subcategory or ())
        report = validate(
            root,
            processes=args.processes,
            solve_budget_s=budget,
            select=(lambda ref: ref.labels["subcategory"] in chosen) if chosen else None,
            skip=frozenset(args.skip or ()),
        )
    except ValueError as exc:  # an unknown --skip name
        print(f"validate: {exc}")
        return 2
    if chosen and not report.packages:
        print(f"validate: no package of {', '.join(sorted(chosen))} under {root}")
        return 2
    for line in report.certificate_table():
        print(line)
    for failure in report.failures:
        print(failure.line())
    by_note: dict[str, list[str]] = {}
    for package, note in report.skipped:
        by_note.setdefault(note, []).append(package)
    for note, packages in by_note.items():  # one line per note: a --skip applies to every package
        print(f"{packages[0] if len(packages) == 1 else f'{len(packages)} packages'}: skipped: {note}")
    print(report.summary())
    return 0 if report.ok else 1


def _dataset_report(args: argparse.Namespace) -> int:
    from benchmark.suites.mmopt.generation.report import build_dataset_report

    report = build_dataset_report(
        Path(args.root),
        Path(args.out),
        repeats=args.repeats,
        processes=args.processes,
        official=Path(args.official) if args.official else None,
    )
    for path in report.files:
        print(path)
    for problem in report.unreadable:
        print(f"left out (unreadable): {problem}")
    for flag in report.not_growing:
        print(f"does not grow from easy to hard: {flag}")
    print(f"{len(report.facts)} packages reported in {report.seconds:.1f} s")
    return 0


def add_commands(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    generate = add_command("generate", help="generate MM-OptBench packages and the manifest")
    generate.add_argument("--out", default=str(DEFAULT_ROOT), help="dataset root to write")
    generate.add_argument("--subcategory", action="append", help="only this subcategory (repeatable)")
    generate.add_argument(
        "--per-difficulty", type=int, default=None, help="instances per difficulty (10; 2 for a split)"
    )
    generate.add_argument("--split", help="write a held-out split of this name (seeds disjoint from ours)")
    generate.add_argument("--seed-base", type=int, help="the split's seed base (another base, another split)")
    generate.set_defaults(handler=_generate)

    regenerate = add_command("check-regeneration", help="regenerate from recorded seeds and compare")
    regenerate.add_argument("root", nargs="?", default=str(DEFAULT_ROOT))
    regenerate.set_defaults(handler=_check_regeneration)

    validate = add_command(
        "validate", help="run the validation stack over a dataset root (exit 1 on any failure)"
    )
    validate.add_argument("root", nargs="?", default=str(DEFAULT_ROOT))
    validate.add_argument(
        "--dataset",
        help="dataset root (same as ROOT); a copy of the official release gets a certificate per package",
    )
    validate.add_argument("--processes", type=int, default=None, help="worker processes (default: up to 4)")
    validate.add_argument(
        "--solve-budget", type=float, default=None, help="seconds a reference re-solve may take (60)"
    )
    validate.add_argument(
        "--skip",
        action="append",
        metavar="CHECK",
        help="leave out a costly check: reference_solve, solver_ref, regeneration or visuals (repeatable); "
        "the packages are then reported as partly checked",
    )
    validate.add_argument(
        "--subcategory", action="append", help="only this subcategory's packages (repeatable; folder name)"
    )
    validate.set_defaults(handler=_validate)

    dataset_report = add_command(
        "dataset-report", help="counts, sizes, runtimes, rejections, plots and contact sheets of a root"
    )
    dataset_report.add_argument("root", nargs="?", default=str(DEFAULT_ROOT))
    dataset_report.add_argument("--out", required=True, help="folder for dataset_report.md and the PNGs")
    dataset_report.add_argument("--repeats", type=int, default=3, help="timed solves per package (best)")
    dataset_report.add_argument("--processes", type=int, default=1, help="parallel timing processes")
    dataset_report.add_argument(
        "--official", help="a copy of the official release's dataset/: add our sizes against its, per tier"
    )
    dataset_report.set_defaults(handler=_dataset_report)
