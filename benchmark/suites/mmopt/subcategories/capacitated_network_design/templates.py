"""Artifacts of a capacitated-network-design package, all derived from the verified record.

Single commodity: one flow per arc (``flows`` keyed ``"u_v"``) and the list of opened arcs. The
task text states the rules and the output contract; every number is left to the figure.
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.network import arc_kind
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.supply_network import supply_of, total_supply
from benchmark.suites.mmopt.subcategories.capacitated_network_design.generator import (
    binding_arcs,
    layers_of,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
TASK_INPUT = _TEXT["task_input"]


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
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        n_nodes=len(instance["nodes"]),
        total_supply=total_supply(instance),
        nodes=nodes,
        layers=layers,
        n_arcs=len(instance["arcs"]),
        arcs=arcs,
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
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        nodes_joined=", ".join(str(n) for n in instance["nodes"]),
        n_nodes=len(instance["nodes"]),
        n_arcs=len(instance["arcs"]),
        node_rows=node_rows,
        arc_rows=arc_rows,
        total_supply=total_supply(instance),
        objective_value=solution["objective_value"],
        fixed_part=fixed_part,
        flow_part=solution["objective_value"] - fixed_part,
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        n_opened=len(opened),
        opened_joined=", ".join(opened),
        binding=", ".join(binding) or "none",
    )


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


def task_input(record: VerifiedRecord) -> str:
    """The same text for every instance: its numbers are all on the visual."""
    return TASK_INPUT


def describe(record: VerifiedRecord) -> Descriptors:
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
    return Descriptors(
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
