"""Chapter 09's pretraining schedule (``word2bert.course.pretraining``): phases of rounds, a resume that loses
nothing, snapshots that say which held-out pairs scored them."""
import keras
import numpy as np
import pytest

from backends import once_on_tensorflow
from interrupts import RaiseAt
from word2bert.course.pretraining import pretrain_in_phases, segments, snapshot_rounds
from word2bert.course.snapshots import pretraining_snapshots
from word2bert.datasets.pretraining import Document
from word2bert.models.bert import BertBackbone, BertPretrainer, PretrainingBatches
from word2bert.tokenizers import BERT_SPECIALS, WordPieceTokenizer

pytestmark = once_on_tensorflow  # the course's bookkeeping around fit: the TensorFlow pass runs it

WORDS = ["the", "cat", "dog", "sat", "ran", "on", "mat", "rug", "a", "big", "small", "house", "tree", "saw"]


def _documents(n, seed):
    rng = np.random.default_rng(seed)
    return [Document(f"d{k}", ("wiki", "bible")[k % 2],
                     [" ".join(rng.choice(WORDS, int(rng.integers(3, 8)))) + "." for _ in range(4)])
            for k in range(n)]


def _run(tmp_path, callbacks=()):
    keras.utils.set_random_seed(0)
    tok = WordPieceTokenizer(list(BERT_SPECIALS) + ["."] + WORDS)
    model = BertPretrainer(BertBackbone(tok.vocabulary_size, num_layers=1, hidden_dim=16, num_heads=2,
                                        intermediate_dim=32, max_sequence_length=32, dropout=0.0))
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    model.fit = _with_callbacks(model.fit, callbacks)
    docs = {"train": _documents(10, 0), "valid": _documents(4, 1)}
    return pretrain_in_phases(model, tok, docs, ((16, 2, 16), (32, 1, 8)), batch_size=4, mask_rate=0.15,
                              packed=True, valid_pairs=8, seed=0, model_dir=tmp_path, profile="ci", verbose=False)


def _with_callbacks(fit, extra):
    def fit_with(*args, callbacks=(), **kwargs):
        return fit(*args, callbacks=[*callbacks, *extra], **kwargs)
    return fit_with


def test_rounds_phases_tokens_and_snapshots(tmp_path):
    run = _run(tmp_path)
    assert run.history["phase"] == [1, 1, 2] and len(run.history["val_mlm_accuracy"]) == 3
    assert run.tokens == 2 * 4 * 4 * 16 + 1 * 2 * 4 * 32           # rounds x steps x batch x length
    assert 0 < run.real_tokens < run.tokens
    records = pretraining_snapshots(tmp_path)
    assert [r["rounds"] for r in records] == snapshot_rounds([(16, 16), (16, 16), (32, 8)], 4)
    assert {r["rounds"]: r["valid_length"] for r in records}[3] == 32
    assert all(r["valid_length"] == 16 for r in records if r["rounds"] < 3)
    assert not (tmp_path / "09_bert_training_state").exists()      # the state is deleted at the end


def test_a_run_stopped_after_a_round_resumes_with_the_next_rounds_pairs_and_masks(tmp_path, monkeypatch):
    """The resumed run starts at round 2 with round 2's draw (epoch 1 of the phase's batches), not round 1's again.
    Keras orders the batches of an epoch afresh in a new ``fit``, so the losses after the resume are close to an
    uninterrupted run's, not equal."""
    whole = _run(tmp_path / "whole")
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path / "cut", callbacks=[RaiseAt(1)])
    reads, original = [], PretrainingBatches.__getitem__

    def logged(self, index):
        if self.remask and self.seed == 100:                        # phase 1's training batches
            reads.append(self.epoch)
        return original(self, index)

    monkeypatch.setattr(PretrainingBatches, "__getitem__", logged)
    resumed = _run(tmp_path / "cut")
    assert reads[:4] == [0] * 4 and set(reads[4:]) == {1}           # a look at round 1's batches, then round 2 only
    assert resumed.history["val_mlm_loss"][0] == whole.history["val_mlm_loss"][0]   # round 1 is the saved one
    np.testing.assert_allclose(resumed.history["val_mlm_loss"], whole.history["val_mlm_loss"], rtol=0.03)
    assert resumed.tokens == whole.tokens and resumed.history["phase"] == [1, 1, 2]


def test_bad_phases_and_lengths_are_refused(tmp_path):
    with pytest.raises(ValueError, match="max_len >= 5"):
        pretrain_in_phases(None, None, {}, ((4, 1, 8),), 4, 0.15, True, 8, 0, tmp_path)
    with pytest.raises(ValueError, match="at least 5"):
        segments([], None, 3)
