"""Layer 2: certificates for the gate's obligations (paper §3.3, App. H).

Each obligation is a proposition over exact integers (values scaled by powers of ten, so no
floating-point tolerance). Here it is discharged by z3 (``z3-solver``): the negation is asserted
and must be unsatisfiable. The same proposition is emitted as Lean 4 source, one
``theorem … := by decide`` per obligation and no Mathlib, for users who build it with Lean; each
theorem carries the JSON paths it came from. Missing evidence is a *witnessed gap*: listed with the
field and the reason, never counted as proved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from benchmark.suites.tbmath.obligations import Gap, IntExpr, Obligation, Prop


def _z3_expr(expr: IntExpr) -> z3.ArithRef:
    if isinstance(expr, int):
        return z3.IntVal(expr)
    op, *args = expr
    values = [_z3_expr(a) for a in args]
    if op == "+":
        return z3.Sum(values)
    if op == "*":
        return z3.Product(values)
    if op == "%":
        return values[0] % values[1]
    raise ValueError(f"unknown operator {op!r}")


def _z3_prop(prop: Prop) -> z3.BoolRef:
    if prop[0] == "and":
        return z3.And([_z3_prop(p) for p in prop[1]]) if prop[1] else z3.BoolVal(True)
    if prop[0] == "or":
        return z3.Or([_z3_prop(p) for p in prop[1]]) if prop[1] else z3.BoolVal(False)
    op, left, right = prop[0], _z3_expr(prop[1]), _z3_expr(prop[2])
    return {"<=": left <= right, "<": left < right, "==": left == right}[op]


def _lean_expr(expr: IntExpr) -> str:
    if isinstance(expr, int):
        return f"({expr} : Int)"
    op, *args = expr
    return "(" + f" {op} ".join(_lean_expr(a) for a in args) + ")"


def _lean_prop(prop: Prop) -> str:
    if len(prop) == 2:
        junction, parts = prop
        if not parts:
            return "True" if junction == "and" else "False"
        joiner = " ∧ " if junction == "and" else " ∨ "
        return "(" + joiner.join(_lean_prop(p) for p in parts) + ")"
    op, left, right = prop
    symbol = {"<=": "≤", "<": "<", "==": "="}[op]
    return f"({_lean_expr(left)} {symbol} {_lean_expr(right)})"


@dataclass(frozen=True)
class Discharge:
    obligation: Obligation
    proved: bool
    refuted: bool  # z3 found the negation satisfiable: the claim is false for the reported values

    def as_record(self) -> dict[str, Any]:
        status = "proved" if self.proved else ("refuted" if self.refuted else "unknown")
        return {
            "id": self.obligation.obligation_id,
            "paths": list(self.obligation.paths),
            "status": status,
            "statement": self.obligation.statement,
        }


@dataclass
class Certificate:
    discharges: list[Discharge] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)

    @property
    def proved(self) -> int:
        return sum(d.proved for d in self.discharges)

    @property
    def rejected(self) -> list[Discharge]:
        return [d for d in self.discharges if not d.proved]

    @property
    def status(self) -> str:
        """``certified`` (every obligation proved, no gap), ``rejected`` (some obligation fails) or
        ``partial`` (everything present is proved but evidence is missing)."""
        if self.rejected:
            return "rejected"
        return "partial" if self.gaps else "certified"

    def as_record(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "obligations": len(self.discharges),
            "proved": self.proved,
            "rejected": [d.as_record() for d in self.rejected],
            "gaps": [{"check": g.check_id, "path": g.path, "witness": g.reason} for g in self.gaps],
        }


def discharge(obligation: Obligation) -> Discharge:
    solver = z3.Solver()
    solver.set("timeout", 10_000)
    solver.add(z3.Not(_z3_prop(obligation.prop)))
    verdict = solver.check()
    return Discharge(obligation, proved=verdict == z3.unsat, refuted=verdict == z3.sat)


def certify(obligations: Sequence[Obligation], gaps: Sequence[Gap]) -> Certificate:
    return Certificate([discharge(o) for o in obligations], list(gaps))


def _lean_name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", text)
    return name if name[:1].isalpha() else f"t_{name}"


def lean_source(task_id: str, obligations: Sequence[Obligation], gaps: Sequence[Gap]) -> str:
    """A Lean 4 file (no imports) with one decidable theorem per obligation."""
    namespace = _lean_name(task_id)
    lines = [
        f"-- Feasibility obligations for task {task_id}; values are scaled to exact integers.",
        "-- Build with `lean FILE`; every theorem is closed by the kernel-checked `decide` alone.",
        f"namespace {namespace}",
        "",
    ]
    for obligation in obligations:
        lines.append(f"-- {', '.join(obligation.paths)}: {obligation.statement}")
        lines.append(
            f"theorem {_lean_name(obligation.obligation_id)} : {_lean_prop(obligation.prop)} := by decide"
        )
        lines.append("")
    for gap in gaps:
        lines.append(f"-- GAP (missing evidence, not proved): {gap.check_id} at {gap.path}: {gap.reason}")
    lines.append(f"end {namespace}")
    return "\n".join(lines) + "\n"
