"""Artifacts of a logical constraint satisfaction package, all derived from the verified record.

The task text says how to read the matrix (as the official release's does) and asks for a status
and, when the model is satisfiable, an assignment; it states no number, since every count and
bound is read from the figure.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import task_text
from benchmark.suites.mmopt.subcategories.logical_constraint_satisfaction_models.renderer import (
    matrix_rows,
    panels,
)
from benchmark.suites.mmopt.subcategories.logical_constraint_satisfaction_models.validator import (
    is_negative,
    literal_text,
)

READING = (
    "Each column is a Boolean decision variable (bold name at the top) that takes the value true or "
    "false. Each row is one logical row of the model, named at its left: rows named C followed by a "
    "number are clauses, at least one of whose literals must be true; rows named I are implications, "
    "drawn as the equivalent clause (not u or v), so the variable marked with a minus sign implies the "
    "variable marked with a plus sign; rows named A are the pairwise exclusions of an at-most-one group "
    "(rows A2a, A2b, ... all belong to group A2), drawn as the clause (not u or not v); rows named K, "
    "where present, are cardinality rows: at most the bound written in the row label (after the sign "
    "≤) of the variables marked in that row may be true. A plus sign in a cell means the variable of "
    "that column appears positively in the row, a minus sign that it appears negated, and an empty "
    "cell that it does not appear."
)
TASK = (
    "Task: decide whether some assignment of the variables satisfies every row shown, and if so find "
    "one. This is a pure feasibility problem: there is no objective, and the model may also turn out "
    "to be infeasible, in which case that must be reported. All rows, marks and bounds must be read "
    "from the {figure}."
)
CONTRACT = """\
Formulate this as a binary (feasibility) model and write Python code with a function solve() that
takes no arguments, builds and solves the model, and returns a dict with the keys:
- "status": "feasible" when a satisfying assignment exists, "infeasible" when it is proven that
  none exists;
- "assignment": when feasible, a dict that maps every variable name (as in the figure, e.g. "x3")
  to its value, one for true and zero for false; omit it when infeasible.
"""


def _figures(record: VerifiedRecord) -> list[str]:
    return [f"visual_{i}.png" for i in range(len(panels(record.instance)))]


def task_input(record: VerifiedRecord) -> str:
    figures = _figures(record)
    if len(figures) == 1:
        where = "The figure visual_0.png is the clause-variable matrix of a Boolean constraint model."
    else:
        where = (
            f"The figures {', '.join(figures[:-1])} and {figures[-1]} together form the clause-variable "
            "matrix of a Boolean constraint model; its rows are split between the figures, and each "
            "figure repeats the header row of variables."
        )
    title = "Logical constraint satisfaction (combinatorial and logical models)"
    task = TASK.format(figure="figure" if len(figures) == 1 else "figures")
    return task_text(title, f"{where} {READING}", task, contract=CONTRACT)


def _rows_text(instance: dict) -> list[str]:
    lines = [
        f"  {c['name']}: ({' ∨ '.join(literal_text(lit) for lit in c['literals'])})"
        for c in instance["clauses"]
    ]
    lines += [f"  {r['name']}: {r['if_variable']} -> {r['then_variable']}" for r in instance["implications"]]
    lines += [
        f"  {g['name']}: at most one of {', '.join(g['variables'])}" for g in instance["at_most_one_groups"]
    ]
    lines += [
        f"  {r['name']}: at most {r['rhs']} of {', '.join(r['variables'])}"
        for r in instance.get("cardinality_constraints", [])
    ]
    return lines


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    meta = instance["meta_parameters"]
    block = meta["all_different_block"]
    block_text = (
        "All-different block (one-hot; rows of tasks, columns of slots):\n"
        + "\n".join(f"  task {t}: {', '.join(row)}" for t, row in enumerate(block, start=1))
        + "\n  each task takes some slot (a clause), at most one (an at-most-one group), and no two\n"
        "  tasks share a slot (an at-most-one group per slot).\n\n"
        if block
        else ""
    )
    return (
        f"Instance {record.instance_id} - logical constraint satisfaction ({record.difficulty})\n\n"
        "Problem\n  Pure feasibility: find an assignment of the Boolean variables satisfying every row,\n"
        "  or prove that none exists.\n\n"
        f"Variables ({meta['number_of_variables']}): {', '.join(instance['sets']['variables'])}\n\n"
        f"Rows ({meta['clause_count']} clauses, {meta['implication_count']} implications, "
        f"{meta['at_most_one_group_count']} at-most-one groups, {meta['cardinality_constraint_count']} "
        "cardinality rows):\n"
        + "\n".join(_rows_text(instance))
        + "\n\n"
        + block_text
        + "Visual interpretation\n"
        f"  {len(matrix_rows(instance))} matrix rows over {len(panels(instance))} figure(s): C clauses,\n"
        "  I implications (¬u ∨ v), A pairwise exclusions of each at-most-one group (¬u ∨ ¬v),\n"
        "  K cardinality rows with the bound in the label; + positive, − negative, empty absent.\n\n"
        "Output contract\n  solve() returns status (feasible / infeasible) and assignment when feasible.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    meta = instance["meta_parameters"]
    answer = (
        f"- Verified answer: **{solution['status']}** ({record.reference.method}); cross-checked by "
        f"{record.cross_check_method} (feasible = {record.cross_check_objective:g})."
    )
    if solution["status"] == "feasible":
        answer += f"\n- A satisfying assignment sets true: {', '.join(solution['true_variables']) or 'none'}."
    block = meta["all_different_block"]
    block_note = (
        f"\n- All-different block: tasks {'; '.join(', '.join(row) for row in block)} (one-hot slots)."
        if block
        else ""
    )
    rows = "\n".join(_rows_text(instance))
    return f"""# Logical constraint satisfaction — {record.instance_id}

## Sets
- $V$: Boolean variables ({meta["number_of_variables"]}); $C$: clauses, each a set of literals
  $P_c$ (positive) and $N_c$ (negative); $I$: implications $(u, v)$; $A$: at-most-one groups;
  $K$: cardinality rows $(S_k, b_k)$

## Decision variables
- $x_v \\in \\{{0, 1\\}}$: 1 if variable $v$ is true

## Objective
$$\\min \\; 0 \\quad \\text{{(pure feasibility)}}$$

## Constraints
- Clauses: $\\sum_{{v \\in P_c}} x_v + \\sum_{{v \\in N_c}} (1 - x_v) \\ge 1$ for all $c \\in C$
- Implications: $x_u \\le x_v$ for all $(u, v) \\in I$
- At most one: $\\sum_{{v \\in g}} x_v \\le 1$ for all $g \\in A$
- Cardinality: $\\sum_{{v \\in S_k}} x_v \\le b_k$ for all $k \\in K$

## Instance notes
{answer}{block_note}

## Rows
{rows}
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (logical constraint satisfaction), generated from the verified
record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

from ortools.sat.python import cp_model

VARIABLES = {variables!r}
CLAUSES = {clauses!r}  # (variable, is_negative) literals
IMPLICATIONS = {implications!r}
AT_MOST_ONE = {at_most_one!r}
CARDINALITY = {cardinality!r}  # (variables, at most this many true)


def solve() -> dict:
    model = cp_model.CpModel()
    x = {{v: model.new_bool_var(v) for v in VARIABLES}}
    for clause in CLAUSES:
        model.add_bool_or([x[v].Not() if negative else x[v] for v, negative in clause])
    for u, v in IMPLICATIONS:
        model.add_implication(x[u], x[v])
    for group in AT_MOST_ONE:
        model.add_at_most_one(x[v] for v in group)
    for members, bound in CARDINALITY:
        model.add(sum(x[v] for v in members) <= bound)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 60.0
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return {{"status": "infeasible", "is_feasible": False}}
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return {{"status": "error"}}
    assignment = {{v: int(solver.boolean_value(x[v])) for v in VARIABLES}}
    return {{"status": "feasible", "is_feasible": True, "assignment": assignment}}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        variables=list(instance["sets"]["variables"]),
        clauses=[
            [(lit["variable"], is_negative(lit["sign"])) for lit in c["literals"]]
            for c in instance["clauses"]
        ],
        implications=[(r["if_variable"], r["then_variable"]) for r in instance["implications"]],
        at_most_one=[tuple(g["variables"]) for g in instance["at_most_one_groups"]],
        cardinality=[(tuple(r["variables"]), r["rhs"]) for r in instance.get("cardinality_constraints", [])],
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    satisfiable = record.reference.solution["status"] == "feasible"
    tags = [
        "satisfiable" if satisfiable else "unsatisfiable",
        f"variables_{meta['number_of_variables']}",
        f"rows_{len(matrix_rows(instance))}",
    ]
    if meta["all_different_block"]:
        tags.append("all_different_block")
    if meta["cardinality_constraint_count"]:
        tags.append("cardinality_rows")
    if len(panels(instance)) > 1:
        tags.append("split_panels")
    nonzeros = sum(len(c["literals"]) for c in instance["clauses"]) + 2 * meta["implication_count"]
    nonzeros += sum(len(g["variables"]) for g in instance["at_most_one_groups"])
    nonzeros += sum(len(r["variables"]) for r in instance.get("cardinality_constraints", []))
    return DerivedArtifacts(
        task_input=task_input(record),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size={
            "variables": meta["number_of_variables"],
            "constraints": meta["number_of_clauses"],
            "nonzeros": nonzeros,
            "matrix_rows": len(matrix_rows(instance)),
        },
        meta_extra={"satisfiable": satisfiable},
    )
