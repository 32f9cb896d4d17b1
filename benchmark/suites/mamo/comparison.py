"""Mamo's answer comparison (paper Sec. 4.1.2 and App. E), with the A = 0 case defined.

With ``n`` the number of decimals written in the answer string (0 for an integer), a returned
number Â matches the answer A when

* ``|Â − A| / |A| ≤ 1e-4`` (the relative branch, App. E's inequality (1)), or
* ``|Â − A| < min(10^−n, 10^−2)`` (the absolute branch, inequality (2), with ξ = 1).

A = 0: the relative branch is undefined, so only the absolute branch applies: Â must lie strictly
within ``min(10^−n, 10^−2)`` of zero. The original script (App. P) divides by 1e4 instead, which
lets any |Â| < 1 pass for a zero answer; we do not copy that.

Both inequalities are decided exactly, on the rational values of the returned float and of the
answer string: in float subtraction a difference a hair below the band (|Â − A| = 0.01 − 6.4e-196
for A = "0.01", Â = 6.4e-196) rounds onto the band and flips the verdict.

A non-finite Â (NaN, ±inf) never matches. The decimals of an answer in exponent notation count the
places of the number it denotes (``"1.5e-3"`` is 0.0015: four decimals; ``"2e3"``: none).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction

RELATIVE_TOLERANCE = 1e-4
_RELATIVE_EXACT = Fraction(1, 10**4)
#: The absolute branch never allows more than 10^-2, however few decimals the answer has.
ABSOLUTE_TOLERANCE_CAP = 1e-2
_CAP_EXACT = Fraction(1, 100)

_NUMBER = re.compile(
    r"^[+-]?(?:(?P<int>\d+)(?:\.(?P<frac>\d*))?|\.(?P<frac_only>\d+))(?:[eE](?P<exp>[+-]?\d+))?$"
)


class AnswerFormatError(ValueError):
    """The answer string is not a plain decimal number."""


def answer_decimals(answer: str) -> int:
    """The number of decimal places written in ``answer`` (``"12.50"`` → 2, ``"7"`` → 0)."""
    match = _NUMBER.match(answer.strip())
    if match is None:
        raise AnswerFormatError(f"answer {answer!r} is not a decimal number")
    fraction = match.group("frac") or match.group("frac_only") or ""
    exponent = int(match.group("exp") or 0)
    return max(0, len(fraction) - exponent)


def absolute_tolerance(answer: str) -> float:
    """``min(10^-n, 10^-2)`` for the answer string's ``n`` decimals."""
    return min(10.0 ** -answer_decimals(answer), ABSOLUTE_TOLERANCE_CAP)


def answers_match(returned: float, answer: str) -> bool:
    """True when ``returned`` counts as the answer ``answer`` under the rule above."""
    if not math.isfinite(returned):
        return False
    decimals = answer_decimals(answer)
    expected = Fraction(Decimal(answer.strip()))
    difference = abs(Fraction(returned) - expected)
    if expected != 0 and difference <= _RELATIVE_EXACT * abs(expected):
        return True
    return difference < min(Fraction(1, 10**decimals), _CAP_EXACT)
