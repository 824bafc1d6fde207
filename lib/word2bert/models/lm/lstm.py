"""An LSTM language model (Zaremba, Sutskever & Vinyals 2014), its SGD rule and state handling.

Learning rate note: Zaremba et al. use SGD with lr 1 on the loss summed over the 35 unrolled
steps (averaged over the batch) and clip the gradient norm at 5. Keras's losses average over the
time steps too, which divides the gradient by 35, so the same update is
SGD(learning_rate=35, global_clipnorm=5/35) -- see ``zaremba_sgd``.
"""
from __future__ import annotations

import keras
import numpy as np


def build_lstm_lm(vocabulary_size: int, batch_size: int | None = None, sequence_length: int | None = 35,
                  hidden_dim: int = 200, num_layers: int = 2, dropout: float = 0.0,
                  init_scale: float = 0.1, stateful: bool = True, name: str = "lstm_lm") -> keras.Model:
    """A Zaremba-style LSTM language model.

    Embedding (size ``hidden_dim``) -> ``num_layers`` LSTMs of ``hidden_dim`` units ->
    Dense(vocabulary_size). Dropout is applied to the non-recurrent connections only: after
    the embedding and after every LSTM (Zaremba et al. 2014, section 3). Weights are
    drawn uniformly from [-init_scale, init_scale] as in the paper.

    Args:
        vocabulary_size: ``|V|``.
        batch_size: fixed batch size; required when ``stateful`` (the state of row i is
            carried to row i of the next batch: use ``batchify`` and ``shuffle=False``).
        sequence_length: unrolled steps (None: any length).
        hidden_dim: units per LSTM layer and embedding size (200 "small", 650 "medium").
        num_layers: stacked LSTM layers.
        dropout: rate on non-recurrent connections (0 small, 0.5 medium).
        init_scale: uniform initialisation range.
        stateful: carry the LSTM state across batches (reset it with
            ``ResetStates`` at each epoch and before evaluating).

    Returns:
        Uncompiled ``keras.Model``: int32 ``(batch, sequence_length)`` -> float32 logits
        ``(batch, sequence_length, vocabulary_size)``.

    Raises:
        ValueError: ``stateful`` without ``batch_size``, or a size < 1.

    Reference: Zaremba, Sutskever & Vinyals (2014), "Recurrent Neural Network
    Regularization", arXiv:1409.2329, sections 3-4.
    """
    if stateful and not batch_size:
        raise ValueError("a stateful LSTM LM needs a fixed batch_size")
    for arg, value in (("vocabulary_size", vocabulary_size), ("hidden_dim", hidden_dim), ("num_layers", num_layers)):
        if value < 1:
            raise ValueError(f"{arg} must be >= 1, got {value}")
    init = keras.initializers.RandomUniform(-init_scale, init_scale)
    inputs = keras.Input(batch_shape=(batch_size, sequence_length), dtype="int32", name="tokens")
    x = keras.layers.Embedding(vocabulary_size, hidden_dim, embeddings_initializer=init, name="embedding")(inputs)
    x = keras.layers.Dropout(dropout)(x)
    for i in range(num_layers):
        x = keras.layers.LSTM(hidden_dim, return_sequences=True, stateful=stateful, kernel_initializer=init,
                              recurrent_initializer=init, name=f"lstm_{i + 1}")(x)
        x = keras.layers.Dropout(dropout)(x)
    x = keras.layers.Dense(vocabulary_size, kernel_initializer=init, bias_initializer=init, name="softmax")(x)
    logits = keras.layers.Activation("linear", dtype="float32", name="logits")(x)
    return keras.Model(inputs, logits, name=name)


def zaremba_sgd(learning_rate: float = 1.0, max_grad_norm: float = 5.0, sequence_length: int = 35):
    """SGD that makes the paper's update with Keras's per-token mean loss.

    The paper's loss is summed over ``sequence_length`` steps; Keras's is their mean, so its
    gradient is ``sequence_length`` times smaller. Scaling the rate up and the clip norm down by
    ``sequence_length`` gives the identical update.

    Returns:
        ``keras.optimizers.SGD(learning_rate * sequence_length, global_clipnorm=max_grad_norm / sequence_length)``.
    """
    return keras.optimizers.SGD(learning_rate=learning_rate * sequence_length, global_clipnorm=max_grad_norm / sequence_length)


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


def _reset_rnn_states(model):
    for layer in model.layers:
        if isinstance(layer, keras.layers.RNN) and layer.stateful:
            layer.reset_state()


def _check_sampler(model):
    if model.inputs[0].shape[0] != 1:
        raise ValueError(f"the model must be built with batch_size=1 (build_lstm_lm(..., batch_size=1, sequence_length=1) "
                         f"and copy the weights with set_weights), got batch size {model.inputs[0].shape[0]}")


def lstm_step_fn(model):
    """A ``word2bert.samplers`` step function for a stateful LM of batch size 1.

    The LSTM keeps its state inside its layers, so the decoding ``state`` is unused (pass
    ``{}``): ``step(state, last_tokens (1,)) -> (log_probs (1, vocabulary_size) float64, state)``.

    Raises:
        ValueError: the model's batch size is not 1.
    """
    _check_sampler(model)

    def step(state, last_tokens):
        logits = keras.ops.convert_to_numpy(model(np.asarray(last_tokens, np.int32).reshape(1, 1), training=False))
        z = logits[:, -1].astype(np.float64)
        return z - np.logaddexp.reduce(z, axis=-1, keepdims=True), state

    return step


def _feed(model, ids):
    """Reset the model's state, feed ``ids`` one at a time; the step function and the last log-probs."""
    _reset_rnn_states(model)
    step = lstm_step_fn(model)
    log_probs = None
    for token in ids:
        log_probs, _ = step({}, [token])
    return step, log_probs


def next_token_probs(model, history_ids) -> np.ndarray:
    """P(next token | history) of a stateful LM of batch size 1, from a fresh state.

    Args:
        model: built with ``build_lstm_lm(..., batch_size=1, sequence_length=1)``.
        history_ids: at least one id (start with the ``<eos>`` id to condition on a sentence start).

    Returns:
        float64 ``(vocabulary_size,)`` probabilities summing to 1.

    Raises:
        TypeError: ids that are not integers.
        ValueError: an empty history, or a model whose batch size is not 1.
    """
    history_ids = np.asarray(history_ids)
    if history_ids.size and not np.issubdtype(history_ids.dtype, np.integer):
        raise TypeError(f"history_ids must be integers, got dtype {history_ids.dtype}")
    history_ids = [int(t) for t in history_ids.ravel()]
    if not history_ids:
        raise ValueError("next_token_probs needs a history of at least one id")
    _, log_probs = _feed(model, history_ids)
    return np.exp(log_probs[0])


def sample(model: keras.Model, prompt_ids, num_tokens: int, temperature: float = 1.0, seed: int = 0,
           stop_id: int | None = None) -> list[int]:
    """Draw ids from a stateful LSTM LM of batch size 1 with ``word2bert.samplers.sample_search``.

    Build the sampler as a twin of the trained model with ``build_lstm_lm(..., batch_size=1,
    sequence_length=1)`` and copy the weights with ``set_weights``. The state is reset, the prompt is
    fed token by token, then each drawn token is fed back.

    Args:
        model: stateful LM with batch size 1.
        prompt_ids: at least one id to start from (e.g. the ``<eos>`` id).
        num_tokens: how many ids to draw at most.
        temperature: softmax temperature (> 0); lower is greedier.
        seed: numpy seed, for reproducible samples.
        stop_id: stop when this id is drawn (e.g. ``<eos>``; it is not returned).

    Returns:
        list of drawn ids (the prompt and the stop id excluded).

    Raises:
        ValueError: empty prompt, temperature <= 0, or a model whose batch size is not 1.
    """
    from word2bert.samplers import sample_search

    prompt_ids = [int(t) for t in np.asarray(prompt_ids).ravel()]
    if not prompt_ids:
        raise ValueError("sample needs a prompt of at least one id")
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    step, _ = _feed(model, prompt_ids[:-1])
    return sample_search(step, {}, 1, prompt_ids[-1], stop_id, num_tokens, temperature, seed)[0]
