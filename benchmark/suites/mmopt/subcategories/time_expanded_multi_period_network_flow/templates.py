"""Artifacts of a time-expanded multi-period network-flow package, derived from the verified record.

The task text explains the three panels and the output contract (flows and stock keyed by period)
and states no number: periods, capacities, costs, supplies and storage data are all in the figures.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.network import arc_kind
from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.subcategories.time_expanded_multi_period_network_flow.generator import (
    binding_capacities,
)

TASK_INPUT = """\
Time-expanded multi-period network flow (network optimization)

Goods move through a directed network over several consecutive periods. Three figures describe it.
- visual_0.png shows the network. Each circle is a node, named by the bold number inside it (green:
  nodes with supply, red: nodes with demand, blue: transshipment nodes). Each arrow is an arc from
  the node it starts at to the node it points to, named by the capital letter in the small box on
  it; flow may only travel in the direction of the arrow. An arc may also join two nodes of the same
  column, or curve around the outside of the drawing to skip a column.
- visual_1.png is the arc table: one row per arc (its letter, then the node it starts at, an arrow
  and the node it points to), one column per period. A cell "(capacity, unit cost)" gives the most
  flow the arc can carry in that period and the cost per unit sent along it in that period.
- visual_2.png is the node table: one row per node. The period columns give the node's net supply
  in each period: a positive value is goods that become available at the node in that period, a
  negative value is a demand that must be delivered to the node in that period, 0 is neither. The
  last two columns give the node's storage capacity (the most stock it can carry from one period
  into the next) and its holding cost (per unit of stock carried from one period into the next).

Task: plan the transport in every period and the stock every node carries between periods at the
least total cost. In each period, flow on every arc must be at least zero and at most that period's
capacity. At every node and in every period, the net supply plus the inflow plus the stock brought
in from the previous period must equal the outflow plus the stock carried into the next period.
There is no stock before the first period and none may remain after the last period; stock is at
least zero and at most the node's storage capacity. Demands must be met exactly in their period;
nothing may be delivered late. The total cost is, over all periods, the unit cost times the flow on
every arc plus the holding cost times the stock carried into the next period at every node. All
nodes, arcs, periods and numbers must be read from the figures.

Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the minimum total cost, as a number;
- "flows": a dict keyed by period, the period's number (as in the table headers) written as a
  string, whose value is a dict giving that period's flow on every arc, keyed "u_v": the name of
  the node the arc starts at, an underscore, and the name of the node it points to (the arc from
  node a to node b is "a_b");
- "storage": a dict keyed by period in the same way, whose value is a dict keyed by node name
  giving the stock the node carries from that period into the next one (for every period but the
  last).
"""


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    periods = int(instance["periods"])
    layers = "\n".join(
        f"  column {k + 1}: " + ", ".join(str(n) for n in layer) for k, layer in enumerate(instance["layers"])
    )
    arcs = "\n".join(
        f"  {a['name']}: {a['from']:>3} -> {a['to']:<3} "
        + "  ".join(f"t{t + 1} ({a['capacity'][t]:>3}, {a['cost'][t]:>2})" for t in range(periods))
        + f"   ({arc_kind(instance['layers'], a['from'], a['to'])})"
        for a in instance["arcs"]
    )
    nodes = "\n".join(
        f"  {node:>3}: net supply "
        + " ".join(f"{v:+d}" if v else "0" for v in instance["supply"][node])
        + f"   storage {instance['storage_capacity'][node]}, holding cost {instance['holding_cost'][node]}"
        for node in (str(n) for n in instance["nodes"])
    )
    return (
        f"Instance {record.instance_id} - time-expanded multi-period network flow ({record.difficulty})\n\n"
        "Problem\n"
        f"  Over {periods} periods, route supplies to demands through a directed network whose arc\n"
        "  capacities and unit costs change by period; nodes may carry stock from one period into the\n"
        "  next up to a storage capacity at a holding cost. Demands are met exactly in their period; no\n"
        "  stock before the first or after the last period.\n\n"
        f"Nodes ({len(instance['nodes'])}; net supply per period 1..{periods}, storage, holding cost):\n"
        f"{nodes}\n\n"
        "Layout (columns left to right, nodes top to bottom):\n" + layers + "\n\n"
        f"Arcs ({len(instance['arcs'])}; name: tail -> head, (capacity, unit cost) per period, kind):\n"
        f"{arcs}\n\n"
        "Objective\n  minimize transport cost over all periods plus holding cost of stock carried.\n\n"
        "Visual interpretation\n"
        "  visual_0.png draws the base network in columns; each arc carries its letter name. visual_1.png\n"
        "  is the arc table (row: letter and tail -> head; column: period; cell: (capacity, unit cost)).\n"
        "  visual_2.png is the node table (signed net supply per period, storage capacity, holding cost).\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value, flows {period: {'u_v': flow}} and storage\n"
        "  {period: {node: stock carried into the next period}}, periods keyed '1', '2', ...\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    periods = int(instance["periods"])
    period_cols = " | ".join(f"t={t}" for t in range(1, periods + 1))
    arc_rows = "\n".join(
        f"| {a['name']} | {a['from']} | {a['to']} | "
        + " | ".join(f"({a['capacity'][t]}, {a['cost'][t]})" for t in range(periods))
        + " |"
        for a in instance["arcs"]
    )
    node_rows = "\n".join(
        f"| {node} | "
        + " | ".join(str(v) for v in instance["supply"][node])
        + f" | {instance['storage_capacity'][node]} | {instance['holding_cost'][node]} |"
        for node in (str(n) for n in instance["nodes"])
    )
    carried = sum(v for stock in solution["storage"].values() for v in stock.values())
    binding = binding_capacities(instance, record.reference)
    return f"""# Time-expanded multi-period network flow — {record.instance_id}

## Sets
- $N$: nodes, $N = \\{{{", ".join(str(n) for n in instance["nodes"])}\\}}$ ({len(instance["nodes"])} nodes)
- $A \\subseteq N \\times N$: directed arcs ({len(instance["arcs"])} arcs, listed below)
- $T = \\{{1, \\dots, {periods}\\}}$: periods

## Parameters
- $b_{{i,t}}$: net supply of node $i$ in period $t$ (positive: supply, negative: demand);
  $\\sum_{{i,t}} b_{{i,t}} = 0$
- $u_{{ij,t}}$, $c_{{ij,t}}$: capacity and unit cost of arc $(i, j)$ in period $t$
- $S_i$, $h_i$: storage capacity and holding cost per unit and period of node $i$

## Decision variables
- $x_{{ij,t}} \\ge 0$: flow on arc $(i, j)$ in period $t$
- $s_{{i,t}} \\ge 0$: stock node $i$ carries from period $t$ into $t + 1$ ($t < {periods}$);
  $s_{{i,0}} = s_{{i,{periods}}} = 0$

## Objective
$$\\min \\; \\sum_{{t \\in T}} \\sum_{{(i,j) \\in A}} c_{{ij,t}} x_{{ij,t}}
  + \\sum_{{t < {periods}}} \\sum_{{i \\in N}} h_i s_{{i,t}}$$

## Constraints
- Balance, for all $i \\in N$, $t \\in T$:
  $b_{{i,t}} + \\sum_{{j:(j,i) \\in A}} x_{{ji,t}} + s_{{i,t-1}}
  = \\sum_{{j:(i,j) \\in A}} x_{{ij,t}} + s_{{i,t}}$
- Capacity: $0 \\le x_{{ij,t}} \\le u_{{ij,t}}$; storage: $0 \\le s_{{i,t}} \\le S_i$

This is a min-cost flow on the time-expanded graph: one copy of each node per period, the arcs of
the network inside every period, and a storage arc from each node's copy in $t$ to its copy in
$t + 1$.

## Instance data

| arc | tail | head | {period_cols} |
|---|---:|---:|{"---:|" * periods}
{arc_rows}

| node | {period_cols} | storage | holding |
|---:|{"---:|" * periods}---:|---:|
{node_rows}

## Instance notes
- Verified minimum cost: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Stock carried between periods at the reference optimum: {carried} units in total.
- Capacities binding at the reference optimum: {", ".join(binding)}.
- Optimal plans need not be unique; the minimum cost is.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (time-expanded multi-period network flow), generated from the
verified instance record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.graph.python import min_cost_flow

NODES = {nodes!r}
PERIODS = {periods!r}
SUPPLY = {supply!r}  # node -> net supply per period
STORAGE_CAPACITY = {storage!r}
HOLDING_COST = {holding!r}
ARCS = [  # (tail, head, capacity per period, unit cost per period)
{arcs}
]


def copy_of(node, period):
    """Index of the node's copy in a period (1-based) in the time-expanded graph."""
    return 1 + (period - 1) * len(NODES) + NODES.index(node)


def solve() -> dict:
    solver = min_cost_flow.SimpleMinCostFlow()
    transport, storage = [], []
    for t in range(1, PERIODS + 1):
        for tail, head, capacity, cost in ARCS:
            index = solver.add_arc_with_capacity_and_unit_cost(
                copy_of(tail, t), copy_of(head, t), capacity[t - 1], cost[t - 1]
            )
            transport.append((t, f"{{tail}}_{{head}}", index))
    for t in range(1, PERIODS):
        for node in NODES:
            index = solver.add_arc_with_capacity_and_unit_cost(
                copy_of(node, t), copy_of(node, t + 1), STORAGE_CAPACITY[node], HOLDING_COST[node]
            )
            storage.append((t, node, index))
    for node in NODES:
        for t in range(1, PERIODS + 1):
            solver.set_node_supply(copy_of(node, t), SUPPLY[node][t - 1])
    status = solver.solve()
    if status != solver.OPTIMAL:
        failed = "infeasible" if status == solver.INFEASIBLE else "error"
        return {{"status": failed, "objective_value": None}}
    flows = {{str(t): {{}} for t in range(1, PERIODS + 1)}}
    for t, key, index in transport:
        flows[str(t)][key] = solver.flow(index)
    stock = {{str(t): {{}} for t in range(1, PERIODS)}}
    for t, node, index in storage:
        stock[str(t)][str(node)] = solver.flow(index)
    cost = solver.optimal_cost()
    return {{
        "status": "optimal",
        "objective_value": cost,
        "objective_exact": cost,
        "flows": flows,
        "storage": stock,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    arcs = "\n".join(
        f"    ({a['from']}, {a['to']}, {a['capacity']!r}, {a['cost']!r})," for a in instance["arcs"]
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        nodes=[int(n) for n in instance["nodes"]],
        periods=int(instance["periods"]),
        supply={int(n): list(v) for n, v in instance["supply"].items()},
        storage={int(n): v for n, v in instance["storage_capacity"].items()},
        holding={int(n): v for n, v in instance["holding_cost"].items()},
        arcs=arcs,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    periods = int(instance["periods"])
    kinds = {arc_kind(instance["layers"], a["from"], a["to"]) for a in instance["arcs"]}
    tags = ["layered_backbone", f"layers_{len(instance['layers'])}", f"periods_{periods}", "multi_panel"]
    tags += [f"{kind}_arcs" for kind in ("intra", "bypass") if kind in kinds]
    tags += ["stock_carried", "binding_capacity"]
    n, m = len(instance["nodes"]), len(instance["arcs"])
    transport, storage = m * periods, n * (periods - 1)
    return DerivedArtifacts(
        task_input=TASK_INPUT,
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": transport + storage,
            "constraints": n * periods,
            "bounds": transport + storage,
            "nodes": n,
            "arcs": m,
            "periods": periods,
            "time_expanded_nodes": n * periods,
            "time_expanded_arcs": transport + storage,
        },
    )
