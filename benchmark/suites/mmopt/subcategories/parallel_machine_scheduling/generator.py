"""Parallel-machine instances (scheduling/sequencing family, prefix ``pms``): minimize the makespan.

Every job runs once, on one eligible machine, without interruption; a machine runs one job at a
time. Regimes (App. D.2; medium and hard at the official release's median sizes, 21 jobs × 4.5
machines and 48 × 7): at easy a handful of jobs on identical machines, everyone eligible; at medium
18 to 24 jobs on four or five uniform machines (speeds) with restricted eligibility and
sequence-independent setup times (a job occupies its machine for setup + processing); at hard 42 to
54 jobs on six to eight unrelated machines with restricted eligibility and setups. Hard has no
release times since generator 2.0.0, as in the release (whose hard jobs are all available at time
zero): with releases at that size CP-SAT proved one candidate in five within its work limit. The
release-time model (the validator, the threshold rows below) still serves any instance that has them.

Rejection rules: a job no machine may run, or eligibility that pins every job to one machine (no
assignment decision), is structural; the verified optimum must exceed both the longest single
occupancy and, with release times, the latest release plus its occupancy, so that the makespan is
set by how jobs share machines rather than by one job (machine conflicts active, not vacuous).

Reference: CP-SAT with an optional interval per (job, eligible machine); at medium and hard with the
redundant machine-load rows and a deterministic work limit (one worker, fixed seed), beyond which a
candidate is rejected and counted. Cross-check: an assignment MILP solved by HiGHS that uses the
single-machine release-date bound: for an assignment, the best makespan of a machine is max over
thresholds t of t + (occupancy of its jobs released at or after t) (earliest release first is
optimal for one machine), which is linear in the assignment binaries; at medium and hard under a
node budget (a fresh single-threaded HiGHS, :mod:`~benchmark.suites.mmopt.generation.milp`), so
the verdict is the same on a loaded machine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import Bounds, LinearConstraint, milp

from benchmark.suites.mmopt.generation.milp import proven_optimum
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

SOLVE_LIMIT_S = 30.0  # easy (and release instances): a safety net beside the work limit below
#: CP-SAT's deterministic time limit (work units, the same on any machine load); at medium and hard
#: a candidate not proven within it is rejected, which also bounds its solver_ref.py's replay
REFERENCE_WORK_LIMIT = 1.5
#: the easy tier's (and the release's instances') work limit: far above what they need
EASY_WORK_LIMIT = 20.0
#: a safety net only at medium and hard: the work limit decides
SCALED_SOLVE_LIMIT_S = 120.0
#: branch-and-bound nodes of the HiGHS cross-check at medium and hard
CROSS_CHECK_NODE_LIMIT = 5000


@dataclass(frozen=True)
class Regime:
    jobs: tuple[int, int]
    machines: tuple[int, int]
    base_time: tuple[int, int]
    machine_type: str  # identical | uniform | unrelated
    eligible_share: tuple[float, float]  # share of machines a job may use (at least two)
    setup: tuple[int, int] | None
    release_share: float  # share of the total work over the machines spread as release times
    processing_time_regime: str
    #: the official scale: load rows and a work limit for CP-SAT, a node budget for HiGHS
    scaled: bool = False


REGIMES: dict[str, Regime] = {
    "easy": Regime((6, 8), (2, 3), (2, 9), "identical", (1.0, 1.0), None, 0.0, "uniform_small"),
    "medium": Regime((18, 24), (4, 5), (3, 15), "uniform", (0.6, 1.0), (1, 3), 0.0, "heterogeneous",
                     scaled=True),
    "hard": Regime((42, 54), (6, 8), (4, 20), "unrelated", (0.5, 0.8), (1, 4), 0.0, "unrelated_wide",
                   scaled=True),
}  # fmt: skip
SPEEDS = (1.0, 1.25, 1.5, 2.0)


@dataclass(frozen=True)
class Structure:
    jobs: tuple[str, ...]
    machines: tuple[str, ...]
    eligibility: dict[str, list[str]]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    machines = tuple(f"M{m}" for m in range(1, rng.randint(*regime.machines) + 1))
    jobs = tuple(f"J{j}" for j in range(1, rng.randint(*regime.jobs) + 1))
    eligibility = {}
    for job in jobs:
        count = max(2, round(rng.uniform(*regime.eligible_share) * len(machines)))
        chosen = set(rng.sample(machines, min(count, len(machines))))
        eligibility[job] = [m for m in machines if m in chosen]
    return Structure(jobs=jobs, machines=machines, eligibility=eligibility)


def formulation_size(instance: Mapping[str, Any]) -> dict[str, int]:
    """Sizes of the assignment MILP of :func:`cross_check` (one binary per eligible pair)."""
    pairs = sum(len(v) for v in instance["eligibility"].values())
    thresholds = len(_thresholds(instance))
    machines = len(instance["sets"]["machines"])
    return {
        "variables": pairs + 1,
        "binary_variables": pairs,
        "constraints": len(instance["sets"]["jobs"]) + thresholds * machines,
        "jobs": len(instance["sets"]["jobs"]),
        "machines": machines,
    }


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    base = {job: rng.randint(*regime.base_time) for job in structure.jobs}
    if regime.machine_type == "uniform":
        speed = {m: rng.choice(SPEEDS) for m in structure.machines}
    else:
        speed = dict.fromkeys(structure.machines, 1.0)
    effective: dict[str, dict[str, int]] = {}
    for job in structure.jobs:
        effective[job] = {}
        for machine in structure.eligibility[job]:
            if regime.machine_type == "unrelated":
                effective[job][machine] = max(1, round(base[job] * rng.uniform(0.6, 1.6)))
            else:
                effective[job][machine] = math.ceil(base[job] / speed[machine])
    instance: dict[str, Any] = {
        "variant": "parallel_machine_scheduling",
        "scenario": "parallel_machine_scheduling",
        "difficulty": difficulty,
        "sets": {"jobs": list(structure.jobs), "machines": list(structure.machines)},
        "eligibility": {job: list(ms) for job, ms in structure.eligibility.items()},
        "base_processing_time": base,
        "machine_speed": speed,
        "effective_processing_time": effective,
        "weights": dict.fromkeys(structure.jobs, 1),
    }
    if regime.setup is not None:
        instance["setup_time"] = {job: rng.randint(*regime.setup) for job in structure.jobs}
    if regime.release_share:
        work = sum(min(effective[j].values()) for j in structure.jobs) / len(structure.machines)
        latest = max(1, round(regime.release_share * work))
        instance["release_time"] = {job: rng.randint(0, latest) for job in structure.jobs}
    instance["meta_parameters"] = {
        "number_jobs": len(structure.jobs),
        "number_machines": len(structure.machines),
        "machine_type": regime.machine_type,
        "objective_type": "makespan",
        "processing_time_regime": regime.processing_time_regime,
        "restricted_eligibility_flag": any(
            len(v) < len(structure.machines) for v in structure.eligibility.values()
        ),
        "setup_flag": "setup_time" in instance,
        "release_flag": "release_time" in instance,
        "formulation_size": 0,
    }
    instance["meta_parameters"]["formulation_size"] = formulation_size(instance)["variables"]
    return instance


def occupancy(instance: Mapping[str, Any], job: str, machine: str) -> int:
    """How long ``job`` holds ``machine``: its setup (if any) plus its processing time there."""
    setup = instance.get("setup_time", {}).get(job, 0)
    return int(setup) + int(instance["effective_processing_time"][job][machine])


def release(instance: Mapping[str, Any], job: str) -> int:
    return int(instance.get("release_time", {}).get(job, 0))


def _thresholds(instance: Mapping[str, Any]) -> list[int]:
    return sorted({release(instance, job) for job in instance["sets"]["jobs"]})


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    jobs, machines = instance["sets"]["jobs"], instance["sets"]["machines"]
    problems = []
    if (
        not regime.jobs[0] <= len(jobs) <= regime.jobs[1]
        or not regime.machines[0] <= len(machines) <= regime.machines[1]
    ):
        problems.append("structure: job or machine count outside the regime")
    if any(not instance["eligibility"][job] for job in jobs):
        problems.append("structure: a job no machine may run")
    used = {m for job in jobs for m in instance["eligibility"][job]}
    if used != set(machines):
        problems.append("structure: a machine no job may use")
    if regime.eligible_share[0] < 1.0 and all(
        len(v) == len(machines) for v in instance["eligibility"].values()
    ):
        problems.append("structure: eligibility restricts no job")
    return problems


def scaled(instance: Mapping[str, Any]) -> bool:
    """Whether ``instance`` is solved the official-scale way (load rows and a work limit for CP-SAT,
    a node budget for HiGHS): a medium or hard instance without release times."""
    regime = REGIMES.get(str(instance.get("difficulty")))
    return regime is not None and regime.scaled and not instance.get("release_time")


def _interval_model(
    instance: Mapping[str, Any], load_rows: bool, work_limit: float, wall_limit: float
) -> tuple[cp_model.CpSolverStatus, cp_model.CpSolver, dict[tuple[str, str], Any]]:
    """CP-SAT: an optional interval per eligible (job, machine), exactly one chosen per job, no
    overlap per machine, start at or after the release; minimize the makespan. ``load_rows`` adds
    the redundant bound makespan >= earliest release + each machine's load, which gives the search
    the assignment LP's bound. Built in the order of ``solver_ref.py``, so that the package's
    replay follows the same search. Returns the status, the solver and the choice literals."""
    jobs, machines = instance["sets"]["jobs"], instance["sets"]["machines"]
    horizon = max(release(instance, j) for j in jobs) + sum(
        max(occupancy(instance, j, m) for m in instance["eligibility"][j]) for j in jobs
    )
    model = cp_model.CpModel()
    chosen: dict[tuple[str, str], Any] = {}
    starts: dict[tuple[str, str], Any] = {}
    per_machine: dict[str, list[Any]] = {m: [] for m in machines}
    makespan = model.new_int_var(0, horizon, "makespan")
    for job in jobs:
        for machine in instance["eligibility"][job]:
            length = occupancy(instance, job, machine)
            chosen[job, machine] = model.new_bool_var(f"x_{job}_{machine}")
            starts[job, machine] = model.new_int_var(release(instance, job), horizon, f"s_{job}_{machine}")
            interval = model.new_optional_fixed_size_interval_var(
                starts[job, machine], length, chosen[job, machine], f"i_{job}_{machine}"
            )
            per_machine[machine].append(interval)
            model.add(makespan >= starts[job, machine] + length).only_enforce_if(chosen[job, machine])
        model.add_exactly_one(chosen[job, m] for m in instance["eligibility"][job])
    for intervals in per_machine.values():
        model.add_no_overlap(intervals)
    if load_rows:
        earliest = min(release(instance, j) for j in jobs)
        for machine in machines:
            mine = [(j, m) for (j, m) in chosen if m == machine]
            model.add(makespan >= earliest + sum(occupancy(instance, j, m) * chosen[j, m] for j, m in mine))
    model.minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = wall_limit
    solver.parameters.max_deterministic_time = work_limit
    return solver.solve(model), solver, chosen


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """The interval model, proven optimal. At medium and hard (:func:`scaled`) with the redundant
    load rows from the start, within :data:`REFERENCE_WORK_LIMIT`. Otherwise the plain model first
    (so that the easy references stay as they are, ``generate --check``) and, when it proves
    nothing within its limit, again with the load rows."""
    jobs = instance["sets"]["jobs"]
    if scaled(instance):
        status, solver, chosen = _interval_model(instance, True, REFERENCE_WORK_LIMIT, SCALED_SOLVE_LIMIT_S)
        method = "ortools.sat CP-SAT (optional intervals with machine-load rows, proven optimal)"
    else:
        status, solver, chosen = _interval_model(instance, False, EASY_WORK_LIMIT, SOLVE_LIMIT_S)
        if status != cp_model.OPTIMAL:
            status, solver, chosen = _interval_model(instance, True, EASY_WORK_LIMIT, SOLVE_LIMIT_S)
        method = "ortools.sat CP-SAT (optional intervals, proven optimal)"
    if status != cp_model.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", solver.status_name(status))
    assignment = {
        job: next(m for m in instance["eligibility"][job] if solver.boolean_value(chosen[job, m]))
        for job in jobs
    }
    solution = solution_record(instance, assignment)
    if solution["makespan"] != round(solver.objective_value):
        raise Rejected("reference: release-order schedule does not reproduce the optimum")
    return ReferenceSolution(solution=solution, method=method)


def solution_record(instance: Mapping[str, Any], assignment: Mapping[str, str]) -> dict[str, Any]:
    """The official ``solution_ref.json`` shape for ``assignment``, each machine's jobs in release order."""
    schedule = []
    loads = {}
    for machine in instance["sets"]["machines"]:
        mine = sorted(
            (j for j, m in assignment.items() if m == machine), key=lambda j: (release(instance, j), j)
        )
        time = 0
        for job in mine:
            start = max(time, release(instance, job))
            time = start + occupancy(instance, job, machine)
            schedule.append(
                {
                    "job": job,
                    "machine": machine,
                    "start": start,
                    "finish": time,
                    "duration": occupancy(instance, job, machine),
                }
            )
        loads[machine] = time
    makespan = max(loads.values())
    return {
        "status": "optimal",
        "objective_type": "makespan",
        "objective_value": makespan,
        "objective_exact": makespan,
        "makespan": makespan,
        "assignment": {job: assignment[job] for job in instance["sets"]["jobs"]},
        "machine_load": loads,
        "schedule": schedule,
    }


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """Assignment MILP with the release-threshold makespan rows (module docstring), solved by HiGHS;
    at medium and hard (:func:`scaled`) under a node budget, which alone decides."""
    jobs, machines = instance["sets"]["jobs"], instance["sets"]["machines"]
    pairs = [(j, m) for j in jobs for m in instance["eligibility"][j]]
    index = {pair: k for k, pair in enumerate(pairs)}
    n = len(pairs) + 1
    rows, lower, upper = [], [], []
    for job in jobs:
        line = np.zeros(n)
        for machine in instance["eligibility"][job]:
            line[index[job, machine]] = 1.0
        rows.append(line)
        lower.append(1.0)
        upper.append(1.0)
    for machine in machines:
        for threshold in _thresholds(instance):
            line = np.zeros(n)
            line[-1] = 1.0
            for job in jobs:
                if (job, machine) in index and release(instance, job) >= threshold:
                    line[index[job, machine]] = -float(occupancy(instance, job, machine))
            rows.append(line)
            lower.append(float(threshold))
            upper.append(np.inf)
    cost = np.zeros(n)
    cost[-1] = 1.0
    integrality = np.ones(n)
    integrality[-1] = 0
    high = np.ones(n)
    high[-1] = np.inf
    if scaled(instance):
        value = proven_optimum(
            cost,
            np.array(rows),
            (np.array(lower), np.array(upper)),
            (np.zeros(n), high),
            integrality.astype(bool),
            time_limit_s=SOLVE_LIMIT_S,
            node_limit=CROSS_CHECK_NODE_LIMIT,
        )
        return "HiGHS (assignment model with release-threshold bounds, node budget)", value
    result = milp(
        c=cost,
        constraints=[LinearConstraint(np.array(rows), lb=np.array(lower), ub=np.array(upper))],
        integrality=integrality,
        bounds=Bounds(np.zeros(n), high),
        options={"time_limit": SOLVE_LIMIT_S},
    )
    if result.status != 0:
        raise Rejected("cross-check: MILP did not solve to optimality", str(result.message))
    value = float(result.fun)
    if abs(value - round(value)) < 1e-4:  # integral data: the optimum is an integer up to HiGHS's tolerance
        value = float(round(value))
    return "scipy.optimize.milp (HiGHS, assignment model with release-threshold bounds)", value


def single_job_bound(instance: Mapping[str, Any]) -> int:
    """No schedule ends before any one job could finish alone on its best machine."""
    return max(
        release(instance, j) + min(occupancy(instance, j, m) for m in instance["eligibility"][j])
        for j in instance["sets"]["jobs"]
    )


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    if float(reference.solution["objective_value"]) <= single_job_bound(instance):
        return ["nontrivial: one job alone sets the makespan, machine sharing is vacuous"]
    used = set(reference.solution["assignment"].values())
    if len(used) < len(instance["sets"]["machines"]):
        return ["nontrivial: the optimum leaves a machine idle"]
    return []
