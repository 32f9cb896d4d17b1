"""Flexible / hybrid flow-shop scheduling (scheduling/sequencing family, prefix ``fhfss``).

Every job passes the stages in one common order; at each stage it runs on exactly one of the
stage's parallel identical machines (at hard, only on the machines it is eligible for), machines run
one job at a time without preemption, and the makespan is minimized.

Regimes (App. D.2; medium and hard at the official release's median sizes, 11.5 jobs × 5 stages
and 11 × 6): easy has four or five jobs over three stages with one or two machines each; medium ten
to thirteen jobs over four to six stages of two or three machines, one of them a single-machine
bottleneck with stretched times; hard ten to twelve jobs over five to seven stages with a bottleneck
and machine eligibility at the parallel stages (each job may use only some of a stage's machines).

Rejection rules (App. D): a stage whose machines no two jobs could ever share makes the non-overlap
constraints vacuous (every parallel stage must have fewer machines than jobs, and with eligibility
some machine must be eligible for two jobs); the verified optimum must exceed every job's own
processing time, so machine conflicts are active.

Exact and fast at hard (the paper's tail reached 344 s on a flexible flow shop): one bottleneck
stage, whose one-machine bound is nearly tight, so CP-SAT (optional intervals, one worker, fixed
seed, a deterministic work limit) proves optimality in a fraction of a second. The cross-check
shares nothing with it: the one-machine lower bound met by a list schedule (at medium and hard, the
best of a deterministic insertion local search under an evaluation budget) certifies the optimum
alone; otherwise a disjunctive big-M MILP (assignment and pairwise order binaries) solved by HiGHS
under a node budget decides, which gives the same verdict on a loaded machine. A candidate neither
settles within its budget is rejected and counted.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from typing import Any

import numpy as np
from ortools.sat.python import cp_model
from scipy.sparse import lil_matrix

from benchmark.suites.mmopt.generation.milp import proven_optimum
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

SOLVE_LIMIT_S = 120.0  # a safety net only: the deterministic limit below decides
#: CP-SAT's deterministic time limit (work units, the same on any machine load): beyond it the
#: candidate is rejected; the shipped medium/hard references need a small fraction of it
REFERENCE_WORK_LIMIT = 20.0
CROSS_CHECK_NODE_LIMIT = 3000


@dataclass(frozen=True)
class Regime:
    jobs: tuple[int, int]
    stages: tuple[int, int]
    machines: tuple[int, int]  # per parallel stage
    duration: tuple[int, int]
    bottleneck: bool
    stretch: float
    eligibility: bool
    processing_time_regime: str
    flexibility_level: str
    #: list-schedule evaluations of the cross-check's insertion local search (0: none, easy)
    search_budget: int = 0


REGIMES: dict[str, Regime] = {
    "easy": Regime((4, 5), (3, 3), (1, 2), (2, 8), False, 1.0, False, "uniform_small", "one_or_two"),
    "medium": Regime((10, 13), (4, 6), (2, 3), (2, 10), True, 1.4, False, "bottleneck_stretched",
                     "bottleneck", search_budget=4000),
    "hard": Regime((10, 12), (5, 7), (2, 3), (2, 10), True, 1.4, True, "bottleneck_stretched", "eligibility",
                   search_budget=4000),
}  # fmt: skip


@dataclass(frozen=True)
class Structure:
    jobs: tuple[str, ...]
    stages: tuple[str, ...]
    machines: dict[str, list[str]]
    bottleneck: str | None


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    jobs = tuple(f"J{j}" for j in range(1, rng.randint(*regime.jobs) + 1))
    stages = tuple(f"S{k}" for k in range(1, rng.randint(*regime.stages) + 1))
    bottleneck = rng.choice(stages[1:]) if regime.bottleneck else None
    counts = {s: rng.randint(*regime.machines) for s in stages}
    if bottleneck is not None:
        counts[bottleneck] = 1
    if all(c == 1 for c in counts.values()):
        counts[rng.choice(stages)] = 2
    machines = {s: [f"{s}M{m}" for m in range(1, counts[s] + 1)] for s in stages}
    return Structure(jobs=jobs, stages=stages, machines=machines, bottleneck=bottleneck)


def eligible(instance: Mapping[str, Any], job: str, stage: str) -> list[str]:
    """The machines ``job`` may use at ``stage`` (all of the stage's machines without eligibility)."""
    restricted = instance.get("eligible_machines")
    if restricted is not None:
        return list(restricted[job][stage])
    return list(instance["sets"]["machines_by_stage"][stage])


def formulation_size(instance: Mapping[str, Any]) -> dict[str, int]:
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    assignments = sum(len(eligible(instance, j, s)) for j in jobs for s in stages)
    pairs = sum(
        len(set(eligible(instance, a, s)) & set(eligible(instance, b, s)))
        for s in stages
        for a, b in combinations(jobs, 2)
    )
    return {
        "variables": len(jobs) * len(stages) + 1 + assignments + pairs,
        "binary_variables": assignments + pairs,
        "constraints": len(jobs) * (2 * len(stages)) + 2 * pairs,
        "jobs": len(jobs),
        "stages": len(stages),
        "machines": sum(len(m) for m in instance["sets"]["machines_by_stage"].values()),
    }


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    processing: dict[str, dict[str, int]] = {}
    for job in structure.jobs:
        processing[job] = {}
        for stage in structure.stages:
            duration = rng.randint(*regime.duration)
            if stage == structure.bottleneck:
                duration = max(1, round(duration * regime.stretch))
            processing[job][stage] = duration
    instance: dict[str, Any] = {
        "variant": "flexible_hybrid_flow_shop_scheduling",
        "scenario": "flexible_hybrid_flow_shop_scheduling",
        "difficulty": difficulty,
        "sets": {
            "jobs": list(structure.jobs),
            "stages": list(structure.stages),
            "machines_by_stage": {s: list(m) for s, m in structure.machines.items()},
        },
        "common_stage_order": list(structure.stages),
        "processing_time": processing,
    }
    if regime.eligibility:
        rules: dict[str, dict[str, list[str]]] = {}
        for job in structure.jobs:
            rules[job] = {}
            for stage in structure.stages:
                options = structure.machines[stage]
                if len(options) > 1 and rng.random() < 0.5:
                    options = sorted(rng.sample(options, rng.randint(1, len(options) - 1)), key=options.index)
                rules[job][stage] = list(options)
        instance["eligible_machines"] = rules
    loads = {s: sum(processing[j][s] for j in structure.jobs) for s in structure.stages}
    instance["stage_total_load"] = loads
    instance["nominal_load_per_machine"] = {
        s: round(loads[s] / len(structure.machines[s]), 3) for s in structure.stages
    }
    instance["meta_parameters"] = {
        "number_jobs": len(structure.jobs),
        "number_stages": len(structure.stages),
        "machines_per_stage": [len(structure.machines[s]) for s in structure.stages],
        "bottleneck_pattern": f"single_machine_stage_{structure.bottleneck}"
        if structure.bottleneck
        else "none",
        "processing_time_regime": regime.processing_time_regime,
        "flexibility_level": regime.flexibility_level,
        "eligibility_flag": regime.eligibility,
        "visual_type": "stage_architecture_and_processing_matrix"
        + ("_plus_eligibility_matrix" if regime.eligibility else ""),
    }
    instance["meta_parameters"]["formulation_size"] = formulation_size(instance)["variables"]
    return instance


def longest_job(instance: Mapping[str, Any]) -> int:
    times: Mapping[str, Mapping[str, int]] = instance["processing_time"]
    return max(sum(row.values()) for row in times.values())


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    for stage in stages:
        machines = instance["sets"]["machines_by_stage"][stage]
        if len(machines) >= len(jobs):
            return ["structure: a stage has a machine for every job"]
        users = {m: sum(m in eligible(instance, j, stage) for j in jobs) for m in machines}
        if max(users.values()) < 2:
            return ["structure: no machine of a stage is shared by two jobs"]
        if any(not eligible(instance, j, stage) for j in jobs):
            return ["structure: a job has no eligible machine at a stage"]
    return []


Operation = tuple[str, str]  # (job, stage)


def semi_active(
    instance: Mapping[str, Any], assignment: Mapping[Operation, str], orders: Mapping[str, Sequence[str]]
) -> dict[Operation, int]:
    """Earliest starts given the machine of every operation and each machine's job order: stage by
    stage, a job starts when its previous stage and its machine predecessor are both done."""
    start: dict[Operation, int] = {}
    stages = instance["sets"]["stages"]
    time = instance["processing_time"]
    for k, stage in enumerate(stages):
        for machine in instance["sets"]["machines_by_stage"][stage]:
            free = 0
            for job in orders.get(machine, []):
                ready = start[job, stages[k - 1]] + time[job][stages[k - 1]] if k else 0
                start[job, stage] = max(ready, free)
                free = start[job, stage] + time[job][stage]
    return start


def solution_record(
    instance: Mapping[str, Any], assignment: Mapping[Operation, str], orders: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    time = instance["processing_time"]
    start = semi_active(instance, assignment, orders)
    makespan = max(start[j, s] + time[j][s] for j in jobs for s in stages)
    return {
        "status": "optimal",
        "objective": makespan,
        "objective_value": makespan,
        "objective_exact": makespan,
        "optimal_makespan": makespan,
        "machine_assignment": {j: {s: assignment[j, s] for s in stages} for j in jobs},
        "start_time": {j: {s: start[j, s] for s in stages} for j in jobs},
        "completion_time": {j: {s: start[j, s] + time[j][s] for s in stages} for j in jobs},
        "machine_timelines": {
            s: {
                m: [
                    {
                        "job": j,
                        "start": start[j, s],
                        "finish": start[j, s] + time[j][s],
                        "duration": time[j][s],
                    }
                    for j in orders.get(m, [])
                ]
                for m in instance["sets"]["machines_by_stage"][s]
            }
            for s in stages
        },
    }


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """CP-SAT: per operation a start and one optional interval per eligible machine (exactly one
    present), no-overlap per machine, stage precedence per job."""
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    time = instance["processing_time"]
    horizon = sum(sum(row.values()) for row in time.values())
    model = cp_model.CpModel()
    start: dict[tuple[str, str], cp_model.IntVar] = {}
    present: dict[tuple[str, str, str], cp_model.IntVar] = {}
    by_machine: dict[str, list[cp_model.IntervalVar]] = {}
    for j in jobs:
        for s in stages:
            start[j, s] = model.new_int_var(0, horizon, f"s_{j}_{s}")
            choices = []
            for m in eligible(instance, j, s):
                flag = model.new_bool_var(f"a_{j}_{s}_{m}")
                present[j, s, m] = flag
                choices.append(flag)
                interval = model.new_optional_fixed_size_interval_var(
                    start[j, s], time[j][s], flag, f"i_{j}_{m}"
                )
                by_machine.setdefault(m, []).append(interval)
            model.add_exactly_one(choices)
        for a, b in pairwise(stages):
            model.add(start[j, b] >= start[j, a] + time[j][a])
    makespan = model.new_int_var(0, horizon, "makespan")
    for j in jobs:
        model.add(makespan >= start[j, stages[-1]] + time[j][stages[-1]])
    for intervals in by_machine.values():
        model.add_no_overlap(intervals)
    model.minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    solver.parameters.max_deterministic_time = REFERENCE_WORK_LIMIT
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", solver.status_name(status))
    assignment = {
        (j, s): next(m for m in eligible(instance, j, s) if solver.value(present[j, s, m]))
        for j in jobs
        for s in stages
    }
    orders: dict[str, list[str]] = {}
    for s in stages:
        for m in instance["sets"]["machines_by_stage"][s]:
            mine = [j for j in jobs if assignment[j, s] == m]
            orders[m] = sorted(mine, key=lambda j: (solver.value(start[j, s]), jobs.index(j)))
    solution = solution_record(instance, assignment, orders)
    if solution["objective_value"] != round(solver.objective_value):
        raise Rejected("reference: semi-active schedule does not reproduce the optimum")
    return ReferenceSolution(
        solution=solution, method="ortools.sat CP-SAT (optional-interval model, proven optimal)"
    )


def makespan_lower_bound(instance: Mapping[str, Any]) -> int:
    """The longest job, and per single-machine stage its smallest head + load + smallest tail."""
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    time = instance["processing_time"]
    bound = longest_job(instance)
    for k, stage in enumerate(stages):
        if len(instance["sets"]["machines_by_stage"][stage]) == 1:
            head = min(sum(time[j][s] for s in stages[:k]) for j in jobs)
            tail = min(sum(time[j][s] for s in stages[k + 1 :]) for j in jobs)
            bound = max(bound, head + sum(time[j][stage] for j in jobs) + tail)
    return bound


def list_schedule(instance: Mapping[str, Any], priority: Sequence[str]) -> int:
    """Makespan of a permutation list schedule: stage by stage, jobs in order of readiness (ties by
    ``priority``), each on its eligible machine that frees first."""
    stages = instance["sets"]["stages"]
    time = instance["processing_time"]
    ready = dict.fromkeys(priority, 0)
    for stage in stages:
        free = dict.fromkeys(instance["sets"]["machines_by_stage"][stage], 0)
        for job in sorted(priority, key=lambda j: (ready[j], priority.index(j))):
            machine = min(eligible(instance, job, stage), key=lambda m: (max(free[m], ready[job]), m))
            begin = max(free[machine], ready[job])
            free[machine] = ready[job] = begin + time[job][stage]
    return max(ready.values())


def heuristic_makespan(instance: Mapping[str, Any], passes: int = 60) -> int:
    jobs = list(instance["sets"]["jobs"])
    work = {j: sum(instance["processing_time"][j].values()) for j in jobs}
    best = list_schedule(instance, sorted(jobs, key=lambda j: -work[j]))
    rng = random.Random(0)
    for _ in range(passes):
        rng.shuffle(jobs)
        best = min(best, list_schedule(instance, list(jobs)))
    return best


def johnson_priority(instance: Mapping[str, Any]) -> list[str]:
    """Johnson's rule on (work before, work after) the most loaded single-machine stage: jobs whose
    head is shorter than their tail first by increasing head, the others by decreasing tail, so the
    bottleneck starts early and ends with a short tail."""
    jobs, stages = list(instance["sets"]["jobs"]), instance["sets"]["stages"]
    time = instance["processing_time"]
    singles = [k for k, s in enumerate(stages) if len(instance["sets"]["machines_by_stage"][s]) == 1]
    if not singles:
        return jobs
    k = max(singles, key=lambda i: (sum(time[j][stages[i]] for j in jobs), -i))
    head = {j: sum(time[j][s] for s in stages[:k]) for j in jobs}
    tail = {j: sum(time[j][s] for s in stages[k + 1 :]) for j in jobs}
    first = sorted((j for j in jobs if head[j] < tail[j]), key=lambda j: (head[j], jobs.index(j)))
    last = sorted((j for j in jobs if head[j] >= tail[j]), key=lambda j: (-tail[j], jobs.index(j)))
    return first + last


def local_search_makespan(instance: Mapping[str, Any], target: int, budget: int) -> int:
    """The best list schedule of a deterministic insertion local search: from the better of the
    Johnson and the longest-work priorities, move one job to another position whenever that lowers
    the makespan (first improvement, positions in order), after a sweep without one restart from a
    seeded random swap of the best; stop at ``target`` or after ``budget`` list schedules."""
    jobs = list(instance["sets"]["jobs"])
    work = {j: sum(instance["processing_time"][j].values()) for j in jobs}
    starts = [johnson_priority(instance), sorted(jobs, key=lambda j: (-work[j], jobs.index(j)))]
    scored = [(list_schedule(instance, p), p) for p in starts]
    best, order = min(scored, key=lambda pair: pair[0])
    current, value, spent = list(order), best, len(starts)
    rng = random.Random(0)
    while best > target and spent < budget:
        improved = False
        for i in range(len(jobs)):
            for k in range(len(jobs)):
                if k == i or spent >= budget:
                    continue
                moved = current[:i] + current[i + 1 :]
                moved.insert(k, current[i])
                spent += 1
                candidate = list_schedule(instance, moved)
                if candidate < value:
                    current, value, improved = moved, candidate, True
                    break
            if improved or spent >= budget:
                break
        if value < best:
            best, order = value, list(current)
        if not improved:  # a local optimum: perturb the best order
            current = list(order)
            a, b = rng.sample(range(len(jobs)), 2)
            current[a], current[b] = current[b], current[a]
            value = list_schedule(instance, current)
            spent += 1
            if value < best:
                best, order = value, list(current)
    return best


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """Disjunctive big-M MILP solved by HiGHS (see the module docstring), sharing nothing with the
    CP-SAT reference; when the one-machine bound meets a list schedule, they alone certify (at
    medium and hard, a list schedule of the insertion local search within its evaluation budget)."""
    bound, incumbent = makespan_lower_bound(instance), heuristic_makespan(instance)
    if bound == incumbent:
        return "one-machine lower bound met by a list schedule (no solver)", float(bound)
    regime = REGIMES.get(str(instance.get("difficulty")))
    if regime is not None and regime.search_budget:
        incumbent = min(incumbent, local_search_makespan(instance, bound, regime.search_budget))
        if bound == incumbent:
            return "one-machine lower bound met by a local-search list schedule (no solver)", float(bound)
    jobs, stages = instance["sets"]["jobs"], instance["sets"]["stages"]
    time = instance["processing_time"]
    index: dict[Any, int] = {}

    def var(key: Any) -> int:
        if key not in index:
            index[key] = len(index)
        return index[key]

    for j in jobs:
        for s in stages:
            var(("s", j, s))
    var("C")
    for j in jobs:
        for s in stages:
            for m in eligible(instance, j, s):
                var(("a", j, s, m))
    pairs = [(a, b, s) for s in stages for a, b in combinations(jobs, 2)
             if set(eligible(instance, a, s)) & set(eligible(instance, b, s))]  # fmt: skip
    for a, b, s in pairs:
        var(("y", a, b, s))
    big = 2.0 * incumbent  # exceeds any start difference plus a processing time
    flat: list[tuple[dict[int, float], float, float]] = []
    for j in jobs:
        for s in stages:
            flat.append(({var(("a", j, s, m)): 1.0 for m in eligible(instance, j, s)}, 1.0, 1.0))
        for x, y in pairwise(stages):
            flat.append(({var(("s", j, y)): 1.0, var(("s", j, x)): -1.0}, time[j][x], np.inf))
        flat.append(({var("C"): 1.0, var(("s", j, stages[-1])): -1.0}, time[j][stages[-1]], np.inf))
    for a, b, s in pairs:
        y = var(("y", a, b, s))
        # sorted: a set of names iterates in an order that changes with PYTHONHASHSEED, and the row
        # order changes HiGHS's search, so the node count, so the verdict under the node budget
        for m in sorted(set(eligible(instance, a, s)) & set(eligible(instance, b, s))):
            am, bm = var(("a", a, s, m)), var(("a", b, s, m))
            # y = 1: a before b on m; the rows bind only when both use m
            flat.append(
                ({var(("s", b, s)): 1.0, var(("s", a, s)): -1.0, y: -big, am: -big, bm: -big},
                 time[a][s] - 3 * big, np.inf)
            )  # fmt: skip
            flat.append(
                ({var(("s", a, s)): 1.0, var(("s", b, s)): -1.0, y: big, am: -big, bm: -big},
                 time[b][s] - 2 * big, np.inf)
            )  # fmt: skip
    n = len(index)
    matrix = lil_matrix((len(flat), n))
    for r, (coefficients, _, _) in enumerate(flat):
        for k, v in coefficients.items():
            matrix[r, k] += v
    cost = np.zeros(n)
    cost[var("C")] = 1.0
    integrality = np.zeros(n)
    upper = np.full(n, float(incumbent))
    for key, k in index.items():
        if isinstance(key, tuple) and key[0] in ("a", "y"):
            integrality[k], upper[k] = 1, 1.0
    lower = np.zeros(n)
    lower[var("C")] = bound
    value = proven_optimum(
        cost,
        matrix,
        ([r[1] for r in flat], [r[2] for r in flat]),
        (lower, upper),
        integrality.astype(bool),
        time_limit_s=SOLVE_LIMIT_S,
        node_limit=CROSS_CHECK_NODE_LIMIT,
    )
    return "HiGHS MILP (disjunctive big-M model with machine assignment)", value


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    if float(reference.solution["objective_value"]) <= longest_job(instance):
        return ["nontrivial: the optimum equals the longest job, machine conflicts are vacuous"]
    return []
