"""Mamo's comparison rule (paper App. E) at its boundaries: decimals, sign, zero, and which branch
(relative or absolute) decides. Expected outcomes come from the paper's inequalities, computed here
with exact rational arithmetic, never from the code under test."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from benchmark.suites.mamo.comparison import (
    AnswerFormatError,
    absolute_tolerance,
    answer_decimals,
    answers_match,
)


def _answer(value: Fraction, decimals: int) -> str:
    return f"{Decimal(value.numerator) / Decimal(value.denominator):.{decimals}f}"


def _paper_rule(returned: float, answer: str) -> bool:
    """App. E with exact arithmetic; A = 0 keeps only the absolute branch."""
    exact_answer, exact_returned = Fraction(Decimal(answer)), Fraction(returned)
    decimals = len(answer.split(".")[1]) if "." in answer else 0
    tolerance = min(Fraction(1, 10**decimals), Fraction(1, 100))
    difference = abs(exact_returned - exact_answer)
    relative = exact_answer != 0 and difference / abs(exact_answer) <= Fraction(1, 10**4)
    return relative or difference < tolerance


answers = st.builds(
    _answer,
    st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=10**4),
    st.integers(min_value=0, max_value=6),
)


@pytest.mark.parametrize(
    ("answer", "decimals"),
    [
        ("7", 0),
        ("-7", 0),
        ("12.50", 2),
        ("0.001", 3),
        ("3.", 0),
        (".25", 2),
        ("1.5e-3", 4),
        ("2e3", 0),
        ("1.25E+1", 1),
    ],
)
def test_decimals_are_counted_as_written(answer: str, decimals: int) -> None:
    assert answer_decimals(answer) == decimals


@pytest.mark.parametrize("answer", ["", "abc", "1,5", "1.2.3", "nan", "inf"])
def test_non_numeric_answers_are_rejected(answer: str) -> None:
    with pytest.raises(AnswerFormatError):
        answer_decimals(answer)


@given(answers)
def test_the_answer_itself_always_matches(answer: str) -> None:
    assert answers_match(float(answer), answer)


@given(answers, st.floats(min_value=-1e7, max_value=1e7, allow_nan=False))
@example("0", 0.5)  # the original script's quirk would accept this
@example("0.00", 0.00999)
@example("0.00", 0.01)
@example("100", 100.0099)
@example("100", 100.01)
@example("10000.0", 10001.0)  # relative branch, exactly at 1e-4: accepted (≤)
@example("10000.0", 10001.001)
@example("0.01", 6.4e-196)  # 0.01 - 6.4e-196 rounds to 0.01 in floats: must still be inside the band
def test_agrees_with_the_paper_rule_everywhere(answer: str, returned: float) -> None:
    assert answers_match(returned, answer) == _paper_rule(returned, answer)


@given(answers, st.floats(min_value=0.0, max_value=0.98))
def test_inside_the_absolute_band_always_matches(answer: str, fraction_of_band: float) -> None:
    band = min(10.0 ** -answer_decimals(answer), 1e-2)
    assert answers_match(float(answer) + fraction_of_band * band, answer)
    assert answers_match(float(answer) - fraction_of_band * band, answer)


@given(answers, st.floats(min_value=1.02, max_value=1e3))
def test_outside_both_branches_never_matches(answer: str, factor: float) -> None:
    expected = float(answer)
    beyond = factor * max(min(10.0 ** -answer_decimals(answer), 1e-2), 1e-4 * abs(expected))
    assert not answers_match(expected + beyond, answer)
    assert not answers_match(expected - beyond, answer)


@given(answers)
def test_the_wrong_sign_fails_unless_within_the_absolute_band(answer: str) -> None:
    expected = float(answer)
    assume(abs(expected) >= absolute_tolerance(answer))
    assert not answers_match(-expected, answer)


@given(st.integers(min_value=0, max_value=6), st.floats(min_value=0.0, max_value=1.0))
def test_zero_answer_uses_only_the_absolute_band(decimals: int, returned: float) -> None:
    answer = "0" if decimals == 0 else "0." + "0" * decimals
    band = min(10.0**-decimals, 1e-2)
    assert answers_match(returned, answer) == (returned < band)
    assert answers_match(-returned, answer) == (returned < band)


@given(st.integers(min_value=3, max_value=6))
def test_more_decimals_tighten_the_absolute_branch_below_the_cap(decimals: int) -> None:
    answer = "0." + "0" * (decimals - 1) + "1"  # a small answer: the relative branch cannot help
    assert absolute_tolerance(answer) == pytest.approx(10.0**-decimals)
    assert not answers_match(float(answer) + 1.5 * 10.0**-decimals, answer)
    assert absolute_tolerance("0.5") == absolute_tolerance("0.50") == 1e-2


@pytest.mark.parametrize("returned", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_numbers_never_match(returned: float) -> None:
    assert not answers_match(returned, "0")
    assert not answers_match(returned, "1e308")
