"""Tests for word2bert.models.glove: counts, f(x), the loss, the model, PPMI and LSA.

Right answers come from hand computation (a 4-token sentence, eq. 9 on four numbers,
(ln 50)^2), from a brute-force double loop over tokens, and from numpy's dense SVD.
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import numpy as np
import pytest
import scipy.sparse as sp
from layer_checks import run_layer_test

from word2bert.models.glove import (GloVe, GloVeLoss, cooccurrence_matrix, cooccurrence_triples, glove_loss,
                             glove_weight, lsa_vectors, ppmi)


# ------------------------------------------------------------ co-occurrence
def test_cooccurrence_toy_sentence_by_hand():
    # sentence "a b c d" = ids 0 1 2 3, window 2, weight 1/d
    x = cooccurrence_matrix(np.array([0, 1, 2, 3]), vocabulary_size=4, window_size=2).toarray()
    expected = np.array([
        [0.0, 1.0, 0.5, 0.0],
        [1.0, 0.0, 1.0, 0.5],
        [0.5, 1.0, 0.0, 1.0],
        [0.0, 0.5, 1.0, 0.0],
    ])
    np.testing.assert_allclose(x, expected)
    np.testing.assert_allclose(x, x.T)


def test_cooccurrence_unweighted_and_repeated_word():
    # "a a b": (a,a) at d=1 counted from both sides -> X[a,a] = 2; (a,b) at d=1 and d=2
    x = cooccurrence_matrix([0, 0, 1], vocabulary_size=2, window_size=2, distance_weighting=False).toarray()
    np.testing.assert_allclose(x, [[2.0, 2.0], [2.0, 0.0]])
    xw = cooccurrence_matrix([0, 0, 1], vocabulary_size=2, window_size=2).toarray()
    np.testing.assert_allclose(xw, [[2.0, 1.5], [1.5, 0.0]])


def _brute_force(sentences, vocabulary_size, window):
    x = np.zeros((vocabulary_size, vocabulary_size))
    for s in sentences:
        for t, w in enumerate(s):
            for u in range(max(0, t - window), min(len(s), t + window + 1)):
                if u != t:
                    x[w, s[u]] += 1.0 / abs(u - t)
    return x


def test_cooccurrence_matches_brute_force_and_respects_sentences():
    rng = np.random.default_rng(0)
    sentences = [rng.integers(0, 7, size=n) for n in (1, 5, 12, 3, 9)]
    x = cooccurrence_matrix(sentences, vocabulary_size=7, window_size=3).toarray()
    np.testing.assert_allclose(x, _brute_force(sentences, 7, 3), rtol=1e-12)
    # as one stream, pairs cross the boundaries: more mass
    stream = cooccurrence_matrix(np.concatenate(sentences), vocabulary_size=7, window_size=3).toarray()
    np.testing.assert_allclose(stream, _brute_force([np.concatenate(sentences)], 7, 3), rtol=1e-12)
    assert stream.sum() > x.sum()


def test_cooccurrence_ignore_ids_keep_positions():
    # "a <unk> b": (a, b) still at distance 2, nothing counted for <unk> (id 2)
    x = cooccurrence_matrix([0, 2, 1], vocabulary_size=3, window_size=2, ignore_ids=[2]).toarray()
    np.testing.assert_allclose(x, [[0, 0.5, 0], [0.5, 0, 0], [0, 0, 0]])


def test_cooccurrence_errors():
    with pytest.raises(ValueError, match="window_size"):
        cooccurrence_matrix([0, 1], vocabulary_size=2, window_size=0)
    with pytest.raises(ValueError, match="vocabulary_size"):
        cooccurrence_matrix([0, 5], vocabulary_size=2, window_size=1)
    with pytest.raises(ValueError, match="1-D"):
        cooccurrence_matrix(np.zeros((2, 2), dtype=int), vocabulary_size=2, window_size=1)


def test_triples_are_the_nonzero_entries():
    x = sp.csr_matrix(np.array([[0.0, 2.0], [2.0, 0.5]]))
    pairs, counts = cooccurrence_triples(x)
    got = {(int(i), int(j)): float(c) for (i, j), c in zip(pairs, counts)}
    assert got == {(0, 1): 2.0, (1, 0): 2.0, (1, 1): 0.5}
    assert pairs.dtype == np.int32 and counts.dtype == np.float32


# ------------------------------------------------------------- f(x), loss
def test_glove_weight_paper_values():
    f = keras.ops.convert_to_numpy(glove_weight(np.array([1.0, 50.0, 100.0, 1000.0]), x_max=100, alpha=0.75))
    np.testing.assert_allclose(np.round(f, 4), [0.0316, 0.5946, 1.0, 1.0])
    assert float(keras.ops.convert_to_numpy(glove_weight(np.array([0.0])))[0]) == 0.0
    with pytest.raises(ValueError, match="x_max"):
        glove_weight(np.ones(2), x_max=0)


def test_loss_term_for_x50_has_no_half_factor():
    # zero vectors and biases -> score 0; term = f(50) (0 - ln 50)^2 = 0.5946 * 15.30 = 9.10
    term = keras.ops.convert_to_numpy(glove_loss(np.array([50.0]), np.array([0.0])))
    expected = (50 / 100) ** 0.75 * np.log(50.0) ** 2
    np.testing.assert_allclose(term, [expected], rtol=1e-5)
    assert round(float(term[0]), 2) == 9.10


def test_zero_counts_contribute_nothing():
    counts = np.array([0.0, 0.0, 50.0])
    scores = np.array([3.0, -7.0, 0.0])
    terms = keras.ops.convert_to_numpy(glove_loss(counts, scores))
    assert np.all(np.isfinite(terms))
    np.testing.assert_allclose(terms[:2], 0.0)
    total = float(keras.ops.convert_to_numpy(GloVeLoss()(counts, scores)))  # reduction "sum"
    np.testing.assert_allclose(total, terms[2], rtol=1e-6)


# ------------------------------------------------------------------ model
def test_glove_scores_match_numpy_and_vectors_are_w_plus_w_tilde():
    model = GloVe(vocabulary_size=5, embedding_dim=3)
    pairs = np.array([[0, 1], [4, 4], [2, 3]], dtype=np.int32)
    scores = keras.ops.convert_to_numpy(model(pairs))
    w, wt, b, bt = (keras.ops.convert_to_numpy(v) for v in (model.w, model.w_tilde, model.b, model.b_tilde))
    expected = np.einsum("nd,nd->n", w[pairs[:, 0]], wt[pairs[:, 1]]) + b[pairs[:, 0]] + bt[pairs[:, 1]]
    np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(model.word_vectors(), w + wt)
    assert np.abs(w).max() <= 0.5 / 3 + 1e-7  # uniform in [-0.5/d, 0.5/d], as the authors' code


def test_glove_config_and_save_round_trip(tmp_path):
    model = GloVe(vocabulary_size=6, embedding_dim=4, init_scale=0.3)
    pairs = np.array([[0, 1], [5, 2]], dtype=np.int32)
    before = keras.ops.convert_to_numpy(model(pairs))
    clone = GloVe.from_config(model.get_config())
    assert (clone.vocabulary_size, clone.embedding_dim, clone.init_scale) == (6, 4, 0.3)
    path = tmp_path / "glove.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(pairs)), before, rtol=1e-6)
    with pytest.raises(ValueError, match="embedding_dim"):
        GloVe(vocabulary_size=3, embedding_dim=0)


def test_glove_passes_the_shared_layer_test(tmp_path):
    pairs = np.array([[0, 6], [3, 3], [2, 5]], dtype="int32")
    counts = np.array([3.0, 1.0, 40.0], dtype="float32")
    out = run_layer_test(GloVe, {"vocabulary_size": 7, "embedding_dim": 4, "init_scale": 0.5}, [pairs], tmp_path,
                         expected_output_shape=(3,), expected_num_trainable_weights=4, fit_data=(pairs, counts),
                         compile_kwargs={"optimizer": keras.optimizers.Adagrad(0.5), "loss": GloVeLoss()})
    assert out[0].dtype == np.float32


def test_glove_loss_config_round_trip():
    loss = GloVeLoss(x_max=50.0, alpha=0.5, reduction="sum_over_batch_size")
    again = GloVeLoss.from_config(loss.get_config())
    assert again.get_config() == loss.get_config() and again.x_max == 50.0 and again.alpha == 0.5


def test_training_decreases_loss_monotonically():
    rng = np.random.default_rng(0)
    sentences = [rng.zipf(1.6, size=30) % 40 for _ in range(60)]
    x = cooccurrence_matrix(sentences, vocabulary_size=40, window_size=3)
    pairs, counts = cooccurrence_triples(x)
    keras.utils.set_random_seed(0)
    model = GloVe(vocabulary_size=40, embedding_dim=8)
    model.compile(keras.optimizers.Adagrad(0.05, initial_accumulator_value=1.0), GloVeLoss())
    # one full batch per epoch: the reported loss is J of eq. 8 before each update
    history = model.fit(pairs, counts, batch_size=len(pairs), epochs=8, shuffle=False, verbose=0)
    losses = np.array(history.history["loss"])
    assert np.all(np.diff(losses) < 0), losses
    assert losses[-1] < 0.9 * losses[0]
    # and it is the objective computed by hand in numpy
    w, wt, b, bt = (keras.ops.convert_to_numpy(v) for v in (model.w, model.w_tilde, model.b, model.b_tilde))
    s = np.einsum("nd,nd->n", w[pairs[:, 0]], wt[pairs[:, 1]]) + b[pairs[:, 0]] + bt[pairs[:, 1]]
    j = np.sum(np.minimum(1, (counts / 100) ** 0.75) * (s - np.log(counts)) ** 2)
    np.testing.assert_allclose(float(keras.ops.convert_to_numpy(model.compute_loss(y=counts, y_pred=model(pairs)))),
                               j, rtol=1e-4)


# -------------------------------------------------------------------- LSA
def test_ppmi_by_hand():
    x = np.array([[0.0, 2.0], [2.0, 4.0]])  # total 8, row/col sums 2 and 6
    got = ppmi(sp.csr_matrix(x)).toarray()
    pmi01 = np.log(2 * 8 / (2 * 6))   # > 0
    pmi11 = np.log(4 * 8 / (6 * 6))   # < 0 -> clipped
    np.testing.assert_allclose(got, [[0.0, pmi01], [pmi01, 0.0]])
    assert pmi11 < 0


def test_lsa_vectors_match_dense_svd():
    m = sp.random(30, 30, density=0.3, random_state=2, format="csr")
    m = m + m.T
    vectors = lsa_vectors(m, embedding_dim=4, power=1.0)
    u, s, _ = np.linalg.svd(m.toarray())
    # the same subspace, scaled by S: compare Gram matrices (sign-invariant)
    ref = u[:, :4] * s[:4]
    np.testing.assert_allclose(vectors @ vectors.T, ref @ ref.T, atol=1e-4)
    with pytest.raises(ValueError, match="embedding_dim"):
        lsa_vectors(m, embedding_dim=30)


def test_loss_and_weight_follow_non_default_x_max_and_alpha():
    # f(x) = min(1, (x / x_max)^alpha): with x_max = 10, alpha = 0.5, f(2.5) = 0.5 and f(40) = 1
    counts, scores = np.array([2.5, 40.0]), np.array([1.0, 2.0])
    f = keras.ops.convert_to_numpy(glove_weight(counts, x_max=10.0, alpha=0.5))
    np.testing.assert_allclose(f, [0.5, 1.0], rtol=1e-6)
    expected = f * (scores - np.log(counts)) ** 2
    terms = keras.ops.convert_to_numpy(glove_loss(counts, scores, x_max=10.0, alpha=0.5))
    np.testing.assert_allclose(terms, expected, rtol=1e-5)
    total = float(keras.ops.convert_to_numpy(GloVeLoss(x_max=10.0, alpha=0.5)(counts, scores)))
    np.testing.assert_allclose(total, expected.sum(), rtol=1e-5)
    default = float(keras.ops.convert_to_numpy(GloVeLoss()(counts, scores)))
    assert abs(default - total) > 0.1  # the paper's x_max = 100, alpha = 3/4 weigh these pairs differently
