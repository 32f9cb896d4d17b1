"""Measure what the first scored MM-OptBench case costs a fresh process (an xdist worker's first case).

Each sample is a fresh interpreter that imports what a worker holds before its first case (the
plugin and the MM-OptBench suite), loads one package, and then times two calls of
``score_execution`` on the package's reference solution: the first pays the imports that scoring
does lazily (the subcategory's rules or validator), the second is the steady state. The script
prints, per package, the median over ``--repeat`` fresh processes of both, and the modules that
the first call imported.

    .venv/bin/python scripts/bench_first_case.py [--repeat 5] [--package mf_e_001 ...]

The default packages are one per scoring route: official rules (maximum flow) and the project's
validator (job shop). Other load inflates every figure; say so when you quote one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Runs in the fresh process; prints one JSON line.
_SAMPLE = """
import json, sys, time
from pathlib import Path
import benchmark.plugin  # noqa: F401  (what a worker has imported before its first case)
import benchmark.suites.mmopt.suite  # noqa: F401
from benchmark.sandbox import ExecutionResult, Outcome, SandboxKind
from benchmark.suites.mmopt.package import discover, load_package
from benchmark.suites.mmopt.scoring import score_execution

wanted = sys.argv[1]
ref = next(r for r in discover(Path("fixtures/mmopt")) if r.labels["instance_id"] == wanted)
package = load_package(ref)
execution = ExecutionResult(Outcome.OK, package.solution_ref, "", "", 0.0, SandboxKind.POOL)
before = set(sys.modules)
times = []
for _ in range(2):
    start = time.perf_counter()
    verdict = score_execution(
        execution,
        subcategory=package.subcategory,
        instance=package.instance_data,
        solution_ref=package.solution_ref,
        objective_only=False,
    )
    times.append(time.perf_counter() - start)
print(json.dumps({"first_s": times[0], "second_s": times[1], "passed": verdict.passed,
                  "imported": len(set(sys.modules) - before)}))
"""


def sample(instance_id: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _SAMPLE, instance_id], cwd=REPO, check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per package (median)")
    parser.add_argument("--package", action="append", help="instance id (repeatable)")
    args = parser.parse_args()
    for instance_id in args.package or ["mf_e_001", "jss_e_001"]:
        runs = [sample(instance_id) for _ in range(args.repeat)]
        print(
            json.dumps(
                {
                    "package": instance_id,
                    "repeat": args.repeat,
                    "first_score_median_s": round(statistics.median(r["first_s"] for r in runs), 4),
                    "second_score_median_s": round(statistics.median(r["second_s"] for r in runs), 5),
                    "modules_imported_by_first": statistics.median(r["imported"] for r in runs),
                    "all_passed": all(r["passed"] for r in runs),
                }
            )
        )


if __name__ == "__main__":
    main()
