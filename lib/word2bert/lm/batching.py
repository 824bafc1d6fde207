"""Feeding neural language models: fixed windows for the NNLM, the truncated-BPTT layout for an RNN.
"""
from __future__ import annotations

import numpy as np


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
