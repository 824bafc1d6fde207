"""How sure a test score is: a bootstrap 95% interval over the test examples (scipy's ``bootstrap``), and the rule
the chapters use to call a difference: two scores differ only where their intervals do not overlap.

Source: Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 13 (percentile intervals); the resampling
is ``scipy.stats.bootstrap``.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

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


class SeededResult(NamedTuple):
    """What ``tune_then_repeat`` found for one table cell.

    ``setting``: the setting chosen on validation; ``valid``: ``{setting: validation score}`` of the first seed;
    ``seeds``; ``test``: the test score of each seed (the mean of its per-example scores); ``mean`` and ``spread``
    (max - min) of those; ``interval``: the bootstrap ``Interval`` of the per-example scores averaged over the
    seeds; ``infos``: what ``run`` returned for each seed at the chosen setting."""

    setting: object
    valid: dict
    seeds: tuple
    test: tuple
    mean: float
    spread: float
    interval: Interval
    infos: tuple


def tune_then_repeat(run: Callable, settings, seeds, n_resamples: int = 2000) -> SeededResult:
    """Choose a setting on validation data with the first seed, then repeat the chosen setting with every other
    seed, and score the test split only for the chosen setting.

    Args:
        run: ``run(setting, seed) -> (valid_score, test_scores, info)``: trains one model; ``valid_score`` a finite
            float (higher is better); ``test_scores`` a function of no arguments returning the 1-D per-example test
            scores (it is called only for the chosen setting, so the other settings never touch the test split);
            ``info`` anything to keep (e.g. the epochs run).
        settings: the candidates (e.g. peak learning rates), tried in order; the first of equal scores wins. One
            setting is simply used.
        seeds: distinct seeds; ``seeds[0]`` chooses the setting.
        n_resamples: bootstrap resamples of the interval.

    Returns:
        ``SeededResult``; its ``interval`` is over the test examples of the seed-averaged per-example scores.

    Raises:
        ValueError: no settings; no seeds or repeated seeds; a validation score that is not a finite number; test
            scores of different lengths across seeds (the message names the seed).

    Source: the model-selection discipline of Devlin et al. (2019), appendix A.3 (the best fine-tuning setting
    chosen on the development set) with several seeds per setting as Dodge et al. (2020) recommend.
    """
    settings, seeds = list(settings), tuple(seeds)
    if not settings:
        raise ValueError("settings is empty: give at least one setting to run")
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct and at least one, got {seeds!r}")
    first = {}
    for setting in settings:
        valid, test_fn, info = run(setting, seeds[0])
        if not isinstance(valid, (int, float, np.floating, np.integer)) or not np.isfinite(valid):
            raise ValueError(f"run({setting!r}, {seeds[0]!r}) gave the validation score {valid!r}: need a finite number")
        first[setting] = (float(valid), test_fn, info)
    chosen = max(settings, key=lambda s: (first[s][0], -settings.index(s)))
    per_seed, infos = [], []
    for seed in seeds:
        if seed == seeds[0]:
            _, test_fn, info = first[chosen]
        else:
            _, test_fn, info = run(chosen, seed)
        scores = np.asarray(test_fn(), dtype=np.float64)
        if per_seed and scores.shape != per_seed[0].shape:
            raise ValueError(f"seed {seed!r} gave {scores.shape} test scores, seed {seeds[0]!r} {per_seed[0].shape}: "
                             "every seed must score the same test examples")
        per_seed.append(scores)
        infos.append(info)
    test = tuple(float(s.mean()) for s in per_seed)
    interval = bootstrap_interval(np.mean(per_seed, axis=0), n_resamples=n_resamples)
    return SeededResult(chosen, {s: v[0] for s, v in first.items()}, seeds, test, float(np.mean(test)),
                        float(max(test) - min(test)), interval, tuple(infos))
