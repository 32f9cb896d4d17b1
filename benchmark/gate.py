"""``--gate``: a release gate such as ``pass@1>=0.45`` or ``pass@1>=45%,valid_code_rate>=0.9``.

When a gate is given, it decides the exit status: CI pipelines gate model releases on the score,
not on whether every single case passed. A score over fewer cases than were selected is not that
score, so the gate also fails when any selected case went unscored (an api, sandbox, dataset or
harness error, or no record at all) unless ``--gate-allow-unscored N`` or ``P%`` allows it.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Collection, Mapping
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
    r"^\s*(?P<metric>[A-Za-z_][\w@]*)\s*(?P<op>>=|<=|==|>|<)\s*"
    r"(?P<baseline>baseline\s*(?:(?P<sign>[-+])\s*)?)?(?P<value>[0-9.]+)?(?P<pct>%?)\s*$"
)
#: Metrics a ``baseline`` condition can compare, paired per instance (see :mod:`benchmark.baseline`).
BASELINE_METRICS = ("pass@1", "valid_code_rate")


class GateError(ValueError):
    """A gate expression that cannot be parsed."""


@dataclass(frozen=True)
class Condition:
    metric: str
    op: str
    threshold: float
    relative: bool = False
    """``pass@1>=baseline-0.02``: ``threshold`` (−0.02) is a margin on the paired difference from
    the ``--gate-baseline`` run, judged on its 95% interval rather than on the point estimate."""

    def __str__(self) -> str:
        if self.relative:
            return (
                f"{self.metric}{self.op}baseline{self.threshold:+g}"
                if self.threshold
                else f"{self.metric}{self.op}baseline"
            )
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
        relative = bool(match and match.group("baseline"))
        if not match or (match.group("value") is None) != (relative and not match.group("sign")):
            raise GateError(
                f"cannot read gate condition {part.strip()!r}: expected METRIC OP NUMBER or "
                "METRIC OP baseline-MARGIN, e.g. pass@1>=0.45, valid_code_rate>=90% or pass@1>=baseline-0.02"
            )
        value = float(match.group("value") or 0) / (100.0 if match.group("pct") else 1.0)
        if relative and match.group("sign") == "-":
            value = -value
        if relative and (match.group("metric") not in BASELINE_METRICS or match.group("op") == "=="):
            raise GateError(
                f"gate condition {part.strip()!r}: a baseline comparison takes >=, >, <= or < and one of "
                f"{', '.join(BASELINE_METRICS)}"
            )
        conditions.append(Condition(match.group("metric"), match.group("op"), value, relative))
    return tuple(conditions)


def check_metrics(conditions: tuple[Condition, ...], defined: Collection[str], samples: int) -> None:
    """Refuse, before the run, a condition on a metric the run's summary will not define (a typo,
    another suite's metric, pass@k beyond the samples each case gets): it could only fail at the end.
    ``defined``: the metrics of a summary of this run's shape; ``samples``: samples per case."""
    for condition in conditions:
        if condition.relative or condition.metric in defined:
            continue
        k = re.fullmatch(r"pass@([0-9]+)", condition.metric)
        if k is not None and int(k.group(1)) > samples:
            raise GateError(
                f"--gate condition {condition}: {condition.metric} needs at least {k.group(1)} samples per "
                f"case and this run takes {samples} (--samples N, or --schedule=paper)"
            )
        raise GateError(
            f"--gate condition {condition}: this run's summary has no metric {condition.metric!r}; "
            f"it has {', '.join(sorted(defined))}"
        )


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
    baseline: Callable[[Condition], tuple[bool, str]] | None = None,
) -> GateResult:
    """Every condition must hold; a metric that is missing or undefined fails its condition; and
    the unscored cases (reason → count) must be within ``allowance`` of the ``selected`` ones.
    ``baseline`` decides the relative conditions (decision and its explanation)."""
    lines, passed = [], True
    for condition in conditions:
        value = metrics.get(condition.metric)
        if condition.relative:
            ok, why = (
                baseline(condition) if baseline is not None else (False, "needs --gate-baseline RUN_DIR")
            )
            lines.append(f"{'PASS' if ok else 'FAIL'} {condition}: {why}")
        elif value is None:
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
