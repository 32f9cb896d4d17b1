"""Artifacts of a graph colouring package, all derived from the verified record.

The task text says how to read the matrix and, per task variant, what to answer: for a decision
instance whether a colouring with the stated number of colours exists (and one, if it does), for an
optimization instance the least number of colours and a colouring that attains it.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.graph_coloring.generator import (
    answer_colours,
    colours_available,
    graph_of,
    is_decision,
    max_clique,
)

READING = (
    "The figure visual_0.png is the adjacency matrix of an undirected simple graph. The bold numbers "
    "heading the rows and the columns are the vertices. A dot in the cell of row u and column v means "
    "that u and v are joined by an edge; an empty cell means they are not (the matrix is symmetric, "
    "and the grey diagonal cells pair a vertex with itself).{colours}"
)
COLOURS = " Below the matrix, a small table states how many colours are available."
TASK = {
    True: (
        "Task: decide whether every vertex can be given one of the available colours so that no two "
        "vertices joined by an edge receive the same colour, and if so find such a colouring. Colours "
        "are identified by the integers from one up to the number of colours available."
    ),
    False: (
        "Task: give every vertex a colour so that no two vertices joined by an edge receive the same "
        "colour, using as few distinct colours as possible. Colours are identified by positive "
        "integers."
    ),
}
CONTRACT = {
    True: output_contract(
        """\
- "status": "feasible" when such a colouring exists, "infeasible" when it is proven that none exists;
- "color_assignment": when feasible, a dict that maps every vertex (its number, as in the figure)
  to its colour; omit it or leave it empty when infeasible.
""",
        feasibility=True,
    ),
    False: output_contract(
        """\
- "status": "optimal" when an optimal colouring is found;
- "objective_value": the minimum number of colours, as a number;
- "color_assignment": a dict that maps every vertex (its number, as in the figure) to its colour.
"""
    ),
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
    return (
        f"Instance {record.instance_id} - graph colouring ({record.difficulty})\n\n"
        f"Problem\n{question}\n\n"
        f"Vertices: 1..{meta['number_of_vertices']}\n"
        f"Edges ({meta['number_of_edges']}, density {meta['graph_density']}): {edges}\n"
        f"Topology: {meta['topology_type']}\n\n"
        "Visual interpretation\n"
        "  visual_0.png: the symmetric adjacency matrix (dot = edge, grey diagonal)"
        + (", then the number of colours available.\n\n" if decision else ".\n\n")
        + "Output contract\n"
        + (
            "  solve() returns status (feasible / infeasible) and color_assignment when feasible.\n"
            if decision
            else "  solve() returns status, objective_value and color_assignment.\n"
        )
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
        colours_set = "$K = \\{1, \\dots, |V|\\}$"
        extra_var = "- $w_c \\in \\{0, 1\\}$: 1 if colour $c$ is used\n"
        extra_con = "- Colour use: $x_{vc} \\le w_c$ for all $v \\in V$, $c \\in K$\n"
    bound = (
        "matches the chromatic number, which certifies it"
        if len(clique) == chromatic
        else f"is below the chromatic number {chromatic}: the solver's proof is needed"
    )
    return f"""# Graph colouring — {record.instance_id}: {header}

## Sets
- $V$: vertices ({len(instance["sets"]["vertices"])}), $E$: edges ({len(instance["edges"])})
- Colours {colours_set}

## Decision variables
- $x_{{vc}} \\in \\{{0, 1\\}}$: 1 if vertex $v$ gets colour $c$
{extra_var}
## Objective
{objective}

## Constraints
- One colour per vertex: $\\sum_{{c \\in K}} x_{{vc}} = 1$ for all $v \\in V$
- Proper colouring: $x_{{uc}} + x_{{vc}} \\le 1$ for all $\\{{u, v\\}} \\in E$, $c \\in K$
{extra_con}
## Instance notes
{answer}
- Chromatic number {chromatic}; a maximum clique {{{", ".join(map(str, clique))}}} has {len(clique)} vertices,
  a lower bound that {bound}.
- Edges: {", ".join(f"{u}-{v}" for u, v in instance["edges"])}
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (graph colouring, {variant}), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.sat.python import cp_model

VERTICES = {vertices!r}
EDGES = {edges!r}
COLOURS = {colours!r}  # colours available (decision); None: minimize the number of colours


def colour_with(k: int):
    model = cp_model.CpModel()
    x = {{(v, c): model.new_bool_var(f"x_{{v}}_{{c}}") for v in VERTICES for c in range(1, k + 1)}}
    for v in VERTICES:
        model.add_exactly_one(x[v, c] for c in range(1, k + 1))
    for u, v in EDGES:
        for c in range(1, k + 1):
            model.add_bool_or([x[u, c].Not(), x[v, c].Not()])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60.0
    status = solver.solve(model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return {{str(v): next(c for c in range(1, k + 1) if solver.boolean_value(x[v, c])) for v in VERTICES}}
    return None if status == cp_model.INFEASIBLE else "error"


def solve() -> dict:
    if COLOURS is not None:
        found = colour_with(COLOURS)
        if found == "error":
            return {{"status": "error"}}
        if found is None:
            return {{"status": "infeasible"}}
        return {{"status": "feasible", "color_assignment": found}}
    for k in range(1, len(VERTICES) + 1):  # the first k that works is the chromatic number
        found = colour_with(k)
        if found == "error":
            return {{"status": "error", "objective_value": None}}
        if found is not None:
            return {{"status": "optimal", "objective_value": k, "color_assignment": found}}
    return {{"status": "error", "objective_value": None}}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


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


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    n, m = meta["number_of_vertices"], meta["number_of_edges"]
    clique = len(max_clique(graph_of(instance)))
    chromatic = answer_colours(instance, record.reference)
    kind = f"decision_{record.reference.solution['status']}" if is_decision(instance) else "optimization"
    tags = [kind, meta["topology_type"], f"vertices_{n}", f"chromatic_{chromatic}"]
    tags.append("clique_certifies" if clique == chromatic else "clique_below_chromatic")
    colours = len(instance["sets"]["colors"])
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": n * colours,
            "constraints": n + m * colours,
            "vertices": n,
            "edges": m,
        },
        meta_extra={"chromatic_number": chromatic, "max_clique_size": clique},
    )
