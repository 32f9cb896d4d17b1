"""Property tests of the pass@k estimator and the per-run spreads (DESIGN §4)."""

from __future__ import annotations

import itertools
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmark.metrics import k_values, mean_pass_at_k, mean_std, pass_at_k


@st.composite
def n_c(draw: st.DrawFn, max_n: int = 60) -> tuple[int, int]:
    n = draw(st.integers(1, max_n))
    return n, draw(st.integers(0, n))


@given(n_c())
def test_pass_at_1_is_the_share_correct(nc: tuple[int, int]) -> None:
    n, c = nc
    assert pass_at_k(n, c, 1) == pytest.approx(c / n)


@given(n_c(), st.integers(1, 60))
def test_matches_the_binomial_formula(nc: tuple[int, int], k: int) -> None:
    n, c = nc
    value = pass_at_k(n, c, k)
    if n < k:
        assert value is None
    else:
        assert value == pytest.approx(1 - comb(n - c, k) / comb(n, k), abs=1e-12)


@given(n_c())
def test_monotone_in_k(nc: tuple[int, int]) -> None:
    n, c = nc
    values = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    assert all(a is not None and b is not None and a <= b + 1e-12 for a, b in itertools.pairwise(values))


@given(n_c(), st.integers(1, 60))
def test_one_when_fewer_failures_than_k(nc: tuple[int, int], k: int) -> None:
    n, c = nc
    if n >= k and n - c < k:
        assert pass_at_k(n, c, k) == 1.0


@given(st.integers(1, 30), st.integers(1, 30))
def test_undefined_not_one_when_too_few_samples(n: int, extra: int) -> None:
    assert pass_at_k(n, n, n + extra) is None


def test_stable_for_large_n() -> None:
    value = pass_at_k(2000, 3, 1000)
    assert value is not None and 0.0 < value <= 1.0
    assert value == pytest.approx(1 - comb(1997, 1000) / comb(2000, 1000))


def test_zero_correct_is_zero() -> None:
    assert pass_at_k(5, 0, 4) == 0.0


def test_mean_is_undefined_if_any_instance_lacks_samples() -> None:
    assert mean_pass_at_k([(5, 1), (3, 3)], 4) is None
    assert mean_pass_at_k([(5, 1), (5, 0)], 1) == pytest.approx(0.1)


def test_invalid_arguments_are_rejected() -> None:
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 0)


def test_k_values_and_spread() -> None:
    assert k_values(1) == (1,)
    assert k_values(5) == (1, 2, 4, 5)
    assert k_values(3) == (1, 2, 3)
    assert mean_std([0.5]) == (0.5, 0.0)
    mean, std = mean_std([0.4, 0.6])  # type: ignore[misc]
    assert mean == pytest.approx(0.5) and std == pytest.approx(0.1414213562)
