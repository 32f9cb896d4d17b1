"""Measure the harness's own overhead per case and its scaling from -n 1 to -n 2.

Overhead per case = (oracle run wall time) / cases − (median time of running the same reference
solver directly, outside pytest and the sandbox). Each configuration is run ``--repeat`` times and
the median is reported, so one slow start does not decide the numbers.

    .venv/bin/python scripts/bench_overhead.py [--repeat 3] [--subcategory NAME ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmark.suites.mmopt.package import discover  # noqa: E402


def direct_solve_seconds(subcategories: list[str]) -> list[float]:
    """Run every selected reference solver as a plain ``python solver_ref.py``."""
    times = []
    for ref in discover(REPO / "fixtures" / "mmopt"):
        if subcategories and ref.labels["subcategory"] not in subcategories:
            continue
        with tempfile.TemporaryDirectory() as cwd:
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, str(ref.location / "ground_truth/solver_ref.py")],
                cwd=cwd,
                check=True,
                capture_output=True,
            )
            times.append(time.perf_counter() - start)
    return times


def oracle_run_seconds(workers: int, subcategories: list[str]) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as run_dir:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--model=oracle",
                   "-n", str(workers), f"--report-dir={run_dir}"]  # fmt: skip
        if subcategories:
            command += ["-m", " or ".join(subcategories)]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"oracle run failed:\n{(done.stdout + done.stderr)[-3000:]}")
        cases = len((Path(run_dir) / "results.jsonl").read_text().splitlines())
    return elapsed, cases


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--subcategory", action="append", default=[], help="only this one (repeatable)")
    args = parser.parse_args()

    direct = direct_solve_seconds(args.subcategory)
    walls: dict[int, list[float]] = {1: [], 2: []}
    cases = 0
    for _ in range(args.repeat):
        for workers in walls:
            elapsed, cases = oracle_run_seconds(workers, args.subcategory)
            walls[workers].append(elapsed)
    median_direct = statistics.median(direct)
    result = {
        "cases": cases,
        "direct_reference_solve_s": {"median": median_direct, "max": max(direct), "total": sum(direct)},
        "oracle_run_wall_s": {f"-n {w}": statistics.median(v) for w, v in walls.items()},
        "per_case_s_at_n1": statistics.median(walls[1]) / cases,
        "harness_overhead_per_case_s": statistics.median(walls[1]) / cases - median_direct,
        "speedup_n1_to_n2": statistics.median(walls[1]) / statistics.median(walls[2]),
        "repeat": args.repeat,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
