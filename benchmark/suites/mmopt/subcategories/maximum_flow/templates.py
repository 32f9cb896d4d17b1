"""Artifacts of a maximum-flow package, all derived from the verified record.

The task text is fixed prose: it names the rules and the output contract and points at the figure
for every number, so the model has to read the visual (App. D.1.2).
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.network import arc_kind
from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.subcategories.maximum_flow.generator import layers_of, trivial_cuts

TASK_INPUT = """\
Maximum flow (network optimization)

The figure visual_0.png shows a directed network. Each circle is a node, named by the bold number
inside it. The node tagged "source" is where flow enters the network and the node tagged "sink" is
where it leaves. Each arrow is an arc from the node it starts at to the node it points to, and the
number in the small box on an arrow is that arc's capacity. Flow may only travel in the direction
of the arrow. An arc may also join two nodes of the same column, or curve around the outside of the
drawing to skip a column; follow each line from its start to its arrowhead.

Task: find the largest possible amount of flow that can be sent from the source to the sink. The
flow on every arc must be at least zero and at most the arc's capacity, and at every node other than
the source and the sink the total flow in must equal the total flow out. All nodes, arcs and
capacities must be read from the figure.

Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the maximum flow value, as a number;
- "flows": a dict giving the flow on every arc, keyed "u_v": the name of the node the arc starts at,
  an underscore, and the name of the node it points to (the arc from node a to node b is "a_b");
- "min_cut_S": the list of node names on the source side of a minimum cut;
- "min_cut_T": the list of the remaining node names (the sink side of that cut).
"""


def _arc_lines(record: VerifiedRecord) -> list[str]:
    instance = record.instance
    return [
        f"  {a['from']:>3} -> {a['to']:<3} capacity {a['capacity']:>3}   "
        f"({arc_kind(layers_of(instance), a['from'], a['to'])})"
        for a in instance["arcs"]
    ]


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    layers = "\n".join(
        f"  column {k + 1}: " + ", ".join(str(n) for n in layer)
        for k, layer in enumerate(layers_of(instance))
    )
    return (
        f"Instance {record.instance_id} - maximum flow ({record.difficulty})\n\n"
        "Problem\n"
        "  Send as much flow as possible from the source to the sink of a directed network. Flow on\n"
        "  each arc lies between zero and the arc's capacity; flow is conserved at every other node.\n\n"
        f"Nodes ({len(instance['nodes'])}): " + ", ".join(str(n) for n in instance["nodes"]) + "\n"
        f"Source: {instance['source']}\nSink: {instance['sink']}\n\n"
        "Layout (columns left to right, nodes top to bottom):\n" + layers + "\n\n"
        f"Arcs ({len(instance['arcs'])}; tail -> head, capacity, kind):\n"
        + "\n".join(_arc_lines(record))
        + "\n\n"
        "Objective\n  maximize the net flow out of the source.\n\n"
        "Visual interpretation\n"
        "  visual_0.png draws the network in columns (layers). Nodes are circles with their name in bold;\n"
        "  the source and sink carry the tags 'source' and 'sink'. Each arrow is one arc; the boxed number\n"
        "  on it (box outline in the arrow's colour) is its capacity. Arcs between nodes of one column are\n"
        "  vertical; arcs that skip a column curve around the top or bottom of the drawing.\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value, flows keyed 'u_v', min_cut_S and min_cut_T.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    rows = "\n".join(f"| {a['from']} | {a['to']} | {a['capacity']} |" for a in instance["arcs"])
    cut_set = ", ".join(str(n) for n in solution["min_cut_S"])
    cut_arcs = [
        f"{a['from']}_{a['to']}"
        for a in instance["arcs"]
        if a["from"] in set(solution["min_cut_S"]) and a["to"] not in set(solution["min_cut_S"])
    ]
    return f"""# Maximum flow — {record.instance_id}

## Sets
- $N$: nodes, $N = \\{{{", ".join(str(n) for n in instance["nodes"])}\\}}$ ({len(instance["nodes"])} nodes)
- $A \\subseteq N \\times N$: directed arcs ({len(instance["arcs"])} arcs, listed below)
- source $s = {instance["source"]}$, sink $t = {instance["sink"]}$

## Parameters
- $u_{{ij}}$: capacity of arc $(i, j) \\in A$

## Decision variables
- $x_{{ij}} \\ge 0$: flow on arc $(i, j) \\in A$

## Objective
$$\\max \\; \\sum_{{j:(s,j) \\in A}} x_{{sj}} - \\sum_{{j:(j,s) \\in A}} x_{{js}}$$

## Constraints
- Flow conservation, for all $i \\in N \\setminus \\{{s, t\\}}$:
  $\\sum_{{j:(j,i) \\in A}} x_{{ji}} = \\sum_{{j:(i,j) \\in A}} x_{{ij}}$
- Capacity: $0 \\le x_{{ij}} \\le u_{{ij}}$ for all $(i, j) \\in A$

## Instance data

| tail | head | capacity |
|---:|---:|---:|
{rows}

## Instance notes
- Verified maximum flow: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Optimality certificate: the cut $S = \\{{{cut_set}\\}}$ has capacity
  {solution["objective_value"]} (cut arcs: {", ".join(cut_arcs)}).
- Flows on individual arcs need not be unique; the maximum flow value is.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (maximum flow), generated from the verified instance record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.graph.python import max_flow

NODES = {nodes!r}
SOURCE = {source!r}
SINK = {sink!r}
ARCS = [  # (tail, head, capacity)
{arcs}
]


def solve() -> dict:
    solver = max_flow.SimpleMaxFlow()
    for tail, head, capacity in ARCS:
        solver.add_arc_with_capacity(tail, head, capacity)
    status = solver.solve(SOURCE, SINK)
    if status != solver.OPTIMAL:
        return {{"status": "error", "objective_value": None, "flows": {{}}}}
    value = solver.optimal_flow()
    flows = {{f"{{tail}}_{{head}}": solver.flow(i) for i, (tail, head, _) in enumerate(ARCS)}}
    source_side = sorted(set(solver.get_source_side_min_cut()) & set(NODES))
    return {{
        "status": "optimal",
        "objective_value": value,
        "objective_exact": value,
        "max_flow_value": value,
        "min_cut_value": value,
        "flows": flows,
        "min_cut_S": source_side,
        "min_cut_T": [node for node in NODES if node not in source_side],
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    arcs = "\n".join(f"    ({a['from']}, {a['to']}, {a['capacity']})," for a in instance["arcs"])
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        nodes=list(instance["nodes"]),
        source=instance["source"],
        sink=instance["sink"],
        arcs=arcs,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    at_source, at_sink = trivial_cuts(instance, record.reference)
    layers = layers_of(instance)
    kinds = {arc_kind(layers, a["from"], a["to"]) for a in instance["arcs"]}
    tags = ["layered_backbone", f"layers_{len(layers)}"]
    tags += [f"{kind}_arcs" for kind in ("intra", "bypass") if kind in kinds]
    tags.append("internal_min_cut" if not (at_source or at_sink) else "end_min_cut")
    n, m = len(instance["nodes"]), len(instance["arcs"])
    return DerivedArtifacts(
        task_input=TASK_INPUT,
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={"variables": m, "constraints": n - 2, "bounds": m, "nodes": n, "arcs": m},
        meta_extra={},
    )
