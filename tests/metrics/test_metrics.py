"""Tests for word2bert.metrics: BLEU edge values, agreement with sacrebleu's own API and
with a hand computation, and multi-reference handling; the token-weighted accuracy by hand over
batches of different token counts."""
import math
import time

import keras
import numpy as np
import pytest
import sacrebleu

from interrupts import RaiseAt
from word2bert.metrics import MaskedAccuracy, bleu_by_bucket, corpus_bleu
from word2bert.training.callbacks import BleuCurve
from word2bert.training.resumable import resumable_fit
from word2bert.models.transformer import masked_accuracy


def test_identical_is_100():
    refs = ["the cat sat on the mat.", "I am cold!"]
    assert corpus_bleu(refs, refs) == pytest.approx(100.0)


def test_hand_computed_bleu():
    # hyp "a b c d e f" vs ref "a b c d e g": precisions 5/6, 4/5, 3/4, 2/3; same length -> BP = 1
    expected = 100 * math.exp(np.mean(np.log([5 / 6, 4 / 5, 3 / 4, 2 / 3])))
    assert corpus_bleu(["a b c d e f"], ["a b c d e g"]) == pytest.approx(expected, rel=1e-9)


def test_no_shared_four_gram_is_zero():
    assert corpus_bleu(["a b c d"], ["e f g h"]) == 0.0


def test_multiple_references_of_varying_number():
    hyps = ["the cat is on the mat.", "he left early."]
    refs = [["there is a cat on the mat.", "the cat is on the mat."], ["he went away early."]]
    expected = sacrebleu.corpus_bleu(hyps, [["there is a cat on the mat.", "he went away early."],
                                            ["the cat is on the mat.", None]]).score
    assert corpus_bleu(hyps, refs) == pytest.approx(expected)
    assert corpus_bleu(hyps, refs) > corpus_bleu(hyps, [r[0] for r in refs])


def test_bleu_by_bucket_splits_by_length():
    hyps, refs = ["a b c d", "x y z w v", "p q r s"], ["a b c d", "x y z w v", "p q r t"]
    out = bleu_by_bucket([3, 7, 12], hyps, refs, edges=(5, 10))
    assert set(out) == {"1-5", "6-10", ">10"}
    assert out["1-5"] == (pytest.approx(100.0), 1) and out["6-10"][1] == 1
    # "p q r s" vs "p q r t": precisions 3/4, 2/3, 1/2 and 0/1, which sacrebleu's default
    # exponential smoothing turns into 1/2 (1 / 2^k for the k-th zero precision)
    assert out[">10"] == (pytest.approx(100 * (3 / 4 * 2 / 3 * 1 / 2 * 1 / 2) ** 0.25), 1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="one entry per hypothesis"):
        corpus_bleu(["a"], ["a", "b"])
    with pytest.raises(ValueError, match="at least one"):
        corpus_bleu([], [])
    with pytest.raises(ValueError, match="increasing"):
        bleu_by_bucket([1], ["a"], ["a"], edges=(5, 3))


def test_single_strings_are_rejected_not_split_into_characters():
    from word2bert.metrics import corpus_bleu
    with pytest.raises(TypeError, match="hypotheses must be"):
        corpus_bleu("the cat", ["the cat"])
    with pytest.raises(TypeError, match="references must be"):
        corpus_bleu(["the cat"], "the cat")


def test_lowercase_is_passed_to_sacrebleu():
    hyp, ref = ["The Cat sat on the Mat today ."], [["the cat sat on the mat today ."]]
    assert corpus_bleu(hyp, ref, lowercase=True) == pytest.approx(100.0)
    assert corpus_bleu(hyp, ref) < 60.0


def test_chrf_by_hand_and_by_bucket():
    from word2bert.metrics import corpus_chrf

    assert corpus_chrf(["the cat sat."], [["the cat sat."]]) == pytest.approx(100.0)
    # against sacrebleu's own API, with a varying number of references per line
    hyps, refs = ["the cat sat on the mat.", "a dog ran"], [["the cat sat on a mat.", "a cat sat."], ["the dog ran"]]
    expected = sacrebleu.corpus_chrf(hyps, [["the cat sat on a mat.", "the dog ran"], ["a cat sat.", None]]).score
    assert corpus_chrf(hyps, refs) == pytest.approx(expected)
    # chrF gives partial credit where BLEU gives none: a right stem with a wrong ending
    assert corpus_chrf(["they walked home"], [["they walk home"]]) > 50 > corpus_bleu(["they walked home"],
                                                                                    [["they walk home"]])
    buckets = bleu_by_bucket([1, 9], ["a b", "c d e"], ["a b", "x y z"], edges=(5,), metric=corpus_chrf)
    assert buckets["1-5"] == (pytest.approx(100.0), 1) and buckets[">5"][0] < 10
    assert corpus_chrf(["the lord said"], ["The LORD said"]) < 50
    assert corpus_chrf(["the lord said"], ["The LORD said"], lowercase=True) == pytest.approx(100.0)
    with pytest.raises(TypeError, match="hypotheses"):
        bleu_by_bucket([3, 4], "ab", ["a", "b"])
    with pytest.raises(ValueError, match=">= 1"):
        bleu_by_bucket([0, 4], ["a", "b"], ["a", "b"])
    with pytest.raises(ValueError, match="at least one"):
        bleu_by_bucket([], [], [])


def _two_uneven_batches():
    """Batch 1: two rows of 1 real token, both right. Batch 2: two rows of 6 real tokens, 3 of 12 right.

    Epoch accuracy by hand: (2 + 3) / (2 + 12) = 5/14; the mean of the batch shares (1 + 1/4) / 2 = 5/8.
    """
    vocab = 5
    y1 = np.array([[3, 0, 0], [2, 0, 0]], np.int32)
    guess1 = np.array([[3, 1, 1], [2, 4, 4]])                    # the padded columns are "wrong": never counted
    y2 = np.array([[1, 2, 3, 4, 1, 2], [2, 2, 2, 2, 2, 2]], np.int32)
    guess2 = np.array([[1, 2, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0]])  # 2 right in row 0, 1 in row 1
    return [(np.eye(vocab, dtype="float32")[g] * 3.0, y) for g, y in ((guess1, y1), (guess2, y2))]


class _Batches(keras.utils.PyDataset):
    def __init__(self, batches):
        super().__init__()
        self.items = batches

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def test_masked_accuracy_counts_tokens_not_batches():
    batches = _two_uneven_batches()
    metric = MaskedAccuracy()
    for logits, y in batches:
        metric.update_state(y, logits)
    assert float(metric.result()) == pytest.approx(5 / 14, rel=1e-6)
    # through Keras: the epoch value of evaluate is the token share; the metric function averages the batches
    model = keras.Sequential([keras.layers.Identity()])
    model.compile(loss=lambda y, p: keras.ops.zeros(()), metrics=[MaskedAccuracy(), masked_accuracy])
    scores = model.evaluate(_Batches(batches), verbose=0, return_dict=True)
    assert scores["masked_accuracy"] == pytest.approx(5 / 14, rel=1e-6)
    per_batch = [float(keras.ops.convert_to_numpy(masked_accuracy(y, logits))) for logits, y in batches]
    assert per_batch == [1.0, 0.25] and np.mean(per_batch) == pytest.approx(5 / 8)
    metric.reset_state()
    assert float(metric.result()) == 0.0


def test_masked_accuracy_weights_ignore_class_and_config(tmp_path):
    (logits1, y1), (logits2, y2) = _two_uneven_batches()
    # sample weights multiply the padding mask: row 1 of batch 2 (1 of 6 right) weighted 0 -> 2 right of 6
    metric = MaskedAccuracy()
    metric.update_state(y2, logits2, sample_weight=np.array([1.0, 0.0], "float32"))
    assert float(metric.result()) == pytest.approx(2 / 6, rel=1e-6)
    # ignore_class=None: padding counts too (batch 1's 4 padded slots are wrong: 2 right of 6)
    every = MaskedAccuracy(ignore_class=None)
    every.update_state(y1, logits1)
    assert float(every.result()) == pytest.approx(2 / 6, rel=1e-6)
    # ignore_class=2: batch 1 keeps its id-3 token and its pads (0), 1 right of 5
    other = MaskedAccuracy(ignore_class=2)
    other.update_state(y1, logits1)
    assert float(other.result()) == pytest.approx(1 / 5, rel=1e-6)
    rebuilt = keras.metrics.deserialize(keras.metrics.serialize(MaskedAccuracy(ignore_class=None, name="acc")))
    assert isinstance(rebuilt, MaskedAccuracy) and rebuilt.ignore_class is None and rebuilt.name == "acc"
    # a model compiled with it saves and loads by the registered name, its settings kept
    model = keras.Sequential([keras.Input((3, 5)), keras.layers.Identity()])
    model.compile(loss="sparse_categorical_crossentropy", metrics=[MaskedAccuracy(ignore_class=None, name="acc")])
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    assert loaded.evaluate(logits1, y1, verbose=0, return_dict=True)["acc"] == pytest.approx(2 / 6, rel=1e-6)
    with pytest.raises(ValueError, match="y_pred must have one more axis"):
        metric.update_state(y1, logits1[..., 0])


def _tiny_fit(curve, epochs=3, batches=4):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((8 * batches, 3), "float32")
    started = time.perf_counter()
    model.fit(x, x[:, :1], batch_size=8, epochs=epochs, validation_data=(x, x[:, :1]), verbose=0, callbacks=[curve])
    return time.perf_counter() - started


def test_bleu_curve_scores_every_epoch_and_leaves_scoring_out_of_the_clock():
    refs = ["the lord is my shepherd", "i shall not want"]

    def translate():
        time.sleep(0.5)
        return list(refs)

    curve = BleuCurve(translate, refs, verbose=False)
    wall = _tiny_fit(curve)
    assert [p["epochs"] for p in curve.points] == [1, 2, 3]
    assert [p["bleu"] for p in curve.points] == [100.0] * 3
    minutes = [p["minutes"] for p in curve.points]
    assert minutes == sorted(minutes) and minutes[0] > 0
    assert curve.spent <= wall - 3 * 0.5 + 0.05          # three scorings of 0.5 s are not training time


def test_bleu_curve_stops_at_the_budget_part_way_through_an_epoch():
    curve = BleuCurve(lambda: ["a b c d"], ["a b c x"], minutes=1e-9, verbose=False)
    _tiny_fit(curve, epochs=5, batches=4)
    assert len(curve.points) == 1 and curve.points[0]["epochs"] == 0.25   # one batch of four
    assert 0 < curve.points[0]["bleu"] < 100
    with pytest.raises(ValueError, match="minutes must be > 0"):
        BleuCurve(lambda: [], ["a"], minutes=0)
    with pytest.raises(ValueError, match="at least one reference"):
        BleuCurve(lambda: [], [])


def _curve_model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def test_bleu_curve_keeps_its_points_and_its_spent_budget_over_a_resumed_training(tmp_path):
    x = np.random.default_rng(0).normal(size=(32, 3)).astype("float32")
    y = (x[:, 0] > 0).astype("int32")
    hypotheses = iter(["a b c d", "a b c x", "a b x x", "x x x x", "a b c d"])
    first = BleuCurve(lambda: [next(hypotheses)], ["a b c d"], verbose=False)
    with pytest.raises(KeyboardInterrupt):
        resumable_fit(_curve_model(), x, y, epochs=4, checkpoint_dir=tmp_path, batch_size=8,
                      callbacks=[first, RaiseAt(2)])
    assert [p["epochs"] for p in first.points] == [1, 2] and first.spent > 0
    second = BleuCurve(lambda: [next(hypotheses)], ["a b c d"], verbose=False)
    resumable_fit(_curve_model(), x, y, epochs=4, checkpoint_dir=tmp_path, batch_size=8, callbacks=[second])
    assert [p["epochs"] for p in second.points] == [1, 2, 3, 4]
    assert [p["bleu"] for p in second.points[:2]] == [100.0, first.points[1]["bleu"]] and first.points[1]["bleu"] < 100
    assert second.spent > first.spent and second.points[1] == first.points[1]
    # a budget already spent before the interruption stops the resumed run after its first batch
    third = BleuCurve(lambda: ["a b c d"], ["a b c d"], minutes=first.spent / 60, verbose=False)
    third.set_state(first.get_state())
    run = resumable_fit(_curve_model(), x, y, epochs=4, checkpoint_dir=tmp_path / "budget", batch_size=8,
                        callbacks=[third])
    assert len(run["history"]["loss"]) == 1 and third.points[-1]["epochs"] == 0.25
    with pytest.raises(ValueError, match="'points' and 'spent'"):
        third.set_state({"points": []})
