"""Chapter 12's models: GPT (a decoder-only Transformer read by fine-tuning heads, sampled through its
key/value cache), ELMo's bidirectional LSTM language model with its frozen-feature heads, and the
perplexity of a causal model over a token stream. Right answers are independent of the code under test:
a position's logits must not move when later tokens change, a backward LSTM run by hand over the reversed
words, perplexities computed from a bigram table and a uniform model by hand, a dense layer applied by
hand to the vector a head is documented to read."""
import math

import keras
import numpy as np
import pytest

from layer_checks import run_layer_test, to_numpy
from word2bert.analysis import layer_features
from word2bert.models.lm import (BidirectionalLM, ElmoClassifier, ElmoTokenTagger, bilm_targets, reverse_padded,
                          sliding_windows, stream_perplexity)
from word2bert.models.transformer import DecoderOnlyTransformer, GPTClassifier, GPTTokenTagger

VOCAB = 30


def _gpt(seed=0, max_len=12, dropout=0.0):
    keras.utils.set_random_seed(seed)
    lm = DecoderOnlyTransformer(VOCAB, num_layers=2, hidden_dim=16, num_heads=2, intermediate_dim=32, dropout=dropout,
                                max_sequence_length=max_len)
    lm.build()
    return lm


def _bilm(seed=0, dropout=0.0):
    keras.utils.set_random_seed(seed)
    bilm = BidirectionalLM(VOCAB, hidden_dim=8, num_layers=2, dropout=dropout)
    bilm.build()
    return bilm


def _rows():
    """Two right-padded rows: 6 and 4 real tokens."""
    return np.array([[2, 7, 9, 11, 5, 3, 0, 0], [2, 14, 6, 3, 0, 0, 0, 0]], np.int32)


# ------------------------------------------------------------------ GPT: the causal model and its heads
@pytest.mark.slow
def test_causal_position_is_independent_of_later_tokens():
    lm = _gpt()
    ids = np.array([[2, 7, 9, 11, 5, 3, 8, 4]], np.int32)
    base = to_numpy(lm(ids))
    for i in range(ids.shape[1] - 1):
        changed = ids.copy()
        changed[0, i + 1:] = np.random.default_rng(i).integers(1, VOCAB, ids.shape[1] - i - 1)
        out = to_numpy(lm(changed))
        np.testing.assert_allclose(out[0, :i + 1], base[0, :i + 1], atol=1e-5)        # positions <= i: unmoved
        assert np.abs(out[0, i + 1:] - base[0, i + 1:]).max() > 1e-4                    # later ones do move


def test_gpt_layer_states_are_the_blocks_run_one_by_one():
    # dropout > 0 in the model: hidden_states must run it off by default, as a frozen feature extractor
    lm = _gpt(dropout=0.3)
    ids = _rows()
    states = [to_numpy(s) for s in lm.hidden_states(ids)]
    assert len(states) == 3 and all(s.shape == (2, 8, 16) for s in states)
    mask = ids != 0
    x = lm.target_embedding(ids)
    np.testing.assert_allclose(states[0], to_numpy(x), atol=1e-6)
    for i, block in enumerate(lm.decoder_blocks):
        x = block(x, None, decoder_sequence_mask=mask)
        expected = to_numpy(lm.final_norm(x)) if i == len(lm.decoder_blocks) - 1 else to_numpy(x)
        np.testing.assert_allclose(states[i + 1], expected, atol=1e-5, err_msg=f"block {i}")
    np.testing.assert_allclose(states[-1], to_numpy(lm.decoder_states(ids)), atol=1e-6)
    assert np.abs(states[1] - states[2]).max() > 1e-3            # each layer its own, not the last one repeated
    # a dict with an explicit mask gives the same vectors
    same = lm.hidden_states({"token_ids": ids, "padding_mask": mask})
    np.testing.assert_allclose(to_numpy(same[1]), states[1], atol=1e-6)


@pytest.mark.parametrize("kind", ["gpt", "bilm"])
def test_layer_features_of_gpt_and_bilm_equal_their_layer_states(kind):
    # rows of real lengths 40, 33, 7, 20 and 1, padded to 40: batches are cut to 32 or 40 columns, which must not
    # change a real position's vector (for the backward LSTM: the reversal stays inside the real tokens)
    lm = _gpt(max_len=40, dropout=0.3) if kind == "gpt" else _bilm(dropout=0.3)
    rng = np.random.default_rng(0)
    ids = rng.integers(1, VOCAB, (5, 40)).astype(np.int32)
    for r, n in enumerate((40, 33, 7, 20, 1)):
        ids[r, n:] = 0
    full = np.stack([to_numpy(s) for s in lm.hidden_states(ids)], axis=2)               # (5, 40, 3, width)
    width = 16                                                         # GPT's hidden_dim; the biLM's 2 x hidden 8
    assert full.shape == (5, 40, 3, width)
    mask = (ids != 0)[:, :, None, None]
    mean = (full * mask).sum(1) / mask.sum(1)
    for batch_size in (1, 2, 5):
        got = layer_features(lm, {"token_ids": ids}, pooling="mean", batch_size=batch_size)
        np.testing.assert_allclose(got, mean, atol=1e-5, err_msg=f"batch_size {batch_size}")
    select = ids != 0
    select[:, 0] = False
    select[4, 0] = True
    got = layer_features(lm, {"token_ids": ids, "segment_ids": np.zeros_like(ids)}, select=select, batch_size=2)
    np.testing.assert_allclose(got, full[select], atol=1e-5)
    empty = layer_features(lm, {"token_ids": ids}, select=np.zeros_like(select), batch_size=2)
    assert empty.shape == (0, 3, width)


@pytest.mark.slow
def test_gpt_classifier_reads_the_last_real_token_and_ignores_padding():
    lm = _gpt()
    model = GPTClassifier(lm, num_classes=3, dropout=0.0)
    rows = _rows()
    inputs = {"token_ids": rows, "padding_mask": rows != 0}
    out = to_numpy(model(inputs))
    states = to_numpy(lm.decoder_states(rows))
    kernel, bias = (to_numpy(w) for w in model.output_layer.weights)
    last = [5, 3]                                                       # each row's last real position
    np.testing.assert_allclose(out, np.stack([states[r, t] for r, t in enumerate(last)]) @ kernel + bias, atol=1e-5)
    wider = np.pad(rows, ((0, 0), (0, 3)))                              # more padding: the same logits
    np.testing.assert_allclose(to_numpy(model(wider)), out, atol=1e-5)
    # the tagger reads every position's vector through its own dense layer
    tagger = GPTTokenTagger(lm, num_tags=4, dropout=0.0)
    tags = to_numpy(tagger(rows))
    kernel, bias = (to_numpy(w) for w in tagger.output_layer.weights)
    np.testing.assert_allclose(tags, states @ kernel + bias, atol=1e-5)
    assert tags.shape == (2, 8, 4)


def test_gpt_heads_reject_bad_arguments():
    lm = _gpt(max_len=8)
    with pytest.raises(ValueError, match="DecoderOnlyTransformer"):
        GPTClassifier(_bilm(), 2)
    with pytest.raises(ValueError, match="num_tags must be >= 2"):
        GPTTokenTagger(lm, 0)
    with pytest.raises(ValueError, match="dropout"):
        GPTClassifier(lm, 2, dropout=1.0)
    with pytest.raises(ValueError, match="max_sequence_length"):
        GPTClassifier(lm, 2)(np.ones((1, 9), np.int32))
    with pytest.raises(ValueError, match="token_ids"):
        GPTClassifier(lm, 2)({"ids": np.ones((1, 3), np.int32)})


@pytest.mark.slow
def test_gpt_classifier_through_harness(tmp_path):
    rows = _rows()
    # the language model's 37 weights (see the decoder-only harness test) less its output bias, which no head
    # reads (kept, not trained), + the head's kernel and bias
    lm = DecoderOnlyTransformer(VOCAB, num_layers=2, hidden_dim=16, num_heads=2, intermediate_dim=32, dropout=0.1,
                                max_sequence_length=8)
    run_layer_test(GPTClassifier, {"backbone": lm, "num_classes": 3, "dropout": 0.1}, [rows], tmp_path,
                   expected_output_shape=(2, 3), expected_num_trainable_weights=38,
                   expected_num_non_trainable_weights=1,
                   fit_data=(rows, np.array([0, 2])),
                   compile_kwargs={"optimizer": keras.optimizers.SGD(0.1),
                                   "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True)},
                   float32_outputs=True)



@pytest.mark.slow
def test_gpt_token_tagger_through_harness(tmp_path):
    """The tagger on the dict input (ids and their padding mask): a (batch, T, num_tags) logit at every position,
    the padding mask attached."""
    rows = _rows()
    mask = rows != 0
    x = {"token_ids": rows, "padding_mask": mask}
    # as the classifier: the language model's 36 trained weights and its output bias kept, + kernel and bias
    lm = DecoderOnlyTransformer(VOCAB, num_layers=2, hidden_dim=16, num_heads=2, intermediate_dim=32, dropout=0.1,
                                max_sequence_length=8)
    run_layer_test(GPTTokenTagger, {"backbone": lm, "num_tags": 4, "dropout": 0.1}, [x], tmp_path,
                   expected_output_shape=(2, 8, 4), expected_output_mask=mask, expected_num_trainable_weights=38,
                   expected_num_non_trainable_weights=1,
                   fit_data=(x, rows % 4),
                   compile_kwargs={"optimizer": keras.optimizers.SGD(0.1),
                                   "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True)},
                   float32_outputs=True)

def test_a_gpt_head_does_not_stop_the_language_model_training_its_output_bias():
    lm = _gpt()
    head = GPTClassifier(lm, num_classes=2, dropout=0.0)
    rows = _rows()
    head(rows)                                                         # built on the language model
    bias = lm.output_bias
    assert all(v is not bias for v in head.trainable_weights)          # no head reads it: the head leaves it
    assert any(v is bias for v in head.non_trainable_weights)
    assert any(v is bias for v in lm.trainable_weights)                # ... but the language model still trains it
    lm.compile(optimizer=keras.optimizers.SGD(1.0),
               loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0))
    before = to_numpy(bias).copy()
    lm.fit(rows[:, :-1], rows[:, 1:], epochs=1, verbose=0)
    assert np.abs(to_numpy(bias) - before).max() > 1e-4
    # and fitting the head changes the language model's blocks but not the bias
    before = to_numpy(bias).copy()
    block = to_numpy(lm.decoder_blocks[0].weights[0]).copy()
    head.compile(optimizer=keras.optimizers.SGD(1.0),
                 loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    head.fit(rows, np.array([0, 1]), epochs=1, verbose=0)
    np.testing.assert_array_equal(to_numpy(bias), before)
    assert not np.allclose(to_numpy(lm.decoder_blocks[0].weights[0]), block)


# ------------------------------------------------------------------ sampling through the cache
@pytest.mark.slow
@pytest.mark.jax_too
def test_sampling_cached_equals_uncached_and_temperature_zero_is_greedy():
    """Top-k sampling through the cache draws the same 3 x 5 tokens as recomputing the prefix (5 new tokens, was 8:
    every prefix length is one more compile of the uncached step; two different models agree on all 15 top-5
    draws by chance with probability about 5 ** -15); temperature 0 is the greedy search; a greedy continuation of a
    prompt equals full forward passes by hand (over the prefix zero-padded to one length, so one compiled shape:
    position t reads only tokens <= t, see test_causal_position_is_independent_of_later_tokens)."""
    lm = _gpt(max_len=16)
    cached = lm.sample(3, [2, 7], end_id=None, max_new_tokens=5, temperature=1.0, top_k=5, seed=4)
    uncached = lm.sample(3, [2, 7], end_id=None, max_new_tokens=5, temperature=1.0, top_k=5, seed=4, use_cache=False)
    assert cached == uncached and all(len(row) == 5 for row in cached)
    greedy = lm.sample(2, [2], end_id=3, max_new_tokens=10, temperature=0.0)
    assert greedy == lm.generate(2, start_id=2, end_id=3, max_length=10)
    # the prompt conditions the continuation: greedy from [2, 7] continues the uncached greedy prefix [2, 7, ...]
    after_prompt = lm.sample(1, [2, 7], end_id=None, max_new_tokens=4, temperature=0.0)[0]
    prefix = np.zeros((1, 6), np.int32)
    prefix[0, :2] = [2, 7]
    for t in range(2, 6):
        prefix[0, t] = int(to_numpy(lm(prefix))[0, t - 1].argmax())
    assert after_prompt == prefix[0, 2:].tolist()


def test_sampling_rejects_bad_arguments():
    lm = _gpt(max_len=8)
    with pytest.raises(ValueError, match="prompt"):
        lm.sample(1, [], end_id=None, max_new_tokens=3)
    with pytest.raises(ValueError, match="max_sequence_length"):
        lm.sample(1, [2, 3, 4], end_id=None, max_new_tokens=6)
    with pytest.raises(ValueError, match="top_k"):
        lm.sample(1, [2], end_id=None, max_new_tokens=3, top_k=0)


def _greedy_by_hand(lm, prompt, steps):
    """Greedy continuation of one prompt by full forward passes (no cache, no sampling code)."""
    prefix = list(prompt)
    for _ in range(steps):
        prefix.append(int(to_numpy(lm(np.array([prefix], np.int32)))[0, -1].argmax()))
    return prefix[len(prompt):]


def test_sampling_a_batch_of_prompts_continues_each_row_its_own_prompt():
    lm = _gpt(max_len=12)
    prompts = np.array([[2, 7], [2, 9], [5, 1]], np.int32)
    for use_cache in (True, False):
        greedy = lm.sample(3, prompts, end_id=None, max_new_tokens=4, temperature=0.0, use_cache=use_cache)
        assert greedy == [_greedy_by_hand(lm, p, 4) for p in prompts]     # row b: prompt b, not all rows joined
    # a batch of one repeated prompt draws exactly as the 1-D prompt does (same seed, same draws)
    same = lm.sample(3, np.tile([2, 7], (3, 1)), end_id=None, max_new_tokens=5, temperature=1.0, top_k=5, seed=3)
    assert same == lm.sample(3, [2, 7], end_id=None, max_new_tokens=5, temperature=1.0, top_k=5, seed=3)


def test_sampling_refuses_float_ragged_and_misshaped_prompts():
    lm = _gpt(max_len=8)
    with pytest.raises(ValueError, match="prompt must hold integer token ids.*float"):
        lm.sample(1, [1.9, 2.0], end_id=None, max_new_tokens=3)             # not truncated to [1, 2]
    with pytest.raises(ValueError, match=r"prompt must be 1-D.*\(batch_size, P\) = \(1, P\).*shape \(2, 2\)"):
        lm.sample(1, [[1, 5], [1, 6]], end_id=None, max_new_tokens=3)       # 2 prompts for 1 row
    with pytest.raises(ValueError, match="prompt must be .* different lengths"):
        lm.sample(2, [[1, 5], [1]], end_id=None, max_new_tokens=3)
    with pytest.raises(ValueError, match="shape \\(1, 1, 2\\)"):
        lm.sample(1, [[[1, 5]]], end_id=None, max_new_tokens=3)
    with pytest.raises(ValueError, match=f"prompt ids must be in 0..{VOCAB - 1}"):
        lm.sample(1, [2, VOCAB], end_id=None, max_new_tokens=3)
    with pytest.raises(ValueError, match="prompt must hold integer"):
        lm.sample(1, [True, False], end_id=None, max_new_tokens=3)


# ------------------------------------------------------------------ perplexity over a stream
def test_sliding_windows_score_every_target_once_with_enough_context():
    ids = np.arange(1, 24)                                   # 23 ids: 22 targets
    for seq_len, stride in ((5, 5), (6, 2), (4, 1), (30, 7)):
        x, y, w = sliding_windows(ids, seq_len, stride)
        np.testing.assert_array_equal(y[w > 0][np.argsort(y[w > 0])], ids[1:])      # each target once
        for row in range(len(x)):
            np.testing.assert_array_equal(y[row][x[row] != 0][:-1], x[row][x[row] != 0][1:])  # shifted by one
            if row:                                           # context of a scored target: >= seq_len - stride
                assert np.flatnonzero(w[row]).min() >= min(seq_len - stride, seq_len - 1)
    assert sliding_windows(ids, 5, 5)[0].shape == (5, 5)     # 22 targets in windows of 5: 5 windows
    for bad in (dict(sequence_length=0, stride=1), dict(sequence_length=4, stride=5), dict(sequence_length=4, stride=0)):
        with pytest.raises(ValueError, match="stride"):
            sliding_windows(ids, **bad)
    with pytest.raises(ValueError, match="1-D integer"):
        sliding_windows(np.array([1.0, 2.0]), 2, 1)


class BigramTable(keras.Model):
    """logits of the next id = a fixed table's row of the current id (no other context)."""

    def __init__(self, table):
        super().__init__(name="bigram_table")
        self.table = keras.ops.convert_to_tensor(table)

    def call(self, ids):
        return keras.ops.take(self.table, ids, axis=0)


def test_stream_perplexity_equals_exp_mean_nll_by_hand():
    rng = np.random.default_rng(0)
    ids = np.array([2, 5, 1, 5, 5, 3, 1, 2, 4, 3, 1], np.int32)           # a tiny corpus, ids 1..5
    table = rng.normal(size=(6, 6)).astype("float32")
    log_p = table - np.log(np.exp(table).sum(1, keepdims=True))
    by_hand = math.exp(-np.mean([log_p[a, b] for a, b in zip(ids[:-1], ids[1:])]))
    for seq_len, stride in ((4, 4), (4, 1), (20, 20)):
        assert stream_perplexity(BigramTable(table), ids, seq_len, stride) == pytest.approx(by_hand, rel=1e-6)
    uniform = BigramTable(np.zeros((6, 6), np.float32))
    assert stream_perplexity(uniform, ids, 3, 2) == pytest.approx(6.0, rel=1e-6)   # uniform over V: V
    # a Transformer over one window: exp of the mean NLL of its own full-sequence log-softmax
    lm = _gpt(max_len=12)
    logits = to_numpy(lm(ids[None, :-1]))[0].astype(np.float64)
    nll = np.log(np.exp(logits).sum(-1)) - logits[np.arange(10), ids[1:]]
    assert stream_perplexity(lm, ids, 10, 10) == pytest.approx(math.exp(nll.mean()), rel=1e-5)


# ------------------------------------------------------------------ ELMo's biLM
def test_reverse_padded_and_bilm_targets_by_hand():
    rows = _rows()
    out = to_numpy(reverse_padded(rows, rows != 0))
    np.testing.assert_array_equal(out, [[3, 5, 11, 9, 7, 2, 0, 0], [3, 6, 14, 2, 0, 0, 0, 0]])
    vectors = np.random.default_rng(0).normal(size=(2, 8, 3)).astype("float32")
    twice = reverse_padded(reverse_padded(vectors, rows != 0), rows != 0)
    np.testing.assert_array_equal(to_numpy(twice), vectors)
    np.testing.assert_array_equal(bilm_targets(np.array([[2, 7, 9, 3, 0]])),
                                  [[[7, 0], [9, 2], [3, 7], [0, 9], [0, 0]]])
    with pytest.raises(ValueError, match="2-D integer"):
        bilm_targets(np.array([1, 2, 3]))


def _run_lstms(layers, x):
    """A stack of Keras LSTMs over one unpadded sequence ``(1, T, d)``: the top layer's outputs."""
    for layer in layers:
        x = layer(x)
    return to_numpy(x)


@pytest.mark.slow
def test_backward_lm_reads_the_reversed_sentence():
    bilm = _bilm()
    rows = _rows()
    forward, backward = bilm.directions(rows)
    embedded = to_numpy(bilm.embedding(rows))
    for r, n in enumerate((6, 4)):
        words = embedded[r:r + 1, :n]
        # backward[k] = the backward stack run over tokens n-1, n-2, ..., k: the reversed sentence, read to k
        by_hand = _run_lstms(bilm.backward_layers, words[:, ::-1])[0, ::-1]
        np.testing.assert_allclose(to_numpy(backward[-1])[r, :n], by_hand, atol=1e-5)
        np.testing.assert_allclose(to_numpy(forward[-1])[r, :n], _run_lstms(bilm.forward_layers, words)[0], atol=1e-5)
    # what each direction can see: change token 2 of row 0
    changed = rows.copy()
    changed[0, 2] = 20
    f2, b2 = bilm.directions(changed)
    f, b, f2, b2 = (to_numpy(t[-1])[0, :6] for t in (forward, backward, f2, b2))
    np.testing.assert_allclose(f2[:2], f[:2], atol=1e-6)              # the forward LM before it: unmoved
    np.testing.assert_allclose(b2[3:], b[3:], atol=1e-6)              # the backward LM after it: unmoved
    assert np.abs(f2[2:] - f[2:]).max() > 1e-4 and np.abs(b2[:3] - b[:3]).max() > 1e-4


def test_bilm_forward_logits_read_only_the_left_and_backward_logits_only_the_right():
    # the logits themselves, not directions(): [:, t, 0] has read tokens 0..t, [:, t, 1] tokens t..n-1 of its row.
    # Every one-token change of each row is one row of a single batch (rows are read independently), so the
    # biLM runs twice, not once per change.
    bilm = _bilm()
    rows = _rows()
    base = to_numpy(bilm(rows))                                        # (2, 8, 2, VOCAB)
    changes = [(r, n, j) for r, n in enumerate((6, 4)) for j in range(n)]
    changed = np.stack([rows[r] for r, _, _ in changes])
    for k, (r, _, j) in enumerate(changes):
        changed[k, j] = 20 if rows[r, j] != 20 else 21
    outs = to_numpy(bilm(changed))
    for k, (r, n, j) in enumerate(changes):
        out = outs[k, :n]
        ref = base[r, :n]
        np.testing.assert_allclose(out[:j, 0], ref[:j, 0], atol=1e-5)          # forward, before j: unmoved
        np.testing.assert_allclose(out[j + 1:, 1], ref[j + 1:, 1], atol=1e-5)  # backward, after j: unmoved
        assert np.abs(out[j:, 0] - ref[j:, 0]).max() > 1e-4                    # forward from j on: moved
        assert np.abs(out[:j + 1, 1] - ref[:j + 1, 1]).max() > 1e-4            # backward up to j: moved


@pytest.mark.slow
def test_bilm_logits_layers_and_padding():
    bilm = _bilm()
    rows = _rows()
    logits = to_numpy(bilm(rows))
    assert logits.shape == (2, 8, 2, VOCAB) and logits.dtype == np.float32
    states = [to_numpy(s) for s in bilm.hidden_states(rows)]
    assert len(states) == 3 and all(s.shape == (2, 8, 16) for s in states)
    np.testing.assert_array_equal(states[0][..., :8], states[0][..., 8:])          # [x; x]
    wider = np.pad(rows, ((0, 0), (0, 4)))
    np.testing.assert_allclose(to_numpy(bilm(wider))[:, :8][rows != 0], logits[rows != 0], atol=1e-5)


@pytest.mark.slow
def test_bilm_learns_both_directions_of_a_deterministic_sequence():
    # every row is 1 2 3 ... 9: the next and the previous token are both certain
    rows = np.tile(np.arange(1, 10, dtype=np.int32), (32, 1))
    keras.utils.set_random_seed(0)
    bilm = BidirectionalLM(VOCAB, hidden_dim=16, num_layers=2, dropout=0.0)
    bilm.compile(optimizer=keras.optimizers.Adam(3e-2),
                 loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0))
    bilm.fit(rows, bilm_targets(rows), epochs=200, batch_size=32, verbose=0)
    pred = to_numpy(bilm(rows[:1])).argmax(-1)[0]
    np.testing.assert_array_equal(pred[:-1, 0], np.arange(2, 10))                  # forward: the next token
    np.testing.assert_array_equal(pred[1:, 1], np.arange(1, 9))                    # backward: the previous one


@pytest.mark.slow
def test_bilm_through_harness(tmp_path):
    """The shared layer check on a biLM of one LSTM layer per direction (two took twice the time on JAX, where
    every eager LSTM call compiles its scan): config round trip of every argument (num_layers=1 and hidden_dim=8
    both differ from the defaults, so a config that drops either rebuilds other weights and fails), weight
    count, one training step, the three precision policies (bfloat16 excepted, see UNSUPPORTED_POLICIES) and
    the .keras file in fresh TensorFlow and JAX processes. Stacking layers is covered by the other biLM tests,
    which use two."""
    rows = _rows()
    # embedding 1; 1 layer x 2 directions x LSTM (kernel, recurrent kernel, bias) 6; softmax 2 -> 9
    run_layer_test(BidirectionalLM, {"vocabulary_size": VOCAB, "hidden_dim": 8, "num_layers": 1, "dropout": 0.1}, [rows],
                   tmp_path, expected_output_shape=(2, 8, 2, VOCAB), expected_num_trainable_weights=9,
                   fit_data=(rows, bilm_targets(rows)),
                   compile_kwargs={"optimizer": keras.optimizers.SGD(0.1),
                                   "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True,
                                                                                      ignore_class=0)},
                   float32_outputs=True)



def _small_bilm():
    bilm = BidirectionalLM(VOCAB, hidden_dim=8, num_layers=1, dropout=0.1)
    bilm.build()   # as a trained one: its softmax too
    return bilm


@pytest.mark.slow
def test_elmo_classifier_through_harness(tmp_path):
    """The classifier on a frozen one-layer biLM: the mix and the head train, the biLM's weights do not."""
    rows = _rows()
    # trained: the scalar mix's w and gamma, the head's kernel and bias -> 4; frozen: the biLM's 9 (see
    # test_bilm_through_harness)
    run_layer_test(ElmoClassifier, {"backbone": _small_bilm(), "num_classes": 3, "dropout": 0.1}, [rows], tmp_path,
                   expected_output_shape=(2, 3), expected_num_trainable_weights=4,
                   expected_num_non_trainable_weights=9,
                   fit_data=(rows, np.array([0, 2])),
                   compile_kwargs={"optimizer": keras.optimizers.SGD(0.1),
                                   "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True)},
                   float32_outputs=True)


@pytest.mark.slow
def test_elmo_token_tagger_through_harness(tmp_path):
    """The tagger on the dict input (ids and their padding mask), fine-tuning the biLM (``freeze_backbone=False``):
    every weight trains but the biLM's softmax, which no head reads."""
    rows = _rows()
    x = {"token_ids": rows, "padding_mask": rows != 0}
    # the biLM's 9 less its softmax's 2, the mix's 2, the head's 2 -> 11 trained; the softmax's 2 kept
    run_layer_test(ElmoTokenTagger, {"backbone": _small_bilm(), "num_tags": 4, "dropout": 0.1,
                                     "freeze_backbone": False}, [x], tmp_path,
                   expected_output_shape=(2, 8, 4), expected_num_trainable_weights=11,
                   expected_num_non_trainable_weights=2,
                   fit_data=(x, rows % 4),
                   compile_kwargs={"optimizer": keras.optimizers.SGD(0.1),
                                   "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True)},
                   float32_outputs=True)

@pytest.mark.slow
def test_elmo_heads_mix_frozen_layers_with_weights_that_sum_to_one():
    bilm = _bilm()
    rows = _rows()
    before = [to_numpy(w) for w in bilm.weights]
    tagger = ElmoTokenTagger(bilm, num_tags=4, dropout=0.0)
    tagger.build()
    assert len(tagger.trainable_weights) == 4                     # the mix's w and gamma, the head's kernel and bias
    tags = rows.copy() % 4
    tagger.compile(optimizer=keras.optimizers.Adam(0.1),
                   loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    tagger.fit(rows, tags, epochs=5, batch_size=2, verbose=0)
    for b, w in zip(before, bilm.weights):
        np.testing.assert_array_equal(to_numpy(w), b)            # the biLM is frozen
    weights = tagger.mix.mixing_weights()
    assert weights.sum() == pytest.approx(1.0, abs=1e-6) and np.all(weights > 0)
    assert not np.allclose(weights, 1 / 3)                       # the mix did learn
    states = [to_numpy(s) for s in bilm.hidden_states(rows)]
    gamma = float(to_numpy(tagger.mix.scale))
    mixed = gamma * sum(wj * s for wj, s in zip(weights, states))
    kernel, bias = (to_numpy(w) for w in tagger.output_layer.weights)
    np.testing.assert_allclose(to_numpy(tagger(rows)), mixed @ kernel + bias, atol=1e-4)
    # the classifier: the mean of the mixed vectors over the real tokens only
    classifier = ElmoClassifier(bilm, num_classes=2, dropout=0.0)
    out = to_numpy(classifier(rows))
    mixed = sum(s for s in states) / 3                            # a fresh mix: the plain mean, gamma 1
    pooled = np.stack([mixed[r, :n].mean(0) for r, n in enumerate((6, 4))])
    kernel, bias = (to_numpy(w) for w in classifier.output_layer.weights)
    np.testing.assert_allclose(out, pooled @ kernel + bias, atol=1e-5)
    with pytest.raises(ValueError, match="BidirectionalLM"):
        ElmoClassifier(_gpt(), 2)


def _fit_elmo_head(head, rows):
    targets = np.array([0, 1]) if isinstance(head, ElmoClassifier) else rows % 3
    head.compile(optimizer=keras.optimizers.Adam(0.1),
                 loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    head.fit(rows, targets, epochs=2, batch_size=2, verbose=0)


@pytest.mark.parametrize("bilm_kind", ["made with trainable=False", "reloaded from .keras"])
def test_elmo_heads_keep_the_bilm_frozen_and_train_only_the_mix_and_the_dense_layer(tmp_path, bilm_kind):
    rows = _rows()
    if bilm_kind == "made with trainable=False":
        keras.utils.set_random_seed(0)
        bilm = BidirectionalLM(VOCAB, hidden_dim=8, num_layers=2, dropout=0.0, trainable=False)
        head = ElmoClassifier(bilm, num_classes=2, dropout=0.0)
    else:
        _bilm().save(tmp_path / "bilm.keras")
        bilm = keras.saving.load_model(tmp_path / "bilm.keras")
        head = ElmoTokenTagger(bilm, num_tags=3, dropout=0.0)
    head.build()
    for model in (head, "reloaded head"):
        if model == "reloaded head":                                   # the task model saved and loaded
            head.save(tmp_path / "head.keras")
            model = keras.saving.load_model(tmp_path / "head.keras")
        # the documented 4: the mix's weights and scale, the head's kernel and bias
        assert len(model.trainable_weights) == 4, [w.path for w in model.trainable_weights]
        assert len(model.trainable_variables) == 4
        before = [to_numpy(w).copy() for w in model.backbone.weights]
        mix_before = to_numpy(model.mix.layer_weights).copy()
        _fit_elmo_head(model, rows)
        for b, w in zip(before, model.backbone.weights):
            np.testing.assert_array_equal(to_numpy(w), b, err_msg=w.path)          # the biLM did not move
        assert not np.allclose(to_numpy(model.mix.layer_weights), mix_before)      # the mix did


# ------------------------------------------------------------------ equal minutes
def test_time_budget_stops_fit_at_the_first_batch_past_the_budget():
    from word2bert.training.callbacks import TimeBudget
    ticks = iter(range(1000))
    budget = TimeBudget(4.5, clock=lambda: float(next(ticks)))   # 0 at the start of fit, then 1 more per batch
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((64, 3), np.float32)
    model.fit(x, x[:, :1], batch_size=2, epochs=3, verbose=0, callbacks=[budget])
    assert budget.steps == 5 and int(model.optimizer.iterations) == 5      # batch 5 ends at 5.0 >= 4.5
    assert budget.spent == 5.0
    with pytest.raises(ValueError, match="seconds"):
        TimeBudget(0)


def test_time_budget_leaves_validation_out_of_the_clock():
    from word2bert.training.callbacks import TimeBudget
    now = [0.0]

    class SlowValidation(keras.callbacks.Callback):      # every validation pass takes 100 s of the fake clock
        def on_test_begin(self, logs=None):
            now[0] += 100.0

    class OneSecondBatches(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            now[0] += 1.0

    budget = TimeBudget(None, clock=lambda: now[0])
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((8, 3), np.float32)
    model.fit(x, x[:, :1], batch_size=2, epochs=2, verbose=0, validation_data=(x, x[:, :1]),
              callbacks=[OneSecondBatches(), budget, SlowValidation()])
    assert budget.spent == 8.0                              # 2 epochs of 4 one-second batches; no validation time
    budget.set_state({"spent": 3.0})
    assert budget.get_state() == {"spent": 3.0}


def test_elmo_layers_put_the_forward_half_first_and_the_head_reads_the_bilm_without_its_dropout():
    # layer j of the mix is [forward[j]; backward[j]] (Peters et al. 2018, section 3.2), in that order
    bilm = _bilm()
    rows = _rows()
    forward, backward = bilm.directions(rows)
    for state, f, b in zip(bilm.hidden_states(rows), forward, backward):
        np.testing.assert_allclose(to_numpy(state)[..., :8], to_numpy(f), atol=1e-6)
        np.testing.assert_allclose(to_numpy(state)[..., 8:], to_numpy(b), atol=1e-6)
    # a biLM with dropout 0.5 inside a head whose own dropout is 0: training=True changes nothing, the frozen
    # features are read with the biLM's dropout off
    noisy = _bilm(dropout=0.5)
    tagger = ElmoTokenTagger(noisy, num_tags=3, dropout=0.0)
    tagger.build()
    np.testing.assert_allclose(to_numpy(tagger(rows, training=True)), to_numpy(tagger(rows)), atol=1e-6)
