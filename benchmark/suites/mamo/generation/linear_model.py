"""A small LP/MILP representation with the two things generation needs: the CPLEX-format ``.lp``
text (the reference artifact) and two independent solves.

The answer comes from HiGHS reading the very ``.lp`` text that ships as the reference, so the file
is proven readable and its optimum is the answer; the cross-check builds the same model directly
from the data in OR-Tools (SCIP backend), never from the text, so a writer bug shows up as a
disagreement rather than as a wrong answer.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import highspy
from ortools.linear_solver import pywraplp

#: The two solvers' optima must agree to this relative accuracy (absolute below 1).
AGREEMENT = 1e-6


class NotOptimal(Exception):
    """The drawn model is infeasible, unbounded or otherwise unusable as a case."""


@dataclass(frozen=True)
class Variable:
    name: str
    lower: float = 0.0
    upper: float = math.inf
    integer: bool = False

    @property
    def binary(self) -> bool:
        return self.integer and self.lower == 0 and self.upper == 1


@dataclass(frozen=True)
class Constraint:
    name: str
    terms: dict[str, float]
    sense: str  # "<=", ">=" or "="
    rhs: float


@dataclass
class LinearModel:
    sense: str  # "Maximize" or "Minimize"
    objective: dict[str, float]
    variables: list[Variable] = field(default_factory=list)
    constraints: list[Constraint] = field(default_factory=list)

    def add_variable(
        self, name: str, lower: float = 0.0, upper: float = math.inf, integer: bool = False
    ) -> str:
        self.variables.append(Variable(name, lower, upper, integer))
        return name

    def add_constraint(self, name: str, terms: Mapping[str, float], sense: str, rhs: float) -> None:
        self.constraints.append(Constraint(name, {v: c for v, c in terms.items() if c != 0}, sense, rhs))

    @property
    def is_mip(self) -> bool:
        return any(v.integer for v in self.variables)


def _number(value: float) -> str:
    return f"{value:.12g}"


def _expression(terms: dict[str, float]) -> str:
    parts: list[str] = []
    for name, coefficient in terms.items():
        sign = "-" if coefficient < 0 else "+"
        magnitude = abs(coefficient)
        term = name if magnitude == 1 else f"{_number(magnitude)} {name}"
        parts.append(f"{sign} {term}" if parts or sign == "-" else term)
    return " ".join(parts)


def to_lp(model: LinearModel) -> str:
    """The model in CPLEX LP format."""
    lines = [model.sense, f" obj: {_expression(model.objective)}", "Subject To"]
    lines += [f" {c.name}: {_expression(c.terms)} {c.sense} {_number(c.rhs)}" for c in model.constraints]
    bounds = []
    for v in model.variables:
        if v.binary:
            continue
        if v.lower == 0 and math.isinf(v.upper):
            continue
        lower = "-inf" if math.isinf(v.lower) else _number(v.lower)
        upper = "+inf" if math.isinf(v.upper) else _number(v.upper)
        bounds.append(f" {lower} <= {v.name} <= {upper}")
    if bounds:
        lines += ["Bounds", *bounds]
    generals = [v.name for v in model.variables if v.integer and not v.binary]
    binaries = [v.name for v in model.variables if v.binary]
    if generals:
        lines += ["Generals", *(f" {name}" for name in generals)]
    if binaries:
        lines += ["Binaries", *(f" {name}" for name in binaries)]
    lines.append("End")
    return "\n".join(lines) + "\n"


def solve_lp_text(text: str) -> float:
    """HiGHS's optimum for ``.lp`` text, as the sandbox's default script computes it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.lp"
        path.write_text(text, encoding="utf-8")
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("mip_rel_gap", 1e-9)
        if highs.readModel(str(path)) == highspy.HighsStatus.kError:
            raise NotOptimal("HiGHS cannot read the generated .lp text")
        highs.run()
        if highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise NotOptimal(f"HiGHS: {highs.modelStatusToString(highs.getModelStatus())}")
        return float(highs.getInfo().objective_function_value)


def solve_ortools(model: LinearModel) -> float:
    """The optimum from OR-Tools' SCIP backend, built from the model's data (not from its text)."""
    solver = pywraplp.Solver.CreateSolver("SCIP")
    infinity = solver.infinity()
    handles = {
        v.name: (solver.IntVar if v.integer else solver.NumVar)(
            -infinity if math.isinf(v.lower) else v.lower,
            infinity if math.isinf(v.upper) else v.upper,
            v.name,
        )
        for v in model.variables
    }
    for c in model.constraints:
        expression = sum(coefficient * handles[name] for name, coefficient in c.terms.items())
        if c.sense == "<=":
            solver.Add(expression <= c.rhs)
        elif c.sense == ">=":
            solver.Add(expression >= c.rhs)
        else:
            solver.Add(expression == c.rhs)
    objective = sum(coefficient * handles[name] for name, coefficient in model.objective.items())
    (solver.Maximize if model.sense == "Maximize" else solver.Minimize)(objective)
    solver.SetSolverSpecificParametersAsString("limits/gap = 1e-9\n")
    if solver.Solve() != pywraplp.Solver.OPTIMAL:
        raise NotOptimal("OR-Tools/SCIP found no optimum")
    return float(solver.Objective().Value())


def solve(model: LinearModel) -> tuple[str, float, dict[str, float]]:
    """(.lp text, optimum, each solver's value); :class:`NotOptimal` when they disagree."""
    text = to_lp(model)
    values = {"highs_lp_file": solve_lp_text(text), "ortools_scip": solve_ortools(model)}
    first, second = values.values()
    if abs(first - second) > AGREEMENT * max(1.0, abs(first)):
        raise NotOptimal(f"solvers disagree: {values}")
    return text, first, values


def relaxation(model: LinearModel) -> LinearModel:
    """The same model with every integrality requirement dropped (binaries keep their 0-1 bounds)."""
    return LinearModel(
        model.sense,
        dict(model.objective),
        [replace(v, integer=False) for v in model.variables],
        list(model.constraints),
    )


def optimum_or_none(model: LinearModel) -> float | None:
    """HiGHS's optimum of ``model``, or None when it has none (infeasible, unbounded)."""
    try:
        return solve_lp_text(to_lp(model))
    except NotOptimal:
        return None
