"""Artifacts of a time-expanded multi-period network-flow package, derived from the verified record.

The task text explains the four panels and the output contract (the official keys
``flows_by_period`` and ``inventory_by_node``) and states no number: periods, capacities, costs,
supplies and warehouse data are all in the figures.
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.network import arc_kind
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.subcategories.time_expanded_multi_period_network_flow.generator import (
    binding_capacities,
    layers_of,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
TASK_INPUT = _TEXT["task_input"]


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
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        n_periods=len(periods),
        n_nodes=len(instance["nodes"]),
        periods_joined=", ".join(periods),
        nodes=nodes,
        n_storage=len(instance["storage"]),
        stores=stores,
        columns=columns,
        n_arcs=len(instance["arcs"]),
        arcs=arcs,
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
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        nodes_joined=", ".join(str(n) for n in instance["nodes"]),
        n_nodes=len(instance["nodes"]),
        storage_nodes_joined=", ".join(str(n) for n in instance["storage_nodes"]),
        n_arcs=len(instance["arcs"]),
        periods_joined=", ".join(periods),
        last=last,
        period_cols=period_cols,
        period_align="---:|" * len(periods),
        arc_rows=arc_rows,
        node_rows=node_rows,
        store_rows=store_rows,
        objective_value=solution["objective_value"],
        routing_cost_total=solution["routing_cost_total"],
        holding_cost_total=solution["holding_cost_total"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        carried=carried,
        binding_joined=", ".join(binding),
    )


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


def task_input(record: VerifiedRecord) -> str:
    """The same text for every instance: its numbers are all on the visual."""
    return TASK_INPUT


def describe(record: VerifiedRecord) -> Descriptors:
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
    return Descriptors(
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
