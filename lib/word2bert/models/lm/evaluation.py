"""The perplexity of a causal language model over a whole token stream, as chapter 01 scores n-gram
and LSTM models: every token of the stream scored once.
"""
from __future__ import annotations

import numpy as np
from keras import ops

from word2bert.models.lm.batching import sliding_windows


def stream_perplexity(model, ids, sequence_length: int, stride: int, batch_size: int = 64) -> float:
    """Perplexity of a causal language model over a whole token stream, every token scored once.

    The stream is cut by ``word2bert.models.lm.sliding_windows(ids, sequence_length, stride)``; the model scores each window
    (``model.predict``) and the result is ``exp(sum of -log p(target) over the scored targets / their
    number)``: the same quantity chapter 01 reports for n-gram and LSTM models over the same stream.

    Args:
        model: int ``(batch, sequence_length)`` -> logits ``(batch, sequence_length, vocabulary_size)``, position t scoring the next
            id from ids ``<= t`` of its window (a ``DecoderOnlyTransformer``).
        ids, sequence_length, stride: as ``sliding_windows`` (``ids[0]`` is context only).
        batch_size: windows per forward pass.

    Returns:
        float perplexity over the ``len(ids) - 1`` targets.

    Raises:
        ValueError: as ``sliding_windows``; logits of another shape than ``(windows, sequence_length, V)``.
    """

    x, y, weights = sliding_windows(ids, sequence_length, stride)
    nll_sum, count = 0.0, 0.0
    for lo in range(0, len(x), batch_size):
        batch = x[lo:lo + batch_size]
        rows = len(batch)
        batch = np.pad(batch, ((0, batch_size - rows), (0, 0)))            # one shape: one compiled function
        logits = model.predict_on_batch(batch)
        if len(logits.shape) != 3 or tuple(logits.shape[:2]) != batch.shape:
            raise ValueError(f"the model must return logits (windows, {sequence_length}, vocabulary_size), got {logits.shape}")
        # -log p(target) in the backend: only (windows, sequence_length) numbers come back, not the logits
        log_p = ops.log_softmax(ops.cast(ops.convert_to_tensor(logits), "float32"), axis=-1)
        target = ops.take_along_axis(log_p, ops.convert_to_tensor(np.pad(y[lo:lo + rows], ((0, batch_size - rows),
                                                                                           (0, 0)))[..., None]), axis=-1)
        nll = -np.asarray(ops.convert_to_numpy(target), np.float64)[:rows, :, 0]
        w = weights[lo:lo + rows]
        nll_sum += float((nll * w).sum())
        count += float(w.sum())
    return float(np.exp(nll_sum / count))
