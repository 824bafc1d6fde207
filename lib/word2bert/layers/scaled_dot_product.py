"""Scaled dot-product attention, the Transformer's one attention formula.

Vaswani et al. (2017), "Attention Is All You Need", section 3.2.1, eq. 1:

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

in six steps: (1) queries, keys and values (here given); (2) scores ``Q K^T``, one per query/key
pair; (3) divide by ``sqrt(d_k)`` (a dot product of two vectors of ``d_k`` unit-variance
entries has variance ``d_k``; dividing keeps the scores of order 1, where the softmax still has
gradient); (4) masked pairs get the lowest number of the dtype; (5) softmax over the keys, and
masked pairs set to exactly 0; (6) the weighted sum of the values.
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.layers.masking import masked_softmax


def scaled_dot_product_attention(query, key, value, mask=None, dropout_rate: float = 0.0, training=False,
                                 seed=None):
    """``softmax(Q K^T / sqrt(d_k)) V`` with masking (Vaswani et al. 2017, eq. 1).

    Args:
        query: float ``(..., Lq, d_k)``; key: float ``(..., Lk, d_k)``; value: float ``(..., Lk, d_v)``
            (any leading axes, e.g. ``(batch, heads)``, the same for all three).
        mask: optional bool broadcastable to ``(..., Lq, Lk)``; True = attend. A masked pair gets
            weight exactly 0; a query with no unmasked key gets all-zero weights and a zero output.
        dropout_rate: dropout on the weights (training only).
        training: apply dropout.
        seed: a ``keras.random.SeedGenerator`` (or int) for the dropout.

    Returns:
        ``(output, weights)``: ``output`` ``(..., Lq, d_v)`` in the query's dtype and ``weights``
        ``(..., Lq, Lk)`` float32 (before dropout).

    Raises:
        ValueError: ranks differ, ``d_k`` of query and key differ, or key and value lengths differ.

    Reference: Vaswani et al. (2017), section 3.2.1.
    """
    if not (len(query.shape) == len(key.shape) == len(value.shape)) or len(query.shape) < 2:
        raise ValueError(f"query, key and value must have the same rank >= 2, got shapes {query.shape}, "
                         f"{key.shape}, {value.shape}")
    if query.shape[-1] is not None and key.shape[-1] is not None and query.shape[-1] != key.shape[-1]:
        raise ValueError(f"query and key need the same d_k, got {query.shape[-1]} and {key.shape[-1]}")
    if key.shape[-2] is not None and value.shape[-2] is not None and key.shape[-2] != value.shape[-2]:
        raise ValueError(f"key and value need the same length, got {key.shape[-2]} and {value.shape[-2]}")
    d_k = ops.cast(ops.shape(query)[-1], query.dtype)
    scores = ops.matmul(query, ops.swapaxes(key, -1, -2)) / ops.sqrt(d_k)       # steps 2-3
    weights = masked_softmax(scores, mask)                                       # steps 4-5
    dropped = weights
    if training and dropout_rate > 0:
        dropped = keras.random.dropout(weights, dropout_rate, seed=seed)
    output = ops.matmul(ops.cast(dropped, value.dtype), value)                   # step 6
    return output, weights
