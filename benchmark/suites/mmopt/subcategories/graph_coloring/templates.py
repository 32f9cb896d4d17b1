"""Artifacts of a graph colouring package, all derived from the verified record.

The task text says how to read the matrix and, per task variant, what to answer: for a decision
instance whether a colouring with the stated number of colours exists (and one, if it does), for an
optimization instance the least number of colours and a colouring that attains it.
"""

from __future__ import annotations

from benchmark.resources import resource_text, text_fragments
from benchmark.suites.mmopt.generation.protocol import Descriptors, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.graph_coloring.generator import (
    answer_colours,
    colours_available,
    graph_of,
    is_decision,
    max_clique,
)

CANONICAL_SPECIFICATION = resource_text(__name__, "canonical_specification.txt.tmpl")
MATH_MODEL = resource_text(__name__, "math_model.md.tmpl")
SOLVER_TEMPLATE = resource_text(__name__, "solver_ref.py.tmpl")

_TEXT = text_fragments(__name__, "task_text.toml")
READING = _TEXT["reading"]
COLOURS = _TEXT["colours"]
TASK = {
    True: _TEXT["task_decision"],
    False: _TEXT["task_optimization"],
}
CONTRACT = {
    True: output_contract(
        _TEXT["contract_decision"],
        feasibility=True,
    ),
    False: output_contract(_TEXT["contract_optimization"]),
}


def task_input(record: VerifiedRecord) -> str:
    decision = is_decision(record.instance)
    reading = READING.format(colours=COLOURS if decision else "")
    title = "Graph colouring (combinatorial and logical models)"
    return task_text(title, reading, TASK[decision], contract=CONTRACT[decision])


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    decision = is_decision(instance)
    edges = ", ".join(f"{u}-{v}" for u, v in instance["edges"])
    question = (
        f"  Is the graph {colours_available(instance)}-colourable? (decision; answer feasible/infeasible)"
        if decision
        else "  Minimize the number of colours of a proper vertex colouring (optimization)."
    )
    return CANONICAL_SPECIFICATION.format(
        instance_id=record.instance_id,
        difficulty=record.difficulty,
        question=question,
        number_of_vertices=meta["number_of_vertices"],
        number_of_edges=meta["number_of_edges"],
        graph_density=meta["graph_density"],
        edges=edges,
        topology_type=meta["topology_type"],
        colours_note=", then the number of colours available" if decision else "",
        returns="status (feasible / infeasible) and color_assignment when feasible"
        if decision
        else "status, objective_value and color_assignment",
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    decision = is_decision(instance)
    clique = max_clique(graph_of(instance))
    chromatic = answer_colours(instance, record.reference)
    if decision:
        header = f"k-colourability with $k = {colours_available(instance)}$ (a feasibility model)"
        objective = "$$\\min \\; 0 \\quad \\text{(any feasible assignment answers the question)}$$"
        answer = (
            f"- Verified answer: **{solution['status']}** ({record.reference.method}); cross-checked by "
            f"{record.cross_check_method} (colourable = {record.cross_check_objective:g})."
        )
        colours_set = f"$K = \\{{1, \\dots, {colours_available(instance)}\\}}$"
        extra_var = ""
        extra_con = ""
    else:
        header = "minimum number of colours (chromatic number)"
        objective = "$$\\min \\; \\sum_{c \\in K} w_c$$"
        answer = (
            f"- Verified chromatic number: **{solution['objective_value']}** ({record.reference.method}); "
            f"cross-checked by {record.cross_check_method} (value {record.cross_check_objective:g})."
        )
        palette = len(instance["sets"]["colors"])
        bound_of = "|V|" if palette == len(instance["sets"]["vertices"]) else str(palette)
        colours_set = f"$K = \\{{1, \\dots, {bound_of}\\}}$"
        extra_var = "- $w_c \\in \\{0, 1\\}$: 1 if colour $c$ is used\n"
        extra_con = "- Colour use: $x_{vc} \\le w_c$ for all $v \\in V$, $c \\in K$\n"
    bound = (
        "matches the chromatic number, which certifies it"
        if len(clique) == chromatic
        else f"is below the chromatic number {chromatic}: the solver's proof is needed"
    )
    return MATH_MODEL.format(
        instance_id=record.instance_id,
        header=header,
        n_vertices=len(instance["sets"]["vertices"]),
        n_edges=len(instance["edges"]),
        colours_set=colours_set,
        extra_var=extra_var,
        objective=objective,
        extra_con=extra_con,
        answer=answer,
        chromatic=chromatic,
        map=", ".join(map(str, clique)),
        n_clique=len(clique),
        bound=bound,
        edges_joined=", ".join((f"{u}-{v}" for u, v in instance["edges"])),
    )


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    decision = is_decision(instance)
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        variant="decision" if decision else "optimization",
        vertices=list(instance["sets"]["vertices"]),
        edges=[tuple(edge) for edge in instance["edges"]],
        colours=colours_available(instance) if decision else None,
    )


def describe(record: VerifiedRecord) -> Descriptors:
    instance = record.instance
    meta = instance["meta_parameters"]
    n, m = meta["number_of_vertices"], meta["number_of_edges"]
    clique = len(max_clique(graph_of(instance)))
    chromatic = answer_colours(instance, record.reference)
    kind = f"decision_{record.reference.solution['status']}" if is_decision(instance) else "optimization"
    tags = [kind, meta["topology_type"], f"vertices_{n}", f"chromatic_{chromatic}"]
    tags.append("clique_certifies" if clique == chromatic else "clique_below_chromatic")
    colours = len(instance["sets"]["colors"])
    return Descriptors(
        regime_tags=tuple(tags),
        formulation_size={
            "variables": n * colours,
            "constraints": n + m * colours,
            "vertices": n,
            "edges": m,
        },
        meta_extra={"chromatic_number": chromatic, "max_clique_size": clique},
    )
