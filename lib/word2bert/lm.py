"""Neural language models: Bengio's fixed-window NNLM and an LSTM LM, plus perplexity.

Count-based n-gram models live in ``word2bert.ngram``; this module holds the neural
ones that replace them, and the tools to feed and score them:

- ``lm_windows``: (n-1)-word windows and their next word, for the NNLM.
- ``batchify``: the truncated-BPTT layout for a stateful LSTM (row i of batch k+1
  continues row i of batch k).
- ``build_nnlm``: y = b + W x + U tanh(d + H x), x = the concatenated embeddings of
  the n-1 previous words (Bengio et al. 2003, JMLR, section 2, eq. 1).
- ``build_lstm_lm``: embeddings -> L stacked LSTMs (dropout on non-recurrent
  connections) -> softmax over the vocabulary (Zaremba, Sutskever & Vinyals 2014).
- ``Perplexity``: a Keras metric, exp(mean negative log-likelihood per token).
- ``sample``: draw text from a trained LSTM LM.

Learning rate note: Zaremba et al. use SGD with lr 1 on the loss summed over the 35
unrolled steps (averaged over the batch) and clip the gradient norm at 5. Keras's
losses average over the time steps too, which divides the gradient by 35, so the same
update is SGD(learning_rate=35, global_clipnorm=5/35) -- see ``zaremba_sgd``.
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops


# ------------------------------------------------------------------ batching
def lm_windows(ids, context_size: int):
    """Every window of ``context_size`` ids and the id that follows it.

    Args:
        ids: 1-D int array, a token stream.
        context_size: n-1, the number of previous words (>= 1).

    Returns:
        ``(x, y)``: ``x`` int32 of shape ``(len(ids) - context_size, context_size)``,
        ``y`` int32 of shape ``(len(ids) - context_size,)``; ``y[i] = ids[i + context_size]``.

    Raises:
        ValueError: ``context_size`` < 1, or the stream is not longer than it.
    """
    ids = np.asarray(ids, dtype=np.int32)
    if context_size < 1:
        raise ValueError(f"context_size must be >= 1, got {context_size}")
    if ids.ndim != 1 or len(ids) <= context_size:
        raise ValueError(f"need a 1-D stream longer than context_size={context_size}, got shape {ids.shape}")
    x = np.lib.stride_tricks.sliding_window_view(ids[:-1], context_size)
    return np.ascontiguousarray(x), ids[context_size:].copy()


def batchify(ids, batch_size: int, seq_len: int):
    """Lay a token stream out for truncated backprop through time with a stateful RNN.

    The stream is cut into ``batch_size`` equal rows; batch k holds columns
    ``[k*seq_len, (k+1)*seq_len)`` of every row, so row i of batch k+1 continues row i
    of batch k. Fit with ``shuffle=False`` and ``batch_size=batch_size``. Tokens that do
    not fill a whole batch are dropped (fewer than ``batch_size * (seq_len + 1)``).

    Args:
        ids: 1-D int array.
        batch_size: rows per batch (>= 1).
        seq_len: unrolled steps per batch (>= 1).

    Returns:
        ``(x, y)`` int32 arrays of shape ``(num_batches * batch_size, seq_len)``;
        ``y`` is ``x`` shifted one token ahead.

    Raises:
        ValueError: ``batch_size`` or ``seq_len`` < 1, ``ids`` not a 1-D integer array, or
            the stream is too short for one batch.
    """
    if int(batch_size) != batch_size or batch_size < 1 or int(seq_len) != seq_len or seq_len < 1:
        raise ValueError(f"batch_size and seq_len must be integers >= 1, got {batch_size} and {seq_len}")
    ids = np.asarray(ids)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"ids must be a 1-D integer array, got shape {ids.shape} and dtype {ids.dtype}")
    ids = ids.astype(np.int32)
    row_len = (len(ids) - 1) // batch_size
    num_batches = row_len // seq_len
    if num_batches < 1:
        raise ValueError(
            f"a stream of {len(ids)} tokens is too short for one batch of {batch_size} x {seq_len}"
        )
    usable = num_batches * seq_len
    rows_x = ids[: batch_size * row_len].reshape(batch_size, row_len)[:, :usable]
    rows_y = ids[1: batch_size * row_len + 1].reshape(batch_size, row_len)[:, :usable]

    def layout(rows):  # (B, K*T) -> (K, B, T) -> (K*B, T)
        return rows.reshape(batch_size, num_batches, seq_len).transpose(1, 0, 2).reshape(-1, seq_len)

    return np.ascontiguousarray(layout(rows_x)), np.ascontiguousarray(layout(rows_y))


# -------------------------------------------------------------------- metric
@keras.saving.register_keras_serializable(package="word2bert")
class Perplexity(keras.metrics.Metric):
    """exp(mean negative log-likelihood per token): the language-modelling metric.

    Args:
        from_logits: ``y_pred`` holds logits (True) or probabilities (False).
        mask_token_id: target id to ignore (padding), or None.
        name, dtype: as for any Keras metric.

    Call arguments (``update_state``):
        y_true: int targets, shape ``(batch,)`` or ``(batch, seq_len)``.
        y_pred: float scores, shape ``y_true.shape + (vocab_size,)``.
        sample_weight: optional float weights broadcastable to ``y_true``.

    Returns (``result``):
        float32 scalar, >= 1. Unlike averaging per-batch perplexities, the mean is taken
        over all tokens seen, so it equals exp(mean cross-entropy) over the whole set.

    Reference: Jurafsky & Martin, SLP3 section 3.2.1.
    """

    def __init__(self, from_logits=True, mask_token_id=None, name="perplexity", dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.from_logits = from_logits
        self.mask_token_id = mask_token_id
        self.nll_sum = self.add_variable(shape=(), initializer="zeros", name="nll_sum")
        self.count = self.add_variable(shape=(), initializer="zeros", name="count")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.cast(y_true, "int32")
        y_pred = ops.cast(y_pred, "float32")
        nll = keras.losses.sparse_categorical_crossentropy(y_true, y_pred, from_logits=self.from_logits)
        weight = ops.ones_like(nll)
        if self.mask_token_id is not None:
            weight = weight * ops.cast(ops.not_equal(y_true, self.mask_token_id), "float32")
        if sample_weight is not None:
            weight = weight * ops.cast(sample_weight, "float32")
        self.nll_sum.assign_add(ops.sum(nll * weight))
        self.count.assign_add(ops.sum(weight))

    def result(self):
        return ops.exp(ops.divide_no_nan(self.nll_sum, self.count))

    def reset_state(self):
        self.nll_sum.assign(0.0)
        self.count.assign(0.0)

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits, "mask_token_id": self.mask_token_id}


# -------------------------------------------------------------------- models
def build_nnlm(vocab_size: int, context_size: int = 4, embedding_dim: int = 100, hidden_dim: int = 200,
               dropout: float = 0.0, direct: bool = True, name: str = "nnlm") -> keras.Model:
    """Bengio et al.'s neural probabilistic language model.

    y = b + W x + U tanh(d + H x), where x is the concatenation of the embeddings
    (the shared matrix C) of the ``context_size`` previous words; softmax(y) is
    P(w_t | w_{t-n+1}..w_{t-1}). ``direct=False`` drops W (the paper's "no direct
    connections" variant).

    Args:
        vocab_size: |V|.
        context_size: n-1 previous words.
        embedding_dim: m, the size of each word's vector.
        hidden_dim: h, the tanh layer.
        dropout: dropout on x and on the hidden layer (0 in the paper).
        direct: add the direct connections W x.

    Returns:
        Uncompiled ``keras.Model``: int32 ``(batch, context_size)`` -> float32 logits
        ``(batch, vocab_size)``.

    Raises:
        ValueError: a size < 1.

    Reference: Bengio, Ducharme, Vincent & Jauvin (2003), JMLR 3, section 2, eq. 1.
    """
    for arg, value in (("vocab_size", vocab_size), ("context_size", context_size),
                       ("embedding_dim", embedding_dim), ("hidden_dim", hidden_dim)):
        if value < 1:
            raise ValueError(f"{arg} must be >= 1, got {value}")
    inputs = keras.Input(shape=(context_size,), dtype="int32", name="context")
    x = keras.layers.Embedding(vocab_size, embedding_dim, name="C")(inputs)
    x = keras.layers.Flatten(name="concat")(x)
    x = keras.layers.Dropout(dropout)(x)
    h = keras.layers.Dense(hidden_dim, activation="tanh", name="H")(x)
    h = keras.layers.Dropout(dropout)(h)
    logits = keras.layers.Dense(vocab_size, name="U")(h)
    if direct:
        logits = keras.layers.Add(name="y")([logits, keras.layers.Dense(vocab_size, use_bias=False, name="W")(x)])
    logits = keras.layers.Activation("linear", dtype="float32", name="logits")(logits)
    return keras.Model(inputs, logits, name=name)


def build_lstm_lm(vocab_size: int, batch_size: int | None = None, seq_len: int | None = 35,
                  hidden_dim: int = 200, num_layers: int = 2, dropout: float = 0.0,
                  init_scale: float = 0.1, stateful: bool = True, name: str = "lstm_lm") -> keras.Model:
    """A Zaremba-style LSTM language model.

    Embedding (size ``hidden_dim``) -> ``num_layers`` LSTMs of ``hidden_dim`` units ->
    Dense(vocab_size). Dropout is applied to the non-recurrent connections only: after
    the embedding and after every LSTM (Zaremba et al. 2014, section 3). Weights are
    drawn uniformly from [-init_scale, init_scale] as in the paper.

    Args:
        vocab_size: |V|.
        batch_size: fixed batch size; required when ``stateful`` (the state of row i is
            carried to row i of the next batch: use ``batchify`` and ``shuffle=False``).
        seq_len: unrolled steps (None: any length).
        hidden_dim: units per LSTM layer and embedding size (200 "small", 650 "medium").
        num_layers: stacked LSTM layers.
        dropout: rate on non-recurrent connections (0 small, 0.5 medium).
        init_scale: uniform initialisation range.
        stateful: carry the LSTM state across batches (reset it with
            ``ResetStates`` at each epoch and before evaluating).

    Returns:
        Uncompiled ``keras.Model``: int32 ``(batch, seq_len)`` -> float32 logits
        ``(batch, seq_len, vocab_size)``.

    Raises:
        ValueError: ``stateful`` without ``batch_size``, or a size < 1.

    Reference: Zaremba, Sutskever & Vinyals (2014), "Recurrent Neural Network
    Regularization", arXiv:1409.2329, sections 3-4.
    """
    if stateful and not batch_size:
        raise ValueError("a stateful LSTM LM needs a fixed batch_size")
    for arg, value in (("vocab_size", vocab_size), ("hidden_dim", hidden_dim), ("num_layers", num_layers)):
        if value < 1:
            raise ValueError(f"{arg} must be >= 1, got {value}")
    init = keras.initializers.RandomUniform(-init_scale, init_scale)
    inputs = keras.Input(batch_shape=(batch_size, seq_len), dtype="int32", name="tokens")
    x = keras.layers.Embedding(vocab_size, hidden_dim, embeddings_initializer=init, name="embedding")(inputs)
    x = keras.layers.Dropout(dropout)(x)
    for i in range(num_layers):
        x = keras.layers.LSTM(hidden_dim, return_sequences=True, stateful=stateful, kernel_initializer=init,
                              recurrent_initializer=init, name=f"lstm_{i + 1}")(x)
        x = keras.layers.Dropout(dropout)(x)
    x = keras.layers.Dense(vocab_size, kernel_initializer=init, bias_initializer=init, name="softmax")(x)
    logits = keras.layers.Activation("linear", dtype="float32", name="logits")(x)
    return keras.Model(inputs, logits, name=name)


def zaremba_sgd(learning_rate: float = 1.0, max_grad_norm: float = 5.0, seq_len: int = 35):
    """SGD that makes the paper's update with Keras's per-token mean loss.

    The paper's loss is summed over ``seq_len`` steps; Keras's is their mean, so its
    gradient is ``seq_len`` times smaller. Scaling the rate up and the clip norm down by
    ``seq_len`` gives the identical update.

    Returns:
        ``keras.optimizers.SGD(learning_rate * seq_len, global_clipnorm=max_grad_norm / seq_len)``.
    """
    return keras.optimizers.SGD(learning_rate=learning_rate * seq_len, global_clipnorm=max_grad_norm / seq_len)


class ResetStates(keras.callbacks.Callback):
    """Reset the states of every stateful RNN layer at the start of each epoch and test.

    A new epoch (or an evaluation) starts at the beginning of the stream, so the state
    carried from the end of the previous pass must not leak into it.
    """

    def _reset(self):
        for layer in self.model.layers:
            if isinstance(layer, keras.layers.RNN) and layer.stateful:
                layer.reset_state()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()

    def on_test_begin(self, logs=None):
        self._reset()


def sample(model: keras.Model, prompt_ids, num_tokens: int, temperature: float = 1.0, seed: int = 0,
           stop_id: int | None = None) -> list[int]:
    """Draw ids from an LSTM LM one token at a time.

    ``model`` must accept a ``(1, 1)`` input and be stateful (build a twin with
    ``build_lstm_lm(..., batch_size=1, seq_len=1)`` and copy the weights with
    ``set_weights``): the prompt is fed token by token, then each sampled token is fed
    back.

    Args:
        model: stateful LM with batch size 1.
        prompt_ids: at least one id to start from (e.g. the ``<eos>`` id).
        num_tokens: how many ids to draw.
        temperature: softmax temperature (> 0); lower is greedier.
        seed: numpy seed, for reproducible samples.
        stop_id: stop after drawing this id (e.g. ``<eos>``).

    Returns:
        list of drawn ids (the prompt excluded).

    Raises:
        ValueError: empty prompt, temperature <= 0, or a model whose batch size is not 1.
    """
    prompt_ids = list(np.asarray(prompt_ids).ravel())
    if not prompt_ids:
        raise ValueError("sample needs a prompt of at least one id")
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    if model.inputs[0].shape[0] != 1:
        raise ValueError(f"sample needs a model built with batch_size=1, got {model.inputs[0].shape[0]}")
    for layer in model.layers:
        if isinstance(layer, keras.layers.RNN):
            layer.reset_state()
    rng = np.random.default_rng(seed)
    out: list[int] = []
    token = prompt_ids[0]
    for t in range(len(prompt_ids) - 1 + num_tokens):
        logits = keras.ops.convert_to_numpy(model(np.array([[token]], dtype=np.int32), training=False))
        logits = logits[0, -1].astype(np.float64)
        if t < len(prompt_ids) - 1:
            token = prompt_ids[t + 1]
            continue
        z = logits / temperature
        p = np.exp(z - z.max())
        token = int(rng.choice(len(p), p=p / p.sum()))
        out.append(token)
        if stop_id is not None and token == stop_id:
            break
    return out
