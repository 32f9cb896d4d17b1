"""The metric panel of TB-MathModel (paper §3.1–3.2, App. G; DESIGN §4), as pure functions.

Per metric (a JSON path into the artifact, an anchor value O, a direction, a weight), the reward
of a reported value ``a`` uses the release's distance form ``1 / (1 + |a − O| / band)`` with
``band = max(abs_scale, rel_scale·|O|)``, made direction-aware:

* ``higher_is_better`` / ``lower_is_better`` are *one-sided*: meeting or beating O scores 1.0,
  so improving on the paper is never punished; only the shortfall is distance-scored. Where a
  task recomputes its claims from the decisions (``evidence.py``), only a *verified* value earns
  credit past O: an unverified one beyond O is distance-scored like a ``target_value``.
* ``target_value`` scores the distance on both sides; ``exact_value`` is 1 within ``abs_scale``
  of O and 0 otherwise.
* A band narrower than 2% of |O| cannot discriminate and is widened to 5% of |O| (§3.1 (i)).
* A value outside the metric's declared domain (a correlation outside [-1, 1], a negative count)
  scores 0 with the reason recorded; a missing or non-numeric value scores 0 as well.

Metrics excluded by configuration (weight 0, a non-comparable unit, a surplus list item) are
recorded with their reason and never enter a panel, for every model and the oracle alike.
A panel's raw score R is the weighted mean of the rewards of its included metrics, restricted to
a subset S with the weights renormalised over S. Task-level scores (O-Eval, multi-reference
O-Eval, Robust BO-Eval, Multi-BO) are built from panel raws below.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmark.suites.tbmath import paths

DIRECTIONS: tuple[str, ...] = ("higher_is_better", "lower_is_better", "target_value", "exact_value")
DEFAULT_REL_SCALE = 0.12
DEFAULT_ABS_SCALE = 1e-6
DEGENERATE_BAND = 0.02
WIDENED_BAND = 0.05
BO_GAP_FLOOR = 0.10

#: Named domains a metric may declare: (low, high, low is open).
NAMED_DOMAINS: dict[str, tuple[float, float, bool]] = {
    "probability": (0.0, 1.0, False),
    "unit_interval": (0.0, 1.0, False),
    "correlation": (-1.0, 1.0, False),
    "percentage": (0.0, 100.0, False),
    "nonnegative": (0.0, math.inf, False),
    "positive": (0.0, math.inf, True),
}


@dataclass(frozen=True)
class Domain:
    """Closed interval [low, high] (open at ``low`` when ``low_open``)."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    name: str = ""

    def contains(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        return above and value <= self.high

    def describe(self) -> str:
        left = "(" if self.low_open else "["
        return f"{self.name or 'domain'} {left}{self.low:g}, {self.high:g}]"


@dataclass(frozen=True)
class Metric:
    path: str
    anchor: float
    direction: str
    weight: float = 1.0
    rel_scale: float = DEFAULT_REL_SCALE
    abs_scale: float = DEFAULT_ABS_SCALE
    domain: Domain | None = None
    excluded: str | None = None  # configuration-only exclusion, with its reason

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"{self.path}: unknown direction {self.direction!r}; one of {DIRECTIONS}")
        if not math.isfinite(self.anchor):
            raise ValueError(f"{self.path}: the anchor must be a finite number, got {self.anchor!r}")
        if self.weight < 0 or self.rel_scale < 0 or self.abs_scale <= 0:
            raise ValueError(f"{self.path}: weight and rel_scale must be ≥ 0 and abs_scale > 0")

    @property
    def included(self) -> bool:
        return self.excluded is None and self.weight > 0


def band(metric: Metric, anchor: float) -> tuple[float, bool]:
    """(band width, whether it was widened by the degenerate-band rule) around ``anchor``."""
    magnitude = abs(anchor)
    width = max(metric.abs_scale, metric.rel_scale * magnitude)
    if magnitude > 0 and width < DEGENERATE_BAND * magnitude:
        return WIDENED_BAND * magnitude, True
    return width, False


def as_number(value: Any) -> float | None:
    """A finite JSON number as float; booleans, strings and non-finite values are not numbers."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class MetricScore:
    path: str
    reward: float
    value: Any
    anchor: float
    reason: str = ""  # why the reward is 0 (missing, non-numeric, out of domain), or band widening

    def as_record(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "reward": self.reward,
            "value": self.value,
            "anchor": self.anchor,
            "reason": self.reason,
        }


def metric_reward(
    metric: Metric, found: bool, value: Any, anchor: float | None = None, one_sided: bool = True
) -> MetricScore:
    """The reward of one reported value against ``anchor`` (the metric's own anchor by default);
    ``one_sided=False`` withholds the credit past the anchor (an unverified claim)."""
    target = metric.anchor if anchor is None else anchor
    if not found:
        return MetricScore(metric.path, 0.0, None, target, "missing: the artifact has no value at this path")
    number = as_number(value)
    if number is None:
        return MetricScore(metric.path, 0.0, value, target, f"non-numeric value {value!r}")
    if metric.domain is not None and not metric.domain.contains(number):
        return MetricScore(
            metric.path,
            0.0,
            number,
            target,
            f"out of domain: {number:g} outside {metric.domain.describe()}",
        )
    width, widened = band(metric, target)
    note = f"band widened to {WIDENED_BAND:.0%} of |O|" if widened else ""
    if metric.direction == "exact_value":
        reward = 1.0 if abs(number - target) <= metric.abs_scale else 0.0
        return MetricScore(metric.path, reward, number, target, "")
    beyond = (metric.direction == "higher_is_better" and number >= target) or (
        metric.direction == "lower_is_better" and number <= target
    )
    if beyond and (one_sided or number == target):
        return MetricScore(metric.path, 1.0, number, target, note)
    if beyond:
        note = "past the anchor but not recomputed from the decisions: distance-scored"
    reward = 1.0 / (1.0 + abs(number - target) / width)
    return MetricScore(metric.path, reward, number, target, note)


@dataclass(frozen=True)
class PanelScore:
    """R(m, S): the weighted mean reward over the included metrics in S (None when S is empty)."""

    raw: float | None
    metrics: tuple[MetricScore, ...]

    def as_record(self) -> dict[str, Any]:
        return {"raw": self.raw, "metrics": [m.as_record() for m in self.metrics]}


def panel_raw(
    artifact: Any,
    metrics: Sequence[Metric],
    anchors: Mapping[str, float] | None = None,
    subset: Iterable[str] | None = None,
    verified: Collection[str] | None = None,
) -> PanelScore:
    """Score ``artifact`` on the included metrics whose path is in ``subset`` (all when None),
    against ``anchors`` (path → value; the metrics' own anchors when None). With ``verified``
    (the paths the gate recomputed), a directional claim past its anchor earns full credit only
    when verified; None keeps the paper's one-sided rule for every metric."""
    wanted = None if subset is None else set(subset)
    scored: list[tuple[float, MetricScore]] = []
    for metric in metrics:
        if not metric.included or (wanted is not None and metric.path not in wanted):
            continue
        anchor = metric.anchor if anchors is None else anchors[metric.path]
        found, value = paths.lookup(artifact, metric.path)
        one_sided = verified is None or metric.path in verified
        scored.append((metric.weight, metric_reward(metric, found, value, anchor, one_sided)))
    total = sum(weight for weight, _ in scored)
    raw = sum(weight * score.reward for weight, score in scored) / total if total > 0 else None
    return PanelScore(raw, tuple(score for _, score in scored))


def clamp(value: float, low: float, high: float) -> float:
    return min(high, max(low, value))


def o_eval(raw: float, oracle_raw: float) -> float:
    """O-Eval = clamp(R / O, 0, 1)."""
    if not oracle_raw > 0:
        raise ValueError(f"the oracle's panel raw must be positive, got {oracle_raw!r}")
    return clamp(raw / oracle_raw, 0.0, 1.0)


@dataclass(frozen=True)
class Reference:
    """One reference solution (an O-award paper in the paper; here a reference script) and the
    values it reports for the scored fields. A reference that reports none of them is carried with
    a machine-readable ``exclusion_reason``, never silently dropped."""

    reference_id: str
    values: Mapping[str, float]
    exclusion_reason: str | None = None


@dataclass(frozen=True)
class PanelResult:
    """Multi-reference O-Eval of one artifact: the mean over references with S_p ≠ ∅ of R(m, S_p)."""

    score: float
    per_reference: dict[str, float | None]
    excluded: dict[str, str]
    fallback: bool  # True when no reference reports a scored field: the single anchor decides

    def as_record(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "per_reference": self.per_reference,
            "excluded": self.excluded,
            "fallback_to_anchor": self.fallback,
        }


def reference_fields(reference: Reference, metrics: Sequence[Metric]) -> list[str]:
    """S_p: the included metrics this reference reports a number for."""
    return [m.path for m in metrics if m.included and as_number(reference.values.get(m.path)) is not None]


def multi_reference_o_eval(
    artifact: Any,
    metrics: Sequence[Metric],
    references: Sequence[Reference],
    oracle_raw: float = 1.0,
    verified: Collection[str] | None = None,
) -> PanelResult:
    per_reference: dict[str, float | None] = {}
    excluded: dict[str, str] = {}
    scores: list[float] = []
    for reference in references:
        fields = reference_fields(reference, metrics)
        if not fields:
            if not reference.exclusion_reason:
                raise ValueError(
                    f"reference {reference.reference_id} reports no scored field and no exclusion_reason"
                )
            excluded[reference.reference_id] = reference.exclusion_reason
            per_reference[reference.reference_id] = None
            continue
        anchors = {path: float(reference.values[path]) for path in fields}
        result = panel_raw(artifact, metrics, anchors=anchors, subset=fields, verified=verified)
        assert result.raw is not None
        per_reference[reference.reference_id] = result.raw
        scores.append(result.raw)
    if not scores:
        single = panel_raw(artifact, metrics, verified=verified).raw
        return PanelResult(o_eval(single or 0.0, oracle_raw), per_reference, excluded, fallback=True)
    return PanelResult(clamp(sum(scores) / len(scores), 0.0, 1.0), per_reference, excluded, fallback=False)


def robust_bo_eval(raw: float | None, baseline_raw: float, oracle_raw: float) -> float:
    """clip((R − F)/(O − F), ±1) when O − F ≥ 0.10, else clip(R − F, ±0.10); −1 without an artifact."""
    if raw is None:
        return -1.0
    gap = oracle_raw - baseline_raw
    if gap >= BO_GAP_FLOOR:
        return clamp((raw - baseline_raw) / gap, -1.0, 1.0)
    return clamp(raw - baseline_raw, -BO_GAP_FLOOR, BO_GAP_FLOOR)


def multi_bo(task_score: float | None, baseline_score: float) -> float:
    """Multi-BO = 1 + clip((O_t − f_t)/(1 − f_t), −1, 1), with 1 + clip(O_t − f_t, ±0.10) when the
    headroom 1 − f_t is below 0.10; a missing artifact scores −1 (paper §3.2, taken literally)."""
    if task_score is None:
        return -1.0
    headroom = 1.0 - baseline_score
    if headroom < BO_GAP_FLOOR:
        return 1.0 + clamp(task_score - baseline_score, -BO_GAP_FLOOR, BO_GAP_FLOOR)
    return 1.0 + clamp((task_score - baseline_score) / headroom, -1.0, 1.0)


@dataclass
class TaskScores:
    """Everything a task's record carries about its panel."""

    o_eval: float
    multi_o_eval: float
    raw: float | None
    oracle_raw: float
    panel: PanelScore
    references: PanelResult
    excluded_metrics: dict[str, str] = field(default_factory=dict)
