"""Artifacts of a minimum-cost-flow package, all derived from the verified record.

The task text follows App. D.7 Example A: it states the objective and rules and defers every
number (supplies, capacities, costs) to the figure.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.network import arc_kind
from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.supply_network import supply_of, total_supply
from benchmark.suites.mmopt.subcategories.minimum_cost_flow.generator import binding_arcs, layers_of

TASK_INPUT = """\
Minimum-cost flow (network optimization)

The figure visual_0.png shows a directed network. Each circle is a node. The bold number at the top
of a circle is the node's name; the signed number below it is the node's net supply. A positive
value is a supply (that much flow must leave the node in total), a negative value is a demand (that
much flow must arrive at the node in total), and 0 marks a transshipment node, where the flow in
equals the flow out. Each arrow is an arc from the node it starts at to the node it points to. The
label "(capacity, cost)" in the small box on an arrow gives the most flow the arc can carry and the
cost per unit of flow sent along it. Flow may only travel in the direction of the arrow. An arc may
also join two nodes of the same column, or curve around the outside of the drawing to skip a
column; follow each line from its start to its arrowhead.

Task: send all supplies to the demands at the least total cost, where the total cost is the sum over
all arcs of the arc's cost times its flow. The flow on every arc must be at least zero and at most
the arc's capacity, and every node's net supply must be met exactly. Total supply equals total
demand. All nodes, arcs, capacities, costs, supplies and demands must be read from the figure.

Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the minimum total cost, as a number;
- "flows": a dict giving the flow on every arc, keyed "u_v": the name of the node the arc starts at,
  an underscore, and the name of the node it points to (the arc from node a to node b is "a_b").
"""


def _role(value: int) -> str:
    if value > 0:
        return f"supply {value}"
    if value < 0:
        return f"demand {-value}"
    return "transshipment"


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    supply = supply_of(instance)
    layers = "\n".join(
        f"  column {k + 1}: " + ", ".join(str(n) for n in layer)
        for k, layer in enumerate(layers_of(instance))
    )
    nodes = "\n".join(f"  {n:>3}: net supply {supply[n]:+d} ({_role(supply[n])})" for n in instance["nodes"])
    arcs = "\n".join(
        f"  {a['from']:>3} -> {a['to']:<3} capacity {a['capacity']:>3}  cost {a['cost']:>3}   "
        f"({arc_kind(layers_of(instance), a['from'], a['to'])})"
        for a in instance["arcs"]
    )
    return (
        f"Instance {record.instance_id} - minimum-cost flow ({record.difficulty})\n\n"
        "Problem\n"
        "  Route every supply to the demands through a directed network at least total cost. Flow on\n"
        "  each arc lies between zero and its capacity and costs the arc's unit cost per unit; each\n"
        "  node's net outflow equals its net supply.\n\n"
        f"Nodes ({len(instance['nodes'])}; total supply {total_supply(instance)} = total demand):\n"
        f"{nodes}\n\n"
        "Layout (columns left to right, nodes top to bottom):\n" + layers + "\n\n"
        f"Arcs ({len(instance['arcs'])}; tail -> head, capacity, unit cost, kind):\n{arcs}\n\n"
        "Objective\n  minimize the sum over arcs of unit cost times flow.\n\n"
        "Visual interpretation\n"
        "  visual_0.png draws the network in columns (layers). Nodes are circles: bold name on top, signed\n"
        "  net supply below (+ supply, - demand, 0 transshipment). Each arrow is one arc; the boxed label\n"
        "  '(capacity, cost)' on it (box outline in the arrow's colour) gives its capacity and unit cost.\n"
        "  Arcs between nodes of one column are vertical; arcs that skip a column curve around the top or\n"
        "  bottom of the drawing.\n\n"
        "Output contract\n  solve() returns status, objective_value and flows keyed 'u_v'.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    supply = supply_of(instance)
    node_rows = "\n".join(f"| {n} | {supply[n]} |" for n in instance["nodes"])
    arc_rows = "\n".join(
        f"| {a['from']} | {a['to']} | {a['capacity']} | {a['cost']} |" for a in instance["arcs"]
    )
    binding = binding_arcs(instance, record.reference)
    return f"""# Minimum-cost flow — {record.instance_id}

## Sets
- $N$: nodes, $N = \\{{{", ".join(str(n) for n in instance["nodes"])}\\}}$ ({len(instance["nodes"])} nodes)
- $A \\subseteq N \\times N$: directed arcs ({len(instance["arcs"])} arcs, listed below)

## Parameters
- $b_i$: net supply of node $i$ (positive: supply, negative: demand, 0: transshipment); $\\sum_i b_i = 0$
- $u_{{ij}}$: capacity of arc $(i, j)$
- $c_{{ij}}$: unit cost of arc $(i, j)$

## Decision variables
- $x_{{ij}} \\ge 0$: flow on arc $(i, j) \\in A$

## Objective
$$\\min \\; \\sum_{{(i,j) \\in A}} c_{{ij}} x_{{ij}}$$

## Constraints
- Flow balance, for all $i \\in N$:
  $\\sum_{{j:(i,j) \\in A}} x_{{ij}} - \\sum_{{j:(j,i) \\in A}} x_{{ji}} = b_i$
- Capacity: $0 \\le x_{{ij}} \\le u_{{ij}}$ for all $(i, j) \\in A$

## Instance data

| node | $b_i$ |
|---:|---:|
{node_rows}

| tail | head | capacity | cost |
|---:|---:|---:|---:|
{arc_rows}

## Instance notes
- Total supply {total_supply(instance)} equals total demand.
- Verified minimum cost: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Capacities binding at the reference optimum: {", ".join(binding)}.
- The constraint matrix is totally unimodular, so an integral optimum exists; optimal flows need not
  be unique, the minimum cost is.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (minimum-cost flow), generated from the verified instance record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.graph.python import min_cost_flow

NODES = {nodes!r}
SUPPLY = {supply!r}  # node -> net supply (positive: supply, negative: demand)
ARCS = [  # (tail, head, capacity, unit cost)
{arcs}
]


def solve() -> dict:
    solver = min_cost_flow.SimpleMinCostFlow()
    for tail, head, capacity, cost in ARCS:
        solver.add_arc_with_capacity_and_unit_cost(tail, head, capacity, cost)
    for node, supply in SUPPLY.items():
        solver.set_node_supply(node, supply)
    status = solver.solve()
    if status != solver.OPTIMAL:
        return {{"status": "infeasible" if status == solver.INFEASIBLE else "error", "objective_value": None}}
    cost = solver.optimal_cost()
    flows = {{f"{{tail}}_{{head}}": solver.flow(i) for i, (tail, head, _, _) in enumerate(ARCS)}}
    return {{"status": "optimal", "objective_value": cost, "objective_exact": cost, "flows": flows}}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    arcs = "\n".join(f"    ({a['from']}, {a['to']}, {a['capacity']}, {a['cost']})," for a in instance["arcs"])
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        nodes=list(instance["nodes"]),
        supply=supply_of(instance),
        arcs=arcs,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    supply = supply_of(instance)
    kinds = {arc_kind(layers_of(instance), a["from"], a["to"]) for a in instance["arcs"]}
    tags = ["layered_backbone", f"layers_{len(layers_of(instance))}"]
    tags += [f"{kind}_arcs" for kind in ("intra", "bypass") if kind in kinds]
    tags += [
        f"supply_nodes_{sum(1 for b in supply.values() if b > 0)}",
        f"demand_nodes_{sum(1 for b in supply.values() if b < 0)}",
        "binding_capacity",
    ]
    n, m = len(instance["nodes"]), len(instance["arcs"])
    return DerivedArtifacts(
        task_input=TASK_INPUT,
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={"variables": m, "constraints": n, "bounds": m, "nodes": n, "arcs": m},
    )
