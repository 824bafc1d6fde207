"""The pieces chapter 10's tables are made of: per-word tag hits (the one part-of-speech score of chapters 10-12),
choosing a setting on validation and repeating it over seeds without touching the test split for the others, and
fine-tuning with early stopping on the validation loss that keeps the best epoch's weights."""
import keras
import numpy as np
import pytest

from backends import once_on_tensorflow
from word2bert.models.bert import Refitter, align_first_pieces, fine_tune, finetuning_optimizer, word_accuracy, word_hits
from word2bert.metrics import bootstrap_interval, tune_then_repeat
from word2bert.tokenizers import WordPieceTokenizer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "un", "##aff", "##able", "dog", "cat", "sat"]


@once_on_tensorflow
def test_word_hits_score_every_word_once_first_pieces_only_and_cut_words_as_misses():
    """Two sentences; "unaffable" is three pieces (only its first is scored); the second sentence loses two words to
    the length limit. A tagger right on the first piece of every word that fitted but wrong on the non-first pieces
    must score 1 for each fitted word and 0 for each cut one; reading any other piece, or dropping the cut words,
    changes the answer."""
    tokenizer = WordPieceTokenizer(VOCAB)
    aligned = align_first_pieces(tokenizer, [["the", "unaffable", "dog"], ["the", "cat", "sat", "the", "dog"]],
                                 [[1, 2, 3], [1, 3, 4, 1, 3]], sequence_length=6)
    assert aligned.words_cut == 2                                   # "the", "dog" of sentence 2 did not fit
    predicted = np.where(aligned.labels < 0, 0, aligned.labels)     # right on first pieces, 0 elsewhere
    hits = word_hits(predicted, aligned)
    assert hits.tolist() == [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    one_wrong = predicted.copy()
    one_wrong[0, 2] = 4                                             # "un", the first piece of "unaffable"
    assert word_hits(one_wrong, aligned).tolist() == [1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    logits = np.eye(5)[one_wrong]                                   # (n, L, tags) logits give the same hits
    assert word_hits(logits, aligned).tolist() == word_hits(one_wrong, aligned).tolist()
    assert word_accuracy(logits, aligned) == pytest.approx(5 / 8)
    with pytest.raises(ValueError, match="same AlignedTags"):
        word_hits(predicted[:, :4], aligned)


def _runner(valid_by_setting, calls):
    """A fake training run: the validation score depends on the setting (and a little on the seed); the test
    scores are right/wrong per example with the seed moving one example."""
    def run(setting, seed):
        calls.append(("train", setting, seed))

        def test():
            calls.append(("test", setting, seed))
            scores = np.zeros(10)
            scores[:5] = 1.0
            scores[5 + seed] = 1.0                                   # seed 0: 6/10, seed 1: 6/10 (other one), ...
            return scores
        return valid_by_setting[setting] + 0.01 * seed, test, {"setting": setting, "seed": seed}
    return run


@once_on_tensorflow
def test_tune_then_repeat_chooses_on_the_first_seed_and_scores_test_only_for_the_choice():
    calls = []
    result = tune_then_repeat(_runner({1e-3: 0.6, 3e-4: 0.7, 1e-4: 0.7}, calls), [1e-3, 3e-4, 1e-4], seeds=(0, 1, 2))
    assert result.setting == 3e-4                                   # the best; of two equal, the first
    assert result.valid == {1e-3: 0.6, 3e-4: 0.7, 1e-4: 0.7}
    assert [c for c in calls if c[0] == "test"] == [("test", 3e-4, 0), ("test", 3e-4, 1), ("test", 3e-4, 2)]
    assert [c for c in calls if c[0] == "train"] == [("train", s, 0) for s in (1e-3, 3e-4, 1e-4)] + [
        ("train", 3e-4, 1), ("train", 3e-4, 2)]
    assert result.test == (0.6, 0.6, 0.6) and result.mean == pytest.approx(0.6) and result.spread == 0.0
    # the interval is over the seed-averaged per-example scores: 5 ones, then 1/3, 1/3, 1/3, 0, 0
    averaged = np.r_[np.ones(5), [1 / 3] * 3, 0, 0]
    assert result.interval == bootstrap_interval(averaged)
    assert result.interval.low < 0.6 < result.interval.high
    assert [i["seed"] for i in result.infos] == [0, 1, 2]


@once_on_tensorflow
def test_tune_then_repeat_refuses_what_would_give_a_wrong_table():
    run = _runner({1: 0.5}, [])
    with pytest.raises(ValueError, match="settings is empty"):
        tune_then_repeat(run, [], (0,))
    with pytest.raises(ValueError, match="distinct"):
        tune_then_repeat(run, [1], (0, 0))
    with pytest.raises(ValueError, match="finite"):
        tune_then_repeat(lambda s, seed: (float("nan"), lambda: np.ones(3), None), [1], (0,))
    lengths = {0: 3, 1: 4}
    with pytest.raises(ValueError, match="seed 1"):
        tune_then_repeat(lambda s, seed: (0.5, lambda: np.ones(lengths[seed]), None), [1], (0, 1))


def test_fine_tune_keeps_the_epoch_with_the_lowest_validation_loss():
    """Random labels and a large learning rate: the model memorises the training rows and its validation loss rises
    after the first epochs, so the last epoch is not the best. The weights fine_tune leaves must give the best
    epoch's validation loss (not the last one's); with patience 1 it stops early."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(64, 32)).astype("float32"), rng.integers(0, 2, 64)
    vx, vy = rng.normal(size=(64, 32)).astype("float32"), rng.integers(0, 2, 64)

    def model():
        keras.utils.set_random_seed(0)
        return keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(2)])

    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    m = model()
    info = fine_tune(m, (x, y), (vx, vy), loss, 3e-2, max_epochs=8, batch_size=16, patience=8, metrics=["accuracy"])
    assert info["epochs"] == 8 and info["best_epoch"] < 8            # the fixture overfits: the last is not best
    assert m.evaluate(vx, vy, verbose=0, return_dict=True)["loss"] == pytest.approx(info["val_loss"], rel=1e-5)
    # the training accuracy reported is the kept epoch's, not the last epoch's (1.0: memorised)
    assert info["train"]["accuracy"] < 0.99 and info["seconds"] > 0
    assert info["history"]["val_loss"][info["best_epoch"] - 1] == pytest.approx(info["val_loss"])
    assert max(info["history"]["accuracy"]) > 0.99 and len(info["history"]["accuracy"]) == 8
    short = fine_tune(model(), (x, y), (vx, vy), loss, 3e-2, max_epochs=8, batch_size=16, patience=1)
    assert short["epochs"] == short["best_epoch"] + 1 < 8
    with pytest.raises(ValueError, match="max_epochs and patience"):
        fine_tune(model(), (x, y), (vx, vy), loss, 1e-3, max_epochs=0)


def test_a_refitter_run_equals_a_fresh_fine_tuning_from_the_same_weights():
    """Three runs on one Refitter (another learning rate, other starting weights, fewer epochs each time) must each
    end with the weights a fresh model gets from fine_tune with the same start and settings: nothing (optimizer
    moments, step count, schedule, kept epoch, dropout's random-number state: dropout 0.3 here) may leak from one
    run into the next. Its schedule must also equal finetuning_optimizer's step by step."""
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(96, 12)).astype("float32"), rng.integers(0, 3, 96)
    vx, vy = rng.normal(size=(48, 12)).astype("float32"), rng.integers(0, 3, 48)
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def model(seed):
        keras.utils.set_random_seed(seed)
        return keras.Sequential([keras.Input((12,)), keras.layers.Dense(16, activation="tanh"),
                                 keras.layers.Dropout(0.3), keras.layers.Dense(3)])

    refit = Refitter(model(0), loss, metrics=["accuracy"])
    for seed, rate, epochs in ((1, 3e-2, 4), (2, 1e-2, 3), (3, 3e-3, 2)):
        start = model(seed)
        keras.utils.set_random_seed(seed)
        info = refit.run(start, (x, y), (vx, vy), rate, max_epochs=epochs, batch_size=16, patience=epochs)
        fresh = model(seed)
        keras.utils.set_random_seed(seed)
        expected = fine_tune(fresh, (x, y), (vx, vy), loss, rate, max_epochs=epochs, batch_size=16, patience=epochs,
                             metrics=["accuracy"])
        assert info["best_epoch"] == expected["best_epoch"] and info["val_loss"] == pytest.approx(expected["val_loss"], rel=1e-4)
        for got, want in zip(refit.model.get_weights(), fresh.get_weights()):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    refit.schedule.set(1e-3, 10, 90)
    reference = finetuning_optimizer(1e-3, 100)._learning_rate            # its CosineDecay with warm-up
    for step in (0, 5, 10, 40, 99, 150):
        assert float(refit.schedule(step)) == pytest.approx(float(reference(step)), rel=1e-5, abs=1e-9)
    with pytest.raises(ValueError, match="learning_rate"):
        refit.run(start, (x, y), (vx, vy), 0.0, max_epochs=1)
    without_dropout = keras.Sequential([keras.Input((12,)), keras.layers.Dense(16), keras.layers.Dense(3)])
    with pytest.raises(ValueError, match="0 random-number generators, the Refitter's model 1"):
        refit.run(without_dropout, (x, y), (vx, vy), 1e-3, max_epochs=1)


def test_predict_by_length_equals_one_full_width_pass_in_the_rows_order():
    # rows of 5, 40, 17, 33 and 16 real pieces padded to 48, one with a hole in its mask: batches of two are cut to
    # 16, 48 or 32 columns; each head's output must equal the full-width pass, rows back in their own order, and
    # the span logits past a batch's width the lowest float (padding, as the QA head fills it)
    from word2bert.models.bert import (BertBackbone, BertClassifier, BertQuestionAnswerer, BertTokenTagger,
                                predict_by_length)
    keras.utils.set_random_seed(0)
    backbone = BertBackbone(vocabulary_size=60, num_layers=1, hidden_dim=16, num_heads=2, intermediate_dim=32, dropout=0.0)
    rng = np.random.default_rng(0)
    ids = np.zeros((5, 48), np.int32)
    for r, n in enumerate((5, 40, 17, 33, 16)):
        ids[r, :n] = rng.integers(5, 60, n)
    x = {"token_ids": ids, "segment_ids": (np.arange(48) > 10).astype(np.int32)[None].repeat(5, 0) * (ids > 0),
         "padding_mask": (ids > 0).astype(np.int32)}
    x["padding_mask"][3, 3] = 0              # a hole: row 3 has 32 real positions but needs 33 columns (so 48)
    for model, per_token in ((BertClassifier(backbone, num_classes=3), False),
                             (BertTokenTagger(backbone, num_tags=7), True), (BertQuestionAnswerer(backbone), True)):
        full = keras.ops.convert_to_numpy(model.predict_on_batch(x))
        got = predict_by_length(model, x, per_token=per_token, batch_size=2)
        assert got.shape == full.shape
        if per_token:
            real = x["padding_mask"].astype(bool)
            np.testing.assert_allclose(got[real], full[real], atol=1e-5)
        else:
            np.testing.assert_allclose(got, full, atol=1e-5)
    assert got[0, 16:].max() == np.finfo(np.float32).min and got[0, :5].max() > -1e6
    with pytest.raises(ValueError, match="padding_mask"):
        predict_by_length(model, {"token_ids": ids}, per_token=True)
