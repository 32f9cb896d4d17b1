"""Artifacts of an RCPSP package, all derived from the verified record.

The task text explains the two figures and the output contract; every activity, arc, duration,
demand and capacity is read from the figures.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.rcpsp.generator import critical_path, formulation_size

READING = (
    "The figure visual_0.png is the project network: each box is an activity (A followed by a number) "
    "with its duration after d=, an arrow from one activity to another means the first must finish "
    "before the second starts, and Start and End are dummy activities of zero duration marking the "
    "beginning and the end of the project. The figure visual_1.png is a table of the units of each "
    "renewable resource (columns, R followed by a number) every activity (rows) uses during its whole "
    "duration; its last row is the capacity of each resource, available in every period."
)
TASK = (
    "Task: choose a start time for every activity so that every arrow of the network is respected, "
    "activities run without interruption, and at every moment the activities running together use "
    "no resource beyond its capacity. Minimize the makespan, the time at which the last activity "
    "finishes. All data must be read from the figures."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal schedule is found;
- "objective_value": the minimum makespan, as a number;
- "activity_start_times": a dict mapping each activity name, as in the figures, to its start time.
"""
)


def task_input(record: VerifiedRecord) -> str:
    title = "Resource-constrained project scheduling (scheduling and sequencing)"
    return task_text(title, READING, TASK, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    resources = instance["sets"]["resources"]
    rows = "\n".join(
        f"- {a}: duration={instance['duration'][a]}; "
        + ", ".join(f"{r}={instance['resource_demand'][a][r]}" for r in resources)
        for a in instance["sets"]["real_activities"]
    )
    arcs = ", ".join(f"{u}->{v}" for u, v in instance["precedence_arcs"])
    capacity = ", ".join(f"{r}={instance['resource_capacity'][r]}" for r in resources)
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    return (
        "This is a single-project renewable-resource RCPSP (makespan).\n\n"
        f"Instance ID: {record.instance_id}\nVariant: {instance['variant']}\n"
        f"Difficulty: {record.difficulty}\n\n"
        f"Activities:\n{rows}\n\nPrecedence arcs: {arcs}\n\nResource capacities: {capacity}\n\n"
        "Objective:\n- Minimize the makespan.\n\n"
        "Constraints:\n- Precedence: a successor starts after its predecessor finishes.\n"
        "- Renewable resources: the running activities' demands never exceed a capacity.\n"
        "- Non-preemptive activities.\n\n"
        f"Metadata:\n{meta}\n\n"
        "Visual interpretation:\n- visual_0.png: precedence network (boxes with name and d=duration).\n"
        "- visual_1.png: activity x resource demand table with a capacity row.\n\n"
        "Output contract:\n- solve() returns status, objective_value and activity_start_times.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    starts = ", ".join(f"{a} {t}" for a, t in solution["activity_start_times"].items())
    return f"""# RCPSP — {record.instance_id}

## Sets
- $J$: real activities ({len(instance["sets"]["real_activities"])}), $E$: precedence arcs
  ({len(instance["precedence_arcs"])}), $R$: renewable resources ({len(instance["sets"]["resources"])}),
  $T$: periods of a horizon $H$

## Parameters
- $p_j$ duration, $r_{{jk}}$ demand of activity $j$ for resource $k$, $R_k$ capacity

## Decision variables
- $x_{{jt}} \\in \\{{0, 1\\}}$: activity $j$ starts at $t$; $C_{{\\max}}$: makespan

## Objective
$$\\min \\; C_{{\\max}}$$

## Constraints
- Each activity starts once: $\\sum_t x_{{jt}} = 1$
- Precedence $(i, j) \\in E$: $\\sum_t t\\, x_{{jt}} \\ge \\sum_t t\\, x_{{it}} + p_i$
- Resources: $\\sum_j \\sum_{{s = t - p_j + 1}}^{{t}} r_{{jk}} x_{{js}} \\le R_k$ for every $k$ and $t$
- Makespan: $C_{{\\max}} \\ge \\sum_t (t + p_j) x_{{jt}}$

## Instance notes
- Verified minimum makespan: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Critical-path length {critical_path(instance)} (below the optimum: resources bind); binding resources
  {", ".join(solution["binding_resources"])}.
- Reference start times (serial schedule in the optimal order): {starts}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (RCPSP), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.sat.python import cp_model

DURATION = {duration!r}
ARCS = {arcs!r}
CAPACITY = {capacity!r}
DEMAND = {demand!r}


def solve() -> dict:
    horizon = sum(DURATION.values())
    model = cp_model.CpModel()
    start = {{a: model.new_int_var(0, horizon, f"s_{{a}}") for a in DURATION}}
    interval = {{a: model.new_fixed_size_interval_var(start[a], d, f"i_{{a}}") for a, d in DURATION.items()}}
    makespan = model.new_int_var(0, horizon, "makespan")
    for u, v in ARCS:
        model.add(start[v] >= start[u] + DURATION[u])
    for a, d in DURATION.items():
        model.add(makespan >= start[a] + d)
    for r, cap in CAPACITY.items():
        model.add_cumulative([interval[a] for a in DURATION], [DEMAND[a][r] for a in DURATION], cap)
    model.minimize(makespan)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60.0
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        failed = "infeasible" if status == cp_model.INFEASIBLE else "error"
        return {{"status": failed, "objective_value": None}}
    value = int(solver.objective_value)
    starts = {{a: solver.value(start[a]) for a in DURATION}}
    return {{"status": "optimal", "objective_value": value, "makespan": value,
            "activity_start_times": starts}}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    real = instance["sets"]["real_activities"]
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        duration={a: instance["duration"][a] for a in real},
        arcs=[(u, v) for u, v in instance["precedence_arcs"] if u in real and v in real],
        capacity=dict(instance["resource_capacity"]),
        demand={a: dict(instance["resource_demand"][a]) for a in real},
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["graph_pattern"],
        meta["resource_capacity_regime"],
        f"activities_{meta['number_real_activities']}",
        f"resources_{meta['number_resources']}",
    ]
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
