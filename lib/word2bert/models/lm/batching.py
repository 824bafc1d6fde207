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


def batchify(ids, batch_size: int, sequence_length: int):
    """Lay a token stream out for truncated backprop through time with a stateful RNN.

    The stream is cut into ``batch_size`` equal rows; batch k holds columns
    ``[k*sequence_length, (k+1)*sequence_length)`` of every row, so row i of batch k+1 continues row i
    of batch k. Fit with ``shuffle=False`` and ``batch_size=batch_size``. Tokens that do
    not fill a whole batch are dropped (fewer than ``batch_size * (sequence_length + 1)``).

    Args:
        ids: 1-D int array.
        batch_size: rows per batch (>= 1).
        sequence_length: unrolled steps per batch (>= 1).

    Returns:
        ``(x, y)`` int32 arrays of shape ``(num_batches * batch_size, sequence_length)``;
        ``y`` is ``x`` shifted one token ahead.

    Raises:
        ValueError: ``batch_size`` or ``sequence_length`` < 1, ``ids`` not a 1-D integer array, or
            the stream is too short for one batch.
    """
    if int(batch_size) != batch_size or batch_size < 1 or int(sequence_length) != sequence_length or sequence_length < 1:
        raise ValueError(f"batch_size and sequence_length must be integers >= 1, got {batch_size} and {sequence_length}")
    ids = np.asarray(ids)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"ids must be a 1-D integer array, got shape {ids.shape} and dtype {ids.dtype}")
    ids = ids.astype(np.int32)
    row_len = (len(ids) - 1) // batch_size
    num_batches = row_len // sequence_length
    if num_batches < 1:
        raise ValueError(
            f"a stream of {len(ids)} tokens is too short for one batch of {batch_size} x {sequence_length}"
        )
    usable = num_batches * sequence_length
    rows_x = ids[: batch_size * row_len].reshape(batch_size, row_len)[:, :usable]
    rows_y = ids[1: batch_size * row_len + 1].reshape(batch_size, row_len)[:, :usable]

    def layout(rows):  # (B, K*T) -> (K, B, T) -> (K*B, T)
        return rows.reshape(batch_size, num_batches, sequence_length).transpose(1, 0, 2).reshape(-1, sequence_length)

    return np.ascontiguousarray(layout(rows_x)), np.ascontiguousarray(layout(rows_y))


def sliding_windows(ids, sequence_length: int, stride: int):
    """Cover a token stream with overlapping windows so that a fixed-context model scores every token once,
    each with at least ``sequence_length - stride`` tokens of context (except near the start).

    Window w holds ``ids[w * stride : w * stride + sequence_length + 1]``: inputs its first ``sequence_length`` ids, targets
    the same shifted one ahead. The first window scores all its targets; every later window scores only its
    last ``stride`` targets (the earlier ones were scored by the previous window, with less context). The
    last window is padded with id 0 and weight 0 where the stream ends. ``ids[0]`` is context only (prepend
    a start or ``<eos>`` id to have the first real token scored).

    Args:
        ids: 1-D int stream of at least 2 ids.
        sequence_length: the model's context (window length, >= 1).
        stride: new targets per window, ``1 <= stride <= sequence_length`` (``sequence_length``: windows that do not overlap;
            smaller: more context per scored token, ``sequence_length / stride`` times the work).

    Returns:
        ``(x, y, weights)``: int32 ``(num_windows, sequence_length)`` twice and float32 ``(num_windows, sequence_length)``;
        ``weights`` is 1 exactly once for each of the ``len(ids) - 1`` targets and 0 elsewhere.

    Raises:
        ValueError: ``ids`` not a 1-D integer array of at least 2 ids; ``sequence_length`` or ``stride`` out of range.
    """
    ids = np.asarray(ids)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer) or len(ids) < 2:
        raise ValueError(f"ids must be a 1-D integer array of at least 2 ids, got shape {ids.shape} and dtype "
                         f"{ids.dtype}")
    if int(sequence_length) != sequence_length or sequence_length < 1 or int(stride) != stride or not 1 <= stride <= sequence_length:
        raise ValueError(f"need integers sequence_length >= 1 and 1 <= stride <= sequence_length, got sequence_length={sequence_length}, "
                         f"stride={stride}")
    n_targets = len(ids) - 1
    starts = [0]
    while starts[-1] + sequence_length < n_targets:
        starts.append(starts[-1] + stride)
    padded = np.concatenate([ids.astype(np.int32), np.zeros(starts[-1] + sequence_length + 1 - len(ids), np.int32)])
    x = np.stack([padded[s:s + sequence_length] for s in starts])
    y = np.stack([padded[s + 1:s + sequence_length + 1] for s in starts])
    weights = np.zeros(x.shape, np.float32)
    for w, s in enumerate(starts):
        first_new = 0 if w == 0 else sequence_length - stride          # targets before it were scored by window w - 1
        last = min(sequence_length, n_targets - s)                     # targets past the stream's end are padding
        weights[w, first_new:last] = 1.0
    return x, y, weights
