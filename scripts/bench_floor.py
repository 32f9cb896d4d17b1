"""Measure the physical floor of a warm case and what the warm pool adds to it, on this machine now.

Printed (medians, in milliseconds), with the load averages before and after:

* ``python -c pass``: an interpreter start of the sandbox's Python (what a plain run of a reference
  pays before any import);
* a bare fork of a warm interpreter (the solver stack imported, as in the warm pool's server), from
  fork to reaped exit (``scripts/floor_child.py``);
* the median solve: each reference of the sample run in a fork of that warm interpreter, timed
  inside the child (the candidate's own time: module body and ``solve()``);
* the warm pool: the same sources through ``PoolSandbox.run_solve`` (the harness's whole sandbox
  path: input folder, request, fork, limits, verdict, sweep), and, paired per reference, what it
  took beyond the reference's own time (the figure ``scripts/bench_overhead.py`` reports per suite,
  there with scoring and the record too).

The sample is MM-OptBench's bar-sized one (packages ``_001``–``_003`` of every subcategory and
difficulty, 234 references) unless ``--limit`` cuts it.

    .venv/bin/python scripts/bench_floor.py [--limit 234] [--repeat 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmark.sandbox import SandboxKind, create_sandbox  # noqa: E402
from benchmark.sandbox.environment import sandbox_environment, solver_stack  # noqa: E402
from benchmark.sandbox.pool import PRELOAD_SUBMODULES  # noqa: E402
from benchmark.suites.mmopt.package import discover  # noqa: E402

PYTHON = str(sandbox_environment().python)
#: MM-OptBench's bar-sized sample: the first three packages of every subcategory and difficulty.
SAMPLE_PACKAGES = ("_001", "_002", "_003")


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def mmopt_sample(limit: int | None = None) -> list[tuple[str, str]]:
    """(instance key, solver_ref.py source) of the bar-sized sample, in dataset order."""
    refs = [
        r for r in discover(REPO / "fixtures" / "mmopt") if r.labels["instance_id"].endswith(SAMPLE_PACKAGES)
    ]
    sources = [(r.key, (r.location / "ground_truth" / "solver_ref.py").read_text()) for r in refs]
    return sources[:limit] if limit else sources


class WarmChild:
    """``floor_child.py`` under the sandbox's Python with the solver stack imported."""

    def __init__(self) -> None:
        modules = ",".join([*(p.import_name for p in solver_stack()), *PRELOAD_SUBMODULES])
        self.proc = subprocess.Popen(
            [PYTHON, "-s", str(REPO / "scripts" / "floor_child.py"), modules],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None and json.loads(self.proc.stdout.readline())["ready"]

    def run(self, job: dict[str, object]) -> dict[str, object]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        return dict(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


@contextmanager
def warm_child() -> Iterator[WarmChild]:
    child = WarmChild()
    try:
        yield child
    finally:
        child.close()


def own_times(jobs: list[dict[str, object]]) -> list[float | None]:
    """Each job's own time in a fork of a warm interpreter (None where it failed)."""
    with warm_child() as child:
        answers = [child.run(job) for job in jobs]
    return [float(a["own_s"]) if a.get("ok") and a.get("own_s") is not None else None for a in answers]  # type: ignore[arg-type]


def interpreter_start(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([PYTHON, "-c", "pass"], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def bare_fork(repeat: int) -> float:
    with warm_child() as child:
        return statistics.median(float(child.run({"kind": "bare"})["fork_wall_s"]) for _ in range(repeat))  # type: ignore[arg-type]


def warm_pool(sources: list[str]) -> list[float]:
    """Harness-side seconds of each source's ``run_solve`` in the warm pool (once it is warm)."""
    sandbox = create_sandbox([], prefer=SandboxKind.POOL)
    try:
        if not sandbox.wait_until_warm():  # type: ignore[attr-defined]
            raise SystemExit("the warm pool did not start")
        times = []
        for source in sources:
            started = time.perf_counter()
            sandbox.run_solve(source)
            times.append(time.perf_counter() - started)
        return times
    finally:
        sandbox.close()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=None, help="the first N references of the sample")
    parser.add_argument("--repeat", type=int, default=30, help="runs of python -c pass and of the bare fork")
    args = parser.parse_args()
    print(f"load average before: {load()}")
    sample = mmopt_sample(args.limit)
    sources = [source for _key, source in sample]
    print(f"python -c pass (sandbox Python): {ms(interpreter_start(args.repeat))}")
    print(f"bare fork of a warm interpreter: {ms(bare_fork(args.repeat))}")
    own = own_times([{"kind": "solve", "source": source} for source in sources])
    solved = [t for t in own if t is not None]
    median_solve = ms(statistics.median(solved))
    print(f"median solve, in a warm fork ({len(solved)} of {len(own)} references): {median_solve}")
    pool = warm_pool(sources)
    extra = [p - o for p, o in zip(pool, own, strict=True) if o is not None]
    print(f"warm pool run_solve: median {ms(statistics.median(pool))}; beyond the reference's own time: "
          f"median {ms(statistics.median(extra))}")  # fmt: skip
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
