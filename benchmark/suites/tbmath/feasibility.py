"""Layer 1: the programmatic feasibility gate over six decidable forms (paper §3.3, App. G.4).

A task declares its checks in ``tests/feasibility.json`` as ``{"checks": [...]}``; each check has
an ``id``, a ``form`` and the form's fields. Paths may use ``[*]`` to range over a list.

* ``range`` — ``path`` with ``min`` / ``max`` (either optional), ``strict_min``, ``integer``.
* ``ordering`` — ``lesser`` ≤ ``greater`` (``strict`` for <); two wildcard paths pair item by item.
* ``identity`` — the product (``product``) or sum (``sum``) of paths, plus an optional constant
  ``offset``, equals ``equals`` (a number or ``{"path": …}``) within ``rel_tolerance`` /
  ``abs_tolerance``, which become part of the claim.
* ``membership`` — ``path`` (or, with ``length: true``, the length of the list at ``path``) is one
  of ``values``.
* ``aggregate`` — ``op`` (``sum``, ``mean``, ``max``, ``min``, ``count``) over ``path`` compared
  with ``equals`` (± ``abs_tolerance``), ``min`` or ``max``.
* ``replay`` — a stated linear constraint on reported quantities, Σ coefficient·value ``op`` rhs,
  with ``terms`` of ``{"path", "coefficients": [...]}`` (one per item) or ``"coefficient"``.
* ``recompute`` — evidence, not claims (see :mod:`evidence`): ``required`` lists the decision
  paths the artifact must carry (an absent one is a violation, not a gap); ``script`` (default
  ``tests/evidence.py``) recomputes values from those decisions and the attachments; ``claims``
  maps each scored path to its ``rel_tolerance`` / ``abs_tolerance``, and the claim must equal its
  recomputation within them. A claim that does is *verified* (``GateResult.verified``).

Each check yields one obligation per checked field (see :mod:`obligations`). A value that is
present but not a number is a violation; a value that is absent is a *gap* (missing evidence,
reported, never counted as satisfied), so an artifact without decisions fails only where a
``recompute`` check requires them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from benchmark.suites.tbmath import evidence, paths
from benchmark.suites.tbmath.obligations import (
    Comparison,
    Exact,
    Gap,
    Obligation,
    Prop,
    add,
    compare,
    evaluate,
    exact_decimal,
    fraction_of,
    is_integral,
    mul,
)
from benchmark.suites.tbmath.scoring import as_number

FORMS: tuple[str, ...] = (
    "range",
    "ordering",
    "identity",
    "membership",
    "aggregate",
    "replay",
    "recompute",
)


class CheckError(ValueError):
    """A malformed check declaration (a dataset error, named by check id)."""


@dataclass(frozen=True)
class Violation:
    check_id: str
    form: str
    path: str
    message: str

    def as_record(self) -> dict[str, str]:
        return {"check": self.check_id, "form": self.form, "path": self.path, "message": self.message}


@dataclass
class GateResult:
    obligations: list[Obligation] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    verified: set[str] = field(default_factory=set)  # claims that equal their recomputation
    recomputed: dict[str, float] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.violations

    def as_record(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "obligations": len(self.obligations),
            "verified": sorted(self.verified),
            "recomputed": dict(sorted(self.recomputed.items())),
            "violations": [v.as_record() for v in self.violations],
            "gaps": [{"check": g.check_id, "path": g.path, "reason": g.reason} for g in self.gaps],
            "warnings": self.warnings,
        }


class _Collector:
    def __init__(self, check: Mapping[str, Any], result: GateResult) -> None:
        self.check_id = str(check.get("id") or "")
        self.form = str(check.get("form") or "")
        self.result = result
        self.count = 0

    def number(self, path: str, value: Any) -> Exact | None:
        number = as_number(value)
        if number is None:
            self.result.violations.append(
                Violation(self.check_id, self.form, path, f"{path}: {value!r} is not a finite number")
            )
            return None
        return exact_decimal(number)

    def gap(self, path: str, reason: str = "the artifact does not report this field") -> None:
        self.result.gaps.append(Gap(self.check_id, self.form, path, reason))

    def violate(self, path: str, message: str) -> None:
        self.result.violations.append(Violation(self.check_id, self.form, path, message))

    def oblige(self, cited: Sequence[str], statement: str, prop: Prop) -> bool:
        self.count += 1
        obligation = Obligation(
            f"{self.check_id}_{self.count}", self.check_id, self.form, tuple(cited), statement, prop
        )
        self.result.obligations.append(obligation)
        if not obligation.holds:
            self.violate(", ".join(cited), f"violates {statement}")
        return obligation.holds


def _values(artifact: Any, path: str) -> list[tuple[str, Any]]:
    return list(paths.expand(artifact, path))


def _constant(raw: Any, check_id: str, name: str) -> Fraction:
    number = as_number(raw)
    if number is None:
        raise CheckError(f"check {check_id}: {name} must be a number, got {raw!r}")
    return fraction_of(number)


def _operand(artifact: Any, raw: Any, c: _Collector, name: str) -> tuple[Exact | None, str | None]:
    """A constant or ``{"path": …}``; (None, path) when the path is absent or not a number."""
    if isinstance(raw, dict) and isinstance(raw.get("path"), str):
        found, value = paths.lookup(artifact, raw["path"])
        if not found:
            c.gap(raw["path"])
            return None, raw["path"]
        return c.number(raw["path"], value), raw["path"]
    return exact_decimal(_constant(raw, c.check_id, name)), None


def _range(artifact: Any, check: Mapping[str, Any], c: _Collector) -> None:
    found = _values(artifact, check["path"])
    if not found:
        c.gap(check["path"])
    low = None if check.get("min") is None else _constant(check["min"], c.check_id, "min")
    high = None if check.get("max") is None else _constant(check["max"], c.check_id, "max")
    strict = bool(check.get("strict_min", False))
    for path, value in found:
        number = c.number(path, value)
        if number is None:
            continue
        parts: list[Prop] = []
        words: list[str] = []
        if low is not None:
            parts.append(compare("<" if strict else "<=", exact_decimal(low), number))
            words.append(f"{'>' if strict else '≥'} {float(low):g}")
        if high is not None:
            parts.append(compare("<=", number, exact_decimal(high)))
            words.append(f"≤ {float(high):g}")
        if check.get("integer"):
            parts.append(is_integral(number))
            words.append("integral")
        c.oblige([path], f"{path} = {value!r} must be {' and '.join(words)}", ("and", parts))


def _ordering(artifact: Any, check: Mapping[str, Any], c: _Collector) -> None:
    lesser, greater = _values(artifact, check["lesser"]), _values(artifact, check["greater"])
    if not lesser or not greater:
        c.gap(check["lesser"] if not lesser else check["greater"])
        return
    if len(greater) == 1 and len(lesser) > 1:
        greater = greater * len(lesser)
    if len(lesser) == 1 and len(greater) > 1:
        lesser = lesser * len(greater)
    if len(lesser) != len(greater):
        c.result.violations.append(
            Violation(
                c.check_id,
                c.form,
                check["lesser"],
                f"{check['lesser']} and {check['greater']} "
                f"report {len(lesser)} and {len(greater)} items; they must pair up",
            )
        )
        return
    op: Comparison = "<" if check.get("strict") else "<="
    for (low_path, low_value), (high_path, high_value) in zip(lesser, greater, strict=True):
        a, b = c.number(low_path, low_value), c.number(high_path, high_value)
        if a is None or b is None:
            continue
        c.oblige(
            [low_path, high_path],
            f"{low_path} = {low_value!r} {op} {high_path} = {high_value!r}",
            compare(op, a, b),
        )


def _within(
    c: _Collector, path: str, reported: Any, claim: Exact, value: float, tolerance: Mapping[str, Any]
) -> bool:
    """One obligation: |claim − value| ≤ rel·|value| + abs, over exact decimals."""
    rel = _constant(tolerance.get("rel_tolerance", 0), c.check_id, "rel_tolerance")
    absolute = _constant(tolerance.get("abs_tolerance", 0), c.check_id, "abs_tolerance")
    target = fraction_of(value)
    width = rel * abs(target) + absolute
    low, high = exact_decimal(target - width), exact_decimal(target + width)
    return c.oblige(
        [path],
        f"{path} = {reported!r} must equal its recomputation "
        f"{value:g} from the decisions and the attachments within ±{float(width):g}",
        ("and", [compare("<=", low, claim), compare("<=", claim, high)]),
    )


def _recompute(artifact: Any, check: Mapping[str, Any], c: _Collector, root: Path | None) -> None:
    if root is None:
        raise CheckError(f"check {c.check_id}: a recompute check needs the task folder (run_gate(root=...))")
    missing = [p for p in check.get("required", []) if not _values(artifact, p)]
    for path in missing:
        c.violate(path, f"{path}: a required decision is absent, so no claim can be recomputed")
    if missing:
        return
    result = evidence.recompute(root, str(check.get("script", evidence.EVIDENCE_FILE)), artifact)
    if result.error is not None:
        decisions = ", ".join(check.get("required", [])) or "(the artifact)"
        c.violate(decisions, f"the decisions do not solve the task as stated: {result.error}")
        return
    c.result.recomputed.update(result.values)
    for path, tolerance in check["claims"].items():
        if path not in result.values:
            raise CheckError(f"check {c.check_id}: the evidence script does not recompute {path}")
        found, value = paths.lookup(artifact, path)
        if not found:
            c.gap(path, "the claim is not reported (its recomputation is recorded)")
            continue
        claim = c.number(path, value)
        if claim is not None and _within(c, path, value, claim, result.values[path], tolerance):
            c.result.verified.add(path)


def _identity(artifact: Any, check: Mapping[str, Any], c: _Collector) -> None:
    kind = "product" if "product" in check else "sum"
    items: list[Exact] = []
    cited: list[str] = []
    for path in check[kind]:
        found, value = paths.lookup(artifact, path)
        if not found:
            c.gap(path)
            return
        number = c.number(path, value)
        if number is None:
            return
        items.append(number)
        cited.append(path)
    target, target_path = _operand(artifact, check["equals"], c, "equals")
    if target is None:
        return
    if target_path:
        cited.append(target_path)
    lhs = items[0]
    for item in items[1:]:
        lhs = mul(lhs, item) if kind == "product" else add([lhs, item])
    offset = _constant(check.get("offset", 0), c.check_id, "offset")
    if offset:
        lhs = add([lhs, exact_decimal(offset)])
    # The declared tolerance band around the target, as exact decimals: |lhs − target| ≤ tol.
    rel = _constant(check.get("rel_tolerance", 0), c.check_id, "rel_tolerance")
    absolute = _constant(check.get("abs_tolerance", 0), c.check_id, "abs_tolerance")
    target_value = Fraction(evaluate(target.expr), 10**target.exp)
    tolerance = rel * abs(target_value) + absolute
    low, high = exact_decimal(target_value - tolerance), exact_decimal(target_value + tolerance)
    joined = f" {'×' if kind == 'product' else '+'} ".join(check[kind])
    c.oblige(
        cited,
        f"{joined} = {float(target_value):g} within ±{float(tolerance):g}",
        ("and", [compare("<=", low, lhs), compare("<=", lhs, high)]),
    )


def _membership(artifact: Any, check: Mapping[str, Any], c: _Collector) -> None:
    allowed = check.get("values")
    if not isinstance(allowed, list) or not allowed:
        raise CheckError(f"check {c.check_id}: 'values' must be a non-empty list")
    if check.get("length"):
        found, value = paths.lookup(artifact, check["path"])
        if not found:
            c.gap(check["path"])
            return
        if not isinstance(value, list):
            c.result.violations.append(Violation(c.check_id, c.form, check["path"], "not a list"))
            return
        size = exact_decimal(len(value))
        options = [compare("==", size, exact_decimal(int(v))) for v in allowed]
        c.oblige([check["path"]], f"len = {len(value)} must be one of {allowed}", ("or", options))
        return
    found_items = _values(artifact, check["path"])
    if not found_items:
        c.gap(check["path"])
    for path, value in found_items:
        if all(isinstance(v, str) for v in allowed):
            if value not in allowed:
                c.result.violations.append(
                    Violation(c.check_id, c.form, path, f"{path}: {value!r} is not one of {allowed}")
                )
            continue
        number = c.number(path, value)
        if number is None:
            continue
        options = [compare("==", number, exact_decimal(_constant(v, c.check_id, "values"))) for v in allowed]
        c.oblige([path], f"{path} = {value!r} must be one of {allowed}", ("or", options))


def _aggregate(artifact: Any, check: Mapping[str, Any], c: _Collector) -> None:
    found = _values(artifact, check["path"])
    if not found:
        c.gap(check["path"])
        return
    op = check.get("op", "sum")
    numbers: list[Exact] = []
    for path, value in found:
        number = c.number(path, value)
        if number is None:
            return
        numbers.append(number)
    cited = [p for p, _ in found]
    if op in ("max", "min"):
        # max ≤ bound ⇔ every item ≤ bound; min ≥ bound ⇔ every item ≥ bound: one obligation per item.
        for (path, value), number in zip(found, numbers, strict=True):
            if op == "max" and check.get("max") is not None:
                bound = exact_decimal(_constant(check["max"], c.check_id, "max"))
                c.oblige(
                    [path],
                    f"max over {check['path']} ≤ {check['max']} ({path} = {value!r})",
                    compare("<=", number, bound),
                )
            if op == "min" and check.get("min") is not None:
                bound = exact_decimal(_constant(check["min"], c.check_id, "min"))
                c.oblige(
                    [path],
                    f"min over {check['path']} ≥ {check['min']} ({path} = {value!r})",
                    compare("<=", bound, number),
                )
        return
    if op == "count":
        total, count_scale = exact_decimal(len(numbers)), 1
    elif op in ("sum", "mean"):
        total, count_scale = add(numbers), (len(numbers) if op == "mean" else 1)
    else:
        raise CheckError(f"check {c.check_id}: unknown aggregate op {op!r}")

    # mean compared with b ⇔ sum compared with n·b: stays in integers.
    def scaled(raw: Any, name: str) -> Exact:
        return exact_decimal(_constant(raw, c.check_id, name) * count_scale)

    parts: list[Prop] = []
    words: list[str] = []
    if check.get("equals") is not None:
        tolerance = _constant(check.get("abs_tolerance", 0), c.check_id, "abs_tolerance") * count_scale
        target = _constant(check["equals"], c.check_id, "equals") * count_scale
        parts += [
            compare("<=", exact_decimal(target - tolerance), total),
            compare("<=", total, exact_decimal(target + tolerance)),
        ]
        words.append(f"= {check['equals']} ± {check.get('abs_tolerance', 0)}")
    if check.get("min") is not None:
        parts.append(compare("<=", scaled(check["min"], "min"), total))
        words.append(f"≥ {check['min']}")
    if check.get("max") is not None:
        parts.append(compare("<=", total, scaled(check["max"], "max")))
        words.append(f"≤ {check['max']}")
    c.oblige(cited, f"{op} over {check['path']} must be {' and '.join(words)}", ("and", parts))


def _replay(artifact: Any, check: Mapping[str, Any], c: _Collector) -> None:
    terms: list[Exact] = []
    cited: list[str] = []
    for term in check["terms"]:
        found = _values(artifact, term["path"])
        if not found:
            c.gap(term["path"])
            return
        coefficients = term.get("coefficients")
        if coefficients is None:
            coefficients = [term.get("coefficient", 1)] * len(found)
        if len(coefficients) != len(found):
            c.result.violations.append(
                Violation(
                    c.check_id,
                    c.form,
                    term["path"],
                    f"{term['path']}: {len(found)} items reported, "
                    f"the constraint is stated over {len(coefficients)}",
                )
            )
            return
        for (path, value), coefficient in zip(found, coefficients, strict=True):
            number = c.number(path, value)
            if number is None:
                return
            terms.append(mul(exact_decimal(_constant(coefficient, c.check_id, "coefficient")), number))
            cited.append(path)
    rhs, rhs_path = _operand(artifact, check["rhs"], c, "rhs")
    if rhs is None:
        return
    if rhs_path:
        cited.append(rhs_path)
    op = check.get("op", "<=")
    total = add(terms)
    if op == "<=":
        prop = compare("<=", total, rhs)
    elif op == ">=":
        prop = compare("<=", rhs, total)
    elif op == "==":
        prop = compare("==", total, rhs)
    else:
        raise CheckError(f"check {c.check_id}: replay op must be <=, >= or ==, got {op!r}")
    c.oblige(cited, check.get("statement") or f"Σ terms {op} rhs", prop)


_FORMS: dict[str, Any] = {
    "recompute": _recompute,
    "range": _range,
    "ordering": _ordering,
    "identity": _identity,
    "membership": _membership,
    "aggregate": _aggregate,
    "replay": _replay,
}


def validate_checks(checks: Sequence[Mapping[str, Any]]) -> None:
    """Raise :class:`CheckError` for a declaration the gate cannot run."""
    seen: set[str] = set()
    required = {
        "range": ("path",),
        "ordering": ("lesser", "greater"),
        "identity": ("equals",),
        "membership": ("path", "values"),
        "aggregate": ("path",),
        "replay": ("terms", "rhs"),
        "recompute": ("claims",),
    }
    for check in checks:
        check_id = check.get("id")
        if not isinstance(check_id, str) or not check_id.isidentifier() or check_id in seen:
            raise CheckError(f"check ids must be unique identifiers, got {check_id!r}")
        seen.add(check_id)
        form = check.get("form")
        if form not in _FORMS:
            raise CheckError(f"check {check_id}: unknown form {form!r}; one of {', '.join(FORMS)}")
        for name in required[form]:
            if name not in check:
                raise CheckError(f"check {check_id}: form {form} needs {name!r}")
        if form == "identity" and ("product" in check) == ("sum" in check):
            raise CheckError(f"check {check_id}: identity needs exactly one of 'product' and 'sum'")
        if form == "recompute" and (
            not isinstance(check["claims"], dict)
            or not all(isinstance(t, dict) for t in check["claims"].values())
            or not isinstance(check.get("required", []), list)
        ):
            raise CheckError(
                f"check {check_id}: recompute needs 'claims' as path → tolerance object "
                "and 'required' as a list of paths"
            )


def run_gate(checks: Sequence[Mapping[str, Any]], artifact: Any, root: Path | None = None) -> GateResult:
    """Run every check on ``artifact``; ``root`` (the task folder) is needed by ``recompute``."""
    validate_checks(checks)
    result = GateResult()
    for check in checks:
        collector = _Collector(check, result)
        if check["form"] == "recompute":
            _recompute(artifact, check, collector, root)
        else:
            _FORMS[check["form"]](artifact, check, collector)
    if not result.obligations and not result.violations:
        result.warnings.append(
            "empty artifact: no checked field is reported, so nothing could be verified (not a hard failure)"
        )
    elif result.gaps:
        result.warnings.append(f"{len(result.gaps)} check(s) lack evidence: reported as gaps, not satisfied")
    return result
