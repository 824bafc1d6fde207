"""Tests for word2bert.attention: hand-computed weights and context, masking, the three
scores against their formulas in numpy, serialization and float16."""
import numpy as np
import pytest
import keras
from keras import ops

from layer_checks import run_layer_test
from word2bert.layers import Attention


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_dot_context_equals_hand_computed_weighted_sum():
    # one query, 3 source steps, d = 2
    s = np.array([[1.0, 2.0]], np.float32)
    h = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]], np.float32)
    # e = s.h_i = [1, 2, 3]; alpha = softmax(e); c = sum alpha_i h_i
    e = np.array([1.0, 2.0, 3.0])
    alpha = np.exp(e) / np.exp(e).sum()  # [0.0900, 0.2447, 0.6652]
    c = alpha[0] * h[0, 0] + alpha[1] * h[0, 1] + alpha[2] * h[0, 2]
    context, weights = Attention("dot")(s, h)
    np.testing.assert_allclose(ops.convert_to_numpy(weights)[0], alpha, rtol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(context)[0], c, rtol=1e-5)
    np.testing.assert_allclose(c, [0.7553, 0.9099], atol=1e-4)


@pytest.mark.parametrize("score", ["dot", "general", "additive"])
def test_padding_gets_zero_weight_and_rows_sum_to_one(score):
    rng = np.random.default_rng(0)
    q = rng.normal(size=(2, 4, 6)).astype("float32")
    v = rng.normal(size=(2, 5, 6)).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    layer = Attention(score, hidden_dim=7)
    context, weights = layer(q, v, value_mask=mask)
    w = ops.convert_to_numpy(weights)
    assert w.shape == (2, 4, 5) and ops.convert_to_numpy(context).shape == (2, 4, 6)
    assert np.all(w[0, :, 3:] == 0.0)
    np.testing.assert_allclose(w.sum(-1), 1.0, rtol=1e-5)
    # invariance: changing the padded values changes nothing
    v2 = v.copy()
    v2[0, 3:] = 100.0
    v2[0, 4, 2] = np.nan  # not even a NaN in a padded position may leak in
    c2, w2 = layer(q, v2, value_mask=mask)
    np.testing.assert_allclose(ops.convert_to_numpy(c2), ops.convert_to_numpy(context), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("score", ["general", "additive"])
def test_scores_match_numpy_formula(score):
    rng = np.random.default_rng(1)
    q = rng.normal(size=(1, 2, 3)).astype("float32")
    v = rng.normal(size=(1, 4, 5)).astype("float32")
    layer = Attention(score, hidden_dim=6)
    context, weights = layer(q, v)
    if score == "general":  # Luong eq. 8: e_ti = s_t^T W_a h_i
        w_a = ops.convert_to_numpy(layer.w_a)
        e = np.einsum("td,sd->ts", q[0], v[0] @ w_a)
    else:  # Bahdanau: e_ti = v_a^T tanh(W_q s_t + W_k h_i)
        wq, wk, va = (ops.convert_to_numpy(x) for x in (layer.w_q, layer.w_k, layer.v_a))
        e = np.tanh((q[0] @ wq)[:, None, :] + (v[0] @ wk)[None, :, :]) @ va
    alpha = _softmax(e)
    np.testing.assert_allclose(ops.convert_to_numpy(weights)[0], alpha, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ops.convert_to_numpy(context)[0], alpha @ v[0], rtol=1e-4, atol=1e-6)


def test_single_step_query_and_all_masked_row():
    q = np.ones((2, 4), np.float32)
    v = np.ones((2, 3, 4), np.float32)
    mask = np.array([[1, 0, 0], [0, 0, 0]], bool)
    context, weights = Attention("dot")(q, v, value_mask=mask)
    w = ops.convert_to_numpy(weights)
    np.testing.assert_allclose(w, [[1, 0, 0], [0, 0, 0]])
    np.testing.assert_allclose(ops.convert_to_numpy(context)[1], 0.0)


def test_float16_masking_is_finite():
    q = np.full((1, 2, 4), 3.0, np.float16)
    v = np.full((1, 3, 4), 2.0, np.float16)
    layer = Attention("general", dtype="float16")
    context, weights = layer(q, v, value_mask=np.array([[1, 1, 0]], bool))
    w = ops.convert_to_numpy(weights).astype(np.float32)
    assert np.all(np.isfinite(w)) and np.all(np.isfinite(ops.convert_to_numpy(context).astype(np.float32)))
    assert np.all(w[..., 2] == 0) and np.allclose(w.sum(-1), 1.0, atol=1e-3)


def test_config_round_trip_and_save_load(tmp_path):
    q_in = keras.Input((None, 4))
    v_in = keras.Input((None, 4))
    context, weights = Attention("additive", hidden_dim=3, name="attn")(q_in, v_in)
    model = keras.Model([q_in, v_in], [context, weights])
    x = [np.random.default_rng(2).normal(size=(2, 3, 4)).astype("float32"),
         np.random.default_rng(3).normal(size=(2, 5, 4)).astype("float32")]
    path = tmp_path / "attn.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    for a, b in zip(model(x), loaded(x)):
        np.testing.assert_allclose(ops.convert_to_numpy(a), ops.convert_to_numpy(b), rtol=1e-6)
    cfg = model.get_layer("attn").get_config()
    assert cfg["score"] == "additive" and cfg["hidden_dim"] == 3
    assert Attention.from_config(cfg).get_config() == cfg


def test_bad_arguments():
    with pytest.raises(ValueError, match="score"):
        Attention("cosine")
    with pytest.raises(ValueError, match="d_query == d_value"):
        Attention("dot")(np.ones((1, 2, 3), "float32"), np.ones((1, 4, 5), "float32"))
    with pytest.raises(ValueError, match="rank 3"):
        Attention("general")(np.ones((1, 2, 3), "float32"), np.ones((4, 5), "float32"))


@pytest.mark.parametrize("score", ["dot", "general"])
def test_scaled_scores_divide_by_sqrt_d(score):
    # Vaswani et al. (2017) eq. 1: softmax(q.k / sqrt(d)); d = 4 here, so the scores are halved
    rng = np.random.default_rng(4)
    q = rng.normal(size=(1, 2, 4)).astype("float32")
    v = rng.normal(size=(1, 3, 4)).astype("float32")
    plain = Attention(score)
    scaled = Attention(score, scale=True)
    plain(q, v)
    scaled(q, v)
    if score == "general":
        scaled.w_a.assign(plain.w_a)
    keys = v[0] if score == "dot" else v[0] @ ops.convert_to_numpy(plain.w_a)
    e = q[0] @ keys.T
    _, w_plain = plain(q, v)
    _, w_scaled = scaled(q, v)
    np.testing.assert_allclose(ops.convert_to_numpy(w_plain)[0], _softmax(e), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ops.convert_to_numpy(w_scaled)[0], _softmax(e / 2.0), rtol=1e-4, atol=1e-6)
    assert Attention.from_config(scaled.get_config()).scale is True
    assert plain.get_config()["scale"] is False
    with pytest.raises(ValueError, match="scale"):
        Attention(score, scale="yes")


@pytest.mark.parametrize("query, values, value_mask, match", [
    (np.ones((2, 3, 4), "float32"), np.ones((3, 5, 4), "float32"), None, "same batch size"),
    (np.ones((2, 3, 4), "float32"), np.ones((2, 5, 4), "float32"), np.ones((2, 4), bool), r"value_mask must have shape \(batch, source_len\) = \(2, 5\)"),
    (np.ones((2, 3, 4), "float32"), np.ones((2, 5, 4), "float32"), np.ones((2, 5, 1), bool), "value_mask must have shape"),
    (np.ones((2, 3, 4), "int32"), np.ones((2, 5, 4), "float32"), None, "query must be a float tensor"),
])
def test_bad_shapes_and_dtypes_are_one_line_value_errors(query, values, value_mask, match):
    for score in ("dot", "general", "additive"):
        with pytest.raises(ValueError, match=match):
            Attention(score)(query, values, value_mask=value_mask)


@pytest.mark.parametrize("score", ["dot", "general", "additive"])
def test_attention_passes_the_shared_layer_test(score, tmp_path):
    rng = np.random.default_rng(0)
    query, values = rng.normal(size=(2, 3, 8)).astype("float32"), rng.normal(size=(2, 5, 8)).astype("float32")
    query_mask = np.array([[True, True, False], [True, True, True]])
    run_layer_test(Attention, {"score": score, "hidden_dim": 4, "scale": True}, [query, values], tmp_path,
                   expected_output_shape=[(2, 3, 8), (2, 3, 5)],
                   expected_num_trainable_weights={"dot": 0, "general": 1, "additive": 3}[score],
                   input_mask=query_mask, expected_output_mask=[query_mask, query_mask])


def test_masks_flow_through_stacked_layers():
    # Embedding(mask_zero=True) -> Attention -> a masked layer: the padding mask reaches the layer on top
    tokens = keras.Input((None,), dtype="int32")
    memory = keras.Input((None,), dtype="int32")
    emb = keras.layers.Embedding(10, 4, mask_zero=True)
    context, weights = Attention("dot")(emb(tokens), emb(memory))
    pooled = keras.layers.GlobalAveragePooling1D()(context)   # averages over unmasked positions only
    model = keras.Model([tokens, memory], [pooled, context])
    q = np.array([[1, 2, 0, 0]], "int32"); m = np.array([[3, 4, 5, 0]], "int32")
    pooled_out, context_out = (ops.convert_to_numpy(o) for o in model([q, m]))
    np.testing.assert_allclose(pooled_out[0], context_out[0, :2].mean(axis=0), rtol=1e-5)  # not over 4 rows
    # and the values' mask (from the Embedding) was applied: the padded memory slot gets no weight
    _, w = Attention("dot")(emb(ops.convert_to_tensor(q)), emb(ops.convert_to_tensor(m)))
    assert np.all(ops.convert_to_numpy(w)[0, :, 3] == 0)


def test_query_mask_zeros_padded_query_rows():
    rng = np.random.default_rng(1)
    q, v = rng.normal(size=(1, 3, 4)).astype("float32"), rng.normal(size=(1, 2, 4)).astype("float32")
    context, w = Attention("dot")(q, v, query_mask=np.array([[True, False, True]]))
    w, context = ops.convert_to_numpy(w), ops.convert_to_numpy(context)
    assert np.all(w[0, 1] == 0) and np.all(context[0, 1] == 0) and np.allclose(w[0, [0, 2]].sum(-1), 1)


def test_scaling_uses_the_query_size_when_query_and_values_differ():
    # general score with d_query = 9 and d_values = 4: scores are divided by sqrt(9) = 3, not sqrt(4)
    rng = np.random.default_rng(5)
    q = rng.normal(size=(1, 2, 9)).astype("float32")
    v = rng.normal(size=(1, 3, 4)).astype("float32")
    layer = Attention("general", scale=True)
    _, w = layer(q, v)
    e = q[0] @ (v[0] @ ops.convert_to_numpy(layer.w_a)).T
    np.testing.assert_allclose(ops.convert_to_numpy(w)[0], _softmax(e / 3.0), rtol=1e-4, atol=1e-6)


def test_a_query_mask_of_the_wrong_shape_is_a_one_line_error():
    q, v = np.ones((2, 3, 4), "float32"), np.ones((2, 5, 6), "float32")
    with pytest.raises(ValueError, match=r"query_mask must have shape \(batch, target_len\) = \(2, 3\), got \(2, 7\)"):
        Attention("general")(q, v, query_mask=np.ones((2, 7), bool))
