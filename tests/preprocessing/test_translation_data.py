"""Tests for the translation data every translation model shares (word2bert.preprocessing.batching): the one length
policy by hand, the word-level (seq2seq) and WordPiece (Transformer) encoders on top of it, and the
Transformer's training keeping its best epoch and reporting the token share of right predictions."""
import keras
import numpy as np
import pytest

from backends import once_on_tensorflow
from layer_checks import to_numpy
from interrupts import RaiseAt
from word2bert.preprocessing.batching import pad_rows, teacher_forcing_arrays
from word2bert.models.seq2seq import encode_pairs
from word2bert.tokenizers.specials import SPECIALS
from word2bert.tokenizers import BERT_SPECIALS, Vocabulary, WordPieceTokenizer
from word2bert.models.transformer import (Transformer, encode_sources, encode_translation_pairs, train_transformer,
                                   warmup_inverse_sqrt)

BOS, EOS = 1, 2


@once_on_tensorflow
def test_teacher_forcing_arrays_by_hand():
    sources = [[5, 6], [7], [8, 9, 10, 11], [], [4, 4, 4]]
    targets = [[3], [4, 4, 4], [3], [9], [5, 6, 7, 8]]
    # caps 3 and 3: pair 2's source is 4 long, pair 3's is empty, pair 4's target is 4 long: left out, not cut
    x, d_in, d_out, kept = teacher_forcing_arrays(sources, targets, BOS, EOS, 3, 3)
    assert kept.tolist() == [0, 1]
    assert x.tolist() == [[5, 6], [7, 0]] and x.dtype == np.int32
    assert d_in.tolist() == [[BOS, 3, 0, 0], [BOS, 4, 4, 4]]
    assert d_out.tolist() == [[3, EOS, 0, 0], [4, 4, 4, EOS]]
    # a cap equal to a length keeps the pair; a fixed width pads every array to it
    x, d_in, d_out, kept = teacher_forcing_arrays(sources, targets, BOS, EOS, 4, 4, width=5)
    assert kept.tolist() == [0, 1, 2, 4] and x.shape == d_in.shape == d_out.shape == (4, 5)
    assert d_out[3].tolist() == [5, 6, 7, 8, EOS] and x[2].tolist() == [8, 9, 10, 11, 0]
    with pytest.raises(ValueError, match="as many"):
        teacher_forcing_arrays(sources, targets[:2], BOS, EOS, 3, 3)
    with pytest.raises(ValueError, match="max_source_len and max_target_len must be >= 1"):
        teacher_forcing_arrays(sources, targets, BOS, EOS, 3, 0)
    with pytest.raises(ValueError, match="width 4 cannot hold"):
        teacher_forcing_arrays(sources, targets, BOS, EOS, 4, 4, width=4)
    with pytest.raises(ValueError, match="no pair has a source of 1..1"):
        teacher_forcing_arrays([[1, 2]], [[3]], BOS, EOS, 1, 1)
    assert pad_rows([[3], []]).tolist() == [[3], [0]] and pad_rows([]).shape == (0, 1)


@once_on_tensorflow
def test_encode_pairs_refuses_a_pair_over_the_cap_instead_of_cutting_it():
    src = Vocabulary([["ich", "bin", "müde"]])
    tgt = Vocabulary([["i", "am", "tired"]], specials=SPECIALS)
    x, d_in, d_out = encode_pairs([(["ich"], ["i"]), (["ich", "bin"], ["i", "am"])], src, tgt, sequence_length=2)
    assert x.shape == (2, 2) and d_in.shape == d_out.shape == (2, 3)
    assert d_in[:, 0].tolist() == [tgt.token_to_id("<s>")] * 2 and d_out[1, 2] == tgt.token_to_id("</s>")
    with pytest.raises(ValueError, match=r"pairs\[1\] has 3 source and 1 target tokens"):
        encode_pairs([(["ich"], ["i"]), (["ich", "bin", "müde"], ["i"])], src, tgt, sequence_length=2)
    with pytest.raises(ValueError, match=r"pairs\[0\] has 1 source and 0 target"):
        encode_pairs([(["ich"], [])], src, tgt, sequence_length=2)


def _wordpiece(words):
    return WordPieceTokenizer(list(BERT_SPECIALS) + words, lowercase=True)


@once_on_tensorflow
def test_encode_translation_pairs_keeps_room_for_the_start_and_end_pieces():
    es, en = _wordpiece(["uno", "dos", "tres", "."]), _wordpiece(["one", "two", "three", "."])
    cls, sep = en.token_to_id("[CLS]"), en.token_to_id("[SEP]")
    pairs = [("uno dos tres .", "one two three"),      # source 4 = max_len, target 3 = max_len - 1: kept
             ("uno", "one two three ."),               # target of 4 pieces: no room for [CLS] / [SEP]
             ("uno dos tres . uno", "one"),            # source of 5 pieces
             ("dos", "two")]
    x, d_in, d_out, kept = encode_translation_pairs(pairs, es, en, sequence_length=4)
    assert kept.tolist() == [0, 3] and x.shape == d_in.shape == d_out.shape == (2, 4)
    one, two, three = (en.token_to_id(w) for w in ("one", "two", "three"))
    assert x[0].tolist() == [es.token_to_id(w) for w in ("uno", "dos", "tres", ".")]
    assert d_in.tolist() == [[cls, one, two, three], [cls, two, 0, 0]]
    assert d_out.tolist() == [[one, two, three, sep], [two, sep, 0, 0]]
    assert encode_sources(["uno dos tres . uno", ""], es, 4).tolist() == [x[0].tolist(), [es.token_to_id("[UNK]"),
                                                                                          0, 0, 0]]
    with pytest.raises(ValueError, match="sequence_length must be >= 2"):
        encode_translation_pairs(pairs, es, en, sequence_length=1)


class _SpoilAndRecord(keras.callbacks.Callback):
    """Records the weights of every epoch; before epoch ``spoil`` sets every weight to large noise."""

    def __init__(self, spoil):
        super().__init__()
        self.spoil, self.weights = spoil, []

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.spoil:
            rng = np.random.default_rng(7)
            self.model.set_weights([rng.normal(0.0, 3.0, w.shape).astype(w.dtype) for w in self.model.get_weights()])

    def on_epoch_end(self, epoch, logs=None):
        self.weights.append(self.model.get_weights())


def _random_arrays(rng, n, max_len, vocab, target_lengths):
    sources = [list(rng.integers(3, vocab, rng.integers(1, max_len + 1))) for _ in range(n)]
    targets = [list(rng.integers(3, vocab, k)) for k in target_lengths]
    return teacher_forcing_arrays(sources, targets, BOS, EOS, max_len, max_len - 1, width=max_len)[:3]


@pytest.mark.slow
def test_train_transformer_keeps_the_best_epoch_and_reports_the_token_share():
    rng = np.random.default_rng(0)
    train = _random_arrays(rng, 48, 8, 12, rng.integers(1, 8, 48))
    # validation: Keras cuts it into batches of 32 and 8 rows; the last 8 have 1-token targets, the others 7
    valid = _random_arrays(rng, 40, 8, 12, [7] * 32 + [1] * 8)
    keras.utils.set_random_seed(0)
    model = Transformer(12, 12, num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16, dropout=0.0, max_sequence_length=8)
    record = _SpoilAndRecord(spoil=1)
    history, _ = train_transformer(model, train, valid, epochs=3, batch_size=16, warmup_steps=2, verbose=0,
                                   callbacks=[record])
    val_loss = history["val_loss"]
    # every epoch ran (the keep-best callback never stops early); the best one is not the last
    assert len(val_loss) == 3 and set(history) >= {"loss", "masked_accuracy", "val_masked_accuracy"}
    best = int(np.argmin(val_loss))
    assert best == 0 and val_loss[2] > val_loss[0]
    for got, kept in zip(model.get_weights(), record.weights[best]):
        np.testing.assert_array_equal(got, kept)
    # val_masked_accuracy: right tokens / real tokens of the whole validation split, by hand per epoch
    real, gaps = valid[2] > 0, []
    for epoch, weights in enumerate(record.weights):
        model.set_weights(weights)
        hits = (to_numpy(model((valid[0], valid[1]), training=False)).argmax(-1) == valid[2]) & real
        share = hits.sum() / real.sum()
        batch_mean = np.mean([hits[:32].sum() / real[:32].sum(), hits[32:].sum() / real[32:].sum()])
        assert history["val_masked_accuracy"][epoch] == pytest.approx(share, rel=1e-5, abs=1e-6)
        gaps.append(abs(share - batch_mean))
    assert max(gaps) > 0.005   # the test can tell the token share from the mean of the two batches' shares


@pytest.mark.slow
def test_train_transformer_uses_the_learning_rate_it_is_given():
    rng = np.random.default_rng(1)
    train = _random_arrays(rng, 32, 6, 10, rng.integers(1, 6, 32))
    model = Transformer(10, 10, num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16, dropout=0.0, max_sequence_length=6)
    train_transformer(model, train, train, epochs=1, batch_size=16, warmup_steps=2, verbose=0, learning_rate=3e-4)
    assert float(to_numpy(model.optimizer.learning_rate)) == pytest.approx(3e-4)
    schedule = warmup_inverse_sqrt(5e-3, 4, hidden_dim=8)
    model = Transformer(10, 10, num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16, dropout=0.0, max_sequence_length=6)
    train_transformer(model, train, train, epochs=1, batch_size=16, warmup_steps=100, verbose=0,
                      learning_rate=schedule)
    assert model.optimizer.learning_rate is not None and model.optimizer._learning_rate is schedule
    # two steps were taken: the rate is the schedule's at step 2, not the paper's warm-up 100
    assert float(to_numpy(model.optimizer.learning_rate)) == pytest.approx(5e-3 * 3 / 4, rel=1e-5)


@pytest.mark.slow
def test_train_transformer_with_a_checkpoint_resumes_to_the_weights_of_an_uninterrupted_run_and_keeps_the_best(
        tmp_path):
    rng = np.random.default_rng(2)
    train = _random_arrays(rng, 48, 8, 12, rng.integers(1, 8, 48))
    valid = _random_arrays(rng, 24, 8, 12, rng.integers(1, 8, 24))

    def model():
        keras.utils.set_random_seed(0)           # dropout 0.2: its random-number state must come back too
        return Transformer(12, 12, num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16, dropout=0.2, max_sequence_length=8)

    args = dict(epochs=4, batch_size=16, warmup_steps=2, verbose=0, seed=3)
    whole = model()
    # epoch 3 (0-based 2) starts from noise: the best epoch is then an earlier one, which must be the one kept
    history, _ = train_transformer(whole, train, valid, checkpoint_dir=tmp_path / "whole",
                                   callbacks=[_SpoilAndRecord(spoil=2)], **args)
    cut = model()
    with pytest.raises(KeyboardInterrupt):
        train_transformer(cut, train, valid, checkpoint_dir=tmp_path / "cut",
                          callbacks=[_SpoilAndRecord(spoil=2), RaiseAt(2)], **args)
    resumed = model()
    record = _SpoilAndRecord(spoil=2)
    again, seconds = train_transformer(resumed, train, valid, checkpoint_dir=tmp_path / "cut", callbacks=[record],
                                       **args)
    assert len(again["val_loss"]) == 4 and seconds > 0 and len(record.weights) == 2     # only epochs 3 and 4 ran
    np.testing.assert_allclose(again["val_loss"], history["val_loss"], rtol=1e-5)
    best = int(np.argmin(history["val_loss"]))
    assert best < 2 < len(history["val_loss"])
    for a, b in zip(resumed.get_weights(), whole.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert not (tmp_path / "whole").exists() and not (tmp_path / "cut").exists()
    # the best epoch's weights, not the last epoch's, are what the model holds
    last = record.weights[-1]
    assert any(not np.allclose(a, b) for a, b in zip(resumed.get_weights(), last))
