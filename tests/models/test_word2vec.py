"""Tests for word2bert.models.word2vec / word2vec_data: textbook Huffman codes, entropy bound,
sampling rates by chi-square, subsampling formulas by hand, hand-made pair lists,
and the output layers against direct numpy / keras computations."""
import itertools
import os

import keras
import numpy as np
import pytest
from scipy import stats

from layer_checks import run_layer_test
from word2bert.models import word2vec as w2v


# ------------------------------------------------------------------ Huffman tree
def test_huffman_textbook_lengths_and_prefix_free():
    # CLRS 16.3: a:45 b:13 c:12 d:16 e:9 f:5 -> code lengths 1,3,3,3,4,4
    counts = [45, 13, 12, 16, 9, 5]
    tree = w2v.build_huffman_tree(counts)
    assert tree.code_lengths.tolist() == [1, 3, 3, 3, 4, 4]
    words = ["".join(map(str, c)) for c in tree.codes]
    for x, y in itertools.permutations(words, 2):
        assert not y.startswith(x)
    # every path starts at the root (inner node V-2) and has one node per code bit
    assert all(p[0] == len(counts) - 2 and len(p) == len(c) for p, c in zip(tree.points, tree.codes))


def test_huffman_entropy_bound_random_counts():
    rng = np.random.default_rng(0)
    counts = rng.zipf(1.3, 2000).astype(float)
    tree = w2v.build_huffman_tree(counts)
    p = counts / counts.sum()
    expected = float(np.sum(p * tree.code_lengths))
    entropy = float(-np.sum(p * np.log2(p)))
    assert entropy <= expected < entropy + 1
    words = sorted("".join(map(str, c)) for c in tree.codes)
    assert all(not b.startswith(a) for a, b in zip(words, words[1:]))  # sorted: prefix would be adjacent


def test_hierarchical_softmax_sums_to_one_and_matches_hand():
    counts = [50, 20, 10, 5, 3, 1, 1]
    layer = w2v.HierarchicalSoftmax(counts)
    hidden = np.random.default_rng(1).standard_normal((3, 4)).astype("float32")
    layer(hidden, np.array([0, 1, 2]))
    inner = np.random.default_rng(2).standard_normal((len(counts) - 1, 4)).astype("float32")
    layer.inner_vectors.assign(inner)
    probs = np.exp(keras.ops.convert_to_numpy(layer.log_probs(hidden)))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    # hand: product of sigmoids along the path, code 0 -> sigmoid(+x)
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    w = 5
    hand = np.prod([sig((1 - 2 * c) * inner[n] @ hidden[0]) for n, c in zip(layer.tree.points[w], layer.tree.codes[w])])
    nll = keras.ops.convert_to_numpy(layer(hidden[:1], np.array([w])))
    np.testing.assert_allclose(np.exp(-nll[0]), hand, rtol=1e-5)


# ------------------------------------------------------------ negative sampling
def test_unigram_probs_and_sampler_chi_square():
    probs = w2v.unigram_probs([100, 10, 1])
    np.testing.assert_allclose(probs, [0.827, 0.147, 0.026], atol=1e-3)
    expected = 1e5 * np.array([100 ** 0.75, 10 ** 0.75, 1.0]) / (100 ** 0.75 + 10 ** 0.75 + 1)
    draws = w2v.sample_negatives(probs, (100_000,), np.random.default_rng(0))
    assert stats.chisquare(np.bincount(draws, minlength=3), expected).pvalue > 1e-3
    layer = w2v.NegativeSampling([100, 10, 1], num_negatives=5, seed=0)
    in_graph = keras.ops.convert_to_numpy(layer.sample((20_000, 5))).ravel()
    assert stats.chisquare(np.bincount(in_graph, minlength=3), expected).pvalue > 1e-3


def test_negative_equal_to_positive_is_masked():
    # documented rule: a negative that equals the target contributes nothing
    layer = w2v.NegativeSampling([100, 10, 1], num_negatives=5, seed=3)
    rng = np.random.default_rng(4)
    hidden = rng.standard_normal((1000, 8)).astype("float32")
    target = np.zeros(1000, dtype="int32")
    negatives = keras.ops.convert_to_numpy(layer.sample((1000, 5)))
    loss = keras.ops.convert_to_numpy(layer(hidden, target, negatives))
    out = rng.standard_normal((3, 8)).astype("float32")
    layer.output_vectors.assign(out)
    loss = keras.ops.convert_to_numpy(layer(hidden, target, negatives))
    logsig = lambda x: -np.logaddexp(0, -x)  # noqa: E731
    pos = hidden @ out[0]
    neg = np.einsum("bd,bkd->bk", hidden, out[negatives])
    hand = -logsig(pos) - np.sum(np.where(negatives != 0, logsig(-neg), 0.0), axis=1)
    np.testing.assert_allclose(loss, hand, rtol=1e-4, atol=1e-5)
    share = np.mean(negatives == 0)
    assert 0.80 < share < 0.85  # the rule matters: ~83% of draws hit the positive here


# ------------------------------------------------------------------ subsampling
def test_subsample_keep_prob_formulas():
    counts = np.array([5e4, 100])
    c = w2v.subsample_keep_prob(counts, 1e-3, total=1e6, formula="word2vec.c")
    p = w2v.subsample_keep_prob(counts, 1e-3, total=1e6, formula="paper")
    assert c[0] == pytest.approx(0.1614, abs=1e-4) and p[0] == pytest.approx(0.1414, abs=1e-4)
    assert c[1] == 1.0 and p[1] == 1.0
    assert np.all(w2v.subsample_keep_prob(counts, 0.0) == 1.0)
    with pytest.raises(ValueError, match="formula"):
        w2v.subsample_keep_prob(counts, formula="nope")


# ------------------------------------------------------------------------ pairs
def test_skipgram_pairs_hand_example():
    ids = np.array([1, 2, 3, 4, 5]); sent = np.array([0, 0, 0, 1, 1])
    c, o = w2v.skipgram_pairs(ids, sent, window_size=1, dynamic_window=False, shuffle=False)
    assert sorted(zip(c.tolist(), o.tolist())) == [(1, 2), (2, 1), (2, 3), (3, 2), (4, 5), (5, 4)]
    ctx, cen = w2v.cbow_examples(ids, sent, window_size=1, dynamic_window=False, shuffle=False)
    assert cen.tolist() == [1, 2, 3, 4, 5]
    assert ctx.tolist() == [[0, 2], [1, 3], [2, 0], [0, 5], [4, 0]]
    with pytest.raises(ValueError, match="window_size"):
        w2v.skipgram_pairs(ids, sent, window_size=0)


def test_dynamic_window_distance_distribution():
    n, window = 20_000, 5
    c, o = w2v.skipgram_pairs(np.arange(n), np.zeros(n, dtype=int), window, np.random.default_rng(0))
    dist = np.bincount(np.abs(c - o), minlength=window + 1)[1:]
    # a context at distance d is used with probability (W - d + 1) / W
    np.testing.assert_allclose(dist / dist[0], [(window - d + 1) / window for d in range(1, window + 1)], atol=0.02)


def test_subsampling_keeps_expected_share():
    ids = np.repeat([0, 1], [50_000, 50]); keep = np.array([0.2, 1.0])
    c, o = w2v.skipgram_pairs(np.random.default_rng(1).permutation(ids), np.arange(len(ids)) // 10, 3,
                              np.random.default_rng(2), keep_prob=keep, dynamic_window=False)
    # every pair involves kept tokens only; the rare word (keep 1.0) is never dropped
    assert np.sum(c == 1) > 0 and np.mean(np.concatenate([c, o]) == 0) < 1


# ---------------------------------------------------------------- output layers
def test_softmax_output_matches_keras_crossentropy():
    layer = w2v.SoftmaxOutput(7)
    rng = np.random.default_rng(0)
    hidden = rng.standard_normal((4, 3)).astype("float32"); target = np.array([0, 3, 6, 2])
    layer(hidden, target)
    u = rng.standard_normal((7, 3)).astype("float32"); layer.output_vectors.assign(u)
    ref = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)(target, hidden @ u.T)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(hidden, target)), keras.ops.convert_to_numpy(ref), rtol=1e-5)


@pytest.mark.parametrize("model_cls", [w2v.SkipGram, w2v.CBOW])
@pytest.mark.parametrize("output", ["softmax", "hierarchical", "negative"])
def test_models_save_load_and_learn(tmp_path, model_cls, output):
    rng = np.random.default_rng(0)
    counts = np.arange(30, 0, -1).astype(float); counts[0] = 0
    model = model_cls(30, 8, output, counts=counts, num_negatives=3, seed=0)
    if model_cls is w2v.SkipGram:
        x = (rng.integers(1, 30, 256), rng.integers(1, 30, 256) % 5 + 1)
    else:
        ctx = rng.integers(1, 30, (256, 4)); ctx[:, 3] = 0
        x = (ctx, ctx[:, 0] % 5 + 1)
    if output == "negative":
        x = x + (rng.integers(1, 30, (256, 3)),)
    model.compile(keras.optimizers.Adam(0.05))
    losses = model.fit(x, batch_size=64, epochs=4, verbose=0).history["loss"]
    assert losses[-1] < losses[0]
    path = os.path.join(tmp_path, "m.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)), keras.ops.convert_to_numpy(model(x)), rtol=1e-5)
    assert loaded.get_config() == model.get_config()


def test_cbow_ignores_padding_and_errors():
    model = w2v.CBOW(10, 4, "softmax")
    a = keras.ops.convert_to_numpy(model((np.array([[3, 4, 0, 0]]), np.array([5]))))
    b = keras.ops.convert_to_numpy(model((np.array([[0, 3, 0, 4]]), np.array([5]))))
    np.testing.assert_allclose(a, b, rtol=1e-6)
    with pytest.raises(ValueError, match="output"):
        w2v.SkipGram(10, 4, "nce")
    with pytest.raises(ValueError, match="counts"):
        w2v.SkipGram(10, 4, "negative")
    with pytest.raises(ValueError, match="num_negatives"):
        w2v.NegativeSampling([1, 2], num_negatives=0)


def test_mixed_precision_finite():
    keras.config.set_dtype_policy("mixed_float16")
    try:
        counts = np.arange(20, 0, -1)
        for output in ("softmax", "hierarchical", "negative"):
            m = w2v.SkipGram(20, 8, output, counts=counts, seed=0)
            assert np.all(np.isfinite(keras.ops.convert_to_numpy(m((np.array([1, 2]), np.array([3, 4]))))))
    finally:
        keras.config.set_dtype_policy("float32")


@pytest.mark.parametrize("optimizer,lr", [("sgd", 0.01), ("adam", 0.01)])
def test_train_word2vec_learns_cooccurrence(optimizer, lr):
    # two topics that never share a sentence: words of one topic end up closer together
    rng = np.random.default_rng(0)
    sents = [list(rng.choice(["a", "b", "c", "d"], 8)) for _ in range(300)] + \
            [list(rng.choice(["w", "x", "y", "z"], 8)) for _ in range(300)]
    from word2bert.tokenizers import Vocabulary
    vocab = Vocabulary(sents, specials=("<pad>",), unk_token=None)
    ids, sid = w2v.encode_sentences(sents, vocab)
    model = w2v.SkipGram(len(vocab), 8, "negative", counts=vocab.counts, seed=0)
    out = w2v.train_word2vec(model, ids, sid, epochs=3, window_size=2, sample=0, batch_size=64, learning_rate=lr,
                             optimizer=optimizer)
    assert out["loss"][-1] < out["loss"][0] and out["examples"] > 0
    v = model.word_vectors(); v = v / np.linalg.norm(v, axis=1, keepdims=True)
    same = v[vocab.stoi["a"]] @ v[vocab.stoi["b"]]
    other = v[vocab.stoi["a"]] @ v[vocab.stoi["x"]]
    assert same > other + 0.3


# ------------------------------------------------------------ sparse SGD step
def test_alias_table_reproduces_the_distribution():
    # independent check: column i gives word i with accept[i] and alias[i] otherwise, each column 1/V
    probs = w2v.unigram_probs(np.random.default_rng(0).zipf(1.5, 300).astype(float))
    accept, alias = w2v.alias_table(probs)
    rebuilt = accept.copy()
    np.add.at(rebuilt, alias, 1.0 - accept)
    np.testing.assert_allclose(rebuilt / len(probs), probs, atol=1e-12)
    with pytest.raises(ValueError, match="summing to 1"):
        w2v.alias_table([0.5, 0.6])
    with pytest.raises(ValueError, match="non-negative"):
        w2v.alias_table([1.5, -0.5])


@pytest.mark.skipif(keras.config.backend() != "tensorflow", reason="uses tf.GradientTape")
@pytest.mark.parametrize("output", ["hierarchical", "negative"])
def test_sgd_gradients_equal_autodiff(output):
    import tensorflow as tf
    counts = np.array([40, 20, 9, 7, 5, 3, 2, 1], float)
    layer = (w2v.HierarchicalSoftmax(counts) if output == "hierarchical"
             else w2v.NegativeSampling(counts, num_negatives=4, seed=0))
    rng = np.random.default_rng(5)
    hidden = tf.constant(rng.standard_normal((6, 3)).astype("float32"))
    target = np.array([0, 1, 7, 7, 3, 2], dtype="int32")
    negatives = (None if output == "hierarchical"
                 else np.array([[1, 1, 0, 2]] * 3 + [[7, 0, 7, 4]] * 3, dtype="int32"))  # repeats + target hits
    args = (hidden, target) if negatives is None else (hidden, target, negatives)
    layer(*args)
    layer.table.assign(rng.standard_normal(tuple(layer.table.shape)).astype("float32"))
    with tf.GradientTape() as tape:
        tape.watch(hidden)
        total = tf.reduce_sum(layer(*args))
    d_h, d_table = tape.gradient(total, [hidden, layer.table.value])
    loss, d_hidden, rows, d_rows = layer.sgd_gradients(*args)
    np.testing.assert_allclose(float(tf.reduce_sum(loss)), float(total), rtol=1e-6)
    np.testing.assert_allclose(d_hidden.numpy(), d_h.numpy(), rtol=1e-5, atol=1e-6)
    dense = np.zeros(tuple(layer.table.shape), "float32")
    np.add.at(dense, rows.numpy(), d_rows.numpy())
    np.testing.assert_allclose(dense, tf.convert_to_tensor(d_table).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("model_cls,output", [(w2v.SkipGram, "negative"), (w2v.SkipGram, "hierarchical"),
                                              (w2v.CBOW, "negative"), (w2v.CBOW, "hierarchical")])
def test_sparse_sgd_step_equals_autodiff_sgd(model_cls, output):
    # one fit epoch with the analytic sparse step (XLA) == the same epoch with autodiff + Keras SGD
    rng = np.random.default_rng(1)
    counts = np.concatenate([[0.0], np.arange(15, 0, -1)])
    if model_cls is w2v.SkipGram:
        x = (rng.integers(1, 16, 96), rng.integers(1, 4, 96))  # few targets: many repeated rows
    else:
        ctx = rng.integers(1, 16, (96, 4)); ctx[::3, 2:] = 0
        x = (ctx, rng.integers(1, 4, 96))
    if output == "negative":
        x = x + (rng.integers(1, 16, (96, 3)),)
    table = rng.standard_normal((16 if output == "negative" else 15, 5)).astype("float32") * 0.3
    weights = []
    for sparse in (True, False):
        model = model_cls(16, 5, output, counts=counts, num_negatives=3, seed=0)  # same input vectors
        model.output_layer.table.assign(table)
        model.sparse_updates = sparse
        model.compile(keras.optimizers.SGD(0.5), jit_compile=sparse)
        assert model.uses_sparse_sgd() == (sparse and keras.config.backend() == "tensorflow")
        loss = model.fit(x, batch_size=32, epochs=2, shuffle=False, verbose=0).history["loss"]
        weights.append([keras.ops.convert_to_numpy(w) for w in model.weights] + [np.array(loss)])
    for a, b in zip(*weights):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_train_word2vec_rejects_bad_arguments():
    ids, sid = np.array([1, 2, 3], "int32"), np.array([0, 1, 2], "int32")  # one word per sentence
    model = w2v.SkipGram(4, 3, "negative", counts=[0, 1, 1, 1], seed=0)
    with pytest.raises(ValueError, match="no training examples"):
        w2v.train_word2vec(model, ids, sid, epochs=1, sample=0)
    with pytest.raises(ValueError, match="learning_rate"):
        w2v.train_word2vec(model, ids, np.zeros(3, "int32"), learning_rate=-0.1)
    with pytest.raises(ValueError, match="batch_size"):
        w2v.train_word2vec(model, ids, np.zeros(3, "int32"), batch_size=0)
    with pytest.raises(ValueError, match="optimizer"):
        w2v.train_word2vec(model, ids, np.zeros(3, "int32"), optimizer="adagrad")


def test_bad_inputs_get_clear_errors():
    with pytest.raises(ValueError, match="finite"):
        w2v.unigram_probs([1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="finite"):
        w2v.build_huffman_tree([1.0, np.inf, 2.0])
    sg = w2v.SkipGram(10, 4, "negative", counts=np.ones(10))
    with pytest.raises(ValueError, match=r"centre and context ids of shape \(batch,\)"):
        sg((np.array([[1], [2]]), np.array([3, 4])))
    cbow = w2v.CBOW(10, 4, "hierarchical", counts=np.r_[0.0, np.ones(9)])
    with pytest.raises(ValueError, match=r"context ids of shape \(batch, 2 \* window_size\)"):
        cbow((np.array([1, 2]), np.array([3, 4])))


@pytest.mark.skipif(keras.config.backend() != "tensorflow", reason="the sparse step exists on TensorFlow only")
def test_sparse_step_falls_back_where_it_would_be_wrong():
    # found in review: EMA crashed fit, a frozen table still moved, float ids failed (now refused clearly)
    rng = np.random.default_rng(0)
    x = (rng.integers(1, 16, 64), rng.integers(1, 16, 64), rng.integers(1, 16, (64, 3)))

    def model():
        return w2v.SkipGram(16, 5, "negative", counts=np.arange(16.0), num_negatives=3, seed=0)

    m = model()
    m.compile(keras.optimizers.SGD(0.1, use_ema=True))
    assert not m.uses_sparse_sgd()
    m.fit(x, batch_size=32, verbose=0)
    m = model()
    m.input_embedding.embeddings.trainable = False
    m.compile(keras.optimizers.SGD(0.1))
    assert not m.uses_sparse_sgd()
    before = keras.ops.convert_to_numpy(m.input_embedding.embeddings).copy()
    m.fit(x, batch_size=32, verbose=0)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(m.input_embedding.embeddings), before)
    m = model()
    m.compile(keras.optimizers.SGD(0.1))
    assert m.uses_sparse_sgd()
    assert np.isfinite(m.fit(x, batch_size=32, verbose=0).history["loss"]).all()
    with pytest.raises(ValueError, match="must be integers"):   # float ids: a clear error, never a silent truncation
        m.fit(tuple(v.astype("float32") for v in x), batch_size=32, verbose=0)


def test_train_word2vec_rejects_ids_outside_the_vocabulary():
    # found by a new-user trial: out-of-range ids trained silently (XLA clamps gathers)
    ids = np.arange(1, 41, dtype="int32") % 9 + 1
    sid = np.repeat(np.arange(4), 10).astype("int32")
    model = w2v.SkipGram(10, 4, "negative", counts=np.bincount(ids, minlength=10), seed=0)
    for bad in (np.where(ids == 3, 12, ids), np.where(ids == 3, -3, ids)):
        with pytest.raises(ValueError, match=r"ids must lie in \[0, vocabulary_size=10\)"):
            w2v.train_word2vec(model, bad, sid, epochs=1, sample=0)
    with pytest.raises(ValueError, match="1-D integer"):
        w2v.train_word2vec(model, ids.astype("float32"), sid, epochs=1)
    with pytest.raises(ValueError, match="sample"):
        w2v.train_word2vec(model, ids, sid, epochs=1, sample=-1)
    with pytest.raises(ValueError, match="sample"):
        w2v.subsample_keep_prob([1, 2, 3], float("nan"))


# ------------------------------------------------------- the shared layer test
_COUNTS = [float(c) for c in np.arange(12, 0, -1)]


@pytest.mark.parametrize("cls, kwargs, n_args", [
    (w2v.SoftmaxOutput, {"vocabulary_size": 12}, 2),
    (w2v.HierarchicalSoftmax, {"counts": _COUNTS}, 2),
    (w2v.NegativeSampling, {"counts": _COUNTS, "num_negatives": 3, "power": 0.75, "seed": 0}, 3),
])
def test_output_layers_pass_the_shared_layer_test(cls, kwargs, n_args, tmp_path):
    rng = np.random.default_rng(0)
    args = [rng.normal(size=(4, 5)).astype("float32"), np.array([1, 5, 7, 11], "int32"),
            rng.integers(0, 12, (4, 3)).astype("int32")][:n_args]
    run_layer_test(cls, kwargs, args, tmp_path, expected_output_shape=(4,), expected_num_trainable_weights=1)


@pytest.mark.parametrize("cls, output", [(w2v.SkipGram, "negative"), (w2v.CBOW, "hierarchical")])
def test_models_pass_the_shared_layer_test(cls, output, tmp_path):
    rng = np.random.default_rng(0)
    if cls is w2v.SkipGram:
        x = (rng.integers(1, 12, 8).astype("int32"), rng.integers(1, 12, 8).astype("int32"),
             rng.integers(1, 12, (8, 3)).astype("int32"))
    else:
        ctx = rng.integers(1, 12, (8, 4)).astype("int32"); ctx[:, 3] = 0
        x = (ctx, rng.integers(1, 12, 8).astype("int32"))
    kwargs = {"vocabulary_size": 12, "embedding_dim": 6, "output": output, "counts": _COUNTS, "num_negatives": 3, "seed": 0}
    if cls is w2v.CBOW:  # id 0 is CBOW's padding: no word may have it
        kwargs.update(counts=[0.0] + _COUNTS[1:], pad_id=0)
    run_layer_test(cls, kwargs, [x], tmp_path, expected_output_shape=(8,), expected_num_trainable_weights=2,
                   fit_data=(x,), compile_kwargs={"optimizer": keras.optimizers.SGD(1.0)})


# ------------------------------------------------------- one fit over a redrawing dataset
def _toy_stream():
    rng = np.random.default_rng(3)
    sents = [list(rng.choice(list("abcdefgh"), 9)) for _ in range(60)]
    from word2bert.tokenizers import Vocabulary
    vocab = Vocabulary(sents, specials=("<pad>",), unk_token=None)
    return vocab, *w2v.encode_sentences(sents, vocab)


def test_word2vec_dataset_redraws_every_epoch_with_a_fixed_number_of_full_batches():
    vocab, ids, sid = _toy_stream()
    keep = w2v.subsample_keep_prob(vocab.counts, 0.05)
    data = w2v.Word2VecDataset(ids, sid, "skipgram", 3, 64, keep_prob=keep,
                               negative_probs=w2v.unigram_probs(vocab.counts), num_negatives=4, seed=0)
    steps = len(data)
    first = [np.concatenate(v) for v in zip(*(data[i][0] for i in range(steps)))]
    assert all(len(b) == 64 for i in range(steps) for b in data[i][0])
    assert first[2].shape == (steps * 64, 4) and first[2].dtype == np.int32
    data.on_epoch_end()
    second = [np.concatenate(v) for v in zip(*(data[i][0] for i in range(steps)))]
    assert len(data) == steps and data.epochs_drawn == 2
    assert not np.array_equal(first[0], second[0])          # a fresh subsample, windows and shuffle
    again = w2v.Word2VecDataset(ids, sid, "skipgram", 3, 64, keep_prob=keep,
                                negative_probs=w2v.unigram_probs(vocab.counts), num_negatives=4, seed=0)
    assert np.array_equal(again[0][0][0], data.__class__(ids, sid, "skipgram", 3, 64, keep_prob=keep,
                          negative_probs=w2v.unigram_probs(vocab.counts), num_negatives=4, seed=0)[0][0][0])
    with pytest.raises(IndexError):
        data[steps]
    with pytest.raises(ValueError, match="architecture"):
        w2v.Word2VecDataset(ids, sid, "glove", 3, 64)


def test_train_word2vec_is_one_fit_with_a_log_and_callbacks(capsys):
    vocab, ids, sid = _toy_stream()
    seen = []

    class Record(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            seen.append((epoch, logs["loss"]))

    model = w2v.SkipGram(len(vocab), 8, "negative", counts=vocab.counts, seed=0)
    out = w2v.train_word2vec(model, ids, sid, epochs=3, window_size=2, sample=0, batch_size=64, verbose=2,
                             callbacks=[Record()])
    assert [e for e, _ in seen] == [0, 1, 2]                 # one fit: the callback saw every epoch
    assert out["history"].history["loss"] == out["loss"] and len(out["epoch_seconds"]) == 3
    assert capsys.readouterr().out.count("Epoch ") == 3       # verbose=2: one line per epoch


def test_gensim_reference_maps_our_argument_names():
    pytest.importorskip("gensim")
    sents = [["a", "b", "c", "d"]] * 30
    model, seconds = w2v.gensim_word2vec(sents, "cbow", "hierarchical", embedding_dim=7, window_size=2, min_count=1,
                                         sample=0, epochs=2, learning_rate=0.03, seed=1, workers=1)
    assert (model.sg, model.hs, model.negative, model.cbow_mean, model.vector_size, model.window) == (0, 1, 0, 1, 7, 2)
    assert model.alpha == 0.03 and model.epochs == 2 and seconds >= 0
    with pytest.raises(ValueError, match="architecture"):
        w2v.gensim_word2vec(sents, "glove")


# ------------------------------------------------------------- CBOW's update is word2vec.c's
def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.mark.parametrize("sparse", [True, False])
def test_cbow_update_equals_word2vec_c_by_hand(sparse):
    """One SGD step of CBOW with negative sampling, against word2vec.c's rule written out in numpy:
    neu1 = mean of the context rows; for the target and each negative, g = (label - sigmoid(u . neu1)) * alpha,
    neu1e += g u, u += g neu1; then every context row += neu1e (the whole of it, not neu1e / C)."""
    rng = np.random.default_rng(0)
    vocab, dim, alpha = 8, 4, 0.5
    counts = np.r_[0.0, np.arange(7, 0, -1)]
    v0 = rng.normal(scale=0.5, size=(vocab, dim)).astype("float32")
    u0 = rng.normal(scale=0.5, size=(vocab, dim)).astype("float32")
    context, centre, negatives = np.array([[2, 5, 3, 0]]), np.array([4]), np.array([[1, 6]])
    v, u = v0.astype(np.float64), u0.astype(np.float64)
    words = [2, 5, 3]
    neu1 = v[words].mean(axis=0)
    neu1e = np.zeros(dim)
    for row, label in [(4, 1.0), (1, 0.0), (6, 0.0)]:
        g = (label - _sigmoid(u[row] @ neu1)) * alpha
        neu1e += g * u[row]
        u[row] += g * neu1
    for w in words:
        v[w] += neu1e
    model = w2v.CBOW(vocab, dim, "negative", counts=counts, num_negatives=2, seed=0)
    model.input_embedding.embeddings.assign(v0)
    model.output_layer.output_vectors.assign(u0)
    model.sparse_updates = sparse
    model.compile(keras.optimizers.SGD(alpha))
    model.fit((context, centre, negatives), batch_size=1, epochs=1, verbose=0)
    np.testing.assert_allclose(model.word_vectors(), v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(model.output_layer.output_vectors), u, rtol=1e-5, atol=1e-6)
    # the forward pass is still the mean
    h = v[words].mean(0)
    expected = -np.log(_sigmoid(u[4] @ h)) - np.log(_sigmoid(-u[1] @ h)) - np.log(_sigmoid(-u[6] @ h))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(model((context, centre, negatives))), [expected], rtol=1e-4)


def test_cbow_padding_is_explicit_and_a_real_word_at_the_pad_id_is_refused():
    with pytest.raises(ValueError, match="pad_id 0 is a real word"):
        w2v.CBOW(5, 3, "negative", counts=[4, 3, 2, 1, 1])
    model = w2v.CBOW(5, 3, "negative", counts=[4, 3, 2, 1, 0], pad_id=4)   # padding at id 4 instead
    a = keras.ops.convert_to_numpy(model((np.array([[0, 1, 4, 4]]), np.array([2]), np.array([[3, 3]]))))
    b = keras.ops.convert_to_numpy(model((np.array([[4, 0, 4, 1]]), np.array([2]), np.array([[3, 3]]))))
    np.testing.assert_allclose(a, b, rtol=1e-6)   # id 0 is a word here and counts; id 4 is padding
    assert w2v.CBOW.from_config(model.get_config()).pad_id == 4
    with pytest.raises(ValueError, match="pad_id"):
        w2v.CBOW(5, 3, "softmax", pad_id=5)
    with pytest.raises(ValueError, match="pad_id 0 occurs in ids"):
        w2v.cbow_examples(np.array([0, 1, 2]), np.array([0, 0, 0]), 1)


def test_user_mistakes_are_clear_errors():
    from word2bert.tokenizers import Vocabulary
    v = Vocabulary([["the", "cat", "sat"]], specials=("<pad>",), unk_token=None)
    with pytest.raises(TypeError, match="string"):
        w2v.encode_sentences(["the cat sat"], v)            # a sentence must be a token list
    with pytest.raises(ValueError, match="integers"):
        w2v.SkipGram(8, 4, "softmax")((np.array([1.5, 2.0]), np.array([3.0, 4.0])))
    ids, sid = w2v.encode_sentences([["the", "cat", "sat"]] * 5, v)
    model = w2v.SkipGram(len(v), 4, "negative", counts=v.counts)
    for bad in ({"epochs": 1.5}, {"batch_size": 2.5}):
        with pytest.raises(ValueError, match="integer >= 1"):
            w2v.train_word2vec(model, ids, sid, **bad)
