"""Artifacts of a maximum-flow package, all derived from the verified record.

The task text is fixed prose: it names the rules and the output contract and points at the figure
for every number, so the model has to read the visual (App. D.1.2).
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.network import arc_kind
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.subcategories.maximum_flow.generator import layers_of, trivial_cuts

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
TASK_INPUT = _TEXT["task_input"]


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
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        n_nodes=len(instance["nodes"]),
        nodes_joined=", ".join(str(n) for n in instance["nodes"]),
        source=instance["source"],
        sink=instance["sink"],
        layers=layers,
        n_arcs=len(instance["arcs"]),
        arc_lines="\n".join(_arc_lines(record)),
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
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        nodes_joined=", ".join(str(n) for n in instance["nodes"]),
        n_nodes=len(instance["nodes"]),
        n_arcs=len(instance["arcs"]),
        source=instance["source"],
        sink=instance["sink"],
        rows=rows,
        objective_value=solution["objective_value"],
        reference_method=record.reference.method,
        cross_check_method=record.cross_check_method,
        cross_check_objective=record.cross_check_objective,
        cut_set=cut_set,
        cut_arcs_joined=", ".join(cut_arcs),
    )


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


def task_input(record: VerifiedRecord) -> str:
    """The same text for every instance: its numbers are all on the visual."""
    return TASK_INPUT


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    at_source, at_sink = trivial_cuts(instance, record.reference)
    layers = layers_of(instance)
    kinds = {arc_kind(layers, a["from"], a["to"]) for a in instance["arcs"]}
    tags = ["layered_backbone", f"layers_{len(layers)}"]
    tags += [f"{kind}_arcs" for kind in ("intra", "bypass") if kind in kinds]
    tags.append("internal_min_cut" if not (at_source or at_sink) else "end_min_cut")
    n, m = len(instance["nodes"]), len(instance["arcs"])
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={"variables": m, "constraints": n - 2, "bounds": m, "nodes": n, "arcs": m},
        meta_extra={},
    )
