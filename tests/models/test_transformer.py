"""Tests for the Transformer's layers and models: scaled dot-product and multi-head attention
against numpy and keras.layers.MultiHeadAttention, the causal and padding masks as invariances,
the sinusoidal encoding by hand and against keras-hub, the blocks against keras-hub's, cached
decoding against uncached, the schedule and the masked loss by hand, mixed precision, the shared
layer test and save/load."""
import math

import keras
import keras_hub
import numpy as np
import pytest
from keras import ops

from layer_checks import run_layer_test, to_numpy
from word2bert.layers import (MultiHeadAttention, PositionEmbedding, SinusoidalPositionEncoding,
                              TokenAndPositionEmbedding, TransformerDecoder, TransformerEncoder,
                              masked_softmax, scaled_dot_product_attention)
from word2bert.metrics import MaskedAccuracy
from word2bert.models.transformer import (DecoderOnlyTransformer, MaskedCrossEntropy, Transformer, TransformerSchedule,
                                   warmup_inverse_sqrt,
                                   masked_accuracy)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _normal(rng, *shape):
    return rng.normal(size=shape).astype("float32")


def _randomize(layer, rng, scale=0.5):
    """Every weight drawn from N(0, scale): untrained tiny models are too uniform to test decoding on."""
    layer.set_weights([rng.normal(0.0, scale, w.shape).astype(w.dtype) for w in layer.get_weights()])


@pytest.fixture
def restore_policy():
    previous = keras.config.dtype_policy()
    yield
    keras.config.set_dtype_policy(previous)


# ---------------------------------------------------------------------- scaled dot-product attention
def test_scaled_dot_product_equals_the_numpy_formula_and_divides_by_sqrt_dk():
    # Vaswani et al. (2017) eq. 1: softmax(Q K^T / sqrt(d_k)) V; d_k = 9 so the scores are divided by 3
    rng = np.random.default_rng(0)
    q, k, v = _normal(rng, 2, 3, 9), _normal(rng, 2, 4, 9), _normal(rng, 2, 4, 5)
    out, w = scaled_dot_product_attention(q, k, v)
    expected_w = _softmax(q @ k.transpose(0, 2, 1) / 3.0)
    np.testing.assert_allclose(to_numpy(w), expected_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(out), expected_w @ v, rtol=1e-5, atol=1e-6)
    # mask: True = attend; a masked pair gets exactly 0 and the rest renormalise
    mask = np.array([[[True, True, False, False]], [[False, True, True, True]]])
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    w = to_numpy(w)
    assert np.all(w[~np.broadcast_to(mask, w.shape)] == 0.0)
    scores = np.where(mask, q @ k.transpose(0, 2, 1) / 3.0, -np.inf)
    np.testing.assert_allclose(w, _softmax(scores), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(out), _softmax(scores) @ v, rtol=1e-5, atol=1e-6)


def test_masked_softmax_gives_zeros_for_a_fully_masked_row_in_every_dtype():
    for dtype in ("float32", "float16", "bfloat16"):
        scores = ops.cast(np.array([[3.0, 1.0, -2.0], [60000.0, 5.0, 1.0]], np.float32), dtype)
        mask = np.array([[True, False, True], [False, False, False]])
        w = to_numpy(masked_softmax(scores, mask))
        assert w.dtype == np.float32
        np.testing.assert_allclose(w[0], _softmax(np.array([3.0, -2.0]))[[0, 0, 1]] * [1, 0, 1], rtol=1e-2)
        assert np.all(w[1] == 0.0) and np.all(np.isfinite(w))


# ---------------------------------------------------------------------- 1. the causal mask
def test_causal_mask_with_dropout_in_training_keeps_the_future_out():
    # the bare function with an int seed (stateless, so two calls drop the same weights)
    rng = np.random.default_rng(1)
    q, k, v = _normal(rng, 2, 2, 6, 4), _normal(rng, 2, 2, 6, 4), _normal(rng, 2, 2, 6, 3)
    causal = np.tril(np.ones((6, 6), bool))
    out, w = scaled_dot_product_attention(q, k, v, mask=causal, dropout_rate=0.5, training=True, seed=7)
    w = to_numpy(w)
    assert np.all(w[..., ~causal] == 0.0) and np.allclose(w.sum(-1), 1.0, atol=1e-6)
    i = 2
    k2, v2 = k.copy(), v.copy()
    k2[..., i + 1:, :], v2[..., i + 1:, :] = 50.0, -30.0
    out2, _ = scaled_dot_product_attention(q, k2, v2, mask=causal, dropout_rate=0.5, training=True, seed=7)
    np.testing.assert_array_equal(to_numpy(out2)[..., :i + 1, :], to_numpy(out)[..., :i + 1, :])
    assert not np.allclose(to_numpy(out2)[..., i + 1:, :], to_numpy(out)[..., i + 1:, :])
    no_drop, _ = scaled_dot_product_attention(q, k, v, mask=causal, dropout_rate=0.5, training=False)
    assert not np.allclose(to_numpy(no_drop), to_numpy(out))   # the dropout really acted


@pytest.mark.parametrize("dropout", [0.0, 0.3])
def test_multi_head_causal_mask_output_at_i_ignores_positions_after_i(dropout):
    rng = np.random.default_rng(2)
    x = _normal(rng, 3, 6, 8)
    layer = MultiHeadAttention(num_heads=2, key_dim=4, dropout=dropout)
    i = 3
    x2 = x.copy()
    x2[:, i + 1:] = rng.normal(size=x2[:, i + 1:].shape) * 10
    for training in (False, True):
        for scores in (False, True):
            outs = []
            for inputs in (x, x2):
                if layer.seed_generator is not None and layer.built:
                    layer.seed_generator.state.assign(np.array([0, 0], "uint32"))   # the same dropout mask
                res = layer(inputs, inputs, use_causal_mask=True, return_attention_scores=scores, training=training)
                out, w = (res if scores else (res, None))
                outs.append(to_numpy(out))
                if scores:
                    w = to_numpy(w)
                    assert w.shape == (3, 2, 6, 6)
                    assert np.all(w[..., np.triu_indices(6, 1)[0], np.triu_indices(6, 1)[1]] == 0.0)
                    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-5)
            np.testing.assert_allclose(outs[1][:, :i + 1], outs[0][:, :i + 1], atol=1e-6)
            assert not np.allclose(outs[1][:, i + 1:], outs[0][:, i + 1:])
    if dropout:
        assert not np.allclose(to_numpy(layer(x, x, use_causal_mask=True, training=True)),
                               to_numpy(layer(x, x, use_causal_mask=True, training=False)))


@pytest.mark.parametrize("dropout", [0.0, 0.2])
def test_decoder_block_is_causal(dropout):
    rng = np.random.default_rng(3)
    dec, enc = _normal(rng, 2, 5, 8), _normal(rng, 2, 4, 8)
    block = TransformerDecoder(16, 2, dropout=dropout)
    i = 1
    dec2 = dec.copy()
    dec2[:, i + 1:] += 5.0
    a, s = block(dec, enc, return_attention_scores=True)
    b = block(dec2, enc)
    np.testing.assert_allclose(to_numpy(b)[:, :i + 1], to_numpy(a)[:, :i + 1], atol=1e-5)
    assert not np.allclose(to_numpy(b)[:, i + 1:], to_numpy(a)[:, i + 1:])
    assert np.all(to_numpy(s["self"])[..., ~np.tril(np.ones((5, 5), bool))] == 0.0)


def test_models_are_causal():
    # logits at t do not depend on target tokens after t (dropout 0.1, inference)
    src = np.array([[3, 4, 5, 0], [6, 2, 0, 0]], np.int32)
    tgt = np.array([[1, 4, 7, 3, 2], [1, 5, 6, 8, 2]], np.int32)
    i = 1
    tgt2 = tgt.copy()
    tgt2[:, i + 1:] = [[8, 8, 8], [3, 0, 4]]
    for model, inputs in ((Transformer(10, 9, num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16,
                                       max_sequence_length=6), lambda t: (src, t)),
                          (DecoderOnlyTransformer(9, num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16,
                                                  max_sequence_length=6), lambda t: t)):
        la, lb = to_numpy(model(inputs(tgt))), to_numpy(model(inputs(tgt2)))
        np.testing.assert_allclose(lb[:, :i + 1], la[:, :i + 1], atol=1e-5)
        assert not np.allclose(lb[:, i + 1:], la[:, i + 1:])


# ---------------------------------------------------------------------- 2. padding
def test_padding_mask_survives_embedding_and_encoder_block():
    ids = np.array([[5, 3, 7, 0, 0], [2, 0, 0, 0, 0], [4, 6, 1, 8, 9]], np.int32)
    mask = ids != 0
    emb = TokenAndPositionEmbedding(10, 6, 8)
    block = TransformerEncoder(16, 2, dropout=0.0)
    inp = keras.Input((None,), dtype="int32")
    hidden = block(emb(inp))
    pooled = keras.layers.GlobalAveragePooling1D()(hidden)    # averages over unmasked positions only
    model = keras.Model(inp, [hidden, pooled])
    h, p = (to_numpy(o) for o in model(ids))
    x = to_numpy(emb(ids))                                     # a plain array: no Keras mask attached
    np.testing.assert_array_equal(to_numpy(emb.compute_mask(ids)), mask)
    np.testing.assert_array_equal(to_numpy(block.compute_mask(x, emb.compute_mask(ids))), mask)
    # inside the model the block got the mask: as an explicit call with it, not as a call without
    np.testing.assert_allclose(h[mask], to_numpy(block(x, mask=mask))[mask], atol=1e-5)
    assert not np.allclose(h[0, :3], to_numpy(block(x))[0, :3], atol=1e-3)
    for row in range(3):
        np.testing.assert_allclose(p[row], h[row, mask[row]].mean(0), rtol=1e-5, atol=1e-6)
    assert TokenAndPositionEmbedding(10, 6, 8, mask_zero=False).compute_mask(ids) is None


@pytest.mark.parametrize("batch", [2, 3])   # heads = 2: batch == heads and batch != heads
def test_encoder_block_non_pad_outputs_ignore_pad_vectors(batch):
    rng = np.random.default_rng(4)
    x = _normal(rng, batch, 5, 8)
    mask = np.array([[1, 1, 1, 0, 0], [1, 0, 0, 0, 0], [1, 1, 1, 1, 1]], bool)[:batch]
    block = TransformerEncoder(16, 2, dropout=0.1)
    out, w = block(x, mask=mask, return_attention_scores=True)
    out, w = to_numpy(out), to_numpy(w)
    assert out.shape == (batch, 5, 8) and w.shape == (batch, 2, 5, 5)
    assert np.all(w.transpose(0, 2, 3, 1)[np.broadcast_to(~mask[:, None, :], (batch, 5, 5))] == 0.0)
    x2 = x.copy()
    x2[~mask] = 100.0
    x2[0, 4, 3] = np.nan        # not even a NaN in a padded position may leak in
    out2 = to_numpy(block(x2, mask=mask))
    np.testing.assert_allclose(out2[mask], out[mask], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("batch", [2, 3])
def test_decoder_block_ignores_source_and_target_padding(batch):
    rng = np.random.default_rng(5)
    T, S = 4, 6
    dec, enc = _normal(rng, batch, T, 8), _normal(rng, batch, S, 8)
    dec_mask = np.array([[1, 0, 1, 1], [1, 1, 1, 0], [1, 1, 1, 1]], bool)[:batch]   # a hole mid-sentence
    enc_mask = np.array([[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]], bool)[:batch]
    block = TransformerDecoder(16, 2, dropout=0.1)
    out, scores = block(dec, enc, decoder_sequence_mask=dec_mask, encoder_sequence_mask=enc_mask,
                        return_attention_scores=True)
    out, self_w, cross_w = to_numpy(out), to_numpy(scores["self"]), to_numpy(scores["cross"])
    assert out.shape == (batch, T, 8) and self_w.shape == (batch, 2, T, T) and cross_w.shape == (batch, 2, T, S)
    for b in range(batch):
        assert np.all(cross_w[b][:, :, ~enc_mask[b]] == 0.0)
        assert np.all(self_w[b][:, :, ~dec_mask[b]] == 0.0)
        np.testing.assert_allclose(cross_w[b][:, dec_mask[b]].sum(-1), 1.0, atol=1e-5)
    dec2, enc2 = dec.copy(), enc.copy()
    dec2[~dec_mask] = 100.0
    enc2[~enc_mask] = -70.0
    enc2[0, 5, 1] = np.nan
    out2 = to_numpy(block(dec2, enc2, decoder_sequence_mask=dec_mask, encoder_sequence_mask=enc_mask))
    np.testing.assert_allclose(out2[dec_mask], out[dec_mask], rtol=1e-5, atol=1e-5)


def test_transformer_ignores_source_padding_and_its_scores_show_it():
    model = Transformer(12, 9, num_layers=2, hidden_dim=8, num_heads=2, intermediate_dim=16, dropout=0.1, max_sequence_length=8)
    src = np.array([[3, 4, 5, 0, 0], [6, 2, 7, 9, 11]], np.int32)
    tgt = np.array([[1, 4, 7, 3], [1, 5, 6, 0]], np.int32)
    logits = to_numpy(model((src, tgt)))
    assert logits.shape == (2, 4, 9) and logits.dtype == np.float32
    longer = np.pad(src, ((0, 0), (0, 3)))               # three more columns of padding
    np.testing.assert_allclose(to_numpy(model((longer, tgt))), logits, atol=1e-5)
    scores = model.attention_scores(src, tgt)
    assert [s.shape for s in scores["encoder"]] == [(2, 2, 5, 5)] * 2
    assert [s.shape for s in scores["cross"]] == [(2, 2, 4, 5)] * 2
    for s in scores["encoder"] + scores["cross"]:
        assert np.all(s[0, :, :, 3:] == 0.0) and s[0, :, :3].sum() > 0
    for s in scores["decoder_self"]:
        assert np.all(s[..., ~np.tril(np.ones((4, 4), bool))] == 0.0)


# ---------------------------------------------------------------------- 3. mixed precision
@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_mixed_precision_with_a_fully_padded_row(policy, restore_policy):
    rng = np.random.default_rng(6)
    x = _normal(rng, 3, 5, 8)
    mask = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], bool)
    y = [_normal(rng, 3, 5, 8), _normal(rng, 3, 5, 8)]

    def build():
        xi, mi = keras.Input((5, 8)), keras.Input((5,), dtype="bool")
        a = MultiHeadAttention(2, 4, name="mha")(xi, xi, query_mask=mi, value_mask=mi)
        h = TransformerEncoder(16, 2, dropout=0.0, name="encoder")(a, mask=mi)
        return keras.Model([xi, mi], [a, h])

    reference = build()
    ref_out = [to_numpy(o) for o in reference([x, mask])]
    keras.config.set_dtype_policy(policy)
    model = build()
    model.set_weights(reference.get_weights())
    low = [to_numpy(o).astype(np.float32) for o in model([x, mask])]
    for a, b in zip(ref_out, low):
        assert np.all(np.isfinite(b))
        np.testing.assert_allclose(b, a, atol=(1e-2 if policy == "mixed_float16" else 3e-2) * max(1.0, np.abs(a).max()))
    # the fully padded row: zero attention weights, so the attention output is the output bias alone
    mha = model.get_layer("mha")
    out, w = mha(x, x, query_mask=mask, value_mask=mask, return_attention_scores=True)
    assert np.all(to_numpy(w)[1] == 0.0)
    np.testing.assert_array_equal(to_numpy(out)[1], np.broadcast_to(to_numpy(mha.bo), (5, 8)))
    # one training step: finite loss and weights, and the weights moved (a float16 loss-scale
    # optimizer skips the step when a gradient is not finite)
    before = [to_numpy(w).astype(np.float32) for w in model.trainable_weights]
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss=["mse", "mse"])
    history = model.fit([x, mask], y, epochs=1, batch_size=3, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    after = [to_numpy(w).astype(np.float32) for w in model.trainable_weights]
    assert all(np.all(np.isfinite(w)) for w in after)
    assert all(not np.allclose(a, b) for a, b in zip(before, after))     # every weight got a gradient


def test_fully_masked_query_row_gives_zeros_not_nan():
    x = np.ones((2, 3, 4), np.float32)
    mask = np.array([[True, True, False], [False, False, False]])
    layer = MultiHeadAttention(2, 2, use_bias=False)
    out, w = layer(x, x, value_mask=mask, return_attention_scores=True)
    assert np.all(to_numpy(w)[1] == 0.0) and np.all(to_numpy(out)[1] == 0.0)
    assert np.all(np.isfinite(to_numpy(out)))


# ---------------------------------------------------------------------- 4. positions
def test_sinusoidal_encoding_by_hand():
    d = 8
    pe = to_numpy(SinusoidalPositionEncoding(sequence_length=20)(np.zeros((2, 12, d), np.float32)))
    assert pe.shape == (2, 12, d)
    np.testing.assert_allclose(pe[0, 0], [0, 1, 0, 1, 0, 1, 0, 1], atol=1e-7)
    freq = 1.0 / 10000.0 ** (np.arange(0, d, 2) / d)             # 1, 0.1, 0.01, 0.001
    np.testing.assert_allclose(pe[0, 1, 0::2], np.sin(freq), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(pe[0, 1, 1::2], np.cos(freq), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(pe[0, 1, :2], [math.sin(1.0), math.cos(1.0)], rtol=1e-6)
    np.testing.assert_allclose(pe[0, :, 0::2] ** 2 + pe[0, :, 1::2] ** 2, 1.0, atol=1e-6)
    np.testing.assert_array_equal(pe[1], pe[0])
    # one step at start_index t equals row t of the full table
    layer = SinusoidalPositionEncoding(sequence_length=20, max_wavelength=100.0)
    table = to_numpy(layer(np.zeros((1, 20, d), np.float32)))
    for t in (0, 5, 19):
        step = to_numpy(layer(np.zeros((3, 1, d), np.float32), start_index=t))
        np.testing.assert_allclose(step, np.broadcast_to(table[0, t], (3, 1, d)), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(table[0, 2, 2], math.sin(2 / 100.0 ** (2 / d)), rtol=1e-6)  # max_wavelength used


@pytest.mark.parametrize("start_index", [0, 7])
def test_sinusoidal_encoding_equals_keras_hub(start_index):
    x = np.zeros((2, 9, 16), np.float32)
    ours = to_numpy(SinusoidalPositionEncoding(sequence_length=32)(x, start_index=start_index))
    ref = to_numpy(keras_hub.layers.SinePositionEncoding()(x, start_index=start_index))
    np.testing.assert_allclose(ours, ref, atol=1e-5)


def test_too_long_sequences_raise_with_both_numbers():
    x = np.zeros((1, 11, 4), np.float32)
    for layer in (SinusoidalPositionEncoding(7), PositionEmbedding(7)):
        with pytest.raises(ValueError, match=r"(?s)(11.*\b7\b)|(\b7\b.*11)"):
            layer(x)
    with pytest.raises(ValueError, match=r"(?s)13.*\b9\b"):
        SinusoidalPositionEncoding(9)(np.zeros((1, 3, 4), np.float32), start_index=10)
    with pytest.raises(ValueError, match=r"(?s)(11.*\b7\b)|(\b7\b.*11)"):
        TokenAndPositionEmbedding(20, 7, 4)(np.ones((1, 11), np.int32))
    model = Transformer(10, 10, num_layers=1, hidden_dim=4, num_heads=2, intermediate_dim=8, max_sequence_length=7)
    with pytest.raises(ValueError, match=r"(?s)(11.*\b7\b)|(\b7\b.*11)"):
        model((np.ones((1, 11), np.int32), np.ones((1, 3), np.int32)))


def test_learned_positions_and_token_embedding_by_hand():
    ids = np.array([[3, 1, 0]], np.int32)
    for position, scale in (("learned", False), ("sinusoidal", True)):
        emb = TokenAndPositionEmbedding(5, 6, 4, position=position, scale_embeddings=scale)
        out = to_numpy(emb(ids))
        table = to_numpy(emb.token_embedding.embeddings)
        pos = to_numpy(emb.position_encoding.embeddings)[:3] if position == "learned" else \
            to_numpy(SinusoidalPositionEncoding(6)(np.zeros((1, 3, 4), np.float32)))[0]
        np.testing.assert_allclose(out[0], table[ids[0]] * (2.0 if scale else 1.0) + pos, rtol=1e-6, atol=1e-6)
    layer = PositionEmbedding(6)
    step = to_numpy(layer(np.zeros((2, 2, 4), np.float32), start_index=3))
    np.testing.assert_array_equal(step, np.broadcast_to(to_numpy(layer.embeddings)[3:5], (2, 2, 4)))


# ---------------------------------------------------------------------- 5. against keras and keras-hub
CASES = {
    "self": dict(lq=5, lk=5, masks=False, causal=False, attention_mask=False),
    "masks": dict(lq=4, lk=6, masks=True, causal=False, attention_mask=False),
    "causal": dict(lq=5, lk=5, masks=True, causal=True, attention_mask=False),
    "causal_cross": dict(lq=4, lk=6, masks=False, causal=True, attention_mask=False),
    "attention_mask": dict(lq=4, lk=6, masks=True, causal=False, attention_mask=True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_multi_head_attention_equals_keras(case):
    c = CASES[case]
    rng = np.random.default_rng(7)
    b, lq, lk = 3, c["lq"], c["lk"]
    query, value, key = _normal(rng, b, lq, 6), _normal(rng, b, lk, 5), _normal(rng, b, lk, 7)
    kwargs = dict(num_heads=2, key_dim=3, value_dim=4, output_shape=9)
    ref, ours = keras.layers.MultiHeadAttention(**kwargs), MultiHeadAttention(**kwargs)
    call = dict(use_causal_mask=c["causal"], return_attention_scores=True)
    valid = np.ones((b, lq), bool)
    if c["masks"]:
        call["query_mask"] = np.array([[1] * (lq - 1) + [0], [1] * lq, [1, 1] + [0] * (lq - 2)], bool)
        call["value_mask"] = np.array([[1] * (lk - 2) + [0, 0], [1] * lk, [1, 1, 1] + [0] * (lk - 3)], bool)
        valid = call["query_mask"].copy()
    if c["attention_mask"]:
        am = rng.random((b, lq, lk)) < 0.6
        am[:, :, 0] = True                   # every query keeps one key
        call["attention_mask"] = am
    ref(query, value, key, return_attention_scores=True)   # keras's fused JAX path needs key_dim == value_dim
    ours(query, value, key)
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in ref.weights]
    ours.set_weights(ref.get_weights())
    ref_out, ref_w = (to_numpy(t) for t in ref(query, value, key, **call))
    out, w = (to_numpy(t) for t in ours(query, value, key, **call))
    assert out.shape == ref_out.shape == (b, lq, 9) and w.shape == ref_w.shape == (b, 2, lq, lk)
    assert np.abs(out[valid] - ref_out[valid]).max() <= 1e-5
    assert np.abs(w.transpose(0, 2, 1, 3)[valid] - ref_w.transpose(0, 2, 1, 3)[valid]).max() <= 1e-5
    if c["masks"]:   # ours: a padded query row gets zero weights (keras: uniform)
        assert np.all(w.transpose(0, 2, 1, 3)[~valid] == 0.0)


def test_mask_polarity_true_means_attend():
    rng = np.random.default_rng(8)
    q, v = _normal(rng, 1, 2, 4), _normal(rng, 1, 3, 4)
    layer = MultiHeadAttention(1, 4)
    _, w = layer(q, v, value_mask=np.array([[True, True, False]]), return_attention_scores=True)
    w = to_numpy(w)[0, 0]
    assert np.all(w[:, 2] == 0.0) and np.all(w[:, :2] > 0.0)
    _, w = layer(q, v, attention_mask=np.array([[[True, False, False], [False, False, True]]]),
                 return_attention_scores=True)
    np.testing.assert_allclose(to_numpy(w)[0, 0], [[1, 0, 0], [0, 0, 1]], atol=1e-7)
    w = masked_softmax(np.zeros((1, 3), np.float32), np.array([[False, True, True]]))
    np.testing.assert_allclose(to_numpy(w), [[0.0, 0.5, 0.5]], atol=1e-7)


_HUB_NAMES = {"self_attention_norm": "self_attention_layer_norm", "cross_attention_norm": "cross_attention_layer_norm",
              "feedforward_norm": "feedforward_layer_norm", "feedforward_inner": "feedforward_intermediate_dense",
              "feedforward_outer": "feedforward_output_dense", "query_kernel": "query/kernel",
              "query_bias": "query/bias", "key_kernel": "key/kernel", "key_bias": "key/bias",
              "value_kernel": "value/kernel", "value_bias": "value/bias", "output_kernel": "attention_output/kernel",
              "output_bias": "attention_output/bias"}


def _copy_from_hub(ours, ref):
    """Our block's weights from keras-hub's, matched by name (keras-hub's ``self_attention_layer``
    in the encoder, ``self_attention`` in the decoder) and checked by shape."""
    by_name = {}
    for w in ref.weights:
        name = w.path.split("/", 1)[1].replace("self_attention_layer/", "self_attention/")
        by_name[name] = w
    values = []
    for w in ours.weights:
        parts = w.path.split("/")[1:]
        name = "/".join(_HUB_NAMES.get(p, p) for p in parts)
        source = by_name.pop(name)
        assert tuple(source.shape) == tuple(w.shape), name
        values.append(to_numpy(source))
    assert not by_name, sorted(by_name)
    ours.set_weights(values)


@pytest.mark.parametrize("normalize_first", [False, True])
def test_encoder_block_equals_keras_hub(normalize_first):
    rng = np.random.default_rng(9)
    x = _normal(rng, 3, 5, 8)
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0]], bool)
    ref = keras_hub.layers.TransformerEncoder(16, 2, dropout=0.0, normalize_first=normalize_first)
    ours = TransformerEncoder(16, 2, dropout=0.0, normalize_first=normalize_first)
    ref(x)
    ours(x)
    _randomize(ref, rng)
    _copy_from_hub(ours, ref)
    ref_out, ref_w = (to_numpy(t) for t in ref(x, padding_mask=mask, return_attention_scores=True))
    out, w = (to_numpy(t) for t in ours(x, mask=mask, return_attention_scores=True))
    assert np.abs(out[mask] - ref_out[mask]).max() <= 1e-5
    assert np.abs(w.transpose(0, 2, 1, 3)[mask] - ref_w.transpose(0, 2, 1, 3)[mask]).max() <= 1e-5
    np.testing.assert_allclose(to_numpy(ours(x)), to_numpy(ref(x)), atol=1e-5)   # no mask at all


@pytest.mark.parametrize("normalize_first", [False, True])
def test_decoder_block_equals_keras_hub(normalize_first):
    rng = np.random.default_rng(10)
    dec, enc = _normal(rng, 3, 4, 8), _normal(rng, 3, 6, 8)
    dec_mask = np.array([[1, 1, 1, 0], [1, 1, 1, 1], [1, 1, 0, 0]], bool)
    enc_mask = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]], bool)
    ref = keras_hub.layers.TransformerDecoder(16, 2, dropout=0.0, normalize_first=normalize_first)
    ours = TransformerDecoder(16, 2, dropout=0.0, normalize_first=normalize_first)
    ref(dec, enc)
    ours(dec, enc)
    _randomize(ref, rng)
    _copy_from_hub(ours, ref)
    ref_out = to_numpy(ref(dec, enc, decoder_padding_mask=dec_mask, encoder_padding_mask=enc_mask))
    out = to_numpy(ours(dec, enc, decoder_sequence_mask=dec_mask, encoder_sequence_mask=enc_mask))
    assert np.abs(out[dec_mask] - ref_out[dec_mask]).max() <= 1e-5


# ---------------------------------------------------------------------- 6. cached decoding
def _random_weights(model, rng):
    """Random weights under which decoded sequences vary: untrained (and plain N(0, 0.5)) tiny
    models emit one token over and over, which would make cached == uncached a weak check.
    Kernels N(0, 1/fan_in), queries and keys 3x sharper, token rows of unit size after the
    sqrt(hidden_dim) scaling, learned positions N(0, 1), LayerNorm 1 + N(0, 0.1), biases N(0, 0.1)."""
    values = []
    for w in model.weights:
        shape, path = tuple(w.shape), w.path
        if len(shape) == 1 or path.endswith("_bias"):
            std, base = 0.1, 1.0 if path.endswith("gamma") else 0.0
        elif "token_embedding" in path:
            std, base = shape[1] ** -0.5, 0.0
        elif "position" in path:
            std, base = 1.0, 0.0
        else:
            fan_in = shape[0] * shape[1] if path.endswith("output_kernel") else shape[0]
            std, base = (3.0 if "query" in path or "key" in path else 1.0) / math.sqrt(fan_in), 0.0
        values.append((base + rng.normal(0.0, std, shape)).astype("float32"))
    model.set_weights(values)
    return model


def _tiny_transformer(seed=9):
    model = Transformer(13, 11, num_layers=2, hidden_dim=8, num_heads=2, intermediate_dim=16, dropout=0.1, max_sequence_length=10,
                        position="learned")
    model((np.ones((1, 3), np.int32), np.ones((1, 2), np.int32)))
    return _random_weights(model, np.random.default_rng(seed))


def _tiny_lm(seed=3):
    model = DecoderOnlyTransformer(11, num_layers=2, hidden_dim=8, num_heads=2, intermediate_dim=16, dropout=0.1,
                                   max_sequence_length=10, tie_embeddings=False)
    model(np.ones((1, 2), np.int32))
    return _random_weights(model, np.random.default_rng(seed))


def _assert_varied(sequences):
    # not one token over and over: three different tokens in all, two in one sequence
    assert len({t for s in sequences for t in s}) >= 3 and any(len(set(s)) >= 2 for s in sequences), sequences


def test_cached_step_log_probs_equal_uncached_and_teacher_forcing():
    model = _tiny_transformer()
    src = np.array([[3, 4, 5, 6, 0], [7, 8, 9, 0, 0]], np.int32)
    # an id 0 fed back (an untrained model may emit it) is a real token to both steps
    dec_in = np.array([[1, 5, 9, 4], [1, 10, 0, 6]], np.int32)
    real = np.ones(dec_in.shape, bool)
    memory, mask = model.encode_source(src)
    teacher = to_numpy(ops.log_softmax(model.run_decoder(dec_in, memory, mask, decoder_mask=real), axis=-1))
    np.testing.assert_allclose(teacher[0], to_numpy(ops.log_softmax(model((src, dec_in)), axis=-1))[0], atol=1e-5)
    lm = _tiny_lm()
    lm_teacher = to_numpy(ops.log_softmax(lm.run_decoder(dec_in, decoder_mask=real), axis=-1))
    for m, expected, context in ((model, teacher, model.source_context(memory, mask)), (lm, lm_teacher, None)):
        step, step_uncached = m.step_functions(context)
        cached, uncached = m.decoding_state(2, 4, use_cache=True), m.decoding_state(2, 4, use_cache=False)
        for t in range(4):
            lp_c, cached = step(cached, dec_in[:, t])
            lp_u, uncached = step_uncached(uncached, dec_in[:, t])
            np.testing.assert_allclose(lp_c, lp_u, atol=1e-4)
            np.testing.assert_allclose(lp_c, expected[:, t], atol=1e-4)


@pytest.mark.parametrize("beam_width", [1, 3])
def test_cached_decoding_equals_uncached_token_for_token(beam_width):
    model = _tiny_transformer()
    src = np.array([[3, 4, 5, 6, 0], [12, 11, 10, 9, 8]], np.int32)
    cached = model.translate(src, bos_id=1, eos_id=2, max_length=6, beam_width=beam_width)
    assert cached == model.translate(src, bos_id=1, eos_id=2, max_length=6, beam_width=beam_width, use_cache=False)
    _assert_varied(cached)
    lm = _tiny_lm()
    cached = lm.generate(1, start_id=1, end_id=2, max_length=6, beam_width=beam_width)
    assert cached == lm.generate(1, start_id=1, end_id=2, max_length=6, beam_width=beam_width, use_cache=False)
    _assert_varied(cached)


# ---------------------------------------------------------------------- 7. training
def test_transformer_schedule_equals_the_formula_and_peaks_at_warmup():
    d, w = 64, 50
    schedule = TransformerSchedule(hidden_dim=d, warmup_steps=w)
    for s in (1, 2, 10, 49, 50, 51, 200, 5000):       # the paper's step s is Keras's step s - 1
        expected = d ** -0.5 * min(s ** -0.5, s * w ** -1.5)
        np.testing.assert_allclose(float(to_numpy(schedule(s - 1))), expected, rtol=1e-5)
    rates = to_numpy(schedule(np.arange(0, 3 * w)))
    assert int(np.argmax(rates)) + 1 == w
    np.testing.assert_allclose(rates.max(), (d * w) ** -0.5, rtol=1e-5)
    scaled = TransformerSchedule(hidden_dim=d, warmup_steps=w, scale=2.5)
    np.testing.assert_allclose(float(to_numpy(scaled(99))), 2.5 * d ** -0.5 * 100 ** -0.5, rtol=1e-5)
    assert TransformerSchedule.from_config(scaled.get_config()).get_config() == scaled.get_config()
    optimizer = keras.optimizers.Adam(schedule)
    np.testing.assert_allclose(float(to_numpy(optimizer.learning_rate)), d ** -0.5 * w ** -1.5, rtol=1e-5)


def _numpy_masked_ce(y, logits, eps):
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    vocab = logits.shape[-1]
    total, count = 0.0, 0
    for b in range(y.shape[0]):
        for t in range(y.shape[1]):
            if y[b, t] == 0:
                continue
            target = np.full(vocab, eps / vocab)
            target[y[b, t]] += 1.0 - eps
            total += -(target * logp[b, t]).sum()
            count += 1
    return total / count


@pytest.mark.parametrize("eps", [0.0, 0.1])
def test_masked_cross_entropy_by_hand(eps):
    rng = np.random.default_rng(13)
    y = np.array([[3, 1, 0, 0], [2, 4, 4, 0]], np.int32)      # 5 real tokens, 3 pads
    logits = _normal(rng, 2, 4, 5) * 2
    loss = MaskedCrossEntropy(label_smoothing=eps)
    value = float(to_numpy(loss(y, logits)))
    np.testing.assert_allclose(value, _numpy_masked_ce(y, logits, eps), rtol=1e-5)
    if eps == 0.0:  # the plain cross-entropy of the 5 real tokens, averaged
        logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
        np.testing.assert_allclose(value, -np.mean([logp[0, 0, 3], logp[0, 1, 1], logp[1, 0, 2], logp[1, 1, 4],
                                                    logp[1, 2, 4]]), rtol=1e-5)
    changed = logits.copy()
    changed[y == 0] = rng.normal(size=(3, 5)) * 50
    np.testing.assert_allclose(float(to_numpy(loss(y, changed))), value, rtol=1e-6)
    assert float(to_numpy(loss(np.zeros((1, 3), np.int32), logits[:1, :3]))) == 0.0
    assert MaskedCrossEntropy.from_config(loss.get_config()).label_smoothing == eps


def test_masked_accuracy_by_hand():
    y = np.array([[3, 1, 0], [2, 4, 0]], np.int32)
    pred = np.zeros((2, 3, 5), np.float32)
    # predictions: [3, 2, 0*] and [2, 4, 3*]; * = padding, never counted (the first pad is "right")
    for (b, t), k in {(0, 0): 3, (0, 1): 2, (0, 2): 0, (1, 0): 2, (1, 1): 4, (1, 2): 3}.items():
        pred[b, t, k] = 1.0
    np.testing.assert_allclose(float(to_numpy(masked_accuracy(y, pred))), 3 / 4, rtol=1e-6)


# ---------------------------------------------------------------------- 8. the shared layer test
# The fresh-process .keras check (slow: two new Python processes a call) runs once, on the whole
# Transformer, which holds every layer below; float16/bfloat16 of MultiHeadAttention and the encoder
# block are tested above, with gradients and a fully padded row.
def test_multi_head_attention_passes_the_shared_layer_test(tmp_path):
    rng = np.random.default_rng(14)
    query, value = _normal(rng, 3, 4, 6), _normal(rng, 3, 5, 6)
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]], bool)
    run_layer_test(MultiHeadAttention, {"num_heads": 2, "key_dim": 3, "value_dim": 2, "dropout": 0.1,
                                        "output_shape": 5}, [query, value], tmp_path,
                   call_kwargs={"use_causal_mask": True}, expected_output_shape=(3, 4, 5),
                   expected_num_trainable_weights=8, input_mask=mask, expected_output_mask=mask,
                   mixed_precision=False, cross_backend=False)


def test_position_layers_pass_the_shared_layer_test(tmp_path):
    x = _normal(np.random.default_rng(15), 2, 5, 6)
    run_layer_test(SinusoidalPositionEncoding, {"sequence_length": 8, "max_wavelength": 500.0}, [x], tmp_path,
                   expected_output_shape=(2, 5, 6), expected_num_trainable_weights=0, cross_backend=False)
    run_layer_test(PositionEmbedding, {"sequence_length": 8}, [x], tmp_path, expected_output_shape=(2, 5, 6),
                   expected_num_trainable_weights=1, cross_backend=False)
    ids = np.array([[4, 2, 0, 0, 0], [1, 5, 3, 6, 7]], np.int32)
    run_layer_test(TokenAndPositionEmbedding, {"vocabulary_size": 8, "sequence_length": 6, "embedding_dim": 4,
                                               "position": "learned", "scale_embeddings": False}, [ids], tmp_path,
                   expected_output_shape=(2, 5, 4), expected_num_trainable_weights=2,
                   expected_output_mask=ids != 0, cross_backend=False)


@pytest.mark.slow
def test_blocks_pass_the_shared_layer_test(tmp_path):
    rng = np.random.default_rng(16)
    dec, enc = _normal(rng, 3, 4, 8), _normal(rng, 3, 5, 8)
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]], bool)
    run_layer_test(TransformerEncoder, {"intermediate_dim": 12, "num_heads": 2, "dropout": 0.1,
                                             "activation": "gelu", "normalize_first": True,
                                             "layer_norm_epsilon": 1e-6}, [dec], tmp_path,
                   expected_output_shape=(3, 4, 8), expected_num_trainable_weights=16, input_mask=mask,
                   expected_output_mask=mask, mixed_precision=False, cross_backend=False)
    run_layer_test(TransformerDecoder, {"intermediate_dim": 12, "num_heads": 2, "dropout": 0.1}, [dec, enc],
                   tmp_path, expected_output_shape=(3, 4, 8), expected_num_trainable_weights=26, input_mask=mask,
                   expected_output_mask=mask, cross_backend=False)


@pytest.mark.slow
def test_transformer_passes_the_shared_layer_test_and_loads_trained(tmp_path):
    """Also the save/load round trip of a trained Transformer: the harness trains it (Adam on the
    paper's schedule, the masked loss and accuracy), saves it compiled, and loads it in a fresh
    process on TensorFlow and on JAX (the schedule, loss and metric by their registered names)
    with equal logits."""
    src = np.array([[3, 4, 5, 0], [6, 2, 0, 0], [7, 7, 8, 9]], np.int32)
    dec_in = np.array([[1, 4, 5], [1, 3, 0], [1, 2, 6]], np.int32)
    target = np.array([[4, 5, 2], [3, 2, 0], [2, 6, 2]], np.int32)
    # learned positions: 2 token + 2 position tables; encoder 16, decoder 26; pre-LN: encoder and final
    # norms 4; tied output: a bias 1
    run_layer_test(Transformer, {"source_vocabulary_size": 10, "target_vocabulary_size": 7, "num_layers": 1, "hidden_dim": 8,
                                 "num_heads": 2, "intermediate_dim": 12, "dropout": 0.1, "max_sequence_length": 6,
                                 "position": "learned", "normalize_first": True},
                   [(src, dec_in)], tmp_path, expected_output_shape=(3, 3, 7), expected_num_trainable_weights=51,
                   fit_data=((src, dec_in), target),
                   compile_kwargs={"optimizer": keras.optimizers.Adam(TransformerSchedule(8, warmup_steps=1)),
                                   "loss": MaskedCrossEntropy(0.1), "metrics": [MaskedAccuracy()]})


# ---------------------------------------------------------------------- initializers, dropout seeds, cache masks
def _kernels_and_biases(block):
    """(kernels, biases) of every attention and FFN sublayer of a block (LayerNorms left out)."""
    kernels, biases = [], []
    for w in block.weights:
        name = w.path.split("/")[-1]
        if "norm" in w.path:
            continue
        (biases if "bias" in name else kernels).append(to_numpy(w))
    return kernels, biases


@pytest.mark.parametrize("cls", [TransformerEncoder, TransformerDecoder])
def test_blocks_give_their_initializers_to_every_attention_and_ffn_weight(cls):
    block = cls(24, 2, kernel_initializer=keras.initializers.Constant(0.25), bias_initializer="ones")
    args = (np.ones((1, 3, 8), "float32"),) + ((np.ones((1, 2, 8), "float32"),) if cls is TransformerDecoder else ())
    block(*args)
    kernels, biases = _kernels_and_biases(block)
    expected_kernels = 4 * (2 if cls is TransformerDecoder else 1) + 2       # q, k, v, o per attention; FFN 2
    assert len(kernels) == expected_kernels and len(biases) == expected_kernels
    assert all(np.all(k == 0.25) for k in kernels) and all(np.all(b == 1.0) for b in biases)
    config = block.get_config()
    assert config["kernel_initializer"]["class_name"] == "Constant" and config["bias_initializer"] == {
        "module": "keras.initializers", "class_name": "Ones", "config": {}, "registered_name": None}
    rebuilt = cls.from_config(config)
    rebuilt(*args)
    assert all(np.all(k == 0.25) for k in _kernels_and_biases(rebuilt)[0])


def test_each_weight_of_a_block_gets_its_own_draw():
    block = TransformerEncoder(32, 2, kernel_initializer=keras.initializers.TruncatedNormal(stddev=0.02))
    block(np.ones((1, 3, 16), "float32"))
    kernels, _ = _kernels_and_biases(block)
    flat = [k.ravel()[:16] for k in kernels]
    assert all(not np.allclose(a, b) for i, a in enumerate(flat) for b in flat[i + 1:])
    assert all(abs(k.std() - 0.0176) < 0.004 and np.abs(k).max() <= 0.04 + 1e-6 for k in kernels)


def test_attention_dropout_differs_between_layers_and_follows_the_global_seed():
    x = np.random.default_rng(4).normal(size=(2, 5, 8)).astype("float32")

    def two_layers(seed):
        keras.utils.set_random_seed(seed)
        a, b = MultiHeadAttention(2, 4, dropout=0.5), MultiHeadAttention(2, 4, dropout=0.5)
        a(x, x), b(x, x)
        b.set_weights(a.get_weights())
        return to_numpy(a(x, x, training=True)), to_numpy(b(x, x, training=True))

    a1, b1 = two_layers(1)
    assert not np.allclose(a1, b1)                 # equal weights, different dropout masks
    a1_again, _ = two_layers(1)
    np.testing.assert_array_equal(a1, a1_again)   # keras.utils.set_random_seed fixes them
    a2, _ = two_layers(2)
    assert not np.allclose(a1, a2)                 # and another seed changes them
    seeded = MultiHeadAttention(2, 4, dropout=0.5, seed=11)
    assert seeded.get_config()["seed"] == 11 and MultiHeadAttention.from_config(seeded.get_config()).seed == 11


def _cached_outputs(layer, x, value_mask=None, **kwargs):
    batch, length = x.shape[:2]
    cache = (ops.zeros((batch, length, layer.num_heads, layer.key_dim)),
             ops.zeros((batch, length, layer.num_heads, layer.value_dim)))
    outs, weights = [], []
    for t in range(length):
        out, w, cache = layer(x[:, t:t + 1], cache=cache, cache_index=t, value_mask=value_mask,
                              return_attention_scores=True, **kwargs)
        outs.append(to_numpy(out)[:, 0])
        weights.append(to_numpy(w)[:, :, 0])
    return np.stack(outs, 1), np.stack(weights, 2)


@pytest.mark.parametrize("use_causal_mask", [False, True])
def test_cached_attention_step_by_step_equals_the_causal_pass(use_causal_mask):
    rng = np.random.default_rng(5)
    x = _normal(rng, 2, 6, 8)
    layer = MultiHeadAttention(2, 4)
    full, w_full = layer(x, x, use_causal_mask=True, return_attention_scores=True)
    outs, weights = _cached_outputs(layer, x, use_causal_mask=use_causal_mask)
    np.testing.assert_allclose(outs, to_numpy(full), atol=1e-5)
    np.testing.assert_allclose(weights, to_numpy(w_full), atol=1e-6)
    # the step at index 3 spreads its weight over slots 0..3, by the softmax of its own scores
    q = np.einsum("bld,dhk->blhk", x, to_numpy(layer.wq)) + to_numpy(layer.bq)
    k = np.einsum("bld,dhk->blhk", x, to_numpy(layer.wk)) + to_numpy(layer.bk)
    scores = np.einsum("hk,jhk->hj", q[0, 3], k[0, :4]) / 2.0
    np.testing.assert_allclose(weights[0, :, 3, :4], _softmax(scores), atol=1e-5)
    assert np.all(weights[0, :, 3, 4:] == 0.0)


def test_cached_attention_keeps_the_value_mask_over_the_cache_slots():
    rng = np.random.default_rng(6)
    x = _normal(rng, 2, 5, 8)
    keep = np.ones((2, 5), bool)
    keep[0, 1] = keep[1, 0] = False
    layer = MultiHeadAttention(2, 4)
    full = layer(x, x, value_mask=keep, use_causal_mask=True)
    outs, weights = _cached_outputs(layer, x, value_mask=keep)
    assert np.all(weights[0, :, :, 1] == 0.0) and np.all(weights[1, :, 1:, 0] == 0.0)
    np.testing.assert_allclose(outs[:, 1:], to_numpy(full)[:, 1:], atol=1e-5)
    with pytest.raises(ValueError, match="value_mask must have shape"):
        layer(x[:, :1], cache=(ops.zeros((2, 5, 2, 4)), ops.zeros((2, 5, 2, 4))), cache_index=0,
              value_mask=np.ones((2, 3), bool))
    with pytest.raises(ValueError, match="cache_index was given without a cache"):
        layer(x, x, cache_index=0)


def test_decoder_block_refuses_inputs_it_would_ignore():
    x, enc = np.ones((1, 3, 8), "float32"), np.ones((1, 2, 8), "float32")
    decoder_only = TransformerDecoder(16, 2, cross_attention=False)
    decoder_only(x)
    with pytest.raises(ValueError, match="cross_attention=False"):
        decoder_only(x, enc)
    cache = (np.zeros((1, 3, 2, 4), "float32"), np.zeros((1, 3, 2, 4), "float32"))
    with pytest.raises(ValueError, match="go together"):
        decoder_only(x[:, :1], self_attention_cache=cache)
    with pytest.raises(ValueError, match="go together"):
        decoder_only(x[:, :1], cache_index=0)


def _layer_norm(x, eps):
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


@pytest.mark.parametrize("cls", [TransformerEncoder, TransformerDecoder])
@pytest.mark.parametrize("normalize_first", [False, True])
def test_block_in_training_with_silent_sublayers_is_the_residual_path(cls, normalize_first):
    # every sublayer's output kernel and bias zero: with dropout on, what is left is the residual path
    # alone, x (pre-LN) or LN(...LN(x)) (post-LN, one LayerNorm per sublayer); dropout must touch nothing else
    rng = np.random.default_rng(7)
    x = _normal(rng, 2, 4, 8)
    args = (x,) + ((_normal(rng, 2, 3, 8),) if cls is TransformerDecoder else ())
    block = cls(16, 2, dropout=0.5, normalize_first=normalize_first, layer_norm_epsilon=1e-3)
    block(*args)
    for w in block.weights:
        if w.path.endswith(("output_kernel", "output_bias")) or "feedforward_outer" in w.path:
            w.assign(np.zeros(w.shape, "float32"))
    got = to_numpy(block(*args, training=True))
    expected = x
    if not normalize_first:
        for _ in range(3 if cls is TransformerDecoder else 2):
            expected = _layer_norm(expected, 1e-3)
    np.testing.assert_allclose(got, expected, atol=1e-5)


# ---------------------------------------------------------------------- the tied input/output table
def test_reversible_embedding_embeds_ids_and_returns_logits_with_the_same_matrix(tmp_path):
    from word2bert.layers import ReversibleEmbedding

    rng = np.random.default_rng(8)
    table = ReversibleEmbedding(12, 4)
    ids = np.array([[3, 0, 11]], np.int32)
    vectors = to_numpy(table(ids))
    matrix = to_numpy(table.embeddings)
    np.testing.assert_array_equal(vectors[0], matrix[[3, 0, 11]])
    h = _normal(rng, 2, 5, 4)
    logits = table(h, reverse=True)
    assert keras.backend.standardize_dtype(logits.dtype) == "float32" and logits.shape == (2, 5, 12)
    np.testing.assert_allclose(to_numpy(logits), h @ matrix.T, atol=1e-5)
    with pytest.raises(ValueError, match="token ids must be integers"):
        table(h)
    with pytest.raises(ValueError, match="width output_dim=4"):
        table(_normal(rng, 2, 5, 3), reverse=True)
    symbolic = table(keras.Input((5, 4)), reverse=True)
    assert tuple(symbolic.shape) == (None, 5, 12)
    rebuilt = ReversibleEmbedding.from_config(table.get_config())
    assert rebuilt.get_config() == table.get_config() and {"name", "dtype", "trainable"} <= set(table.get_config())



@pytest.mark.slow
def test_reversible_embedding_through_harness(tmp_path):
    """Both directions through the shared layer check: ids -> vectors with ``mask_zero`` (the padding mask passes
    on), and vectors -> float32 logits with ``reverse=True`` (the logits keep no mask), each with its one table;
    the reverse form also saved and loaded in fresh TensorFlow and JAX processes."""
    from word2bert.layers import ReversibleEmbedding

    ids = np.array([[3, 0, 11, 0], [5, 7, 0, 0]], np.int32)
    run_layer_test(ReversibleEmbedding, {"input_dim": 12, "output_dim": 4, "mask_zero": True}, [ids], tmp_path,
                   expected_output_shape=(2, 4, 4), expected_num_trainable_weights=1,
                   expected_output_mask=ids != 0, cross_backend=False)
    h = _normal(np.random.default_rng(9), 2, 4, 4)
    run_layer_test(ReversibleEmbedding, {"input_dim": 12, "output_dim": 4}, [h], tmp_path,
                   call_kwargs={"reverse": True}, expected_output_shape=(2, 4, 12), expected_num_trainable_weights=1,
                   input_mask=ids != 0, expected_output_mask=None, float32_outputs=True)

def test_tied_transformer_logits_use_the_target_table():
    model = DecoderOnlyTransformer(30, num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16, max_sequence_length=6, dropout=0.0)
    model.build()
    x = np.random.default_rng(9).normal(size=(1, 3, 8)).astype("float32")
    table = to_numpy(model.target_embedding.token_embedding.embeddings)
    model.output_bias.assign(np.arange(30, dtype="float32"))
    np.testing.assert_allclose(to_numpy(model.output_logits(x)), x @ table.T + np.arange(30), atol=1e-5)


def test_shared_embeddings_use_one_table_for_source_target_and_output(tmp_path):
    """Three-way tying (section 3.4): one table fewer than two tied models, the source lookup, the
    target lookup and the output logits read that one table, and it survives save/load."""
    kw = dict(num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16, max_sequence_length=6, dropout=0.0)
    keras.utils.set_random_seed(0)
    shared = Transformer(20, 20, share_embeddings=True, **kw)
    shared.build()
    apart = Transformer(20, 20, **kw)
    apart.build()
    assert apart.count_params() - shared.count_params() == 20 * 8
    table = shared.source_embedding.token_embedding.embeddings
    assert shared.target_embedding.token_embedding.embeddings is table
    table.assign(np.random.default_rng(1).normal(size=(20, 8)).astype("float32"))
    x = np.random.default_rng(2).normal(size=(1, 3, 8)).astype("float32")
    np.testing.assert_allclose(to_numpy(shared.output_logits(x)), x @ to_numpy(table).T, atol=1e-5)
    ids = np.array([[3, 4, 0]], np.int32)
    np.testing.assert_allclose(to_numpy(shared.source_embedding(ids)), to_numpy(shared.target_embedding(ids)))
    shared.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    assert loaded.share_embeddings and loaded.count_params() == shared.count_params()
    np.testing.assert_allclose(to_numpy(loaded((ids, ids))), to_numpy(shared((ids, ids))), atol=1e-5)
    with pytest.raises(ValueError, match="share_embeddings needs one vocabulary"):
        Transformer(20, 21, share_embeddings=True, **kw)


def test_warmup_inverse_sqrt_peaks_where_asked_and_decays_as_one_over_sqrt_step():
    schedule = warmup_inverse_sqrt(2e-3, 40, hidden_dim=256)
    rates = to_numpy(schedule(np.arange(0, 400)))
    assert int(np.argmax(rates)) + 1 == 40
    np.testing.assert_allclose(rates.max(), 2e-3, rtol=1e-5)
    np.testing.assert_allclose(rates[19], 2e-3 * 20 / 40, rtol=1e-5)             # linear warm-up
    np.testing.assert_allclose(rates[159], 2e-3 * (40 / 160) ** 0.5, rtol=1e-5)  # then 1/sqrt(step)
    np.testing.assert_allclose(to_numpy(warmup_inverse_sqrt(2e-3, 40, hidden_dim=8)(np.arange(400))), rates, rtol=1e-5)
    for bad in ((0.0, 10), (1e-3, 0)):
        with pytest.raises(ValueError, match="peak must be > 0"):
            warmup_inverse_sqrt(*bad)
