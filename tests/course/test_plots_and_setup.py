"""Tests for word2bert.plots.history, word2bert.metrics.evaluate_vectors and word2bert.setup."""
import random

import matplotlib

matplotlib.use("Agg")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import word2bert.course  # noqa: E402
from word2bert import datasets, plots  # noqa: E402
from word2bert.metrics import analogy_accuracy, evaluate_vectors, similarity_spearman  # noqa: E402


def test_history_draws_one_line_per_run_and_key_and_marks_the_best_epoch():
    runs = {"none": {"loss": [3.0, 2.0, 1.5], "val_loss": [3.1, 2.5, 2.7]}, "dot": {"loss": [2.5, 1.0], "val_loss": [2.6, 2.2]}}
    ax = plots.history(runs, keys=("loss", "val_loss"), mark_best="val_loss")
    lines = [l for l in ax.get_lines() if l.get_linestyle() != ":"]
    assert len(lines) == 4 and [l.get_label() for l in lines][:2] == ["none loss", "none valid loss"]
    np.testing.assert_array_equal(lines[1].get_ydata(), [3.1, 2.5, 2.7])
    best = [l.get_xdata()[0] for l in ax.get_lines() if l.get_linestyle() == ":"]
    assert best == [2, 2]                                            # the epochs early stopping keeps
    hist = keras.callbacks.History(); hist.history = {"loss": list(np.linspace(5, 1, 100))}
    ax = plots.history(hist, keys=("loss",), smooth=10)
    assert len(ax.get_lines()[0].get_ydata()) == 91                  # a running mean over 10 batches
    with pytest.raises(ValueError, match="no run logged"):
        plots.history(runs, keys=("accuracy",))


def test_with_intervals_draws_each_score_with_a_bar_from_its_low_to_its_high():
    import matplotlib.pyplot as plt
    from word2bert.metrics import Interval

    fig, ax = plt.subplots()
    bars = plots.with_intervals(ax, [10, 100], [Interval(0.6, 0.5, 0.65, 40), Interval(0.8, 0.78, 0.9, 40)], fmt="o")
    np.testing.assert_allclose(bars.lines[0].get_ydata(), [0.6, 0.8])
    segments = bars.lines[2][0].get_segments()                       # one vertical bar per point
    np.testing.assert_allclose([s[:, 1] for s in segments], [[0.5, 0.65], [0.78, 0.9]])
    with pytest.raises(ValueError, match="one x per interval"):
        plots.with_intervals(ax, [1], [Interval(0.6, 0.5, 0.65, 40)] * 2)
    with pytest.raises(ValueError, match="hold its score"):
        plots.with_intervals(ax, [1], [Interval(0.6, 0.65, 0.7, 40)])
    plt.close(fig)


def test_evaluate_vectors_equals_the_single_evaluations():
    rng = np.random.default_rng(0)
    ws, analogies = datasets.wordsim353(), datasets.google_analogies()
    first = next(iter(analogies))
    words = sorted({w for a, b, _ in ws for w in (a, b)})[:300] + sorted({w for q in analogies[first] for w in q})
    vectors = {w: rng.normal(size=8) for w in words}
    out = evaluate_vectors(vectors, wordsim=ws, analogies=analogies)
    assert out["ws"] == similarity_spearman(vectors, ws)["rho"] and "sl" not in out
    assert out["analogy"] == analogy_accuracy(vectors, analogies)["accuracy"] and out["analogy_cov"] > 0
    with pytest.raises(ValueError, match="at least one"):
        evaluate_vectors(vectors)


def test_setup_picks_the_profile_and_seeds_every_generator(capsys):
    sizes = {"ci": {"epochs": 1}, "cpu": {"epochs": 4}, "gpu": {"epochs": 20}}
    cfg = word2bert.course.setup(sizes, seed=7, profile="cpu")
    header = capsys.readouterr().out
    draws = (random.random(), np.random.rand(), float(keras.ops.convert_to_numpy(keras.random.uniform(()))),
             cfg.rng.random())
    again = word2bert.course.setup(sizes, seed=7, profile="cpu")
    redraws = (random.random(), np.random.rand(), float(keras.ops.convert_to_numpy(keras.random.uniform(()))),
               again.rng.random())
    assert draws == redraws
    assert cfg == {"epochs": 4, "profile": "cpu", "seed": 7} and cfg.profile == "cpu" and cfg.seed == 7
    assert header.startswith("profile: cpu | backend: ") and "device: " in header
    with pytest.raises(ValueError, match="seed"):
        word2bert.course.setup(sizes, seed=-1)
    with pytest.raises(ValueError, match="profile table lacks"):
        word2bert.course.setup({"cpu": {}})


def test_history_names_a_wrong_container():
    with pytest.raises(ValueError, match="keras History"):
        plots.history([{"loss": [3, 2, 1]}, {"loss": [2, 1]}])
