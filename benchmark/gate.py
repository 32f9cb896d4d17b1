"""``--gate``: a release gate such as ``pass@1>=0.45`` or ``pass@1>=45%,valid_code_rate>=0.9``.

When a gate is given, it decides the exit status: CI pipelines gate model releases on the score,
not on whether every single case passed. A score over fewer cases than were selected is not that
score, so the gate also fails when any selected case went unscored (an api, sandbox, dataset or
harness error, or no record at all) unless ``--gate-allow-unscored N`` or ``P%`` allows it.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
}
_CONDITION = re.compile(
    r"^\s*(?P<metric>[A-Za-z_][\w@]*)\s*(?P<op>>=|<=|==|>|<)\s*(?P<value>[0-9.]+)(?P<pct>%?)\s*$"
)


class GateError(ValueError):
    """A gate expression that cannot be parsed."""


@dataclass(frozen=True)
class Condition:
    metric: str
    op: str
    threshold: float

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.threshold:g}"


@dataclass(frozen=True)
class Allowance:
    """How many selected cases may go unscored: an absolute count or a fraction of the selection."""

    count: int = 0
    fraction: Fraction | None = None
    """Exact, so that ``30%`` of 10 cases allows exactly 3."""

    def allows(self, unscored: int, selected: int) -> bool:
        if self.fraction is not None:
            return unscored <= self.fraction * selected
        return unscored <= self.count

    def __str__(self) -> str:
        return f"{float(100 * self.fraction):g}%" if self.fraction is not None else str(self.count)


@dataclass(frozen=True)
class GateResult:
    passed: bool
    lines: tuple[str, ...]


def parse_gate(expression: str) -> tuple[Condition, ...]:
    conditions = []
    for part in expression.split(","):
        match = _CONDITION.match(part)
        if not match:
            raise GateError(
                f"cannot read gate condition {part.strip()!r}: expected METRIC OP NUMBER, "
                "e.g. pass@1>=0.45 or valid_code_rate>=90%"
            )
        value = float(match.group("value")) / (100.0 if match.group("pct") else 1.0)
        conditions.append(Condition(match.group("metric"), match.group("op"), value))
    return tuple(conditions)


def parse_allowance(text: str) -> Allowance:
    """``--gate-allow-unscored``: ``N`` cases or ``P%`` of the selected cases."""
    match = re.fullmatch(r"\s*(?P<value>[0-9]+(?:\.[0-9]+)?)\s*(?P<pct>%?)\s*", text)
    if match is None or (not match.group("pct") and "." in match.group("value")):
        raise GateError(f"cannot read --gate-allow-unscored {text!r}: expected a count N or a percentage P%")
    if match.group("pct"):
        fraction = Fraction(match.group("value")) / 100
        if fraction > 1:
            raise GateError(f"--gate-allow-unscored {text!r} is more than 100%")
        return Allowance(fraction=fraction)
    return Allowance(count=int(match.group("value")))


def evaluate_gate(
    conditions: tuple[Condition, ...],
    metrics: Mapping[str, float | None],
    *,
    selected: int = 0,
    unscored: Mapping[str, int] | None = None,
    allowance: Allowance = Allowance(),
) -> GateResult:
    """Every condition must hold; a metric that is missing or undefined fails its condition; and
    the unscored cases (reason → count) must be within ``allowance`` of the ``selected`` ones."""
    lines, passed = [], True
    for condition in conditions:
        value = metrics.get(condition.metric)
        if value is None:
            ok = False
            lines.append(f"FAIL {condition}: {condition.metric} is undefined for this run")
        else:
            ok = _OPERATORS[condition.op](value, condition.threshold)
            lines.append(f"{'PASS' if ok else 'FAIL'} {condition}: {condition.metric} = {value:.4f}")
        passed = passed and ok
    missing = sum((unscored or {}).values())
    reasons = ", ".join(f"{reason} {n}" for reason, n in sorted((unscored or {}).items()) if n)
    if allowance.allows(missing, selected):
        lines.append(f"PASS unscored cases: {missing} of {selected} selected (allowed {allowance})")
    else:
        passed = False
        lines.append(
            f"FAIL unscored cases: {missing} of {selected} selected ({reasons}); allowed {allowance} "
            "(--gate-allow-unscored N or P% to accept them)"
        )
    return GateResult(passed=passed, lines=tuple(lines))
