"""Artifacts of a capacitated-network-design package, all derived from the verified record.

Single commodity: one flow per arc (``flows`` keyed ``"u_v"``) and the list of opened arcs. The
task text states the rules and the output contract; every number is left to the figure.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.network import arc_kind
from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.supply_network import supply_of, total_supply
from benchmark.suites.mmopt.subcategories.capacitated_network_design.generator import (
    binding_arcs,
    layers_of,
)

TASK_INPUT = """\
Capacitated network design (network optimization)

The figure visual_0.png shows a directed network of candidate arcs. Each circle is a node. The bold
number at the top of a circle is the node's name; the signed number below it is the node's net
supply. A positive value is a supply (that much flow must leave the node in total), a negative
value is a demand (that much flow must arrive at the node in total), and 0 marks a transshipment
node, where the flow in equals the flow out. Each arrow is a candidate arc from the node it starts
at to the node it points to; flow may only travel in the direction of the arrow. The label
"(capacity, unit cost, fixed opening cost)" in the small box on an arrow gives the most flow the arc
can carry once opened, the cost per unit of flow sent along it, and the one-time cost of opening it.
An arc may also join two nodes of the same column, or curve around the outside of the drawing to
skip a column; follow each line from its start to its arrowhead.

Task: decide which arcs to open and how to route a single commodity through the opened arcs so
that all supplies reach the demands at the least total cost. The total cost is the sum of the fixed
opening costs of all opened arcs plus, over all arcs, the unit cost times the flow. Flow may only
use opened arcs; on an opened arc it must be at least zero and at most the capacity; every node's
net supply must be met exactly. Total supply equals total demand. All nodes, arcs, capacities,
costs, supplies and demands must be read from the figure.

Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the minimum total cost (fixed plus flow costs), as a number;
- "installation_indicator": a dict marking every arc opened (the number one) or not (zero), keyed
  "u_v": the name of the node the arc starts at, an underscore, and the name of the node it points
  to (the arc from node a to node b is "a_b");
- "arc_flows": a dict giving the flow on every arc, keyed "u_v" in the same way (0 on arcs not
  opened).
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
        f"  {a['from']:>3} -> {a['to']:<3} capacity {a['capacity']:>3}  unit cost {a['variable_cost']:>3}  "
        f"fixed cost {a['fixed_cost']:>3}   ({arc_kind(layers_of(instance), a['from'], a['to'])})"
        for a in instance["arcs"]
    )
    return (
        f"Instance {record.instance_id} - capacitated network design ({record.difficulty})\n\n"
        "Problem\n"
        "  Choose which candidate arcs to open (each at a fixed cost) and route one commodity through the\n"
        "  opened arcs so that every node's net outflow equals its net supply. Flow on an opened arc lies\n"
        "  between zero and its capacity and costs the arc's unit cost per unit; closed arcs carry none.\n\n"
        f"Nodes ({len(instance['nodes'])}; total supply {total_supply(instance)} = total demand):\n"
        f"{nodes}\n\n"
        "Layout (columns left to right, nodes top to bottom):\n" + layers + "\n\n"
        f"Candidate arcs ({len(instance['arcs'])}; tail -> head, capacity, unit cost, fixed cost, kind):\n"
        f"{arcs}\n\n"
        "Objective\n  minimize the fixed costs of the opened arcs plus unit cost times flow.\n\n"
        "Visual interpretation\n"
        "  visual_0.png draws the network in columns (layers). Nodes are circles: bold name on top, signed\n"
        "  net supply below (+ supply, - demand, 0 transshipment). Each arrow is one candidate arc; the\n"
        "  boxed label '(capacity, unit cost, fixed cost)' on it (box outline in the arrow's colour)\n"
        "  gives its data. Arcs between nodes of one column are vertical; arcs that skip a column curve\n"
        "  around the top or bottom of the drawing.\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value, installation_indicator and arc_flows keyed 'u_v'\n"
        "  (single commodity).\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    supply = supply_of(instance)
    node_rows = "\n".join(f"| {n} | {supply[n]} |" for n in instance["nodes"])
    arc_rows = "\n".join(
        f"| {a['from']} | {a['to']} | {a['capacity']} | {a['variable_cost']} | {a['fixed_cost']} |"
        for a in instance["arcs"]
    )
    opened = [f"{a['from']}_{a['to']}" for a in instance["arcs"] if a["id"] in solution["installed_arc_ids"]]
    fixed_part = solution["fixed_cost_total"]
    binding = binding_arcs(instance, record.reference)
    return f"""# Capacitated network design — {record.instance_id}

## Sets
- $N$: nodes, $N = \\{{{", ".join(str(n) for n in instance["nodes"])}\\}}$ ({len(instance["nodes"])} nodes)
- $A \\subseteq N \\times N$: candidate arcs ({len(instance["arcs"])} arcs, listed below)

## Parameters
- $b_i$: net supply of node $i$ (positive: supply, negative: demand, 0: transshipment); $\\sum_i b_i = 0$
- $u_{{ij}}$: capacity of arc $(i, j)$ once opened
- $c_{{ij}}$: unit flow cost of arc $(i, j)$
- $f_{{ij}}$: fixed cost of opening arc $(i, j)$

## Decision variables
- $y_{{ij}} \\in \\{{0, 1\\}}$: 1 when arc $(i, j)$ is opened
- $x_{{ij}} \\ge 0$: flow on arc $(i, j)$ (single commodity)

## Objective
$$\\min \\; \\sum_{{(i,j) \\in A}} \\left( f_{{ij}} y_{{ij}} + c_{{ij}} x_{{ij}} \\right)$$

## Constraints
- Flow balance, for all $i \\in N$:
  $\\sum_{{j:(i,j) \\in A}} x_{{ij}} - \\sum_{{j:(j,i) \\in A}} x_{{ji}} = b_i$
- Capacity and opening: $0 \\le x_{{ij}} \\le u_{{ij}} y_{{ij}}$ for all $(i, j) \\in A$

## Instance data

| node | $b_i$ |
|---:|---:|
{node_rows}

| tail | head | capacity | unit cost | fixed cost |
|---:|---:|---:|---:|---:|
{arc_rows}

## Instance notes
- Total supply {total_supply(instance)} equals total demand.
- Verified minimum total cost: **{solution["objective_value"]}** (fixed {fixed_part}, flow
  {solution["objective_value"] - fixed_part}); {record.reference.method}; cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Opened at the reference optimum ({len(opened)} of {len(instance["arcs"])}): {", ".join(opened)}.
- Capacities binding at the reference optimum: {", ".join(binding) or "none"}.
- Routing by unit costs alone and opening by fixed costs alone are both strictly more expensive.
- Optimal designs and flows need not be unique; the minimum cost is.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (capacitated network design), generated from the verified
instance record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.linear_solver import pywraplp

NODES = {nodes!r}
SUPPLY = {supply!r}  # node -> net supply (positive: supply, negative: demand)
ARCS = [  # (tail, head, capacity, unit cost, fixed opening cost)
{arcs}
]


def solve() -> dict:
    solver = pywraplp.Solver.CreateSolver("SCIP")
    x = [solver.NumVar(0.0, capacity, f"x_{{tail}}_{{head}}") for tail, head, capacity, _, _ in ARCS]
    y = [solver.BoolVar(f"y_{{tail}}_{{head}}") for tail, head, _, _, _ in ARCS]
    for i, (_, _, capacity, _, _) in enumerate(ARCS):
        solver.Add(x[i] <= capacity * y[i])
    for node in NODES:
        out = [x[i] for i, arc in enumerate(ARCS) if arc[0] == node]
        into = [x[i] for i, arc in enumerate(ARCS) if arc[1] == node]
        solver.Add(sum(out) - sum(into) == SUPPLY[node])
    solver.Minimize(sum(arc[3] * x[i] + arc[4] * y[i] for i, arc in enumerate(ARCS)))
    status = solver.Solve()
    if status != pywraplp.Solver.OPTIMAL:
        failed = "infeasible" if status == pywraplp.Solver.INFEASIBLE else "error"
        return {{"status": failed, "objective_value": None}}
    flows = {{f"{{arc[0]}}_{{arc[1]}}": round(x[i].solution_value()) for i, arc in enumerate(ARCS)}}
    opened = {{f"{{arc[0]}}_{{arc[1]}}": int(y[i].solution_value() > 0.5) for i, arc in enumerate(ARCS)}}
    cost = sum(arc[3] * flows[f"{{arc[0]}}_{{arc[1]}}"] for arc in ARCS)
    cost += sum(arc[4] for arc in ARCS if opened[f"{{arc[0]}}_{{arc[1]}}"])
    return {{
        "status": "optimal",
        "objective_value": cost,
        "objective_exact": cost,
        "installation_indicator": opened,
        "arc_flows": flows,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    arcs = "\n".join(
        f"    ({a['from']}, {a['to']}, {a['capacity']}, {a['variable_cost']}, {a['fixed_cost']}),"
        for a in instance["arcs"]
    )
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
    tags = ["layered_backbone", f"layers_{len(layers_of(instance))}", "single_commodity", "fixed_charge"]
    tags += [f"{kind}_arcs" for kind in ("intra", "bypass") if kind in kinds]
    tags += [
        f"supply_nodes_{sum(1 for b in supply.values() if b > 0)}",
        f"demand_nodes_{sum(1 for b in supply.values() if b < 0)}",
    ]
    if binding_arcs(instance, record.reference):
        tags.append("binding_capacity")
    n, m = len(instance["nodes"]), len(instance["arcs"])
    return DerivedArtifacts(
        task_input=TASK_INPUT,
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": 2 * m,
            "binary_variables": m,
            "constraints": n + m,
            "nodes": n,
            "arcs": m,
            "opened_arcs": len(record.reference.solution["installed_arc_ids"]),
        },
    )
