"""Metric formulas (DESIGN §4): pass@k, Valid Code Rate, mean ± std over runs.

Pure functions over counts, so they can be property-tested on their own.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Unbiased pass@k of one instance with ``c`` correct out of ``n`` samples:
    1 − C(n−c, k)/C(n, k), computed as 1 − ∏_{i=n−c+1}^{n} (1 − k/i) to stay stable for large n.
    Undefined (``None``, not 1.0) when n < k."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if n < k:
        return None
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def mean_pass_at_k(counts: Iterable[tuple[int, int]], k: int) -> float | None:
    """pass@k averaged over instances given (n, c) per instance; undefined if any instance has
    fewer than k samples (averaging only the defined ones would bias the result upward)."""
    values = [pass_at_k(n, c, k) for n, c in counts]
    if not values or any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None) / len(values)


def k_values(max_samples: int) -> tuple[int, ...]:
    """The k reported for a run whose instances have ``max_samples`` samples each."""
    standard = {1, 2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100}
    return tuple(sorted(k for k in standard | {max_samples} if 1 <= k <= max_samples))


def rate(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def mean_std(values: Sequence[float]) -> tuple[float, float] | None:
    """Mean and sample standard deviation (n − 1) over runs; std 0 for a single run."""
    if not values:
        return None
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values) if len(values) > 1 else 0.0
