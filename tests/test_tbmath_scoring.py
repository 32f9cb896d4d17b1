"""TB-MathModel's metric panel (paper §3.1–3.2, App. G) on hand-worked numbers, plus Hypothesis
properties of the formulas. Every expected value below is worked out from the paper's formulas in
the comment beside it, never taken from the code under test."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmark.suites.tbmath import pass_rule
from benchmark.suites.tbmath.scoring import (
    Domain,
    Metric,
    Reference,
    band,
    metric_reward,
    multi_bo,
    multi_reference_o_eval,
    o_eval,
    panel_raw,
    robust_bo_eval,
)
from benchmark.verdict import DatasetError


def _m(direction: str, anchor: float = 10.0, **kw: object) -> Metric:
    return Metric(path="x", anchor=anchor, direction=direction, **kw)  # type: ignore[arg-type]


def test_one_sided_directions_reward_meeting_or_beating_the_anchor() -> None:
    # band = max(1e-6, 0.12·10) = 1.2
    assert metric_reward(_m("higher_is_better"), True, 12.0).reward == 1.0
    assert metric_reward(_m("higher_is_better"), True, 10.0).reward == 1.0
    assert metric_reward(_m("higher_is_better"), True, 8.8).reward == pytest.approx(1 / (1 + 1.2 / 1.2))
    assert metric_reward(_m("lower_is_better"), True, 3.0).reward == 1.0
    assert metric_reward(_m("lower_is_better"), True, 12.4).reward == pytest.approx(1 / (1 + 2.4 / 1.2))


def test_target_value_is_two_sided_and_exact_value_is_all_or_nothing() -> None:
    assert metric_reward(_m("target_value"), True, 11.2).reward == pytest.approx(0.5)
    assert metric_reward(_m("target_value"), True, 8.8).reward == pytest.approx(0.5)
    assert metric_reward(_m("exact_value", 1.0), True, 1.0).reward == 1.0
    assert metric_reward(_m("exact_value", 1.0), True, 0.0).reward == 0.0


def test_a_degenerate_band_is_widened_to_five_percent() -> None:
    # rel_scale 0.01 gives a 1% band (< 2%): widened to 5% of |O| = 5.0
    metric = _m("target_value", 100.0, rel_scale=0.01)
    assert band(metric, 100.0) == (pytest.approx(5.0), True)
    score = metric_reward(metric, True, 105.0)
    assert score.reward == pytest.approx(0.5)
    assert "widened" in score.reason
    assert band(_m("target_value", 100.0, rel_scale=0.02), 100.0) == (pytest.approx(2.0), False)


def test_out_of_domain_missing_and_non_numeric_values_score_zero_with_a_reason() -> None:
    metric = _m("target_value", 0.3, domain=Domain(-1.0, 1.0, name="correlation"))
    out = metric_reward(metric, True, 1.4)
    assert out.reward == 0.0 and "out of domain" in out.reason
    assert metric_reward(metric, False, None).reason.startswith("missing")
    assert metric_reward(metric, True, "0.3").reward == 0.0
    assert metric_reward(metric, True, True).reward == 0.0


def test_the_panel_is_a_weighted_mean_over_included_metrics_renormalised_on_a_subset() -> None:
    metrics = [
        Metric("a", 10.0, "higher_is_better", weight=3.0),
        Metric("b", 10.0, "target_value", weight=1.0),
        Metric("c", 10.0, "target_value", weight=0.0),
        Metric("d", 10.0, "target_value", excluded="non_comparable_unit"),
    ]
    artifact = {"a": 11.0, "b": 11.2, "c": 0.0, "d": -5.0}
    # (3·1 + 1·0.5) / 4 = 0.875; c and d never count
    assert panel_raw(artifact, metrics).raw == pytest.approx(0.875)
    assert panel_raw(artifact, metrics, subset=["b"]).raw == pytest.approx(0.5)
    assert panel_raw(artifact, metrics, subset=["c"]).raw is None


def test_o_eval_is_clamped_ratio_to_the_oracle() -> None:
    assert o_eval(0.5, 1.0) == 0.5
    assert o_eval(0.9, 0.8) == 1.0
    with pytest.raises(ValueError):
        o_eval(0.5, 0.0)


def test_multi_reference_o_eval_hand_worked() -> None:
    metrics = [Metric("p", 10.0, "target_value"), Metric("q", 1.0, "exact_value")]
    refs = [
        Reference("A", {"p": 10.0, "q": 1.0}),
        Reference("B", {"q": 0.0}),  # reports only q: a single-field check
        Reference("C", {}, exclusion_reason="figure_only"),
    ]
    artifact = {"p": 11.2, "q": 1.0}
    result = multi_reference_o_eval(artifact, metrics, refs)
    # A: (0.5 + 1)/2 = 0.75; B: q = 1 vs 0 → 0; C carried with its reason. Mean over {A, B} = 0.375
    assert result.per_reference == {"A": pytest.approx(0.75), "B": 0.0, "C": None}
    assert result.score == pytest.approx(0.375)
    assert result.excluded == {"C": "figure_only"}
    with pytest.raises(ValueError, match="exclusion_reason"):
        multi_reference_o_eval(artifact, metrics, [Reference("D", {})])


def test_an_empty_panel_falls_back_to_the_single_anchor() -> None:
    metrics = [Metric("p", 10.0, "target_value")]
    result = multi_reference_o_eval({"p": 8.8}, metrics, [Reference("A", {}, exclusion_reason="prose_only")])
    assert result.fallback and result.score == pytest.approx(0.5)


def test_robust_bo_eval_hand_worked() -> None:
    assert robust_bo_eval(0.8, 0.4, 1.0) == pytest.approx((0.8 - 0.4) / 0.6)
    assert robust_bo_eval(0.0, 0.6, 1.0) == -1.0  # (0 − 0.6)/0.4 = −1.5 clipped
    assert robust_bo_eval(0.99, 0.95, 1.0) == pytest.approx(0.04)  # gap 0.05 < 0.10: raw gain
    assert robust_bo_eval(0.5, 0.95, 1.0) == pytest.approx(-0.10)  # raw gain clipped to ±0.10
    assert robust_bo_eval(0.5, 0.875, 1.0) == -1.0  # gap 0.125: (0.5 − 0.875)/0.125 = −3, clipped
    assert robust_bo_eval(None, 0.2, 1.0) == -1.0


def test_multi_bo_hand_worked() -> None:
    assert multi_bo(0.6, 0.5) == pytest.approx(1.2)  # 1 + 0.1/0.5
    assert multi_bo(0.0, 0.5) == pytest.approx(0.0)  # 1 + clip(−1)
    assert multi_bo(1.0, 0.95) == pytest.approx(1.05)  # headroom 0.05: 1 + clip(0.05, ±0.1)
    assert multi_bo(0.5, 0.95) == pytest.approx(0.9)
    assert multi_bo(None, 0.3) == -1.0


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
directions = st.sampled_from(["higher_is_better", "lower_is_better", "target_value", "exact_value"])


@given(finite, directions, st.floats(min_value=0, max_value=1), st.floats(min_value=1e-9, max_value=10))
def test_the_anchor_itself_scores_exactly_one(
    anchor: float, direction: str, rel: float, absolute: float
) -> None:
    metric = Metric("x", anchor, direction, rel_scale=rel, abs_scale=absolute)
    assert metric_reward(metric, True, anchor).reward == 1.0


@given(finite, finite, st.floats(min_value=0, max_value=1))
def test_meeting_or_beating_the_anchor_never_scores_below_one(
    anchor: float, value: float, rel: float
) -> None:
    higher = Metric("x", anchor, "higher_is_better", rel_scale=rel)
    lower = Metric("x", anchor, "lower_is_better", rel_scale=rel)
    if value >= anchor:
        assert metric_reward(higher, True, value).reward == 1.0
    if value <= anchor:
        assert metric_reward(lower, True, value).reward == 1.0


@given(finite, finite, finite, directions)
def test_rewards_lie_in_the_unit_interval_and_fall_with_distance(
    anchor: float, near: float, far: float, direction: str
) -> None:
    metric = Metric("x", anchor, direction)
    r_near = metric_reward(metric, True, near).reward
    r_far = metric_reward(metric, True, far).reward
    assert 0.0 <= r_near <= 1.0 and 0.0 <= r_far <= 1.0
    if direction == "target_value" and abs(near - anchor) <= abs(far - anchor):
        assert r_near >= r_far


@given(
    st.floats(min_value=0, max_value=1),
    st.floats(min_value=0, max_value=1),
    st.floats(min_value=0, max_value=1),
)
def test_bo_metrics_are_bounded_and_monotone(raw: float, baseline: float, other: float) -> None:
    value = robust_bo_eval(raw, baseline, 1.0)
    assert -1.0 <= value <= 1.0
    assert robust_bo_eval(max(raw, other), baseline, 1.0) >= robust_bo_eval(min(raw, other), baseline, 1.0)
    m = multi_bo(raw, baseline)
    assert 0.0 <= m <= 2.0 and not math.isnan(m)
    assert multi_bo(max(raw, other), baseline) >= multi_bo(min(raw, other), baseline)


@given(st.dictionaries(st.sampled_from(["a", "b", "c"]), finite, min_size=1))
def test_every_reference_scores_exactly_one_against_itself(values: dict[str, float]) -> None:
    kinds = ["higher_is_better", "target_value", "exact_value"]
    metrics = [Metric(k, 1.0, d) for k, d in zip("abc", kinds, strict=True)]
    reference = Reference("R", values)
    result = multi_reference_o_eval(values, metrics, [reference])
    assert result.score == 1.0


def test_credit_past_the_anchor_needs_a_verified_value() -> None:
    metric = _m("lower_is_better", anchor=100.0, rel_scale=0.05)  # band 5
    assert metric_reward(metric, True, 90.0).reward == 1.0  # the paper's one-sided rule
    # unverified: 10 past the anchor is distance-scored, 1 / (1 + 10 / 5) = 1/3
    assert metric_reward(metric, True, 90.0, one_sided=False).reward == pytest.approx(1 / 3)
    assert metric_reward(metric, True, 100.0, one_sided=False).reward == 1.0
    assert panel_raw({"x": 90.0}, [metric], verified={"x"}).raw == 1.0
    assert panel_raw({"x": 90.0}, [metric], verified=set()).raw == pytest.approx(1 / 3)


def test_a_pass_rule_holds_by_kind_and_names_what_fails() -> None:
    cost = _m("lower_is_better", anchor=100.0)
    rule = pass_rule.parse(
        {
            "kind": "mixed",
            "conditions": [
                {"path": "x", "optimum": "min", "rel_tolerance": 0.01},  # x ≤ 101, recomputed
                {"path": "r0", "truth": 3.2, "abs_tolerance": 0.16, "basis": "5% of R0"},
            ],
        },
        [cost],
        "score_config.json: pass_rule",
    )
    assert rule.failures({"x": 100.9, "r0": 3.05}, {"x"}) == []
    assert rule.failures({"x": 99.0, "r0": 3.2}, {"x"}) == []  # better than the optimum, verified
    (unverified,) = rule.failures({"x": 99.0, "r0": 3.2}, set())
    assert "not recomputed" in unverified
    (above,) = rule.failures({"x": 101.5, "r0": 3.2}, {"x"})
    assert "above the certified minimum 100" in above
    (off,) = rule.failures({"x": 100.0, "r0": 3.4}, {"x"})
    assert "off the generating truth 3.2" in off


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"kind": "vibes", "conditions": []}, "pass_rule.kind"),
        ({"kind": "decision", "conditions": []}, "pass_rule.conditions"),
        ({"kind": "decision", "conditions": [{"path": "y", "optimum": "min"}]}, "conditions[0].path"),
        ({"kind": "estimation", "conditions": [{"path": "x", "truth": 1}]}, "conditions[0].basis"),
        ({"kind": "estimation", "conditions": [{"path": "x", "truth": "one", "basis": "b"}]}, "truth"),
    ],
)
def test_a_malformed_pass_rule_names_its_field(raw: dict, field: str) -> None:
    with pytest.raises(DatasetError, match=re.escape(field)):
        pass_rule.parse(raw, [_m("lower_is_better", anchor=1.0)], "score_config.json: pass_rule")
