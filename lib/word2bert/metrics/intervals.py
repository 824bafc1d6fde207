"""How sure a test score is: a bootstrap 95% interval over the test examples (scipy's ``bootstrap``), and the rule
the chapters use to call a difference: two scores differ only where their intervals do not overlap.

Source: Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13 (percentile intervals); the resampling
is ``scipy.stats.bootstrap``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Interval(NamedTuple):
    """A score and its bootstrap interval: ``score`` is the statistic on the examples as given; ``low``/``high``
    the interval's ends; ``n`` the number of examples."""

    score: float
    low: float
    high: float
    n: int

    def __str__(self):
        return f"{self.score:.3f} [{self.low:.3f}, {self.high:.3f}]"


def bootstrap_interval(per_example, confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0) -> Interval:
    """The mean of per-example scores with a percentile bootstrap interval over the examples.

    Args:
        per_example: 1-D array-like of floats, one score per test example (1/0 for right/wrong, an F1, ...). For
            a word-level accuracy give one entry per word, words cut by a length limit as 0.
        confidence: the interval's coverage, in (0, 1).
        n_resamples: bootstrap resamples (2,000 by default).
        seed: seed of the resampling (the same seed gives the same interval).

    Returns:
        ``Interval(score, low, high, n)``; all examples equal gives ``low == high == score``.

    Raises:
        ValueError: ``per_example`` is empty, not 1-D, or holds NaN / inf; ``confidence`` outside (0, 1);
            ``n_resamples`` < 1.
    """
    from scipy.stats import bootstrap

    values = np.asarray(per_example, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"per_example must be a non-empty 1-D array of scores, got shape {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError(f"per_example holds NaN or inf at index {int(np.flatnonzero(~np.isfinite(values))[0])}: "
                         "score every example with a finite number")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be an int >= 1, got {n_resamples!r}")
    score = float(values.mean())
    if np.all(values == values[0]):          # nothing to resample: scipy would warn of a degenerate distribution
        return Interval(score, score, score, int(values.size))
    result = bootstrap((values,), np.mean, confidence_level=confidence, n_resamples=n_resamples,
                       method="percentile", rng=np.random.default_rng(seed), vectorized=True)
    ci = result.confidence_interval
    return Interval(score, float(ci.low), float(ci.high), int(values.size))


def separated(a: Interval, b: Interval) -> int:
    """Compare two scores by their intervals: ``1`` if ``a``'s interval lies wholly above ``b``'s, ``-1`` if wholly
    below, ``0`` if they overlap (a tie: the data cannot tell the two apart).

    Raises:
        TypeError: either argument is not an ``Interval``.
    """
    if not isinstance(a, Interval) or not isinstance(b, Interval):
        raise TypeError(f"separated compares two Interval values, got {type(a).__name__} and {type(b).__name__}")
    if a.low > b.high:
        return 1
    if a.high < b.low:
        return -1
    return 0
