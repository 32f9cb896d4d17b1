"""Artifacts of a resource-constrained shortest-path package, all derived from the verified record.

The task text names the rules, the resources and the output contract; every number (costs,
consumptions, budgets) is left to the two figures.
"""

from __future__ import annotations

import itertools

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.network import arc_kind
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.subcategories.resource_constrained_shortest_path.generator import (
    budgets_of,
    consumption,
    enumerate_routes,
    layers_of,
    resources_of,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
TASK_INPUT = _TEXT["task_input"]


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
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        n_nodes=len(instance["nodes"]),
        nodes_joined=", ".join(str(n) for n in instance["nodes"]),
        source=instance["source"],
        sink=instance["sink"],
        layers=layers,
        n_arcs=len(instance["arcs"]),
        arcs=arcs,
        budgets=budgets,
        label_form=_label_form(resources),
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
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        nodes_joined=", ".join(str(n) for n in instance["nodes"]),
        n_nodes=len(instance["nodes"]),
        n_arcs=len(instance["arcs"]),
        resources_joined=", ".join(resources),
        source=instance["source"],
        sink=instance["sink"],
        resource_columns=" | ".join(resources),
        resource_align="---:|" * len(resources),
        arc_rows=arc_rows,
        budget_rows=budget_rows,
        objective_value=solution["objective_value"],
        path_joined=" -> ".join(str(n) for n in path),
        use_text=use_text,
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        n_routes=len(routes),
        cheapest_path=" -> ".join(str(n) for n in cheapest.nodes),
        cost=cheapest.cost,
    )


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


def describe(record: VerifiedRecord) -> Descriptors:
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
    return Descriptors(
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
