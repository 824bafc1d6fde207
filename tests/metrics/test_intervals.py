"""Bootstrap intervals over test examples, checked against the normal approximation they must approach, exact
degenerate cases, and the rule that calls a difference."""
import numpy as np
import pytest

from backends import once_on_tensorflow
from word2bert.metrics import Interval, bootstrap_interval, separated

pytestmark = once_on_tensorflow


def test_interval_of_a_mean_matches_the_normal_approximation():
    """1,000 right/wrong answers at 70%: the percentile interval is close to p +/- 1.96 sqrt(p(1-p)/n) (0.672 to
    0.728); a swapped low/high or an interval over resampled means of the wrong size would miss by far more."""
    scores = np.r_[np.ones(700), np.zeros(300)]
    got = bootstrap_interval(scores, seed=1)
    half = 1.96 * np.sqrt(0.7 * 0.3 / 1000)
    assert got.score == pytest.approx(0.7) and got.n == 1000
    assert got.low == pytest.approx(0.7 - half, abs=0.006) and got.high == pytest.approx(0.7 + half, abs=0.006)
    assert got == bootstrap_interval(scores, seed=1)                      # the seed fixes the draw
    narrower = bootstrap_interval(scores, confidence=0.5, seed=1)
    assert got.low < narrower.low < 0.7 < narrower.high < got.high
    # 4x the examples, half the width
    wide, tight = got.high - got.low, (lambda i: i.high - i.low)(bootstrap_interval(np.tile(scores, 4), seed=1))
    assert tight == pytest.approx(wide / 2, rel=0.1)
    assert str(got).startswith("0.700 [")


def test_all_equal_scores_give_a_zero_width_interval_and_bad_input_is_refused():
    assert bootstrap_interval([1.0] * 5) == Interval(1.0, 1.0, 1.0, 5)
    for bad, message in (([], "non-empty 1-D"), ([[1.0, 0.0]], "non-empty 1-D"), ([1.0, np.nan], "index 1")):
        with pytest.raises(ValueError, match=message):
            bootstrap_interval(bad)
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_interval([1.0, 0.0], confidence=95)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_interval([1.0, 0.0], n_resamples=0)


def test_separated_calls_a_difference_only_where_the_intervals_do_not_overlap():
    a, b = Interval(0.8, 0.75, 0.85, 100), Interval(0.7, 0.65, 0.75, 100)   # touching at 0.75: a tie
    assert separated(a, b) == 0 and separated(b, a) == 0
    c = Interval(0.7, 0.65, 0.7499, 100)
    assert separated(a, c) == 1 and separated(c, a) == -1
    with pytest.raises(TypeError, match="Interval"):
        separated((0.8, 0.7, 0.9, 10), a)
