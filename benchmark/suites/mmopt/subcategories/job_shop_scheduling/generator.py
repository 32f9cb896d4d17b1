"""Classical job-shop instances (scheduling/sequencing family, prefix ``jss``).

Every job is a chain of operations, each on one given machine for a given time; a machine runs one
operation at a time, without preemption; the makespan is minimized. Difficulty grows with the
shop (3 jobs × 3 machines at easy, up to 10 jobs × 8 machines at hard), the operation count per job
and the duration regime: uniform small times at easy, heterogeneous ones at medium, and at hard one
or two bottleneck machines that every job visits with longer operations (App. D.2, §3).

Rejection rules (App. E.3): a machine no two jobs share, or jobs that split into groups sharing no
machine, make non-overlap constraints partly irrelevant; a route with a repeated machine is not a
classical job shop; the verified optimum must exceed every job's own chain length, so machine
conflicts are genuinely active rather than vacuous.

The reference is CP-SAT on interval variables (one worker, fixed seed); the cross-check is a
disjunctive big-M MILP solved by HiGHS. The stored schedule is the semi-active one of the optimal
machine orders (every operation as early as its job and machine predecessors allow), so the record
does not depend on where the solver happened to leave idle time.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from benchmark.suites.mmopt.generation.milp import proven_optimum
from benchmark.suites.mmopt.generation.protocol import ReferenceSolution, Rejected

SOLVE_LIMIT_S = 60.0  # a safety net only: the node limit below decides, deterministically
#: HiGHS branch-and-bound nodes the cross-check may use (well under a second on an idle core). A
#: candidate it cannot settle within them is rejected: a node count, unlike a time limit, gives the
#: same verdict on a loaded machine, so regeneration and validation never flip.
CROSS_CHECK_NODE_LIMIT = 300


@dataclass(frozen=True)
class Regime:
    """Counts (inclusive ranges), the duration range and the bottleneck treatment of one difficulty."""

    jobs: tuple[int, int]
    machines: tuple[int, int]
    operations: tuple[int, int]  # per job, at most the machine count (a job visits a machine once)
    duration: tuple[int, int]
    duration_regime: str
    routing_pattern: str
    bottlenecks: tuple[int, int]  # machines every job visits, with stretched durations
    bottleneck_stretch: float


REGIMES: dict[str, Regime] = {
    "easy": Regime(
        jobs=(3, 4),
        machines=(3, 4),
        operations=(3, 4),
        duration=(1, 9),
        duration_regime="uniform_small",
        routing_pattern="random_permutation",
        bottlenecks=(0, 0),
        bottleneck_stretch=1.0,
    ),
    "medium": Regime(
        jobs=(9, 11),
        machines=(6, 7),
        operations=(4, 5),
        duration=(2, 15),
        duration_regime="heterogeneous",
        routing_pattern="random_permutation",
        bottlenecks=(0, 1),
        bottleneck_stretch=1.5,
    ),
    "hard": Regime(
        jobs=(8, 10),
        machines=(6, 8),
        operations=(5, 6),
        duration=(2, 18),
        duration_regime="bottleneck_stretched",
        routing_pattern="random_permutation_through_bottlenecks",
        bottlenecks=(1, 2),
        bottleneck_stretch=1.7,
    ),
}


@dataclass(frozen=True)
class Structure:
    jobs: tuple[str, ...]
    machines: tuple[str, ...]
    routes: dict[str, list[str]]
    bottlenecks: tuple[str, ...]


def sample_structure(rng: random.Random, difficulty: str) -> Structure:
    regime = REGIMES[difficulty]
    machine_count = rng.randint(*regime.machines)
    machines = tuple(f"M{m}" for m in range(1, machine_count + 1))
    jobs = tuple(f"J{j}" for j in range(1, rng.randint(*regime.jobs) + 1))
    operations = min(rng.randint(*regime.operations), machine_count)
    bottlenecks = tuple(sorted(rng.sample(machines, rng.randint(*regime.bottlenecks)), key=machines.index))
    routes = {}
    for job in jobs:
        others = [m for m in machines if m not in bottlenecks]
        visited = list(bottlenecks) + rng.sample(others, operations - len(bottlenecks))
        rng.shuffle(visited)
        routes[job] = visited
    return Structure(jobs=jobs, machines=machines, routes=routes, bottlenecks=bottlenecks)


def formulation_size(instance: Mapping[str, Any]) -> dict[str, int]:
    """Sizes of the disjunctive MILP: start times, makespan and one order binary per machine pair."""
    operations = sum(len(ops) for ops in instance["sets"]["operations"].values())
    per_machine: dict[str, int] = {}
    for operation in instance["operation_records"]:
        per_machine[operation["machine"]] = per_machine.get(operation["machine"], 0) + 1
    pairs = sum(n * (n - 1) // 2 for n in per_machine.values())
    jobs = len(instance["sets"]["jobs"])
    precedences = operations - jobs
    return {
        "variables": operations + 1 + pairs,
        "binary_variables": pairs,
        "constraints": precedences + jobs + 2 * pairs,
        "operations": operations,
        "jobs": jobs,
        "machines": len(instance["sets"]["machines"]),
    }


def instantiate(rng: random.Random, structure: Structure, difficulty: str) -> dict[str, Any]:
    regime = REGIMES[difficulty]
    low, high = regime.duration
    operations = {job: [f"O{k}" for k in range(1, len(route) + 1)] for job, route in structure.routes.items()}
    assignment: dict[str, dict[str, str]] = {}
    processing: dict[str, dict[str, int]] = {}
    records = []
    for job in structure.jobs:
        assignment[job], processing[job] = {}, {}
        for index, (op, machine) in enumerate(zip(operations[job], structure.routes[job], strict=True), 1):
            duration = rng.randint(low, high)
            if machine in structure.bottlenecks:
                duration = min(round(duration * regime.bottleneck_stretch), 2 * high)
            assignment[job][op] = machine
            processing[job][op] = duration
            records.append(
                {
                    "job": job,
                    "operation": op,
                    "machine": machine,
                    "duration": duration,
                    "operation_index": index,
                }
            )
    instance: dict[str, Any] = {
        "variant": "classical_jssp",
        "scenario": "job_shop_scheduling",
        "difficulty": difficulty,
        "sets": {
            "jobs": list(structure.jobs),
            "machines": list(structure.machines),
            "operations": operations,
        },
        "job_routes": {job: list(route) for job, route in structure.routes.items()},
        "machine_assignment": assignment,
        "processing_time": processing,
        "operation_records": records,
    }
    instance["meta_parameters"] = {
        "number_jobs": len(structure.jobs),
        "number_machines": len(structure.machines),
        "operations_per_job": len(next(iter(operations.values()))),
        "processing_time_regime": regime.duration_regime,
        "routing_pattern": regime.routing_pattern,
        "bottleneck_machine_flag": bool(structure.bottlenecks),
        "bottleneck_machines": list(structure.bottlenecks),
        "formulation_size": formulation_size(instance)["variables"],
    }
    return instance


def _chains(instance: Mapping[str, Any]) -> dict[str, list[tuple[str, str, int]]]:
    """Per job, its operations in order as ``(operation, machine, duration)``, the jobs in the order
    of ``sets.jobs``: ``instance_data.json`` is written with sorted keys (J10 before J2), and the
    list schedule's ties and the MILP's row order (hence its node count) must not depend on that."""
    operations = instance["sets"]["operations"]
    return {
        job: [
            (op, instance["machine_assignment"][job][op], int(instance["processing_time"][job][op]))
            for op in operations[job]
        ]
        for job in instance["sets"]["jobs"]
    }


def machine_loads(instance: Mapping[str, Any]) -> dict[str, int]:
    loads = dict.fromkeys(instance["sets"]["machines"], 0)
    for chain in _chains(instance).values():
        for _, machine, duration in chain:
            loads[machine] += duration
    return loads


def longest_job(instance: Mapping[str, Any]) -> int:
    return max(sum(d for _, _, d in chain) for chain in _chains(instance).values())


def structural_problems(instance: Mapping[str, Any], difficulty: str) -> list[str]:
    regime = REGIMES[difficulty]
    jobs, machines = instance["sets"]["jobs"], instance["sets"]["machines"]
    problems = []
    if (
        not regime.jobs[0] <= len(jobs) <= regime.jobs[1]
        or not regime.machines[0] <= len(machines) <= regime.machines[1]
    ):
        problems.append("structure: job or machine count outside the regime")
    chains = _chains(instance)
    users: dict[str, set[str]] = {m: set() for m in machines}
    for job, chain in chains.items():
        route = [machine for _, machine, _ in chain]
        if len(set(route)) != len(route):
            problems.append("structure: a job visits a machine twice")
        for machine in route:
            users[machine].add(job)
    if any(len(u) < 2 for u in users.values()):
        problems.append("structure: a machine no two jobs share")
    # jobs linked when they share a machine must form one group
    reached, frontier = {jobs[0]}, [jobs[0]]
    while frontier:
        job = frontier.pop()
        for shared in users.values():
            if job in shared:
                for other in shared - reached:
                    reached.add(other)
                    frontier.append(other)
    if reached != set(jobs):
        problems.append("structure: jobs split into groups sharing no machine")
    return problems


def _operation_list(instance: Mapping[str, Any]) -> list[tuple[str, str, str, int]]:
    return [(job, op, m, d) for job, chain in _chains(instance).items() for op, m, d in chain]


def semi_active_schedule(
    instance: Mapping[str, Any], machine_orders: Mapping[str, Sequence[tuple[str, str]]]
) -> dict[tuple[str, str], int]:
    """Earliest start of every operation given its job order and the machine orders (a fixed point
    over the precedence DAG; the orders come from a feasible schedule, so the DAG is acyclic)."""
    chains = _chains(instance)
    duration = {(job, op): d for job, chain in chains.items() for op, _, d in chain}
    predecessors: dict[tuple[str, str], list[tuple[str, str]]] = {key: [] for key in duration}
    for job, chain in chains.items():
        for (a, _, _), (b, _, _) in pairwise(chain):
            predecessors[job, b].append((job, a))
    for order in machine_orders.values():
        for before, after in pairwise(order):
            predecessors[after].append(before)
    start: dict[tuple[str, str], int] = {}
    remaining = sorted(duration)
    while remaining:
        progressed = []
        for key in remaining:
            if all(p in start for p in predecessors[key]):
                start[key] = max((start[p] + duration[p] for p in predecessors[key]), default=0)
                progressed.append(key)
        if not progressed:
            raise Rejected("reference: machine orders contain a cycle")
        remaining = [key for key in remaining if key not in start]
    return start


def solution_record(
    instance: Mapping[str, Any], machine_orders: Mapping[str, Sequence[tuple[str, str]]]
) -> dict[str, Any]:
    """The ``solution_ref.json`` dict (official shape) of the semi-active schedule of ``machine_orders``."""
    start = semi_active_schedule(instance, machine_orders)
    schedule = []
    for machine in instance["sets"]["machines"]:
        for job, op in machine_orders[machine]:
            duration = int(instance["processing_time"][job][op])
            schedule.append(
                {
                    "job": job,
                    "operation": op,
                    "machine": machine,
                    "start": start[job, op],
                    "finish": start[job, op] + duration,
                    "duration": duration,
                }
            )
    makespan = max(item["finish"] for item in schedule)
    loads = machine_loads(instance)
    return {
        "status": "optimal",
        "objective_value": makespan,
        "objective_exact": makespan,
        "makespan": makespan,
        "schedule": schedule,
        "machine_orders": {
            m: [f"{j}-{o}" for j, o in machine_orders[m]] for m in instance["sets"]["machines"]
        },
        "binding_machines": [m for m in instance["sets"]["machines"] if loads[m] == makespan],
    }


def reference_solve(instance: Mapping[str, Any]) -> ReferenceSolution:
    """CP-SAT with one interval per operation, a no-overlap constraint per machine and job chains."""
    operations = _operation_list(instance)
    horizon = sum(d for *_, d in operations)
    model = cp_model.CpModel()
    starts, intervals = {}, {}
    for job, op, _, duration in operations:
        starts[job, op] = model.new_int_var(0, horizon, f"s_{job}_{op}")
        intervals[job, op] = model.new_fixed_size_interval_var(starts[job, op], duration, f"i_{job}_{op}")
    makespan = model.new_int_var(0, horizon, "makespan")
    for job, chain in _chains(instance).items():
        for (a, _, d), (b, _, _) in pairwise(chain):
            model.add(starts[job, b] >= starts[job, a] + d)
        last, _, d_last = chain[-1]
        model.add(makespan >= starts[job, last] + d_last)
    for machine in instance["sets"]["machines"]:
        model.add_no_overlap([intervals[j, o] for j, o, m, _ in operations if m == machine])
    model.minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = SOLVE_LIMIT_S
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise Rejected("reference: solver did not certify optimality", solver.status_name(status))
    orders = {
        machine: sorted(
            ((j, o) for j, o, m, _ in operations if m == machine),
            key=lambda key: (solver.value(starts[key]), key),
        )
        for machine in instance["sets"]["machines"]
    }
    solution = solution_record(instance, orders)
    if solution["makespan"] != round(solver.objective_value):
        raise Rejected("reference: semi-active schedule does not reproduce the optimum")
    return ReferenceSolution(solution=solution, method="ortools.sat CP-SAT (interval model, proven optimal)")


def makespan_lower_bound(instance: Mapping[str, Any]) -> int:
    """The longest job, and per machine the earliest any of its operations can start (head) plus
    its load plus the shortest remaining work after it (tail): classic one-machine bounds."""
    heads: dict[str, list[int]] = {}
    tails: dict[str, list[int]] = {}
    for chain in _chains(instance).values():
        total = sum(d for _, _, d in chain)
        done = 0
        for _, machine, duration in chain:
            heads.setdefault(machine, []).append(done)
            tails.setdefault(machine, []).append(total - done - duration)
            done += duration
    loads = machine_loads(instance)
    one_machine = max(min(heads[m]) + loads[m] + min(tails[m]) for m in heads)
    return max(longest_job(instance), one_machine)


def _dispatch(
    chains: Mapping[str, list[tuple[str, str, int]]], machines: Sequence[str], rank: Mapping[str, float]
) -> int:
    """Makespan of a list schedule: repeatedly start, among the next operations of the jobs, the one
    that can start earliest (ties to the lower ``rank`` of its job)."""
    next_op = dict.fromkeys(chains, 0)
    job_ready = dict.fromkeys(chains, 0)
    machine_ready = dict.fromkeys(machines, 0)
    for _ in range(sum(len(c) for c in chains.values())):
        best: tuple[tuple[int, float, str], str, int] | None = None
        for job, chain in chains.items():
            if next_op[job] < len(chain):
                _, machine, duration = chain[next_op[job]]
                key = (max(job_ready[job], machine_ready[machine]), rank[job], job)
                if best is None or key < best[0]:
                    best = (key, machine, duration)
        assert best is not None
        (begin, _, job), machine, duration = best
        job_ready[job] = machine_ready[machine] = begin + duration
        next_op[job] += 1
    return max(job_ready.values())


def heuristic_makespan(instance: Mapping[str, Any], passes: int = 120) -> int:
    """Best list schedule over a fixed sequence of job priorities (most work remaining first, then
    seeded random orders): an upper bound on the optimum, found without any solver."""
    chains = _chains(instance)
    machines = instance["sets"]["machines"]
    work = {job: sum(d for _, _, d in chain) for job, chain in chains.items()}
    best = _dispatch(chains, machines, {job: -w for job, w in work.items()})
    rng = random.Random(0)
    for _ in range(passes):
        best = min(best, _dispatch(chains, machines, {job: rng.random() for job in chains}))
    return best


def cross_check(instance: Mapping[str, Any]) -> tuple[str, float]:
    """Disjunctive big-M MILP (start times, makespan, an order binary per pair sharing a machine)
    solved by HiGHS, with nothing shared with the CP-SAT reference. The makespan lies
    between :func:`makespan_lower_bound` and :func:`heuristic_makespan` (also the big-M); when the
    two bounds meet, they alone certify the optimum and no MILP is needed."""
    bound, incumbent = makespan_lower_bound(instance), heuristic_makespan(instance)
    if incumbent == bound:
        return "one-machine lower bound met by a list schedule (no solver)", float(bound)
    operations = _operation_list(instance)
    index = {(j, o): k for k, (j, o, _, _) in enumerate(operations)}
    duration = {(j, o): d for j, o, _, d in operations}
    pairs = [
        (a, b)
        for machine in instance["sets"]["machines"]
        for a, b in combinations([(j, o) for j, o, m, _ in operations if m == machine], 2)
    ]
    n_ops, n_pairs = len(operations), len(pairs)
    n_vars = n_ops + 1 + n_pairs
    horizon = float(incumbent)
    big_m = horizon
    rows, lower = [], []

    def row(coefficients: dict[int, float], lb: float) -> None:
        line = np.zeros(n_vars)
        for k, v in coefficients.items():
            line[k] += v
        rows.append(line)
        lower.append(lb)

    for job, chain in _chains(instance).items():
        for (a, _, d), (b, _, _) in pairwise(chain):
            row({index[job, b]: 1.0, index[job, a]: -1.0}, d)
        last, _, d_last = chain[-1]
        row({n_ops: 1.0, index[job, last]: -1.0}, d_last)
    for k, (p, q) in enumerate(pairs):
        y = n_ops + 1 + k
        row({index[q]: 1.0, index[p]: -1.0, y: -big_m}, duration[p] - big_m)  # y = 1: p before q
        row({index[p]: 1.0, index[q]: -1.0, y: big_m}, duration[q])  # y = 0: q before p
    cost = np.zeros(n_vars)
    cost[n_ops] = 1.0
    integrality = np.zeros(n_vars)
    integrality[n_ops + 1 :] = 1
    upper = np.full(n_vars, horizon)
    upper[n_ops + 1 :] = 1.0
    lower_bounds = np.zeros(n_vars)
    lower_bounds[n_ops] = bound
    value = proven_optimum(
        cost,
        np.array(rows),
        (lower, np.full(len(lower), np.inf)),
        (lower_bounds, upper),
        integrality.astype(bool),
        time_limit_s=SOLVE_LIMIT_S,
        node_limit=CROSS_CHECK_NODE_LIMIT,
    )
    return "HiGHS MILP (disjunctive big-M model)", value


def solution_problems(
    instance: Mapping[str, Any], reference: ReferenceSolution, difficulty: str
) -> list[str]:
    if float(reference.solution["objective_value"]) <= longest_job(instance):
        return ["nontrivial: the optimum equals the longest job, machine conflicts are vacuous"]
    return []
