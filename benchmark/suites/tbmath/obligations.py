"""Feasibility obligations over exact integers: the shared language of the gate and the certificates.

Every reported number becomes an exact decimal ``n · 10^-e`` (the shortest decimal that reads back
as the same float), so no floating-point tolerance enters a decision; a tolerance the task declares
is written into the proposition itself. An obligation is a proposition over integer arithmetic
(literals, ``+``, ``*``, ``%``; ``≤ < =``; ``∧ ∨``) annotated with the JSON paths it came from.
The gate decides it with Python integers; the certificate layer hands the same proposition to z3
and prints it as a Lean 4 theorem.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Literal

#: An integer expression: a literal, or (op, operands…) with op in "+", "*", "%".
IntExpr = int | tuple[str, *tuple["IntExpr", ...]]
#: The comparisons a proposition may make.
Comparison = Literal["<=", "<", "=="]
#: A proposition: (op, a, b) with op a comparison; or ("and" | "or", [props]). The first item tells
#: the two shapes apart for the type checker as well.
Prop = tuple[Literal["and", "or"], list["Prop"]] | tuple[Comparison, IntExpr, IntExpr]


@dataclass(frozen=True)
class Exact:
    """An exact decimal n · 10^-exp as an integer expression with its scale."""

    expr: IntExpr
    exp: int


def exact_decimal(value: float | int | Fraction) -> Exact:
    """The number as n · 10^-e; a Fraction must have a terminating decimal expansion."""
    if isinstance(value, Fraction):
        den, twos, fives = value.denominator, 0, 0
        while den % 2 == 0:
            den, twos = den // 2, twos + 1
        while den % 5 == 0:
            den, fives = den // 5, fives + 1
        if den != 1:
            raise ValueError(f"{value} has no terminating decimal expansion")
        exp = max(twos, fives)
        return Exact(int(value * 10**exp), exp)
    if isinstance(value, int):
        return Exact(value, 0)
    sign, digits, exponent = Decimal(repr(float(value))).as_tuple()
    assert isinstance(exponent, int)
    number = int("".join(map(str, digits))) * (-1 if sign else 1)
    if exponent >= 0:
        return Exact(number * 10**exponent, 0)
    return Exact(number, -exponent)


def fraction_of(value: float | int) -> Fraction:
    return Fraction(Decimal(repr(float(value)))) if isinstance(value, float) else Fraction(value)


def _rescale(item: Exact, exp: int) -> IntExpr:
    if item.exp == exp:
        return item.expr
    factor: int = 10 ** (exp - item.exp)  # exp >= item.exp: an int (typeshed says Any for int ** int)
    if isinstance(item.expr, int):
        return item.expr * factor
    return ("*", item.expr, factor)


def mul(a: Exact, b: Exact) -> Exact:
    return Exact(("*", a.expr, b.expr), a.exp + b.exp)


def add(items: list[Exact]) -> Exact:
    exp = max(item.exp for item in items)
    terms = [_rescale(item, exp) for item in items]
    return Exact(terms[0] if len(terms) == 1 else ("+", *terms), exp)


def compare(op: Comparison, a: Exact, b: Exact) -> Prop:
    exp = max(a.exp, b.exp)
    return (op, _rescale(a, exp), _rescale(b, exp))


def is_integral(a: Exact) -> Prop:
    if a.exp == 0:
        return ("==", 0, 0)
    return ("==", ("%", a.expr, 10**a.exp), 0)


def evaluate(expr: IntExpr) -> int:
    if isinstance(expr, int):
        return expr
    op, *args = expr
    values = [evaluate(a) for a in args]
    if op == "+":
        return sum(values)
    if op == "*":
        out = 1
        for v in values:
            out *= v
        return out
    if op == "%":
        return values[0] % values[1]
    raise ValueError(f"unknown operator {op!r}")


def holds(prop: Prop) -> bool:
    if prop[0] == "and":
        return all(holds(p) for p in prop[1])
    if prop[0] == "or":
        return any(holds(p) for p in prop[1])
    op, left, right = prop[0], evaluate(prop[1]), evaluate(prop[2])
    if op == "<=":
        return left <= right
    if op == "<":
        return left < right
    if op == "==":
        return left == right
    raise ValueError(f"unknown comparison {op!r}")


@dataclass(frozen=True)
class Obligation:
    """One checkable claim about the artifact, traced to the fields it reads."""

    obligation_id: str
    check_id: str
    form: str
    paths: tuple[str, ...]
    statement: str  # what is claimed, in words with the reported values
    prop: Prop

    @property
    def holds(self) -> bool:
        return holds(self.prop)


@dataclass(frozen=True)
class Gap:
    """Missing evidence: the check needs a field the artifact does not report."""

    check_id: str
    form: str
    path: str
    reason: str
