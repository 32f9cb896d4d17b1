"""Artifacts of a resource-constrained shortest-path package, all derived from the verified record.

The task text names the rules, the resources and the output contract; every number (costs,
consumptions, budgets) is left to the two figures.
"""

from __future__ import annotations

import itertools

from benchmark.suites.mmopt.generation.network import arc_kind
from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.subcategories.resource_constrained_shortest_path.generator import (
    budgets_of,
    consumption,
    enumerate_routes,
    layers_of,
    resources_of,
)

TASK_INPUT = """\
Resource-constrained shortest path (network optimization)

The figure visual_0.png shows a directed network. Each circle is a node, named by the bold number
inside it. The node tagged "source" is where the path starts and the node tagged "sink" is where it
ends. Each arrow is an arc from the node it starts at to the node it points to; it may only be
travelled in the direction of the arrow. An arc may also join two nodes of the same column, or
curve around the outside of the drawing to skip a column; follow each line from its start to its
arrowhead. The label in the small box on an arrow reads
  {label_form}
the first number is the cost of travelling the arc and the others are how much of each resource
({resource_list}) the arc consumes. The table in visual_1.png gives the budget of each resource:
the most of that resource the whole path may consume in total.

Task: find a path from the source to the sink, visiting no node twice, whose total cost (the sum of
the costs of its arcs) is as small as possible while, for every resource, the sum of the arcs'
consumptions along the path does not exceed the resource's budget. All nodes, arcs, costs,
consumptions and budgets must be read from the figures.

Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the minimum total cost, as a number;
- "optimal_path": the list of node names along the path, in order, starting with the source and
  ending with the sink;
- "selected_arcs": the list of the arcs on the path, each a pair [u, v]: the name of the node the
  arc starts at and the name of the node it points to (the arc from node a to node b is [a, b]).
"""


def _label_form(resources: list[str]) -> str:
    return '"(cost, ' + ", ".join(resources) + ')"'


def task_input(record: VerifiedRecord) -> str:
    resources = resources_of(record.instance)
    return TASK_INPUT.format(label_form=_label_form(resources), resource_list=" and ".join(resources))


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    resources = resources_of(instance)
    layers = "\n".join(
        f"  column {k + 1}: " + ", ".join(str(n) for n in layer)
        for k, layer in enumerate(layers_of(instance))
    )
    arcs = "\n".join(
        f"  {a['from']:>3} -> {a['to']:<3} cost {a['cost']:>3}  "
        + "  ".join(f"{name} {consumption(a, name):>3}" for name in resources)
        + f"   ({arc_kind(layers_of(instance), a['from'], a['to'])})"
        for a in instance["arcs"]
    )
    budgets = "\n".join(f"  {name}: at most {budgets_of(instance)[name]}" for name in resources)
    return (
        f"Instance {record.instance_id} - resource-constrained shortest path ({record.difficulty})\n\n"
        "Problem\n"
        "  Find a least-cost path from the source to the sink of a directed network such that, for each\n"
        "  resource, the total consumption along the path stays within its budget.\n\n"
        f"Nodes ({len(instance['nodes'])}): " + ", ".join(str(n) for n in instance["nodes"]) + "\n"
        f"Source: {instance['source']}\nSink: {instance['sink']}\n\n"
        "Layout (columns left to right, nodes top to bottom):\n" + layers + "\n\n"
        f"Arcs ({len(instance['arcs'])}; tail -> head, cost, consumption per resource, kind):\n{arcs}\n\n"
        f"Resource budgets:\n{budgets}\n\n"
        "Objective\n  minimize the sum of the costs of the arcs on the path.\n\n"
        "Visual interpretation\n"
        f"  visual_0.png draws the network in columns (layers); each arc carries the boxed label\n"
        f"  {_label_form(resources)} (box outline in the arrow's colour). The source and sink carry the\n"
        "  tags 'source' and 'sink'. Arcs between nodes of one column are vertical; arcs that skip a\n"
        "  column curve around the top or bottom of the drawing. visual_1.png tabulates the budgets.\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value, optimal_path (node names from source to sink) and\n"
        "  selected_arcs ([u, v] pairs of the arcs on the path).\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    resources = resources_of(instance)
    arc_rows = "\n".join(
        f"| {a['from']} | {a['to']} | {a['cost']} | "
        + " | ".join(str(consumption(a, name)) for name in resources)
        + " |"
        for a in instance["arcs"]
    )
    budget_rows = "\n".join(f"| {name} | {budgets_of(instance)[name]} |" for name in resources)
    routes = enumerate_routes(instance)
    cheapest = min(routes, key=lambda r: r.cost)
    by_pair = {(a["from"], a["to"]): a for a in instance["arcs"]}
    path = solution["optimal_path"]
    use = {
        name: sum(consumption(by_pair[(u, v)], name) for u, v in itertools.pairwise(path))
        for name in resources
    }
    use_text = ", ".join(f"{name} {use[name]} of {budgets_of(instance)[name]}" for name in resources)
    return f"""# Resource-constrained shortest path — {record.instance_id}

## Sets
- $N$: nodes, $N = \\{{{", ".join(str(n) for n in instance["nodes"])}\\}}$ ({len(instance["nodes"])} nodes)
- $A \\subseteq N \\times N$: directed arcs ({len(instance["arcs"])} arcs, listed below)
- $K$: resources, $K = \\{{{", ".join(resources)}\\}}$
- source $s = {instance["source"]}$, sink $t = {instance["sink"]}$

## Parameters
- $c_{{ij}}$: cost of arc $(i, j)$
- $r^k_{{ij}}$: consumption of resource $k$ on arc $(i, j)$
- $B_k$: budget of resource $k$

## Decision variables
- $x_{{ij}} \\in \\{{0, 1\\}}$: 1 when arc $(i, j)$ is on the path

## Objective
$$\\min \\; \\sum_{{(i,j) \\in A}} c_{{ij}} x_{{ij}}$$

## Constraints
- Path flow, for all $i \\in N$:
  $\\sum_{{j:(i,j) \\in A}} x_{{ij}} - \\sum_{{j:(j,i) \\in A}} x_{{ji}} = \\beta_i$ with
  $\\beta_s = 1$, $\\beta_t = -1$ and $\\beta_i = 0$ otherwise
- Budgets, for all $k \\in K$: $\\sum_{{(i,j) \\in A}} r^k_{{ij}} x_{{ij}} \\le B_k$
- The network is acyclic, so the flow constraints admit no detached cycles: every solution is a
  simple path.

## Instance data

| tail | head | cost | {" | ".join(resources)} |
|---:|---:|---:|{"---:|" * len(resources)}
{arc_rows}

| resource | budget |
|---|---:|
{budget_rows}

## Instance notes
- Verified minimum cost: **{solution["objective_value"]}** along {" -> ".join(str(n) for n in path)}
  ({use_text}); {record.reference.method}; cross-checked by {record.cross_check_method}
  (value {record.cross_check_objective:g}) over {len(routes)} source-sink paths.
- The unconstrained shortest path ({" -> ".join(str(n) for n in cheapest.nodes)}, cost {cheapest.cost})
  exceeds a budget, and dropping any one budget lowers the optimum.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (resource-constrained shortest path), generated from the
verified instance record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.linear_solver import pywraplp

NODES = {nodes!r}
SOURCE = {source!r}
SINK = {sink!r}
RESOURCES = {resources!r}
BUDGETS = {budgets!r}
ARCS = [  # (tail, head, cost, consumption per resource in RESOURCES order)
{arcs}
]


def solve() -> dict:
    solver = pywraplp.Solver.CreateSolver("SCIP")
    x = [solver.BoolVar(f"x_{{tail}}_{{head}}") for tail, head, _, _ in ARCS]
    for node in NODES:
        out = [x[i] for i, arc in enumerate(ARCS) if arc[0] == node]
        into = [x[i] for i, arc in enumerate(ARCS) if arc[1] == node]
        rhs = 1 if node == SOURCE else -1 if node == SINK else 0
        solver.Add(sum(out) - sum(into) == rhs)
    for k, name in enumerate(RESOURCES):
        solver.Add(sum(arc[3][k] * x[i] for i, arc in enumerate(ARCS)) <= BUDGETS[name])
    solver.Minimize(sum(arc[2] * x[i] for i, arc in enumerate(ARCS)))
    status = solver.Solve()
    if status != pywraplp.Solver.OPTIMAL:
        failed = "infeasible" if status == pywraplp.Solver.INFEASIBLE else "error"
        return {{"status": failed, "objective_value": None}}
    successor = {{arc[0]: arc[1] for i, arc in enumerate(ARCS) if x[i].solution_value() > 0.5}}
    path = [SOURCE]
    while path[-1] != SINK:
        path.append(successor[path[-1]])
    cost = sum(arc[2] for i, arc in enumerate(ARCS) if x[i].solution_value() > 0.5)
    return {{
        "status": "optimal",
        "objective_value": cost,
        "objective_exact": cost,
        "optimal_path": path,
        "selected_arcs": [[tail, head] for tail, head in zip(path, path[1:])],
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    resources = resources_of(instance)
    arcs = "\n".join(
        f"    ({a['from']}, {a['to']}, {a['cost']}, {tuple(consumption(a, name) for name in resources)!r}),"
        for a in instance["arcs"]
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        nodes=list(instance["nodes"]),
        source=instance["source"],
        sink=instance["sink"],
        resources=resources,
        budgets=budgets_of(instance),
        arcs=arcs,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    kinds = {arc_kind(layers_of(instance), a["from"], a["to"]) for a in instance["arcs"]}
    tags = [
        "layered_backbone",
        f"layers_{len(layers_of(instance))}",
        f"resources_{len(resources_of(instance))}",
    ]
    tags += [f"{kind}_arcs" for kind in ("intra", "bypass") if kind in kinds]
    tags.append("budget_excludes_shortest_path")
    n, m, k = len(instance["nodes"]), len(instance["arcs"]), len(resources_of(instance))
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": m,
            "binary_variables": m,
            "constraints": n + k,
            "nodes": n,
            "arcs": m,
            "resources": k,
            "source_sink_paths": len(enumerate_routes(instance)),
        },
    )
