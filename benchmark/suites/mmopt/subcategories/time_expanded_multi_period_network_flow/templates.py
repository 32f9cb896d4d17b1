"""Artifacts of a time-expanded multi-period network-flow package, derived from the verified record.

The task text explains the four panels and the output contract (the official keys
``flows_by_period`` and ``inventory_by_node``) and states no number: periods, capacities, costs,
supplies and warehouse data are all in the figures.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.network import arc_kind
from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.subcategories.time_expanded_multi_period_network_flow.generator import (
    binding_capacities,
    layers_of,
)

TASK_INPUT = """\
Time-expanded multi-period network flow (network optimization)

Goods move through a directed network over several consecutive periods. Four figures describe it.
- visual_0.png shows the network. Each circle is a node, named by the bold number inside it (green:
  nodes with supply, red: nodes with demand, blue: transshipment nodes, yellow and tagged
  "storage": warehouses). Each arrow is an arc from the node it starts at to the node it points to,
  named by the id in the small box on it (e followed by a number); flow may only travel in the
  direction of the arrow. An arc may also join two nodes of the same column, or curve around the
  outside of the drawing to skip a column.
- visual_1.png is the arc table: one row per arc (its id, then the node it starts at, an arrow and
  the node it points to), one column per period (periods are named t followed by their number). A
  cell "(capacity, unit cost)" gives the most flow the arc can carry in that period and the cost
  per unit sent along it in that period.
- visual_2.png is the node table: one row per node, one column per period, giving the node's net
  supply in that period: a positive value is goods that become available at the node, a negative
  value is a demand that must be delivered to the node in that period, 0 is neither.
- visual_3.png is the warehouse table: only the warehouses can hold stock. For each it gives the
  inventory it holds before the first period, its storage capacity (the most inventory it may hold
  at the end of any period) and, per period, the holding cost per unit of inventory held at the
  end of that period.

Task: plan the transport in every period and the inventory every warehouse holds at the end of
every period at the least total cost. In each period, flow on every arc must be at least zero and
at most that period's capacity. At every node and in every period, the net supply plus the inflow
plus (at a warehouse) the inventory held at the end of the previous period, or the initial
inventory in the first period, must equal the outflow plus (at a warehouse) the inventory held at
the end of this period. Other nodes hold no stock. Inventory is at least zero and at most the
storage capacity. Demands must be met exactly in their period; nothing may be delivered late. The
total cost is, over all periods, the unit cost times the flow on every arc plus the holding cost
times the end-of-period inventory at every warehouse. All nodes, arcs, periods and numbers must be
read from the figures.

Formulate this as an optimization model and write Python code with a function solve() that takes
no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "optimal" when an optimal solution is found;
- "objective_value": the minimum total cost, as a number;
- "flows_by_period": a dict keyed by period name (as in the table headers), whose value is a dict
  giving that period's flow on every arc, keyed by arc id;
- "inventory_by_node": a dict keyed by warehouse node name (as a string), whose value is a dict
  keyed by period name giving the inventory the warehouse holds at the end of that period.
"""


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    periods = list(instance["periods"])
    layers = layers_of(instance)
    columns = "\n".join(
        f"  column {k + 1}: " + ", ".join(str(n) for n in layer) for k, layer in enumerate(layers)
    )
    arcs = "\n".join(
        f"  {a['id']}: {a['from']:>3} -> {a['to']:<3} "
        + "  ".join(f"{t} ({a['capacity_by_period'][t]:>3}, {a['cost_by_period'][t]:>2})" for t in periods)
        + f"   ({arc_kind(layers, a['from'], a['to'])})"
        for a in instance["arcs"]
    )
    nodes = "\n".join(
        f"  {node:>3}: net supply "
        + " ".join(f"{v:+d}" if v else "0" for v in instance["net_supply_by_node_period"][node].values())
        for node in (str(n) for n in instance["nodes"])
    )
    stores = "\n".join(
        f"  {node:>3}: initial {s['initial_inventory']}, capacity {s['capacity']}, holding "
        + " ".join(f"{t} {s['holding_cost_by_period'][t]}" for t in periods)
        for node, s in instance["storage"].items()
    )
    return (
        f"Instance {record.instance_id} - time-expanded multi-period network flow ({record.difficulty})\n\n"
        "Problem\n"
        f"  Over {len(periods)} periods, route supplies to demands through a directed network whose arc\n"
        "  capacities and unit costs change by period; warehouses hold inventory from one period into\n"
        "  the next up to a storage capacity at a holding cost per period. Demands are met exactly in\n"
        "  their period; the initial inventories are part of what is delivered.\n\n"
        f"Nodes ({len(instance['nodes'])}; net supply per period {', '.join(periods)}):\n{nodes}\n\n"
        f"Warehouses ({len(instance['storage'])}):\n{stores}\n\n"
        "Layout (columns left to right, nodes top to bottom):\n" + columns + "\n\n"
        f"Arcs ({len(instance['arcs'])}; id: tail -> head, (capacity, unit cost) per period, kind):\n"
        f"{arcs}\n\n"
        "Objective\n  minimize transport cost over all periods plus holding cost of end-of-period\n"
        "  inventory.\n\n"
        "Visual interpretation\n"
        "  visual_0.png draws the base network in columns; each arc carries its id, warehouses are tagged\n"
        "  'storage'. visual_1.png is the arc table (row: id and tail -> head; column: period; cell:\n"
        "  (capacity, unit cost)). visual_2.png is the node table (signed net supply per period).\n"
        "  visual_3.png is the warehouse table (initial inventory, capacity, holding cost per period).\n\n"
        "Output contract\n"
        "  solve() returns status, objective_value, flows_by_period {period: {arc id: flow}} and\n"
        "  inventory_by_node {warehouse: {period: end-of-period inventory}}.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    periods = list(instance["periods"])
    last = periods[-1]
    period_cols = " | ".join(periods)
    arc_rows = "\n".join(
        f"| {a['id']} | {a['from']} | {a['to']} | "
        + " | ".join(f"({a['capacity_by_period'][t]}, {a['cost_by_period'][t]})" for t in periods)
        + " |"
        for a in instance["arcs"]
    )
    node_rows = "\n".join(
        f"| {node} | "
        + " | ".join(str(v) for v in instance["net_supply_by_node_period"][node].values())
        + " |"
        for node in (str(n) for n in instance["nodes"])
    )
    store_rows = "\n".join(
        f"| {node} | {s['initial_inventory']} | {s['capacity']} | "
        + " | ".join(str(s["holding_cost_by_period"][t]) for t in periods)
        + " |"
        for node, s in instance["storage"].items()
    )
    carried = sum(v for levels in solution["inventory_by_node"].values() for v in levels.values())
    binding = binding_capacities(instance, record.reference)
    return f"""# Time-expanded multi-period network flow — {record.instance_id}

## Sets
- $N$: nodes, $N = \\{{{", ".join(str(n) for n in instance["nodes"])}\\}}$ ({len(instance["nodes"])} nodes)
- $W \\subseteq N$: warehouses, $W = \\{{{", ".join(str(n) for n in instance["storage_nodes"])}\\}}$
- $A \\subseteq N \\times N$: directed arcs ({len(instance["arcs"])} arcs, listed below)
- $T = ({", ".join(periods)})$: periods

## Parameters
- $b_{{i,t}}$: net supply of node $i$ in period $t$ (positive: supply, negative: demand)
- $u_{{a,t}}$, $c_{{a,t}}$: capacity and unit cost of arc $a$ in period $t$
- $I^0_w$, $S_w$, $h_{{w,t}}$: initial inventory, storage capacity and holding cost per unit of
  end-of-period inventory of warehouse $w$; $\\sum_{{i,t}} b_{{i,t}} + \\sum_w I^0_w = 0$

## Decision variables
- $x_{{a,t}} \\ge 0$: flow on arc $a$ in period $t$
- $I_{{w,t}} \\ge 0$: inventory of warehouse $w$ at the end of period $t$; $I_{{w,0}} = I^0_w$

## Objective
$$\\min \\; \\sum_{{t \\in T}} \\sum_{{a \\in A}} c_{{a,t}} x_{{a,t}}
  + \\sum_{{t \\in T}} \\sum_{{w \\in W}} h_{{w,t}} I_{{w,t}}$$

## Constraints
- Balance, for all $i \\in N$, $t \\in T$ (the inventory terms only at warehouses):
  $\\sum_{{a \\in \\delta^+(i)}} x_{{a,t}} - \\sum_{{a \\in \\delta^-(i)}} x_{{a,t}}
  = b_{{i,t}} + I_{{i,t-1}} - I_{{i,t}}$
- Capacity: $0 \\le x_{{a,t}} \\le u_{{a,t}}$; storage: $0 \\le I_{{w,t}} \\le S_w$

Supply and initial inventory equal demand, so $I_{{w,{last}}} = 0$ at every optimum. This is a
min-cost flow on the time-expanded graph: one copy of each node per period, the arcs of the
network inside every period, and a storage arc from each warehouse's copy in $t$ to its copy in
the next period.

## Instance data

| arc | tail | head | {period_cols} |
|---|---:|---:|{"---:|" * len(periods)}
{arc_rows}

| node | {period_cols} |
|---:|{"---:|" * len(periods)}
{node_rows}

| warehouse | initial | capacity | {period_cols} |
|---:|---:|---:|{"---:|" * len(periods)}
{store_rows}

## Instance notes
- Verified minimum cost: **{solution["objective_value"]}** (routing {solution["routing_cost_total"]}, holding
  {solution["holding_cost_total"]}; {record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- End-of-period inventory at the reference optimum: {carried} units in total.
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
WAREHOUSES = {warehouses!r}  # node -> (initial inventory, capacity, holding cost per period)
ARCS = [  # (id, tail, head, capacity per period, unit cost per period)
{arcs}
]


def copy_of(node, t):
    """Index of the node's copy in period index t (0-based) in the time-expanded graph."""
    return 1 + t * len(NODES) + NODES.index(node)


def solve() -> dict:
    solver = min_cost_flow.SimpleMinCostFlow()
    transport, storage = [], []
    for t in range(len(PERIODS)):
        for arc_id, tail, head, capacity, cost in ARCS:
            index = solver.add_arc_with_capacity_and_unit_cost(
                copy_of(tail, t), copy_of(head, t), capacity[t], cost[t]
            )
            transport.append((t, arc_id, index))
    for t in range(len(PERIODS) - 1):
        for node, (_, capacity, holding) in WAREHOUSES.items():
            index = solver.add_arc_with_capacity_and_unit_cost(
                copy_of(node, t), copy_of(node, t + 1), capacity, holding[t]
            )
            storage.append((t, node, index))
    for node in NODES:
        for t in range(len(PERIODS)):
            initial = WAREHOUSES[node][0] if node in WAREHOUSES and t == 0 else 0
            solver.set_node_supply(copy_of(node, t), SUPPLY[node][t] + initial)
    status = solver.solve()
    if status != solver.OPTIMAL:
        failed = "infeasible" if status == solver.INFEASIBLE else "error"
        return {{"status": failed, "objective_value": None}}
    flows = {{period: {{}} for period in PERIODS}}
    for t, arc_id, index in transport:
        flows[PERIODS[t]][arc_id] = solver.flow(index)
    inventory = {{str(node): dict.fromkeys(PERIODS, 0) for node in WAREHOUSES}}
    for t, node, index in storage:
        inventory[str(node)][PERIODS[t]] = solver.flow(index)
    cost = solver.optimal_cost()
    return {{
        "status": "optimal",
        "objective_value": cost,
        "objective_exact": cost,
        "flows_by_period": flows,
        "inventory_by_node": inventory,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    periods = list(instance["periods"])
    arcs = "\n".join(
        f"    ({a['id']!r}, {a['from']}, {a['to']}, "
        f"{[a['capacity_by_period'][t] for t in periods]!r}, {[a['cost_by_period'][t] for t in periods]!r}),"
        for a in instance["arcs"]
    )
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        nodes=[int(n) for n in instance["nodes"]],
        periods=periods,
        supply={int(n): list(v.values()) for n, v in instance["net_supply_by_node_period"].items()},
        warehouses={
            int(n): (s["initial_inventory"], s["capacity"], [s["holding_cost_by_period"][t] for t in periods])
            for n, s in instance["storage"].items()
        },
        arcs=arcs,
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    periods = len(instance["periods"])
    layers = layers_of(instance)
    kinds = {arc_kind(layers, a["from"], a["to"]) for a in instance["arcs"]}
    tags = ["layered_backbone", f"layers_{len(layers)}", f"periods_{periods}", "multi_panel"]
    tags += [f"{kind}_arcs" for kind in ("intra", "bypass") if kind in kinds]
    tags += [f"warehouses_{len(instance['storage'])}", "stock_carried", "binding_capacity"]
    if any(s["initial_inventory"] for s in instance["storage"].values()):
        tags.append("initial_inventory")
    n, m, w = len(instance["nodes"]), len(instance["arcs"]), len(instance["storage"])
    transport, storage = m * periods, w * (periods - 1)
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
            "warehouses": w,
            "periods": periods,
            "time_expanded_nodes": n * periods,
            "time_expanded_arcs": transport + storage,
        },
    )
