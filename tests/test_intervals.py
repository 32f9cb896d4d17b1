"""Confidence intervals and paired tests of :mod:`benchmark.reporting.intervals`."""

from __future__ import annotations

import pytest

from benchmark.reporting.intervals import (
    instance_rate_interval,
    mcnemar_exact,
    paired_difference,
    wilson,
)


def test_wilson_matches_the_textbook_value() -> None:
    low, high = wilson(8, 10)  # type: ignore[misc]
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0) is None
    assert wilson(0, 20)[0] == 0.0  # type: ignore[index]


def test_one_sample_per_instance_uses_wilson_several_use_a_cluster_bootstrap() -> None:
    single = instance_rate_interval([(1, 1)] * 30 + [(1, 0)] * 10)
    assert single is not None and single.method == "wilson"
    clustered = instance_rate_interval([(5, 5)] * 30 + [(5, 0)] * 10)
    assert clustered is not None and clustered.method.startswith("cluster bootstrap")
    assert clustered.low < 0.75 < clustered.high
    # clustering: 5 correlated samples per instance are not 5x the information
    assert clustered.high - clustered.low > 0.8 * (single.high - single.low)
    assert instance_rate_interval([(5, 3)]) is None


def test_bootstrap_is_deterministic() -> None:
    counts = [(3, i % 4) for i in range(50)]
    assert instance_rate_interval(counts) == instance_rate_interval(counts)


def test_mcnemar_exact() -> None:
    assert mcnemar_exact(0, 10) == pytest.approx(2 / 1024)
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 0) == 1.0


def test_paired_difference_of_equal_runs_is_zero_with_p_one() -> None:
    pairs = [(1.0, 1.0)] * 20 + [(0.0, 0.0)] * 5
    result = paired_difference(pairs, binary=True)
    assert result is not None
    assert (result.difference, result.low, result.high, result.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_paired_difference_detects_a_drop() -> None:
    pairs = [(1.0, 0.0)] * 15 + [(1.0, 1.0)] * 60 + [(0.0, 0.0)] * 25
    result = paired_difference(pairs, binary=True)
    assert result is not None
    assert result.difference == pytest.approx(-0.15)
    assert result.low < -0.15 < result.high < 0
    assert result.p_value < 0.001 and result.test == "exact McNemar"
    graded = paired_difference([(0.8, 0.2)] * 10 + [(0.5, 0.5)] * 10, binary=False)
    assert graded is not None and graded.p_value < 0.01 and graded.test.startswith("paired sign-flip")
