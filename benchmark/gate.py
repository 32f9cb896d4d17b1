"""``--gate``: a release gate such as ``pass@1>=0.45`` or ``pass@1>=45%,valid_code_rate>=0.9``.

When a gate is given, it alone decides the exit status: CI pipelines gate model releases on the
score, not on whether every single case passed.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

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


def evaluate_gate(conditions: tuple[Condition, ...], metrics: Mapping[str, float | None]) -> GateResult:
    """Every condition must hold; a metric that is missing or undefined fails its condition."""
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
    return GateResult(passed=passed, lines=tuple(lines))
