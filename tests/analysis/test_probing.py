"""Chapter 11's probing tools: ELMo's scalar mix, every layer's vectors of a frozen BERT, each block's
attention weights, the attention shares of Clark et al. (2019) and the linear probe. Right answers are
worked by hand: a NumPy scalar mix, a forward pass block by block, softmax(QK^T / sqrt(d)) from the
attention kernels, a toy attention map whose shares are counted on paper, and toy data whose best
probe is known (a kernel penalised to nothing predicts the majority class)."""
import keras
import numpy as np
import pytest

from backends import once_on_tensorflow
from layer_checks import run_layer_test, to_numpy
from word2bert.models.bert import BertBackbone
from word2bert.analysis import SHARE_KINDS, attention_shares, layer_features, layer_outputs_model, train_probe
from word2bert.layers import ScalarMix

PAD, UNK, CLS, SEP, MASK = range(5)   # BERT_SPECIALS' ids
A, B = 7, 8                           # two ordinary tokens of the toy attention maps


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _layers(seed=0, shape=(2, 5, 8), n=3):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape).astype("float32") for _ in range(n)]


def _backbone(seed=0, sharp=True):
    """A small encoder; ``sharp``: query/key kernels of std 0.5, so that attention is far from uniform."""
    keras.utils.set_random_seed(seed)
    backbone = BertBackbone(vocabulary_size=50, num_layers=2, hidden_dim=16, num_heads=2, intermediate_dim=32,
                            dropout=0.0)
    backbone.build()
    if sharp:
        rng = np.random.default_rng(seed)
        for block in backbone.encoder_blocks:
            attention = block.self_attention
            for weight in (attention.wq, attention.wk, attention.bq, attention.bk):
                weight.assign(rng.normal(0.0, 0.5, size=weight.shape).astype("float32"))
    return backbone


def _inputs():
    """Four rows of length 7: two padded, two full, a segment B in two of them; row 2 has a [PAD] written in its
    text (position 2: a real token by the padding mask, so the mask differs from ``token_ids != 0``)."""
    ids = np.array([[CLS, 10, 11, 12, SEP, PAD, PAD],
                    [CLS, 13, 14, SEP, 15, 16, SEP],
                    [CLS, 17, PAD, 18, SEP, PAD, PAD],
                    [CLS, 18, 19, 20, 21, 22, SEP]], np.int32)
    segments = np.array([[0] * 7, [0, 0, 0, 0, 1, 1, 1], [0] * 7, [0, 0, 0, 1, 1, 1, 1]], np.int32)
    mask = ids != PAD
    mask[2, 2] = True
    return {"token_ids": ids, "segment_ids": segments, "padding_mask": mask}


def _states(backbone, x):
    """``hidden_states`` stacked as ``(n, L, layers, hidden)``."""
    return np.stack([to_numpy(s) for s in backbone.hidden_states(x)], axis=2)


# ------------------------------------------------------------------ ScalarMix
def test_scalar_mix_through_harness_with_a_list(tmp_path):
    layers = _layers()
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    run_layer_test(ScalarMix, {"num_layers": 3, "initial_weights": [0.5, -1.0, 2.0], "initial_scale": 1.5},
                   [layers], tmp_path, expected_output_shape=(2, 5, 8), expected_num_trainable_weights=2,
                   input_mask=[mask, mask, mask], expected_output_mask=mask)


def test_scalar_mix_through_harness_stacked(tmp_path):
    stacked = np.stack(_layers(1), axis=-2)                       # (2, 5, 3, 8)
    mask = np.array([[1, 1, 0, 0, 0], [1, 1, 1, 1, 0]], bool)
    run_layer_test(ScalarMix, {"num_layers": 3, "initial_weights": [1.0, 0.0, -1.0], "initial_scale": 0.5},
                   [stacked], tmp_path, expected_output_shape=(2, 5, 8), expected_num_trainable_weights=2,
                   input_mask=mask, expected_output_mask=mask, cross_backend=False)   # the list test saves one


def test_scalar_mix_by_hand():
    layers = _layers(2)
    w, gamma = np.array([0.5, -1.0, 2.0]), 1.5
    mix = ScalarMix(3, initial_weights=list(w), initial_scale=gamma)
    got = to_numpy(mix(layers))
    share = np.exp(w) / np.exp(w).sum()                           # 0.175, 0.039, 0.786
    expected = gamma * (share[0] * layers[0] + share[1] * layers[1] + share[2] * layers[2])
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert not np.allclose(got, expected / gamma, atol=1e-2)      # the scale matters here ...
    assert not np.allclose(got, gamma * np.mean(layers, 0), atol=1e-2)   # ... and so do the weights
    np.testing.assert_allclose(mix.mixing_weights(), share, atol=1e-6)
    assert mix.mixing_weights().sum() == pytest.approx(1.0, abs=1e-6)
    np.testing.assert_allclose(to_numpy(mix(np.stack(layers, axis=-2))), expected, atol=1e-5)   # stacked: the same
    assert float(to_numpy(mix.scale)) == pytest.approx(gamma)


def test_scalar_mix_starts_as_the_plain_mean():
    layers = _layers(3, shape=(4, 6))
    mix = ScalarMix(3)
    np.testing.assert_allclose(to_numpy(mix(layers)), (layers[0] + layers[1] + layers[2]) / 3, atol=1e-6)
    np.testing.assert_allclose(mix.mixing_weights(), [1 / 3] * 3, atol=1e-7)
    one = ScalarMix(1, initial_scale=2.0)
    np.testing.assert_allclose(to_numpy(one(layers[:1])), 2.0 * layers[0], atol=1e-6)


def test_scalar_mix_refuses_bad_arguments():
    layers = _layers(4)
    with pytest.raises(ValueError, match="num_layers must be >= 1"):
        ScalarMix(0)
    with pytest.raises(ValueError, match="initial_weights needs 3 values"):
        ScalarMix(3, initial_weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="got a list of 2 tensors"):
        ScalarMix(3)(layers[:2])
    with pytest.raises(ValueError, match="layers on axis -2"):
        ScalarMix(3)(np.zeros((2, 5, 4, 8), np.float32))
    with pytest.raises(ValueError, match="one shape"):
        ScalarMix(3)([layers[0], layers[1], layers[2][:, :4]])


def test_scalar_mix_learns_to_pick_the_layer_that_is_the_target():
    layers = _layers(5, shape=(64, 8))
    inputs = [keras.Input(shape=(8,)) for _ in range(3)]
    mix = ScalarMix(3)
    model = keras.Model(inputs, mix(inputs))
    model.compile(optimizer=keras.optimizers.Adam(0.1), loss="mse")
    model.fit(layers, layers[1], epochs=40, batch_size=64, verbose=0)
    weights = mix.mixing_weights()
    assert np.argmax(weights) == 1 and weights[1] > 0.8, weights
    assert weights.sum() == pytest.approx(1.0, abs=1e-6)


# ------------------------------------------------------------------ every layer's vectors
def test_layer_outputs_model_equals_a_forward_pass_block_by_block():
    backbone = _backbone(sharp=False)
    x = _inputs()
    model = layer_outputs_model(backbone)
    got = [to_numpy(o) for o in model(x)]
    assert len(got) == 3 and all(o.shape == (4, 7, 16) for o in got)
    h = backbone.embedding(keras.ops.convert_to_tensor(x["token_ids"]), keras.ops.convert_to_tensor(x["segment_ids"]))
    mask = keras.ops.convert_to_tensor(x["padding_mask"])
    expected = [to_numpy(h)]
    for block in backbone.encoder_blocks:
        h = block(h, mask=mask)
        expected.append(to_numpy(h))
    for i, (a, b) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(a, b, atol=1e-5, err_msg=f"hidden state {i}")
    np.testing.assert_allclose(got[-1], to_numpy(backbone(x)["sequence_output"]), atol=1e-5)
    assert not np.allclose(got[1], got[2], atol=1e-3)                   # two different blocks
    int_mask = {**x, "padding_mask": x["padding_mask"].astype(np.int32)}
    np.testing.assert_allclose(to_numpy(model(int_mask)[2]), got[2], atol=1e-6)
    with pytest.raises(ValueError, match="BertBackbone"):
        layer_outputs_model(keras.Sequential([keras.layers.Dense(2)]))


def test_layer_features_at_selected_positions_in_row_major_order():
    backbone = _backbone(sharp=False)
    x = _inputs()
    select = np.zeros((4, 7), bool)
    select[0, [1, 3]] = select[1, [2, 4, 5]] = select[2, [1, 2]] = select[3, [6, 1]] = True
    states = _states(backbone, x)
    expected = np.stack([states[r, c] for r in range(4) for c in range(7) if select[r, c]])
    assert expected.shape == (9, 3, 16)
    got = layer_features(backbone, x, select=select)
    assert got.dtype == np.float32 and got.shape == (9, 3, 16)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    np.testing.assert_allclose(layer_features(backbone, x, select=select, batch_size=3), expected, atol=1e-5)
    np.testing.assert_allclose(layer_features(backbone, x, select=select, batch_size=1), expected, atol=1e-5)
    # defaults: segment ids 0 and the padding mask token_ids != 0
    plain = {"token_ids": x["token_ids"]}
    full = {**plain, "segment_ids": np.zeros((4, 7), np.int32), "padding_mask": x["token_ids"] != 0}
    np.testing.assert_allclose(layer_features(backbone, plain, select=select),
                               layer_features(backbone, full, select=select), atol=1e-6)


def test_layer_features_cut_batches_to_their_longest_row_and_keep_the_rows_order():
    # rows padded to 40 columns, of real lengths 5, 33, 32 and 12: batches are cut at a multiple of 32 columns, so
    # the row of 33 needs all 40 (its last real token at index 32) and the row of 32 exactly 32; a selected padding
    # position (row 0, index 36) makes its batch wide again. Every result must equal the full-width forward pass.
    backbone = _backbone(sharp=True)
    lengths = (5, 33, 32, 12)
    rng = np.random.default_rng(3)
    ids = np.zeros((4, 40), np.int32)
    for r, n in enumerate(lengths):
        ids[r, :n] = [CLS, *rng.integers(10, 50, n - 2), SEP]
    x = {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": ids != PAD}
    select = np.zeros((4, 40), bool)
    select[0, [1, 4, 36]] = select[1, [0, 31, 32]] = select[2, [31]] = select[3, [11, 2]] = True
    states = _states(backbone, x)
    expected = np.stack([states[r, c] for r in range(4) for c in range(40) if select[r, c]])
    mean = np.stack([states[r, :n].mean(0) for r, n in enumerate(lengths)])
    for batch_size in (1, 2, 3, 4):
        np.testing.assert_allclose(layer_features(backbone, x, select=select, batch_size=batch_size), expected,
                                   atol=1e-5, err_msg=f"batch_size {batch_size}")
        np.testing.assert_allclose(layer_features(backbone, x, pooling="mean", batch_size=batch_size), mean, atol=1e-5)
        np.testing.assert_allclose(layer_features(backbone, x, pooling="cls", batch_size=batch_size), states[:, 0],
                                   atol=1e-5)


def test_layer_features_pooled_by_mean_and_cls():
    backbone = _backbone(sharp=False)
    x = _inputs()
    states = _states(backbone, x)
    mean = np.stack([states[r, x["padding_mask"][r]].mean(0) for r in range(4)])     # over the real tokens only
    got = layer_features(backbone, x, pooling="mean", batch_size=3)
    assert got.shape == (4, 3, 16)
    np.testing.assert_allclose(got, mean, atol=1e-5)
    assert not np.allclose(got[0], states[0].mean(0), atol=1e-3)                      # padding would change it
    np.testing.assert_allclose(layer_features(backbone, x, pooling="cls", batch_size=3), states[:, 0], atol=1e-5)


def test_layer_features_refuses_bad_arguments():
    backbone = _backbone(sharp=False)
    x = _inputs()
    select = np.ones((4, 7), bool)
    with pytest.raises(ValueError, match="exactly one of select"):
        layer_features(backbone, x, select=select, pooling="mean")
    with pytest.raises(ValueError, match="exactly one of select"):
        layer_features(backbone, x)
    with pytest.raises(ValueError, match="pooling must be 'mean' or 'cls'"):
        layer_features(backbone, x, pooling="max")
    with pytest.raises(ValueError, match=r"select must have the shape of token_ids \(4, 7\)"):
        layer_features(backbone, x, select=select[:, :5])
    with pytest.raises(ValueError, match="padding_mask must have the shape"):
        layer_features(backbone, {**x, "padding_mask": x["padding_mask"][:2]}, pooling="cls")
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        layer_features(backbone, x, pooling="cls", batch_size=0)
    with pytest.raises(ValueError, match="BertBackbone or a model with a hidden_states method"):
        layer_features(keras.Sequential([keras.layers.Dense(2)]), x, pooling="cls")


# ------------------------------------------------------------------ attention weights
def test_attention_scores_equal_softmax_of_queries_and_keys_by_hand():
    backbone = _backbone()
    x = _inputs()
    weights = [to_numpy(w) for w in backbone.attention_scores(x)]
    states = [to_numpy(s) for s in backbone.hidden_states(x)]
    real = x["padding_mask"]
    assert len(weights) == 2
    for layer, (block, w) in enumerate(zip(backbone.encoder_blocks, weights)):
        assert w.shape == (4, 2, 7, 7) and w.dtype == np.float32
        attention, h = block.self_attention, states[layer]              # a block's input: the state before it
        q = np.einsum("bld,dhk->bhlk", h, to_numpy(attention.wq)) + to_numpy(attention.bq)[None, :, None, :]
        k = np.einsum("bld,dhk->bhlk", h, to_numpy(attention.wk)) + to_numpy(attention.bk)[None, :, None, :]
        scores = np.einsum("bhik,bhjk->bhij", q, k) / np.sqrt(8.0)
        scores = np.where(real[:, None, None, :], scores, -np.inf)
        expected = _softmax(scores) * real[:, None, :, None]             # padded queries: no weights at all
        np.testing.assert_allclose(w, expected, atol=1e-5, err_msg=f"block {layer}")
        sums = w.sum(-1)
        np.testing.assert_allclose(sums[np.broadcast_to(real[:, None, :], sums.shape)], 1.0, atol=1e-5)
        assert (w * ~real[:, None, None, :] == 0).all()                  # padding keys get exactly 0
        assert w.max() > 0.5                                             # not the uniform map of a fresh BERT
    # the weights do not depend on what is after the padding: a shorter batch gives the same real rows
    short = {k: v[:1, :5] for k, v in x.items()}
    np.testing.assert_allclose(to_numpy(backbone.attention_scores(short)[1]), weights[1][:1, :, :5, :5], atol=1e-5)


def test_attention_shares_of_a_real_encoder_sum_to_one_per_head():
    backbone = _backbone()
    x = _inputs()
    shares = attention_shares(backbone.attention_scores(x), x["token_ids"], x["padding_mask"], CLS, SEP)
    assert shares["queries"] == int(x["padding_mask"].sum()) == 24
    total = sum(shares[kind] for kind in SHARE_KINDS)
    assert total.shape == (2, 2)
    np.testing.assert_allclose(total, 1.0, atol=1e-5)


# ------------------------------------------------------------------ attention shares, on maps made by hand
def _toy_map():
    """``[CLS] a b a [SEP]``; head 0 on the previous token (the first query on itself), head 1 uniform."""
    ids = np.array([[CLS, A, B, A, SEP]])
    weights = np.zeros((1, 2, 5, 5), np.float32)
    weights[0, 0, 0, 0] = 1.0
    for i in range(1, 5):
        weights[0, 0, i, i - 1] = 1.0
    weights[0, 1] = 0.2
    return ids, weights


# Head 0: queries 0 and 1 land on [CLS], queries 2, 3, 4 on the previous token. Head 1 (uniform, each pair 1/25
# of the total): every query puts 1/5 on [CLS] and 1/5 on [SEP]; of the keys 1..3, query 0 ([CLS]) has next,
# other, other; query 1 (a) self, next, same token (the other a); query 2 (b) previous, self, next; query 3 (a)
# same token, previous, self; query 4 ([SEP]) other, other, previous.
TOY_SHARES = {"[CLS]": [2 / 5, 5 / 25], "[SEP]": [0, 5 / 25], "self": [0, 3 / 25], "previous": [3 / 5, 3 / 25],
              "next": [0, 3 / 25], "same token": [0, 2 / 25], "other": [0, 4 / 25]}


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_attention_shares_of_a_toy_map_by_hand():
    ids, weights = _toy_map()
    shares = attention_shares([weights], ids, np.ones_like(ids, bool), CLS, SEP)
    assert set(shares) == set(SHARE_KINDS) | {"queries"} and shares["queries"] == 5
    for kind in SHARE_KINDS:
        assert shares[kind].shape == (1, 2)
        np.testing.assert_allclose(shares[kind][0], TOY_SHARES[kind], atol=1e-6, err_msg=kind)
    np.testing.assert_allclose(sum(shares[kind] for kind in SHARE_KINDS), 1.0, atol=1e-6)
    # two layers, given as one (layers, batch, heads, L, L) array: layer 1 is layer 0 with the heads swapped
    stacked = np.stack([weights, weights[:, ::-1]])
    both = attention_shares(stacked, ids, np.ones_like(ids, bool), CLS, SEP)
    for kind in SHARE_KINDS:
        np.testing.assert_allclose(both[kind], [TOY_SHARES[kind], TOY_SHARES[kind][::-1]], atol=1e-6, err_msg=kind)


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_attention_shares_take_the_first_kind_that_holds():
    # [CLS] a a [SEP], uniform (each pair 1/16): the two adjacent a's are previous / next, not "same token";
    # [SEP] on itself is [SEP], not self; [CLS] on itself is [CLS]
    ids = np.array([[CLS, A, A, SEP]])
    weights = np.full((1, 1, 1, 4, 4), 0.25, np.float32)
    shares = attention_shares(weights, ids, np.ones((1, 4), bool), CLS, SEP)
    expected = {"[CLS]": 4, "[SEP]": 4, "self": 2, "previous": 2, "next": 2, "same token": 0, "other": 2}
    for kind, pairs in expected.items():
        assert shares[kind][0, 0] == pytest.approx(pairs / 16, abs=1e-7), kind


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_attention_shares_leave_out_padded_queries():
    ids, weights = _toy_map()
    padded_ids = np.array([[CLS, A, B, A, SEP, PAD, PAD], [CLS, B, SEP, PAD, PAD, PAD, PAD]])
    mask = padded_ids != PAD
    padded = np.zeros((2, 2, 7, 7), np.float32)
    padded[0, :, :5, :5] = weights[0]
    padded[0, :, 5:, 5] = 1.0                 # padded queries of row 0: all on a padded key ("other")
    padded[1, :, :, 0] = 1.0                  # row 1 is fully masked below: all on [CLS], every query
    row_mask = mask.copy()
    row_mask[1] = False
    shares = attention_shares([padded], padded_ids, row_mask, CLS, SEP)
    assert shares["queries"] == 5
    for kind in SHARE_KINDS:
        np.testing.assert_allclose(shares[kind][0], TOY_SHARES[kind], atol=1e-6, err_msg=kind)
    # row 1's three real queries all on [CLS]: the average is over the 8 real queries of the batch
    both = attention_shares([padded], padded_ids, mask, CLS, SEP)
    assert both["queries"] == 8
    np.testing.assert_allclose(both["[CLS]"][0], [(2 + 3) / 8, (5 * 5 / 25 + 3) / 8], atol=1e-6)
    np.testing.assert_allclose(both["other"][0], [0, (4 / 25 * 5) / 8], atol=1e-6)


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_attention_shares_refuse_shapes_that_do_not_fit():
    ids, weights = _toy_map()
    real = np.ones_like(ids, bool)
    with pytest.raises(ValueError, match="weights must be a list of"):
        attention_shares(weights, ids, real, CLS, SEP)                          # 4-D: not a list of layers
    with pytest.raises(ValueError, match=r"token_ids must be \(batch, L\) = \(1, 5\).*got \(1, 4\)"):
        attention_shares([weights], ids[:, :4], real[:, :4], CLS, SEP)
    with pytest.raises(ValueError, match="token_ids must be"):
        attention_shares([weights[..., :4]], ids, real, CLS, SEP)               # keys != queries
    with pytest.raises(ValueError, match=r"padding_mask must have the shape of token_ids \(1, 5\)"):
        attention_shares([weights], ids, real[:, :4], CLS, SEP)
    with pytest.raises(ValueError, match="no real token"):
        attention_shares([weights], ids, np.zeros_like(real), CLS, SEP)


# ------------------------------------------------------------------ the linear probe
def _blobs(rng, n, dim=4):
    centers = np.array([[10.0] * dim, [-10.0] * dim, [10.0, -10.0] * (dim // 2)])
    labels = np.arange(n) % 3
    return centers[labels] + rng.normal(size=(n, dim)), labels


def _imbalanced(rng, n=600):
    """80 / 20 classes that overlap on feature 0 (mean 0 vs 2), three features of noise."""
    y = (rng.random(n) < 0.2).astype(int)
    return np.c_[y * 2.0 + rng.normal(size=n), rng.normal(size=(n, 3))], y


def test_probe_separates_blobs_far_apart():
    rng = np.random.default_rng(0)
    x, y = _blobs(rng, 300)
    probe, choice = train_probe(x[:200], y[:200], x[200:], y[200:], l2_values=(1e-4, 1e-2), epochs=10, batch_size=50,
                                 learning_rate=0.1)
    assert choice["l2"] in (1e-4, 1e-2) and set(choice["valid_accuracy"]) == {1e-4, 1e-2}
    assert choice["valid_accuracy"] == {1e-4: 1.0, 1e-2: 1.0}
    assert choice["l2"] == 1e-4                                   # a tie on validation: the first penalty listed
    assert probe.score(x[200:], y[200:]) == 1.0
    assert probe.predict(np.array([[10.0] * 4, [-10.0] * 4, [10.0, -10.0, 10.0, -10.0]])).tolist() == [0, 1, 2]
    # the probe is one dense layer on the features standardised with the training mean and deviation
    kernel, bias = probe.model.layers[-1].get_weights()
    by_hand = (((x - x[:200].mean(0)) / x[:200].std(0)) @ kernel + bias).argmax(-1)
    np.testing.assert_array_equal(probe.predict(x), by_hand)


def test_probe_defaults_separate_blobs_far_apart():
    # 200 rows are one batch of the default 1024: min_steps makes the 10 passes 300, enough to separate the blobs
    rng = np.random.default_rng(0)
    x, y = _blobs(rng, 300)
    _, choice = train_probe(x[:200], y[:200], x[200:], y[200:])
    assert choice["valid_accuracy"][choice["l2"]] == 1.0
    _, few = train_probe(x[:200], y[:200], x[200:], y[200:], min_steps=0)
    assert few["valid_accuracy"][few["l2"]] < 0.9                          # 10 steps alone: still near the start


def test_probe_picks_the_penalty_that_is_best_on_validation():
    # a kernel penalised to nothing leaves the bias alone: it says "class 0" everywhere, so its validation accuracy
    # is the share of class 0 there (by hand); a light penalty does better on the one informative feature
    rng = np.random.default_rng(1)
    x, y = _imbalanced(rng)
    majority = float(np.mean(y[400:] == 0))
    probe, choice = train_probe(x[:400], y[:400], x[400:], y[400:], l2_values=(10.0, 1e-4), epochs=10, batch_size=100,
                                 learning_rate=0.05)
    assert choice["valid_accuracy"][10.0] == pytest.approx(majority)
    assert choice["valid_accuracy"][1e-4] >= majority + 0.02
    assert choice["l2"] == 1e-4 and probe.l2 == 1e-4
    assert probe.score(x[400:], y[400:]) == pytest.approx(choice["valid_accuracy"][1e-4])
    # the features are standardised first: rescaling one by 1e-3 and another by 1e3 changes no choice
    scaled = x * np.array([1e-3, 1.0, 1e3, 1.0])
    rescaled, again = train_probe(scaled[:400], y[:400], scaled[400:], y[400:], l2_values=(10.0, 1e-4), epochs=10,
                                  batch_size=100, learning_rate=0.05)
    assert again["l2"] == 1e-4
    assert again["valid_accuracy"] == pytest.approx(choice["valid_accuracy"], abs=1 / 200)
    assert (rescaled.predict(scaled[400:]) == probe.predict(x[400:])).mean() >= 0.99


def test_probe_finds_nothing_in_shuffled_labels():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2000, 20))
    y = rng.permutation(np.arange(2000) % 2)                             # balanced, independent of x
    probe, choice = train_probe(x[:1000], y[:1000], x[1000:1500], y[1000:1500], epochs=10, batch_size=128,
                                 learning_rate=0.05)
    held_out = probe.score(x[1500:], y[1500:])
    assert abs(held_out - 0.5) <= 0.06, held_out
    assert abs(choice["valid_accuracy"][choice["l2"]] - 0.5) <= 0.06


@once_on_tensorflow                                        # refused before any Keras backend is involved
def test_probe_refuses_bad_arguments():
    rng = np.random.default_rng(3)
    x, y = _blobs(rng, 30)
    with pytest.raises(ValueError, match=r"train_x must be \(n, dim\)"):
        train_probe(x[:, 0], y, x, y)
    with pytest.raises(ValueError, match="valid_x has 30 rows but valid_y 29 labels"):
        train_probe(x, y, x, y[:29])
    with pytest.raises(ValueError, match="differ in width: 4 vs 3"):
        train_probe(x, y, x[:, :3], y)
    with pytest.raises(ValueError, match="at least two classes"):
        train_probe(x, np.zeros(30, int), x, y)
    with pytest.raises(ValueError, match="negative label -1"):
        train_probe(x, y - 1, x, y)
    with pytest.raises(ValueError, match="l2_values is empty"):
        train_probe(x, y, x, y, l2_values=())
    with pytest.raises(ValueError, match="l2_values is empty"):
        train_probe(x, y, x, y, l2_values=np.array([]))
    with pytest.raises(ValueError, match="epochs and batch_size must be >= 1"):
        train_probe(x, y, x, y, batch_size=0)


def _steps(probe):
    return int(to_numpy(probe.model.optimizer.iterations))


def test_probe_takes_min_steps_whatever_the_row_count():
    rng = np.random.default_rng(4)
    x, y = _blobs(rng, 40)
    # issue 44: 10 rows under the default batch of 1024 took 6 steps of 300; now every step takes all 10 rows
    probe, choice = train_probe(x[:10], y[:10], x[10:], y[10:], l2_values=(1e-4,))
    assert _steps(probe) == 300
    assert choice["valid_accuracy"][1e-4] == 1.0
    # 25 rows in batches of 10: k = 3 steps a pass; min_steps 10 -> ceil(10 / 3) = 4 passes = 12 steps
    # (labels as whole-number floats are taken as they are)
    probe, _ = train_probe(x[:25], y[:25].astype(float), x[25:], y[25:], l2_values=(1e-4,), epochs=1, batch_size=10,
                           min_steps=10)
    assert _steps(probe) == 12
    probe, _ = train_probe(x[:25], y[:25], x[25:], y[25:], l2_values=(1e-4,), epochs=5, batch_size=10, min_steps=0)
    assert _steps(probe) == 15                                            # epochs rule: 5 passes of 3 steps
    probe, _ = train_probe(x[:10], y[:10], x[10:], y[10:], l2_values=(1e-4,), epochs=2, batch_size=4, min_steps=7)
    assert _steps(probe) == 9                                             # k = 3: ceil(7 / 3) = 3 passes


@once_on_tensorflow                                        # refused before any Keras backend is involved
def test_probe_refuses_fractional_labels_and_broken_features():
    rng = np.random.default_rng(3)
    x, y = _blobs(rng, 30)
    fractional = y.astype(float)
    fractional[3] = 1.5                                    # was truncated to class 1
    with pytest.raises(ValueError, match=r"train_y must hold whole-number class ids, got 1.5 .*in row 3"):
        train_probe(x, fractional, x, y)
    with pytest.raises(ValueError, match=r"valid_y must hold whole-number class ids, got nan .*in row 5"):
        train_probe(x, y, x, np.where(np.arange(30) == 5, np.nan, y))
    with pytest.raises(ValueError, match="train_y must hold whole-number class ids, got 'a'"):
        train_probe(x, np.array(list("ab") * 15), x, y)
    broken = x.copy()
    broken[4, 2] = np.nan                                  # was: one class predicted everywhere
    with pytest.raises(ValueError, match=r"train_x has a NaN or infinite value in row 4 \(column 2"):
        train_probe(broken, y, x, y)
    broken[4, 2], broken[7, 0] = 1.0, -np.inf
    with pytest.raises(ValueError, match=r"valid_x has a NaN or infinite value in row 7 \(column 0"):
        train_probe(x, y, broken, y)


def test_probe_has_an_output_for_a_class_seen_only_in_validation():
    # num_classes is the largest label of either split + 1: a class missing from the training rows still has a
    # logit of its own
    rng = np.random.default_rng(5)
    x, y = _blobs(rng, 30)
    train = y < 2
    probe, choice = train_probe(x[train], y[train], x, y, l2_values=(1e-4,), epochs=1, min_steps=1)
    kernel, bias = probe.model.layers[-1].get_weights()
    assert kernel.shape == (4, 3) and bias.shape == (3,)
    assert 0.0 <= choice["valid_accuracy"][1e-4] <= 1.0 and set(probe.predict(x).tolist()) <= {0, 1, 2}


def test_probe_memory_stays_one_copy_of_the_features_and_the_batches_are_the_laid_out_passes():
    # 200 rows of 256 features under the default batch of 1024: 300 passes of one 200-row step. Laying the passes out
    # as rows takes 300 * 200 * 256 float32 = 61 MB (chapter 12's gpu shapes: 9 GB, the kernel killed); gathering
    # each batch when its step comes keeps a copy of the features (0.2 MB) and the order of indices
    import tracemalloc
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300)
    x = rng.normal(size=(300, 256)).astype(np.float32) + y[:, None] * 0.3
    train_probe(x[:20], y[:20], x[200:], y[200:], l2_values=(1e-4,), min_steps=2)      # trace Keras's functions first
    tracemalloc.start()
    probe, _ = train_probe(x[:200], y[:200], x[200:], y[200:], l2_values=(1e-4,))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20e6, peak
    assert _steps(probe) == 300
    # the same weights as one fit on the passes laid out (independent: the order drawn here as the docstring says)
    order_rng = np.random.default_rng(0)
    order = np.concatenate([order_rng.permutation(200) for _ in range(300)])
    standard = (x[:200] - x[:200].mean(0)) / (x[:200].std(0) + 1e-6)
    keras.utils.set_random_seed(0)
    reference = keras.Sequential([keras.Input((256,)), keras.layers.Dense(2, kernel_regularizer=keras.regularizers.L2(1e-4))])
    reference.compile(optimizer=keras.optimizers.Adam(1e-2),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    reference.fit(standard[order], y[:200][order], batch_size=200, epochs=1, shuffle=False, verbose=0)
    for got, want in zip(probe.model.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
