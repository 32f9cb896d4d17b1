"""95% confidence intervals for the headline rates, and paired differences between two runs.

Instances, not samples, are the unit of replication: several samples of one instance are
correlated (the same problem is easy or hard for the model), so with more than one sample per
instance the interval is a bootstrap over instances (a cluster bootstrap) of the per-instance
rate; with exactly one sample per instance it is the Wilson score interval, which keeps its
coverage near 0 and 1 where the normal approximation does not. Every bootstrap draws from a
fixed seed, so the same records always give the same interval, byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
BOOTSTRAP_REPLICATES = 4000
SEED = 20240601


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of a binomial proportion; undefined without trials."""
    if n == 0:
        return None
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, round(centre - half, 12)), min(1.0, round(centre + half, 12))


def _bootstrap_means(values: Sequence[float]) -> np.ndarray:
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(SEED)
    draws = rng.integers(0, len(data), size=(BOOTSTRAP_REPLICATES, len(data)))
    means: np.ndarray = data[draws].mean(axis=1)
    return means


def bootstrap_mean(values: Sequence[float]) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of per-instance values (resampling instances)."""
    if not values:
        return None
    means = _bootstrap_means(values)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


@dataclass(frozen=True)
class RateInterval:
    low: float
    high: float
    method: str


def instance_rate_interval(per_instance: Sequence[tuple[int, int]]) -> RateInterval | None:
    """The 95% interval of a rate given (samples, successes) per instance: Wilson when every
    instance has one sample, otherwise a cluster bootstrap of the per-instance rates."""
    if not per_instance:
        return None
    if all(n == 1 for n, _ in per_instance):
        interval = wilson(sum(c for _, c in per_instance), len(per_instance))
        assert interval is not None
        return RateInterval(*interval, "wilson")
    if len(per_instance) < 2:
        return None  # one instance says nothing about the spread over instances
    interval = bootstrap_mean([c / n for n, c in per_instance])
    assert interval is not None
    return RateInterval(*interval, "cluster bootstrap over instances")


@dataclass(frozen=True)
class PairedDifference:
    """B − A over paired instances: the mean difference, its 95% interval (made by
    ``interval``) and a p-value."""

    instances: int
    mean_a: float
    mean_b: float
    difference: float
    low: float
    high: float
    p_value: float
    test: str
    interval: str = "paired bootstrap over instances"


#: The interval of a difference of paired pass/fail outcomes (see :func:`newcombe_paired`).
NEWCOMBE = "Newcombe hybrid score (paired, from Wilson intervals)"


def newcombe_paired(both: int, a_only: int, b_only: int, neither: int) -> tuple[float, float]:
    """95% interval of B − A for paired pass/fail outcomes (Newcombe 1998, method 10): each run's
    rate gets its Wilson interval and the two are combined with the correlation of the pairs. Unlike
    a bootstrap of the per-instance differences it keeps a width on a handful of instances (4 of 4
    flipped against B: [−100, −30.7] pp, where the bootstrap of 4 equal differences gives
    [−100, −100]); no discordant pair at all gives [0, 0]."""
    n = both + a_only + b_only + neither
    if a_only == b_only == 0:
        return 0.0, 0.0
    p_a, p_b = (both + a_only) / n, (both + b_only) / n
    low_a, high_a = wilson(both + a_only, n) or (0.0, 1.0)
    low_b, high_b = wilson(both + b_only, n) or (0.0, 1.0)
    margins = (both + a_only) * (b_only + neither) * (both + b_only) * (a_only + neither)
    phi = (both * neither - a_only * b_only) / math.sqrt(margins) if margins else 0.0
    difference = p_b - p_a
    below = math.sqrt(
        max(0.0, (p_b - low_b) ** 2 - 2 * phi * (p_b - low_b) * (high_a - p_a) + (high_a - p_a) ** 2)
    )
    above = math.sqrt(
        max(0.0, (high_b - p_b) ** 2 - 2 * phi * (high_b - p_b) * (p_a - low_a) + (p_a - low_a) ** 2)
    )
    return max(-1.0, difference - below), min(1.0, difference + above)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar test: the discordant pairs are Binomial(a_only + b_only, 1/2)."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def _sign_flip_p(differences: np.ndarray) -> float:
    """Two-sided paired permutation test: flip the sign of each instance's difference at random."""
    observed = abs(differences.mean())
    if not differences.any():
        return 1.0
    rng = np.random.default_rng(SEED)
    signs = rng.choice((-1.0, 1.0), size=(BOOTSTRAP_REPLICATES, len(differences)))
    flipped = np.abs((signs * differences).mean(axis=1))
    return float((1 + np.sum(flipped >= observed - 1e-12)) / (1 + BOOTSTRAP_REPLICATES))


def paired_difference(pairs: Sequence[tuple[float, float]], binary: bool) -> PairedDifference | None:
    """Per-instance rates (a, b) of two runs on the same instances. When every rate is a single
    pass/fail (``binary``) the test is the exact McNemar test and the interval Newcombe's
    (:func:`newcombe_paired`; the exact test is the more cautious of the two, so on a few
    instances p may exceed 0.05 while the interval excludes 0); otherwise a paired bootstrap over instances
    and a sign-flip permutation test of the per-instance differences."""
    if not pairs:
        return None
    a = np.asarray([p[0] for p in pairs], dtype=float)
    b = np.asarray([p[1] for p in pairs], dtype=float)
    differences = b - a
    if binary:
        a_only, b_only = int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 0) & (b == 1)))
        both, neither = int(np.sum((a == 1) & (b == 1))), int(np.sum((a == 0) & (b == 0)))
        low, high = newcombe_paired(both, a_only, b_only, neither)
        p_value = mcnemar_exact(a_only, b_only)
        test, interval = "exact McNemar", NEWCOMBE
    else:
        if differences.any():
            means = _bootstrap_means(differences.tolist())
            low, high = float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))
        else:
            low = high = 0.0
        p_value = _sign_flip_p(differences)
        test, interval = "paired sign-flip permutation", "paired bootstrap over instances"
    return PairedDifference(
        instances=len(pairs),
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        difference=float(differences.mean()),
        low=low,
        high=high,
        p_value=p_value,
        test=test,
        interval=interval,
    )
