import numpy as np
import pytest
import keras

from word2bert.metrics import Perplexity
from word2bert.models import lm


def test_lm_windows():
    x, y = lm.lm_windows(np.array([5, 6, 7, 8, 9]), 3)
    assert x.tolist() == [[5, 6, 7], [6, 7, 8]] and y.tolist() == [8, 9]
    with pytest.raises(ValueError, match="longer than context_size"):
        lm.lm_windows(np.array([1, 2]), 2)
    with pytest.raises(ValueError, match="context_size"):
        lm.lm_windows(np.array([1, 2]), 0)


def test_batchify_rows_continue_across_batches():
    B, T = 3, 4
    ids = np.arange(100)
    x, y = lm.batchify(ids, B, T)
    np.testing.assert_array_equal(y, x + 1)
    num_batches = len(x) // B
    assert num_batches == (99 // B) // T
    for k in range(num_batches - 1):
        for i in range(B):
            assert x[(k + 1) * B + i, 0] == x[k * B + i, -1] + 1  # row i continues
    assert len(np.unique(x)) == x.size  # no token used twice
    with pytest.raises(ValueError, match="too short"):
        lm.batchify(np.arange(10), 4, 5)


def _log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def test_perplexity_metric_is_exp_mean_nll_over_all_tokens():
    rng = np.random.default_rng(0)
    logits = [rng.normal(size=(2, 5, 7)).astype("float32"), rng.normal(size=(3, 5, 7)).astype("float32")]
    targets = [rng.integers(0, 7, size=(2, 5)), rng.integers(0, 7, size=(3, 5))]
    targets[1][0, :2] = 0  # padding to mask
    m = Perplexity(mask_token_id=0)
    nll = []
    for z, t in zip(logits, targets):
        m.update_state(t, z)
        lp = np.take_along_axis(_log_softmax(z.astype(np.float64)), t[..., None], -1)[..., 0]
        nll.extend(-lp[t != 0])
    assert float(m.result()) == pytest.approx(np.exp(np.mean(nll)), rel=1e-5)
    m.reset_state()
    m.update_state(targets[0], logits[0])
    lp = np.take_along_axis(_log_softmax(logits[0].astype(np.float64)), targets[0][..., None], -1)
    assert float(m.result()) == pytest.approx(np.exp(-lp[targets[0] != 0].mean()), rel=1e-5)
    clone = Perplexity.from_config(m.get_config())
    assert clone.mask_token_id == 0 and clone.from_logits


def test_perplexity_metric_matches_keras_loss_in_fit():
    model = lm.build_nnlm(30, context_size=2, embedding_dim=4, hidden_dim=8)
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=[Perplexity()])
    x = np.random.randint(0, 30, (64, 2)).astype("int32")
    y = np.random.randint(0, 30, (64,)).astype("int32")
    logs = model.evaluate(x, y, batch_size=64, verbose=0, return_dict=True)
    assert logs["perplexity"] == pytest.approx(np.exp(logs["loss"]), rel=1e-5)


def test_nnlm_has_bengios_parameter_count():
    V, n1, m, h = 50, 3, 6, 7
    model = lm.build_nnlm(V, context_size=n1, embedding_dim=m, hidden_dim=h, direct=True)
    # C: V*m; H, d: (n-1)m*h + h; U, b: h*V + V; W: (n-1)m*V   (Bengio et al. 2003, section 2)
    assert model.count_params() == V * m + (n1 * m * h + h) + (h * V + V) + n1 * m * V
    no_direct = lm.build_nnlm(V, context_size=n1, embedding_dim=m, hidden_dim=h, direct=False)
    assert no_direct.count_params() == V * m + (n1 * m * h + h) + (h * V + V)
    out = model(np.zeros((4, n1), "int32"))
    assert tuple(out.shape) == (4, V) and keras.backend.standardize_dtype(out.dtype) == "float32"
    with pytest.raises(ValueError, match="hidden_dim"):
        lm.build_nnlm(V, hidden_dim=0)


def test_stateful_lstm_lm_carries_state_like_one_long_sequence():
    V, B = 20, 2
    stateful = lm.build_lstm_lm(V, batch_size=B, sequence_length=4, hidden_dim=8, num_layers=2)
    full = lm.build_lstm_lm(V, batch_size=None, sequence_length=8, hidden_dim=8, num_layers=2, stateful=False)
    full.set_weights(stateful.get_weights())
    x = np.random.randint(0, V, (B, 8)).astype("int32")
    np_ = keras.ops.convert_to_numpy
    whole = np_(full(x))
    halves = np.concatenate([np_(stateful(x[:, :4])), np_(stateful(x[:, 4:]))], axis=1)
    np.testing.assert_allclose(halves, whole, atol=1e-5)
    # ResetStates makes the next batch start from zeros again
    cb = lm.ResetStates()
    cb.set_model(stateful)
    cb.on_epoch_begin(0)
    np.testing.assert_allclose(np_(stateful(x[:, :4])), whole[:, :4], atol=1e-5)
    with pytest.raises(ValueError, match="batch_size"):
        lm.build_lstm_lm(V, batch_size=None)


def test_zaremba_sgd_makes_the_papers_update():
    """Mean-over-T loss with lr*T and clip c/T == summed loss with lr and clip c."""
    T, lr, clip = 35, 1.0, 5.0
    g_sum = np.array([6.0, 8.0], "float32")  # norm 10 > 5: clipped to 5
    w = keras.Variable(np.zeros(2, "float32"))
    lm.zaremba_sgd(lr, clip, T).apply([keras.ops.convert_to_tensor(g_sum / T)], [w])
    expected = -lr * clip * g_sum / np.linalg.norm(g_sum)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(w), expected, rtol=1e-5)


def test_sample_is_reproducible_and_validates():
    model = lm.build_lstm_lm(15, batch_size=1, sequence_length=1, hidden_dim=8, num_layers=1)
    a = lm.sample(model, [1, 2], num_tokens=6, seed=3)
    b = lm.sample(model, [1, 2], num_tokens=6, seed=3)
    assert a == b and len(a) == 6 and all(0 <= t < 15 for t in a)
    with pytest.raises(ValueError, match="prompt"):
        lm.sample(model, [], 3)
    with pytest.raises(ValueError, match="temperature"):
        lm.sample(model, [1], 3, temperature=0)
    big = lm.build_lstm_lm(15, batch_size=2, sequence_length=1, hidden_dim=8, num_layers=1)
    with pytest.raises(ValueError, match="batch_size=1"):
        lm.sample(big, [1], 3)


def test_nnlm_saves_and_keeps_float32_logits(tmp_path):
    # a functional model of Keras layers: .keras save/load gives the same outputs
    model = lm.build_nnlm(12, context_size=2, embedding_dim=3, hidden_dim=5)
    x = np.array([[1, 2], [3, 4]], "int32")
    model.save(tmp_path / "nnlm.keras")
    loaded = keras.saving.load_model(tmp_path / "nnlm.keras")
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)), keras.ops.convert_to_numpy(model(x)), rtol=1e-6)
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        model = lm.build_nnlm(12, context_size=2, embedding_dim=3, hidden_dim=5)
    finally:
        keras.config.set_dtype_policy("float32")
    assert keras.backend.standardize_dtype(model.output.dtype) == "float32"  # softmax in float32


@pytest.mark.parametrize("ids, B, T, match", [
    (np.arange(100), 0, 5, "batch_size and sequence_length"), (np.arange(100), 2, -1, "batch_size and sequence_length"),
    (np.arange(100).reshape(10, 10), 2, 2, "1-D integer"), (np.linspace(0, 1, 100), 2, 2, "1-D integer"),
])
def test_batchify_rejects_bad_sizes_and_arrays(ids, B, T, match):
    with pytest.raises(ValueError, match=match):
        lm.batchify(ids, B, T)


def test_next_token_probs_equal_the_full_models_last_step():
    keras.utils.set_random_seed(0)
    full = lm.build_lstm_lm(12, batch_size=1, sequence_length=None, hidden_dim=6, num_layers=2, stateful=True)
    twin = lm.build_lstm_lm(12, batch_size=1, sequence_length=1, hidden_dim=6, num_layers=2)
    twin.set_weights(full.get_weights())
    history = [3, 7, 1, 4]
    logits = keras.ops.convert_to_numpy(full(np.array([history], "int32")))[0, -1].astype(np.float64)
    expected = np.exp(logits - logits.max()); expected /= expected.sum()
    got = lm.next_token_probs(twin, history)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    assert got.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(lm.next_token_probs(twin, history), got, rtol=1e-6)   # the state is reset each call
    with pytest.raises(ValueError, match="at least one"):
        lm.next_token_probs(twin, [])
    with pytest.raises(TypeError, match="integers"):
        lm.next_token_probs(twin, [1.7])


def test_perplexity_of_zero_real_tokens_is_nan_not_one():
    metric = Perplexity(mask_token_id=0)
    metric.update_state(np.zeros((2, 3), "int32"), np.zeros((2, 3, 5), "float32"))   # every target is padding
    assert np.isnan(float(keras.ops.convert_to_numpy(metric.result())))
    metric.update_state(np.array([[1, 2, 0]]), np.zeros((1, 3, 5), "float32"))         # uniform over 5: ppl 5
    assert float(keras.ops.convert_to_numpy(metric.result())) == pytest.approx(5.0, rel=1e-5)
