"""Measure what the harness costs on top of the references themselves, for every shipped suite.

For MM-OptBench (every shipped subcategory) and Mamo, in one run on the same machine:

* ``plain_sequential_s``: each reference run as a plain ``python`` process, one after another
  (MM-OptBench: ``python solver_ref.py``; Mamo: ``python reference.py`` for ODE cases and
  ``python solve_lp.py`` with the ``.lp`` file for LP cases), with the sandbox's interpreter;
* ``oracle_s``: ``pytest --model=oracle`` at ``-n 1`` and ``-n 2`` with the default (warm) sandbox,
  and at ``-n 1`` with ``--sandbox cold`` (a fresh bwrap per case, the pre-pool behaviour);
* ``ratio_oracle_n1_to_plain`` (target ≤ 0.25) and ``speedup_warm_over_cold_n1``;
* for the warm ``-n 1`` run, where its time goes: the median case (``total_time_s`` of the records,
  and the sandbox's ``execution.wall_s`` within it), the sum over cases, and the rest of the wall
  time (interpreter and plugin start, collection, summary and report, exit);
* the harness cost per case (``oracle_warm_n1_harness_cost``): the median over cases of
  ``total_time_s`` minus the candidate's own time, measured by running the same code in a fork of
  a warm interpreter and timing it inside the child (``scripts/bench_floor.py``; target ≤ 15 ms),
  and for comparison the median of ``total_time_s`` minus the sandbox's ``execution.wall_s``;
* the load averages before and after each suite, since other load inflates every figure.

``--sample`` runs each suite's bar-sized sample instead of all of it: MM-OptBench packages
``_001``–``_003`` of every subcategory and difficulty (234 cases), every other Mamo case
(``--shard=1/2``, 293).

Each oracle configuration runs ``--repeat`` times and the median is reported. The machine should be
idle: other load inflates every figure, the plain run most.

    .venv/bin/python scripts/bench_overhead.py [--repeat 1] [--suite mmopt] [--no-cold] [--sample]
        [--only mmopt:maximum_flow]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITES = ("mmopt", "mamo")
#: The bar-sized sample of each suite (``--sample``): pytest arguments selecting 200+ cases.
SAMPLES = {"mmopt": ["-k", "_001 or _002 or _003"], "mamo": ["--shard=1/2"]}
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))  # bench_floor, also when this file is imported by path

from bench_floor import own_times  # noqa: E402

from benchmark.records import read_records  # noqa: E402
from benchmark.sandbox.environment import sandbox_environment  # noqa: E402
from benchmark.schema import CaseRecord  # noqa: E402
from benchmark.suites.mamo.dataset import discover as discover_mamo  # noqa: E402
from benchmark.suites.mamo.dataset import load_case  # noqa: E402
from benchmark.suites.mamo.lp_solvers import LP_FILE, solver_script  # noqa: E402
from benchmark.suites.mmopt.package import discover as discover_mmopt  # noqa: E402

PYTHON = str(sandbox_environment().python)


def _timed(argv: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def plain_mmopt(selected: set[str]) -> list[float]:
    times = []
    for ref in discover_mmopt(REPO / "fixtures" / "mmopt"):
        if ref.key not in selected:
            continue
        with tempfile.TemporaryDirectory() as cwd:
            times.append(_timed([PYTHON, str(ref.location / "ground_truth/solver_ref.py")], cwd))
    return times


def mamo_jobs(selected: set[str]) -> dict[str, dict[str, object]]:
    """The reference of each selected Mamo case as a ``floor_child.py`` job, by instance key."""
    jobs: dict[str, dict[str, object]] = {}
    lp_script = solver_script("highs")
    for ref in discover_mamo(REPO / "fixtures" / "mamo"):
        case = load_case(ref) if ref.key in selected else None
        if case is None or case.reference is None:
            continue
        if case.is_ode:
            jobs[ref.key] = {"kind": "script", "source": case.reference}
        else:
            jobs[ref.key] = {"kind": "script", "source": lp_script, "files": {LP_FILE: case.reference}}
    return jobs


def plain_mamo(selected: set[str]) -> list[float]:
    times = []
    lp_script = solver_script("highs")
    for ref in discover_mamo(REPO / "fixtures" / "mamo"):
        if ref.key not in selected:
            continue
        case = load_case(ref)
        if case.reference is None:
            continue
        with tempfile.TemporaryDirectory() as cwd:
            if case.is_ode:
                Path(cwd, "reference.py").write_text(case.reference)
                times.append(_timed([PYTHON, "reference.py"], cwd))
            else:
                Path(cwd, LP_FILE).write_text(case.reference)
                Path(cwd, "solve_lp.py").write_text(lp_script)
                times.append(_timed([PYTHON, "solve_lp.py"], cwd))
    return times


def selection_args(suite: str, subcategories: list[str], sample: bool) -> list[str]:
    args = list(SAMPLES[suite]) if sample else []
    if subcategories:
        args += ["-m", " or ".join(subcategories)]
    return args


def selected_instances(suite: str, selection: list[str]) -> set[str]:
    """Instance keys of the cases the oracle runs will select (from pytest's own collection)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only",
               "--model=oracle", f"--suite={suite}", *selection]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    ids = [
        line.split("[", 1)[1].rstrip("]") for line in done.stdout.splitlines() if line.startswith("cases/")
    ]
    if not ids:
        raise SystemExit(f"{suite}: nothing collected:\n{(done.stdout + done.stderr)[-2000:]}")
    return {test_id.rsplit("-", 2)[0] for test_id in ids}


def oracle_run(
    suite: str, workers: int, sandbox: str, selection: list[str]
) -> tuple[float, list[CaseRecord]]:
    with tempfile.TemporaryDirectory() as run_dir:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--model=oracle",
                   f"--suite={suite}", f"--sandbox={sandbox}", "-n", str(workers),
                   f"--report-dir={run_dir}", *selection]  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"{suite} oracle run failed:\n{(done.stdout + done.stderr)[-3000:]}")
        records = read_records(Path(run_dir) / "results.jsonl")
    return elapsed, records


def instance_key(record: CaseRecord) -> str:
    """``mmopt/…/mf_e_001`` of the record's case ``mmopt/…/mf_e_001/stage1/s0``."""
    return record.case.rsplit("/", 2)[0]


def harness_cost(suite: str, records: list[CaseRecord]) -> dict[str, object]:
    """Per case, ``total_time_s`` minus the candidate's own time, measured by running the same code
    in a fork of a warm interpreter and timing it inside the child (``bench_floor.py``): what the
    harness adds around the solve (the request to the pool, its fork, limits, the verdict, the
    sweep, scoring and the record). Medians; the target of issue 28 is at most 15 ms."""
    if suite == "mmopt":
        artifacts = {instance_key(r): r.artifact for r in records}
        jobs = {
            key: {"kind": "solve", "source": artifact["solve.py"]}
            for key, artifact in artifacts.items()
            if artifact.get("solve.py")
        }
    else:
        jobs = mamo_jobs({instance_key(r) for r in records})
    keys = list(jobs)
    own = dict(zip(keys, own_times([jobs[k] for k in keys]), strict=True))
    costs = [
        float(r.total_time_s or 0.0) - own_s
        for r in records
        if (own_s := own.get(instance_key(r))) is not None
    ]
    outside = [
        float(r.total_time_s or 0.0) - float(r.execution.wall_s or 0.0) for r in records if r.execution
    ]
    own_measured = [t for t in own.values() if t is not None]
    return {
        "cases_measured": len(costs),
        "own_solve_median_s": round(statistics.median(own_measured), 4) if own_measured else None,
        "harness_cost_median_s": round(statistics.median(costs), 4) if costs else None,
        "total_minus_execution_median_s": round(statistics.median(outside), 4) if outside else None,
    }


def where_time_went(wall_s: float, records: list[CaseRecord]) -> dict[str, float]:
    """Per-case medians and sums of one oracle run, and the wall time spent outside its cases."""
    totals = [float(r.total_time_s or 0.0) for r in records]
    executions = [float(r.execution.wall_s or 0.0) for r in records if r.execution]
    return {
        "case_median_s": round(statistics.median(totals), 4),
        "execution_median_s": round(statistics.median(executions), 4) if executions else 0.0,
        "cases_sum_s": round(sum(totals), 2),
        "executions_sum_s": round(sum(executions), 2),
        "outside_cases_s": round(wall_s - sum(totals), 2),
    }


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def measure(
    suite: str, repeat: int, subcategories: list[str], cold: bool = True, sample: bool = False
) -> dict[str, object]:
    load_before = load()
    selection = selection_args(suite, subcategories, sample)
    selected = selected_instances(suite, selection)
    plain = plain_mmopt(selected) if suite == "mmopt" else plain_mamo(selected)
    print(f"{suite}: {len(plain)} references, plain {sum(plain):.1f} s", file=sys.stderr, flush=True)
    configs = {"warm -n 1": ("warm", 1), "warm -n 2": ("warm", 2)}
    if cold:
        configs["cold -n 1"] = ("cold", 1)
    walls: dict[str, list[float]] = {name: [] for name in configs}
    runs: list[tuple[float, list[CaseRecord]]] = []
    cases = 0
    for _ in range(repeat):
        for name, (sandbox, workers) in configs.items():
            elapsed, records = oracle_run(suite, workers, sandbox, selection)
            cases = len(records)
            walls[name].append(elapsed)
            if name == "warm -n 1":
                runs.append((elapsed, records))
            print(f"{suite}: oracle {name}: {elapsed:.1f} s, {cases} cases", file=sys.stderr, flush=True)
    oracle = {name: round(statistics.median(v), 2) for name, v in walls.items()}
    total = sum(plain)
    median_run = sorted(runs, key=lambda run: run[0])[len(runs) // 2]
    return {
        "load_average_before": load_before,
        "load_average_after": load(),
        "cases": cases,
        "selection": selection,
        "references_run": len(plain),
        "plain_sequential_s": round(total, 2),
        "plain_median_per_reference_s": round(statistics.median(plain), 4),
        "oracle_s": oracle,
        "oracle_warm_n1_breakdown": where_time_went(*median_run),
        "oracle_warm_n1_harness_cost": harness_cost(suite, median_run[1]),
        "ratio_oracle_n1_to_plain": round(oracle["warm -n 1"] / total, 3),
        "speedup_warm_over_cold_n1": round(oracle["cold -n 1"] / oracle["warm -n 1"], 2) if cold else None,
        "speedup_n1_to_n2": round(oracle["warm -n 1"] / oracle["warm -n 2"], 2),
    }


def chosen(suite_args: list[str], only_args: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The suites to measure and each one's subcategories: ``--only mmopt:maximum_flow`` alone
    measures that subcategory of mmopt and no other suite; ``--suite NAME`` adds NAME (whole unless
    an ``--only`` narrows it); neither: every suite, whole."""
    only: dict[str, list[str]] = {}
    for item in only_args:
        suite, _, name = item.partition(":")
        if suite not in SUITES or not name:
            raise ValueError(f"--only {item!r}: expected SUITE:SUBCATEGORY, SUITE one of {', '.join(SUITES)}")
        only.setdefault(suite, []).append(name)
    suites = list(dict.fromkeys([*suite_args, *only])) or list(SUITES)
    return suites, only


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--suite", action="append", choices=SUITES, default=[])
    parser.add_argument("--no-cold", action="store_true", help="leave out the cold -n 1 run (the slowest)")
    parser.add_argument(
        "--sample",
        action="store_true",
        help="each suite's bar-sized sample: mmopt packages _001-_003 (234), every other mamo case (293)",
    )
    parser.add_argument(
        "--only", action="append", default=[], metavar="SUITE:SUBCATEGORY", help="a subset (repeatable)"
    )
    args = parser.parse_args()
    try:
        suites, only = chosen(args.suite, args.only)
    except ValueError as exc:
        parser.error(str(exc))
    result: dict[str, object] = {
        suite: measure(suite, args.repeat, only.get(suite, []), cold=not args.no_cold, sample=args.sample)
        for suite in suites
    }
    result["repeat"] = args.repeat
    result["python"] = PYTHON
    # Set here, it makes every pytest process compile the harness's modules from source.
    result["PYTHONDONTWRITEBYTECODE"] = os.environ.get("PYTHONDONTWRITEBYTECODE")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
