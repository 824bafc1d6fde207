"""Tests for BERT: the masker's rates over >= 1e5 chosen positions (fixed seeds), whole-word masking,
new masks every epoch, the masked-LM loss and accuracy by hand with padded slots, the next-sentence
sampler, the tied output layer (also after .keras save/load), the parameter counts of BASE and
LARGE, the shared layer harness, equality with keras-hub's BertBackbone with copied weights, the
pretraining documents, and the same loss on 1 and 4 (simulated) devices with DataParallel."""
import os
import subprocess
import sys
import textwrap
import zlib

import keras
import numpy as np
import pytest

from backends import once_on_tensorflow
from layer_checks import run_layer_test, to_numpy
from word2bert.models.bert import (IS_NEXT, NOT_NEXT, BertBackbone, BertConfig, BertEmbedding, BertPretrainer,
                            MaskedLMAccuracy, MaskedLMHead, MaskedLMLoss, NextSentenceHead, NextSentencePairs,
                            PretrainingBatches, mask_tokens)
from word2bert.layers import ReversibleEmbedding
from word2bert.tokenizers import BERT_SPECIALS, WordPieceTokenizer

PAD, UNK, CLS, SEP, MASK = range(5)   # BERT_SPECIALS' ids in every vocabulary here
SPECIALS = [PAD, UNK, CLS, SEP, MASK]


def _synthetic_pairs(rng, n, length, vocabulary_size):
    """``[CLS] a [SEP] b [SEP] [PAD]...`` rows of random lengths, ids 5 .. vocabulary_size - 1 inside."""
    ids = np.zeros((n, length), np.int32)
    for row, real in enumerate(rng.integers(length // 2, length + 1, n)):
        ids[row, :real] = rng.integers(5, vocabulary_size, real)
        cut = int(rng.integers(2, real - 1))
        ids[row, [0, cut, real - 1]] = [CLS, SEP, SEP]
    return ids


# ------------------------------------------------------------------ masking
@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_masker_rates_over_1e5_positions():
    rng = np.random.default_rng(0)
    vocabulary_size = 1000
    ids = _synthetic_pairs(rng, 8000, 128, vocabulary_size)
    masked, positions, labels, weights = mask_tokens(ids, np.random.default_rng(1), vocabulary_size, SPECIALS, MASK,
                                                     max_predictions=20)
    eligible = ~np.isin(ids, SPECIALS)
    chosen = weights > 0
    assert chosen.sum() >= 100_000
    rows = np.broadcast_to(np.arange(len(ids))[:, None], positions.shape)
    original = ids[rows[chosen], positions[chosen]]
    assert not np.isin(original, SPECIALS).any()                 # [CLS], [SEP], [PAD] never chosen
    np.testing.assert_array_equal(labels[chosen], original)
    assert (labels[~chosen] == 0).all() and (positions[~chosen] == 0).all()
    assert (~chosen).any()                                       # padded slots are present
    share = chosen.sum() / eligible.sum()
    assert abs(share - 0.15) <= 0.01, share
    now = masked[rows[chosen], positions[chosen]]
    is_mask, unchanged = now == MASK, now == original
    is_random = ~is_mask & ~unchanged
    assert abs(is_mask.mean() - 0.8) <= 0.01, is_mask.mean()
    assert abs(is_random.mean() - 0.1) <= 0.01, is_random.mean()
    assert abs(unchanged.mean() - 0.1) <= 0.01, unchanged.mean()
    assert not np.isin(now[is_random], SPECIALS).any()           # random replacements are never special
    untouched = np.ones(ids.shape, bool)
    untouched[rows[chosen], positions[chosen]] = False
    np.testing.assert_array_equal(masked[untouched], ids[untouched])   # nothing else changes
    assert (np.diff(np.where(chosen, positions, 10**6), axis=1)[chosen[:, 1:]] > 0).all()   # increasing


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_masker_at_least_one_and_quota():
    ids = np.array([[CLS, 7, SEP, 0, 0, 0], [CLS, 7, 8, 9, 10, SEP]], np.int32)
    _, positions, labels, weights = mask_tokens(ids, 0, 20, SPECIALS, MASK, max_predictions=3)
    assert weights.sum(1).tolist() == [1, 1]       # round(0.15 * 1) = 0 and round(0.15 * 4) = 1: at least one
    assert positions[0, 0] == 1 and labels[0, 0] == 7
    _, _, _, weights = mask_tokens(ids, 0, 20, SPECIALS, MASK, rate=0.5, max_predictions=3)
    assert weights.sum(1).tolist() == [1, 2]
    with pytest.raises(ValueError, match="word_starts"):
        mask_tokens(ids, 0, 20, SPECIALS, MASK, whole_word=True)
    with pytest.raises(ValueError, match="special_ids"):
        mask_tokens(np.array([[2, 7, 3]]), 0, 10, special_ids=[0, 2, 3, -1], mask_id=4)
    with pytest.raises(ValueError, match="integers"):
        mask_tokens(np.array([[2.0, 7.0, 3.0]]), 0, 10, special_ids=[0, 2, 3], mask_id=4)


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_whole_word_masking_never_splits_a_word():
    rng = np.random.default_rng(2)
    ids = _synthetic_pairs(rng, 2000, 64, 500)
    starts = rng.random(ids.shape) < 0.6                         # 40% of pieces continue a word ("##")
    starts[np.isin(ids, SPECIALS)] = True
    word_of = np.cumsum(starts, axis=1)                          # word index of every token, per row
    eligible = ~np.isin(ids, SPECIALS)

    def split_words(whole_word):
        _, positions, _, weights = mask_tokens(ids, np.random.default_rng(3), 500, SPECIALS, MASK,
                                               whole_word=whole_word, word_starts=starts)
        chosen = np.zeros(ids.shape, bool)
        rows = np.broadcast_to(np.arange(len(ids))[:, None], positions.shape)
        chosen[rows[weights > 0], positions[weights > 0]] = True
        split = 0
        for r in range(len(ids)):
            for w in np.unique(word_of[r][chosen[r]]):
                piece = (word_of[r] == w) & eligible[r]
                split += not chosen[r][piece].all()
        return split, chosen.sum() / eligible.sum()

    split, share = split_words(True)
    assert split == 0
    assert abs(share - 0.15) <= 0.02, share
    assert split_words(False)[0] > 100                           # token-level masking does split words


# ------------------------------------------------------------------ data for fit
WORDS = ("the cat dog sat ran on a mat rug sun moon is was big small red blue green tree house river "
         "bird fish".split())


def _tokenizer():
    vocabulary = list(BERT_SPECIALS) + [".", ","] + list(WORDS) + ["walk", "##s", "##ing", "##ed"]
    return WordPieceTokenizer(vocabulary)


def _documents(n_docs=12, rng=None):
    rng = rng or np.random.default_rng(0)
    docs = []
    for d in range(n_docs):
        sentences = [" ".join(rng.choice(WORDS, int(rng.integers(3, 9)))) + (" walking" * (s % 2)) + "."
                     for s in range(int(rng.integers(3, 7)))]
        docs.append(sentences)
    return docs


def test_pretraining_batches_mask_again_each_epoch():
    tok = _tokenizer()
    data = PretrainingBatches(_documents(), tok, batch_size=4, sequence_length=24, seed=5)
    x0, y0, w0 = data[0]
    assert x0["token_ids"].shape == (4, 24) and x0["mask_positions"].shape == (4, 4)   # P = ceil(0.15 * 24)
    assert y0["mlm"].shape == (4, 4) and y0["nsp"].shape == (4,) and w0["mlm"].shape == (4, 4)
    assert (x0["token_ids"][:, 0] == tok.token_to_id("[CLS]")).all()
    again = PretrainingBatches(_documents(), tok, batch_size=4, sequence_length=24, seed=5)
    np.testing.assert_array_equal(again[0][0]["token_ids"], x0["token_ids"])   # same seed, same batch
    data.on_epoch_begin()                              # what fit calls: epoch 0 not read yet, still epoch 0
    assert data.epoch == 0
    np.testing.assert_array_equal(data[0][0]["token_ids"], x0["token_ids"])
    data.on_epoch_end()
    data.on_epoch_begin()                              # only batch 0 read (as fit's shape peek): still epoch 0
    assert data.epoch == 0
    for i in range(len(data)):
        data[i]
    data.on_epoch_end()
    data.on_epoch_begin()                              # every batch read: epoch 1
    assert data.epoch == 1
    x1 = data[0][0]
    assert not np.array_equal(x1["mask_positions"], x0["mask_positions"]) or \
        not np.array_equal(x1["token_ids"], x0["token_ids"])                   # epoch 1: other masks
    again.set_epoch(1)
    np.testing.assert_array_equal(again[0][0]["token_ids"], x1["token_ids"])   # epoch e uses seed + e
    fixed = PretrainingBatches(_documents(), tok, batch_size=4, sequence_length=24, seed=5, remask=False)
    first = fixed[0][0]["token_ids"]
    for _ in range(2):
        for i in range(len(fixed)):
            fixed[i]
        fixed.on_epoch_begin()
    assert fixed.epoch == 2
    np.testing.assert_array_equal(fixed[0][0]["token_ids"], first)
    # chosen positions hold real tokens of the unmasked pair, never padding
    for x, y, w in (data[i] for i in range(len(data))):
        chosen = w["mlm"] > 0
        assert (y["mlm"][chosen] >= len(BERT_SPECIALS)).all()
        assert (x["mask_positions"][chosen] < (x["token_ids"] != 0).sum(1, keepdims=True).repeat(4, 1)[chosen]).all()


# ------------------------------------------------------------------ loss and accuracy
def _log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def test_masked_lm_loss_and_accuracy_by_hand():
    rng = np.random.default_rng(4)
    logits = rng.normal(size=(2, 3, 5)).astype("float32")
    labels = np.array([[1, 4, 0], [2, 0, 0]], np.int32)
    weights = np.array([[1, 1, 0], [1, 0, 0]], np.float32)        # three chosen, three padded slots
    ce = -np.take_along_axis(_log_softmax(logits.astype("float64")), labels[..., None], -1)[..., 0]
    expected = (ce * weights).sum() / weights.sum()
    got = float(to_numpy(MaskedLMLoss()(labels, logits, sample_weight=weights)))
    assert abs(got - expected) < 1e-5
    assert abs(got - (ce * weights).sum() / weights.size) > 0.1  # not keras's sum_over_batch_size
    metric = MaskedLMAccuracy()
    metric.update_state(labels, logits, sample_weight=weights)
    hits = (logits.argmax(-1) == labels) * weights
    assert abs(float(to_numpy(metric.result())) - hits.sum() / weights.sum()) < 1e-6


def _tiny_pretrainer(vocabulary_size, dropout=0.0, max_len=24):
    return BertPretrainer(BertBackbone(vocabulary_size, num_layers=1, hidden_dim=16, num_heads=2, intermediate_dim=32,
                                       max_sequence_length=max_len, dropout=dropout))


@pytest.mark.slow
def test_fit_uses_the_weighted_mlm_loss():
    tok = _tokenizer()
    data = PretrainingBatches(_documents(), tok, batch_size=4, sequence_length=24, seed=1, pairs_per_epoch=12)
    model = _tiny_pretrainer(tok.vocabulary_size)
    model.compile(optimizer=keras.optimizers.Adam(1e-3))
    history = model.fit(data, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"]).all()
    assert data.epoch == 1                                                    # two epochs: 0 and 1
    x, y, w = data[0]
    result = model.evaluate(x, y, sample_weight=w, batch_size=4, verbose=0, return_dict=True)
    out = model.predict(x, verbose=0)
    ce = -np.take_along_axis(_log_softmax(out["mlm"].astype("float64")), y["mlm"][..., None], -1)[..., 0]
    mlm = (ce * w["mlm"]).sum() / w["mlm"].sum()
    nsp = -np.take_along_axis(_log_softmax(out["nsp"].astype("float64")), y["nsp"][:, None], -1).mean()
    assert abs(result["mlm_loss"] - mlm) < 1e-4, (result, mlm)
    assert abs(result["loss"] - mlm - nsp) < 1e-4
    hits = (out["mlm"].argmax(-1) == y["mlm"]) * w["mlm"]
    assert abs(result["mlm_accuracy"] - hits.sum() / w["mlm"].sum()) < 1e-6


# ------------------------------------------------------------------ next-sentence pairs
@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_next_sentence_pairs():
    rng = np.random.default_rng(6)
    docs = [[f"d{d}s{s}" for s in range(int(rng.integers(1, 12)))] for d in range(60)]
    sampler = NextSentencePairs(docs)
    pairs = []
    seed = 0
    while len(pairs) < 10_000:
        pairs += sampler.draw(seed)
        seed += 1
    labels = np.array([p.label for p in pairs])
    assert abs((labels == IS_NEXT).mean() - 0.5) <= 0.02
    for p in pairs:
        da, sa = (int(v) for v in p.a[1:].split("s"))
        db, sb = (int(v) for v in p.b[1:].split("s"))
        assert p.doc_a == da and p.doc_b == db
        if p.label == 1:                                     # google-research/bert's label: 1 = "is_random_next"
            assert db != da                                  # NotNext partners always from another document
        else:
            assert p.label == 0 and (db, sb) == (da, sa + 1)
    with pytest.raises(ValueError, match="at least 2 documents"):
        NextSentencePairs([["one sentence.", "another one.", "a third."]])


# ------------------------------------------------------------------ tied output layer
def _inputs(rng, vocabulary_size, batch=3, length=10, predictions=3):
    ids = _synthetic_pairs(rng, batch, length, vocabulary_size)
    segments = (np.cumsum(ids == SEP, axis=1) > 0).astype(np.int32) * (ids != 0)
    positions = np.sort(rng.integers(1, length // 2, (batch, predictions)), axis=1).astype(np.int32)
    return {"token_ids": ids, "segment_ids": segments, "mask_positions": positions}


def _tied(model):
    table = model.backbone.token_embedding.embeddings
    assert model.mlm_head.output_embeddings is table
    same_shape = [w for w in model.weights if tuple(w.shape) == tuple(table.shape)]
    assert len(same_shape) == 1 and same_shape[0] is table             # one variable, one path
    assert len({id(w) for w in model.weights}) == len(model.weights)
    return table


def test_mlm_output_is_the_token_embedding_also_after_save_and_load(tmp_path):
    vocabulary_size = 40
    model = _tiny_pretrainer(vocabulary_size, dropout=0.1)
    x = _inputs(np.random.default_rng(7), vocabulary_size)
    before = model(x)
    _tied(model)
    hidden = 16
    n_head = (hidden * hidden + hidden) + 2 * hidden + vocabulary_size + (hidden * 2 + 2)   # no second (V, H) matrix
    assert model.count_params() == model.backbone.count_params() + n_head
    model.compile(optimizer=keras.optimizers.Adam(1e-3))
    path = str(tmp_path / "pretrainer.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert isinstance(loaded.optimizer, keras.optimizers.Adam) and loaded.compiled   # restored compiled
    after = loaded(x)
    for key in ("mlm", "nsp"):
        np.testing.assert_allclose(to_numpy(after[key]), to_numpy(before[key]), atol=1e-5)
    table = _tied(loaded)
    bias = to_numpy(loaded.mlm_head.output_bias)
    loaded.mlm_head.output_bias.assign(bias + np.arange(vocabulary_size, dtype="float32"))
    table.assign(np.zeros(table.shape, "float32"))                   # changed through the backbone ...
    logits = to_numpy(loaded(x)["mlm"])                                # ... the head's output matrix is zero
    np.testing.assert_allclose(logits, np.broadcast_to(bias + np.arange(vocabulary_size), logits.shape), atol=1e-5)


# ------------------------------------------------------------------ sizes
def test_base_and_large_parameter_counts():
    assert BertConfig.base().num_parameters() == 109_482_240           # the paper's "110M"
    assert BertConfig.large().num_parameters() == 335_141_888          # the paper's "340M"
    assert BertConfig.base(8000, num_layers=4).num_layers == 4
    config = BertConfig(97, num_layers=2, hidden_dim=24, num_heads=4, intermediate_dim=40, max_sequence_length=33,
                        num_segments=3)
    backbone = BertBackbone.from_bert_config(config)
    backbone({"token_ids": np.ones((1, 4), np.int32), "segment_ids": np.zeros((1, 4), np.int32)})
    assert backbone.count_params() == config.num_parameters()
    with pytest.raises(ValueError, match="num_heads"):
        BertConfig(100, 2, 30, 4, 64)


# ------------------------------------------------------------------ the shared harness
@pytest.mark.slow
def test_bert_embedding_through_harness(tmp_path):
    rng = np.random.default_rng(8)
    ids = _synthetic_pairs(rng, 2, 6, 30)
    segments = (np.cumsum(ids == SEP, axis=1) > 1).astype(np.int32)
    # the .keras round trip in separate TensorFlow and JAX processes: inside the backbone, in the next test
    run_layer_test(BertEmbedding, {"vocabulary_size": 30, "hidden_dim": 8, "max_sequence_length": 7, "num_segments": 3,
                                   "dropout": 0.2, "layer_norm_epsilon": 1e-6},
                   [ids, segments], tmp_path, expected_output_shape=(2, 6, 8), expected_num_trainable_weights=5,
                   expected_output_mask=ids != 0, cross_backend=False)
    layer = BertEmbedding(30, 8, max_sequence_length=5)
    with pytest.raises(ValueError, match="6 positions.*max_sequence_length is 5"):
        layer(ids, segments)


@pytest.mark.slow
@pytest.mark.jax_too
def test_bert_backbone_through_harness(tmp_path):
    rng = np.random.default_rng(9)
    ids = _synthetic_pairs(rng, 2, 6, 30)
    segments = (np.cumsum(ids == SEP, axis=1) > 1).astype(np.int32)
    run_layer_test(BertBackbone, {"vocabulary_size": 30, "num_layers": 1, "hidden_dim": 8, "num_heads": 2,
                                  "intermediate_dim": 16, "max_sequence_length": 8, "num_segments": 2, "dropout": 0.1,
                                  "return_dict": False},
                   [(ids, segments)], tmp_path, expected_output_shape=[(2, 6, 8), (2, 8)],
                   expected_output_mask=[ids != 0, None],   # the padding mask on the token vectors alone
                   expected_num_trainable_weights=5 + 16 + 2, atol=1e-5)


@pytest.mark.slow
def test_masked_lm_head_through_harness(tmp_path):
    rng = np.random.default_rng(10)
    hidden = rng.normal(size=(2, 6, 8)).astype("float32")
    positions = np.array([[1, 4, 0], [5, 2, 2]], np.int32)
    out = run_layer_test(MaskedLMHead, {"vocabulary_size": 11, "activation": "gelu", "layer_norm_epsilon": 1e-6},
                         [hidden, positions], tmp_path, expected_output_shape=(2, 3, 11),
                         expected_num_trainable_weights=6, cross_backend=False)[0]
    np.testing.assert_allclose(out[1, 1], out[1, 2], atol=1e-6)          # two slots on position 2 agree
    assert not np.allclose(out[0, 0], out[0, 1])
    with pytest.raises(ValueError, match="mask_positions must be integers"):
        MaskedLMHead(11)(hidden, positions.astype("float32"))


def test_next_sentence_head_through_harness(tmp_path):
    pooled = np.random.default_rng(11).normal(size=(3, 8)).astype("float32")
    run_layer_test(NextSentenceHead, {"num_classes": 2}, [pooled], tmp_path, expected_output_shape=(3, 2),
                   expected_num_trainable_weights=2, cross_backend=False)
    with pytest.raises(ValueError, match="num_classes"):
        NextSentenceHead(1)
    with pytest.raises(ValueError, match="pooled output"):
        NextSentenceHead()(np.zeros((3, 4, 8), "float32"))


# ------------------------------------------------------------------ keras-hub
_HUB_BLOCK = {"self_attention_norm": "self_attention_layer_norm", "feedforward_norm": "feedforward_layer_norm",
              "feedforward_inner": "feedforward_intermediate_dense", "feedforward_outer": "feedforward_output_dense",
              "self_attention": "self_attention_layer", "query_kernel": "query/kernel", "query_bias": "query/bias",
              "key_kernel": "key/kernel", "key_bias": "key/bias", "value_kernel": "value/kernel",
              "value_bias": "value/bias", "output_kernel": "attention_output/kernel",
              "output_bias": "attention_output/bias"}
_HUB_TOP = {"embedding/token_and_position/token_embedding": "token_embedding",
            "embedding/segment_embedding": "segment_embedding",
            "embedding/token_and_position/position_encoding": "position_embedding",
            "embedding/layer_norm": "embeddings_layer_norm", "pooler": "pooled_dense"}


def _strip(path, model):
    return path[len(model.name) + 1:] if path.startswith(model.name + "/") else path


def _hub_name(path):
    parts = path.split("/")
    for n in (3, 2):
        head = "/".join(parts[:n])
        if head in _HUB_TOP:
            return "/".join([_HUB_TOP[head]] + parts[n:])
    if parts[0] in _HUB_TOP:
        return "/".join([_HUB_TOP[parts[0]]] + parts[1:])
    block = parts[0].replace("encoder_", "transformer_layer_")
    return "/".join([block] + [_HUB_BLOCK.get(p, p) for p in parts[1:]])


def _twin_backbones(num_layers, max_len, rng):
    """keras-hub's BertBackbone with random weights, and ours (keras-hub's GELU) with the same weights copied."""
    import keras_hub
    from keras_hub.src.utils.keras_utils import gelu_approximate

    ref = keras_hub.models.BertBackbone(vocabulary_size=50, num_layers=num_layers, num_heads=2, hidden_dim=16,
                                        intermediate_dim=32, max_sequence_length=max_len, dropout=0.0)
    ours = BertBackbone(50, num_layers, 2, 16, 32, max_sequence_length=max_len, dropout=0.0, activation=gelu_approximate)
    ours.build()
    assert ours.count_params() == ref.count_params()
    by_name = {_strip(w.path, ref): w for w in ref.weights}
    for w in ref.weights:
        w.assign(rng.normal(0, 0.3, w.shape).astype("float32"))
    values = []
    for w in ours.weights:
        source = by_name.pop(_hub_name(_strip(w.path, ours)))
        assert tuple(source.shape) == tuple(w.shape), w.path
        values.append(to_numpy(source))
    assert not by_name, sorted(by_name)
    ours.set_weights(values)
    return ref, ours


def test_backbone_equals_keras_hub_with_copied_weights():
    rng = np.random.default_rng(10)
    ref, ours = _twin_backbones(2, 12, rng)
    ids = _synthetic_pairs(rng, 3, 10, 50)
    segments = ((np.cumsum(ids == SEP, axis=1) > 0) & (ids != 0)).astype(np.int32)
    expected = ref({"token_ids": ids, "segment_ids": segments, "padding_mask": (ids != 0).astype("int32")})
    got = ours({"token_ids": ids, "segment_ids": segments})
    real = ids != 0
    seq = to_numpy(got["sequence_output"])[real] - to_numpy(expected["sequence_output"])[real]
    assert np.abs(seq).max() <= 1e-4
    np.testing.assert_allclose(to_numpy(got["pooled_output"]), to_numpy(expected["pooled_output"]), atol=1e-4)


# ------------------------------------------------------------------ documents
@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_pretraining_documents_leave_out_the_evaluation_books():
    from word2bert.datasets import BIBLE_SPLITS, pretraining_documents

    train, valid = pretraining_documents("train"), pretraining_documents("valid")
    ids_train, ids_valid = {d.id for d in train}, {d.id for d in valid}
    assert len(ids_train) == len(train) and not ids_train & ids_valid
    assert sum(d.source == "wikipedia" for d in train + valid) == 106
    held_books = set(BIBLE_SPLITS["test"]) | set(BIBLE_SPLITS["valid"])
    for d in train + valid:
        assert d.sentences and all(isinstance(s, str) and s for s in d.sentences)
        if d.source == "bible":
            assert d.id.removeprefix("bible/").rsplit(" ", 1)[0] not in held_books
    assert "bible/Genesis 1" in ids_train | ids_valid and "bible/Ruth 1" not in ids_train | ids_valid
    genesis = next(d for d in train + valid if d.id == "bible/Genesis 1")
    assert genesis.sentences[0].startswith("In the beginning")                   # a verse is a sentence
    for source in ("wikipedia", "bible"):
        n_valid = sum(d.source == source for d in valid)
        n_all = n_valid + sum(d.source == source for d in train)
        assert n_valid == round(0.1 * n_all)
    assert min(zlib.crc32(d.id.encode()) for d in train if d.source == "bible") > \
        max(zlib.crc32(d.id.encode()) for d in valid if d.source == "bible")


# ------------------------------------------------------------------ data parallel
_DATA_PARALLEL = textwrap.dedent("""
    import json
    import keras
    import numpy as np
    from word2bert.models.bert import BertBackbone, BertPretrainer, mask_tokens

    rng = np.random.default_rng(0)
    batches = []
    for step in range(4):
        ids = rng.integers(5, 60, (8, 16)).astype("int32")
        ids[:, 0], ids[:, 8], ids[:, -1] = 2, 3, 3
        ids[::3, 12:] = 0
        masked, positions, labels, weights = mask_tokens(ids, rng, 60, [0, 1, 2, 3, 4], 4, max_predictions=4)
        segments = (np.arange(16) > 8).astype("int32")[None].repeat(8, 0) * (ids != 0)
        batches.append(({"token_ids": masked, "segment_ids": segments, "mask_positions": positions},
                        {"mlm": labels, "nsp": rng.integers(0, 2, 8).astype("int32")},
                        {"mlm": weights, "nsp": np.ones(8, "float32")}))

    class Batches(keras.utils.PyDataset):
        def __init__(self, items):
            super().__init__()
            self.items = items
        def __len__(self):
            return len(self.items)
        def __getitem__(self, i):
            return self.items[i]

    def run():
        keras.utils.set_random_seed(0)
        model = BertPretrainer(BertBackbone(60, 2, 2, 16, 32, max_sequence_length=16, dropout=0.1))
        model.compile(optimizer=keras.optimizers.Adam(1e-2))
        model.fit(Batches(batches[:3]), epochs=1, verbose=0, shuffle=False)
        return model.evaluate(Batches(batches[3:]), verbose=0, return_dict=True)["loss"]

    single = run()
    devices = keras.distribution.list_devices()
    keras.distribution.set_distribution(keras.distribution.DataParallel(devices=devices))
    parallel = run()
    print(json.dumps({"devices": len(devices), "single": single, "parallel": parallel}))
""")


@pytest.mark.slow
@pytest.mark.jax_too
@pytest.mark.skipif(keras.backend.backend() != "jax", reason="DataParallel is the JAX backend's engine; runs once")
def test_same_loss_on_one_and_four_devices():
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count=4".strip()  # conftest's kept
    env = {**os.environ, "XLA_FLAGS": flags, "KERAS_BACKEND": "jax", "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", _DATA_PARALLEL], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    import json
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["devices"] == 4
    assert abs(result["single"] - result["parallel"]) <= 1e-4, result


def test_load_pretrained_names_the_command_and_loads_what_chapter_09_saves(tmp_path):
    from word2bert.course.snapshots import MODEL_FILE, VOCAB_FILE, load_pretrained

    with pytest.raises(FileNotFoundError, match=r"run --profile cpu 09"):
        load_pretrained(tmp_path / "cpu")
    tok = _tokenizer()
    model = _tiny_pretrainer(tok.vocabulary_size)
    model.build()
    folder = tmp_path / "ci"
    folder.mkdir()
    model.save(str(folder / MODEL_FILE))
    with pytest.raises(FileNotFoundError, match=VOCAB_FILE):
        load_pretrained(folder)
    tok.save(folder / VOCAB_FILE)
    loaded, loaded_tok = load_pretrained(folder)
    assert loaded_tok.vocabulary == tok.vocabulary
    x = _inputs(np.random.default_rng(3), tok.vocabulary_size)
    np.testing.assert_allclose(to_numpy(loaded(x)["mlm"]), to_numpy(model(x)["mlm"]), atol=1e-5)
    WordPieceTokenizer(tok.vocabulary + ["extra"]).save(folder / VOCAB_FILE)
    with pytest.raises(ValueError, match="different runs"):
        load_pretrained(folder)


def test_snapshots_are_taken_after_the_chosen_epochs_across_fit_calls_and_load_back(tmp_path):
    """Two ``fit`` calls (phases, ``initial_epoch``) of 2 + 1 epochs, snapshots after epochs 1 and 3: each file holds
    the weights of its moment (the epoch-1 one differs from the final one; the epoch-3 one equals it), the records
    come back fewest tokens first, and ``load_pretrained(snapshot=...)`` loads that model."""
    from word2bert.course.snapshots import (VOCAB_FILE, SnapshotCallback, load_pretrained, pretraining_snapshots,
                                            save_snapshot)

    tok = _tokenizer()
    tok.save(tmp_path / VOCAB_FILE)
    data = PretrainingBatches(_documents(), tok, batch_size=4, sequence_length=24, seed=1, pairs_per_epoch=8)
    model = _tiny_pretrainer(tok.vocabulary_size)
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    weights_after = {}

    class Remember(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            weights_after[epoch + 1] = [w.copy() for w in self.model.get_weights()]

    snapshots = SnapshotCallback(tmp_path, at_epochs=[3, 1], record=lambda e, logs: {"tokens": 100 * e, "profile": "ci",
                                                                                   "loss": logs["loss"]})
    model.fit(data, epochs=2, verbose=0, callbacks=[snapshots, Remember()])
    model.fit(data, epochs=3, initial_epoch=2, verbose=0, callbacks=[snapshots, Remember()])
    records = pretraining_snapshots(tmp_path)
    assert [(r["epochs"], r["tokens"], r["profile"]) for r in records] == [(1, 100, "ci"), (3, 300, "ci")]
    assert all(np.isfinite(r["loss"]) for r in records)
    x = _inputs(np.random.default_rng(3), tok.vocabulary_size)
    for record in records:
        loaded, _ = load_pretrained(tmp_path, snapshot=record)
        for got, want in zip(loaded.get_weights(), weights_after[record["epochs"]]):
            np.testing.assert_allclose(got, want, atol=1e-6)
    first, _ = load_pretrained(tmp_path, snapshot=records[0])
    assert not np.allclose(to_numpy(first(x)["mlm"]), to_numpy(model(x)["mlm"]), atol=1e-4)
    with pytest.raises(ValueError, match="tokens"):
        save_snapshot(model, tmp_path, 2, {"minutes": 1.0})
    with pytest.raises(ValueError, match="epochs"):
        SnapshotCallback(tmp_path, at_epochs=[0], record=lambda e, logs: {})
    (tmp_path / "09_bert_snapshot_007.json").write_text("{not json")
    with pytest.raises(ValueError, match="09_bert_snapshot_007.json is not valid JSON"):
        pretraining_snapshots(tmp_path)
    assert not list(tmp_path.glob(".*.tmp"))                             # no temporary file left behind


# ------------------------------------------------------------------ initialisation, epsilons, masks, the tied head
@pytest.mark.slow
def test_every_kernel_of_the_backbone_starts_as_bert_initializes_it():
    backbone = BertBackbone(vocabulary_size=300, num_layers=2, hidden_dim=64, num_heads=4, intermediate_dim=256)
    backbone.build()
    kernels = [w for w in backbone.weights if w.path.endswith(("kernel", "embeddings"))]
    assert len(kernels) == 3 + 2 * 6 + 1                       # 3 tables, q k v o + FFN 2 per block, the pooler
    for w in kernels:
        values = to_numpy(w)
        # a normal truncated at 2 sigma, sigma 0.02, has std 0.0176 (glorot_uniform on 64 x 256 gives 0.079)
        assert abs(values.std() - 0.0176) < 0.003 and np.abs(values).max() <= 0.04 + 1e-6, w.path
    biases = [to_numpy(w) for w in backbone.weights if w.path.endswith("bias") and "norm" not in w.path]
    assert biases and all(np.all(b == 0) for b in biases)


def test_embedding_dropout_acts_after_the_layer_norm():
    # BERT: LayerNorm(sum) then dropout, so in training every output is 0 or the inference output / (1 - rate)
    emb = BertEmbedding(vocabulary_size=30, hidden_dim=16, max_sequence_length=8, dropout=0.5)
    ids = np.array([[2, 7, 9, 3, 0]], np.int32)
    inference = to_numpy(emb(ids, training=False))
    trained = to_numpy(emb(ids, training=True))
    kept = trained != 0
    assert 0.2 < kept.mean() < 0.8
    np.testing.assert_allclose(trained[kept], inference[kept] / 0.5, rtol=1e-5)


def test_every_layer_norm_of_the_backbone_uses_its_epsilon():
    backbone = BertBackbone(vocabulary_size=50, num_layers=2, hidden_dim=16, num_heads=2, intermediate_dim=32,
                            layer_norm_epsilon=1e-7)
    backbone.build()
    norms = [layer for layer in backbone._flatten_layers() if isinstance(layer, keras.layers.LayerNormalization)]
    assert len(norms) == 1 + 2 * 2
    assert {layer.epsilon for layer in norms} == {1e-7}


def test_a_pad_written_in_the_text_is_a_real_token_when_the_padding_mask_is_given():
    ref, ours = _twin_backbones(1, 8, np.random.default_rng(12))
    # "[CLS] my [PAD] dog [SEP]" then padding: id 0 at position 2 is a token of the text
    ids = np.array([[CLS, 7, PAD, 9, SEP, 0, 0, 0]], np.int32)
    padding_mask = np.array([[1, 1, 1, 1, 1, 0, 0, 0]], np.int32)
    segments = np.zeros_like(ids)
    expected = to_numpy(ref({"token_ids": ids, "segment_ids": segments, "padding_mask": padding_mask})
                        ["sequence_output"])
    got = to_numpy(ours({"token_ids": ids, "segment_ids": segments, "padding_mask": padding_mask})["sequence_output"])
    np.testing.assert_allclose(got[:, :5], expected[:, :5], atol=1e-4)
    by_ids = to_numpy(ours({"token_ids": ids, "segment_ids": segments})["sequence_output"])
    assert not np.allclose(by_ids[:, :2], got[:, :2], atol=1e-3)          # without it, position 2 is masked
    with pytest.raises(ValueError, match="padding_mask must have the shape of token_ids"):
        ours({"token_ids": ids, "segment_ids": segments, "padding_mask": padding_mask[:, :5]})
    pretrainer = BertPretrainer(ours)
    out = pretrainer({"token_ids": ids, "segment_ids": segments, "padding_mask": padding_mask,
                      "mask_positions": np.array([[2]], np.int32)})
    assert out["mlm"].shape == (1, 1, 50)


def test_masked_lm_head_equals_keras_hub_with_copied_weights():
    import keras_hub

    rng = np.random.default_rng(13)
    ours_table = ReversibleEmbedding(40, 16)
    ours_table.build((None,))
    ref_table = keras_hub.layers.ReversibleEmbedding(40, 16, tie_weights=True)
    ref_table.build((None,))
    ref_table.embeddings.assign(to_numpy(ours_table.embeddings))
    ours = MaskedLMHead(40, token_embedding=ours_table, activation="gelu", layer_norm_epsilon=1e-12)
    ref = keras_hub.layers.MaskedLMHead(vocabulary_size=40, token_embedding=ref_table, intermediate_activation="gelu",
                                        layer_norm_epsilon=1e-12)
    hidden = rng.normal(size=(3, 7, 16)).astype("float32")
    positions = rng.integers(0, 7, (3, 4)).astype("int32")
    ours(hidden, positions), ref(hidden, positions)
    ref_by_name = {w.path.split("/", 1)[1]: w for w in ref.weights if "embeddings" not in w.path}
    names = {"transform/kernel": "intermediate_dense/kernel", "transform/bias": "intermediate_dense/bias",
             "transform_norm/gamma": "intermediate_layer_norm/gamma", "transform_norm/beta": "intermediate_layer_norm/beta",
             "output_bias": "output_bias"}
    for w in ours.weights:
        if "embeddings" in w.path:
            continue
        value = rng.normal(0, 0.3, w.shape).astype("float32")
        w.assign(value)
        ref_by_name[names[w.path.split("/", 1)[1]]].assign(value)
    np.testing.assert_allclose(to_numpy(ours(hidden, positions)), to_numpy(ref(hidden, positions)), atol=1e-4)


@pytest.mark.slow
def test_the_tied_head_trains_the_token_table_also_for_ids_absent_from_the_inputs():
    keras.utils.set_random_seed(3)
    backbone = BertBackbone(vocabulary_size=30, num_layers=1, hidden_dim=16, num_heads=2, intermediate_dim=32,
                            max_sequence_length=8, dropout=0.0)
    model = BertPretrainer(backbone)
    model.compile(optimizer=keras.optimizers.SGD(0.5))
    rng = np.random.default_rng(14)
    ids = rng.integers(5, 15, (4, 8)).astype(np.int32)                 # ids 15..29 never appear as inputs
    x = {"token_ids": ids, "segment_ids": np.zeros_like(ids), "mask_positions": np.tile([[1, 2]], (4, 1))}
    y = {"mlm": rng.integers(5, 15, (4, 2)).astype(np.int32), "nsp": np.zeros((4,), np.int32)}
    weights = {"mlm": np.ones((4, 2), "float32"), "nsp": np.ones((4,), "float32")}
    model(x)
    before = to_numpy(backbone.token_embedding.embeddings).copy()
    model.fit(x, y, sample_weight=weights, epochs=1, batch_size=4, verbose=0)
    after = to_numpy(backbone.token_embedding.embeddings)
    moved = np.abs(after - before).max(axis=1) > 1e-6
    assert moved[15:].all()                                            # only the output side reaches these rows
