"""Attention masks, in one place: the fill value of a dtype, the masked softmax, the merge of padding and
attention masks into one ``(batch, Lq, Lk)`` mask, and the causal mask with an offset for a key/value cache.

Every mask here is boolean with Keras's polarity: True = attend, False = masked out. ``Attention``,
``MultiHeadAttention`` and the Transformer blocks all build their masks with these functions.
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops

from word2bert.utils.inputs import model_inputs


def dtype_min(dtype) -> float:
    """The lowest finite number of a float dtype (``bfloat16`` included): the score of a masked pair.

    Setting masked scores to it (with ``where``, never adding ``-1e9``, which overflows float16) gives
    them a softmax weight of exactly 0 whenever one unmasked score exists.
    """
    name = keras.backend.standardize_dtype(dtype)
    if name == "bfloat16":
        return -3.3895313892515355e38
    return float(np.finfo(name).min)


def masked_softmax(scores, mask=None):
    """Softmax over the last axis in float32, with masked entries exactly 0.

    Args:
        scores: float ``(..., Lq, Lk)`` of any float dtype.
        mask: optional bool, broadcastable to ``scores``; True = attend (Keras's polarity).

    Returns:
        float32 weights of ``scores``'s shape; each row sums to 1 over its unmasked entries, and a
        row with no unmasked entry is all zeros (not NaN, not uniform). The fill value is the
        lowest float32, never ``-1e9`` added to a float16 tensor: the softmax runs in float32.

    Reference: Vaswani et al. (2017), section 3.2.3 ("masking out (setting to -inf) all values in the
    input of the softmax which correspond to illegal connections").
    """
    scores = ops.cast(scores, "float32")
    if scores.shape[-1] == 1:   # one key (a first decoding step): weight 1, without keras's size-1 warning
        weights = ops.ones_like(scores)
        return weights if mask is None else ops.where(ops.cast(mask, "bool"), weights, ops.zeros_like(weights))
    if mask is None:
        return ops.softmax(scores, axis=-1)
    keep = ops.cast(mask, "bool")
    lowest = ops.convert_to_tensor(dtype_min("float32"), dtype="float32")
    weights = ops.softmax(ops.where(keep, scores, lowest), axis=-1)
    return ops.where(keep, weights, ops.zeros_like(weights))


def causal_mask(query_length, key_length, offset=0):
    """Bool ``(1, Lq, Lk)``: query i (at position ``offset + i``) may attend to key j iff ``j <= offset + i``.

    Args:
        query_length, key_length: ints or scalar int tensors.
        offset: the position of the first query (a cache index: the queries are the new positions
            ``offset .. offset + Lq - 1`` of a cache of ``Lk`` slots); 0 is keras's lower triangle, also
            when ``Lq != Lk``.
    """
    rows = ops.arange(query_length)[:, None] + ops.cast(offset, "int32")
    return (ops.arange(key_length)[None, :] <= rows)[None]


def merge_masks(query_mask=None, key_mask=None, attention_mask=None, causal=None):
    """One bool ``(batch, Lq, Lk)`` mask (or None) from the masks an attention layer is given.

    Args:
        query_mask: bool ``(batch, Lq)``; False = a padded query (its row attends to nothing).
        key_mask: bool ``(batch, Lk)``; False = a padded key or value (no query attends to it).
        attention_mask: bool ``(batch, Lq, Lk)``; False = that pair is masked.
        causal: bool ``(1, Lq, Lk)`` from ``causal_mask``.

    Returns:
        The logical AND of every mask given, broadcast to ``(batch, Lq, Lk)``; None when none is given.
    """
    parts = []
    if attention_mask is not None:
        parts.append(ops.cast(attention_mask, "bool"))
    if key_mask is not None:
        parts.append(ops.cast(key_mask, "bool")[:, None, :])
    if query_mask is not None:
        parts.append(ops.cast(query_mask, "bool")[:, :, None])
    if causal is not None:
        parts.append(causal)
    if not parts:
        return None
    mask = parts[0]
    for part in parts[1:]:
        mask = ops.logical_and(mask, part)
    return mask


def token_ids_and_mask(inputs):
    """``(token_ids, padding_mask)`` of a dict (``"token_ids"``, optional ``"padding_mask"``) or of ids alone
    (``word2bert.utils.inputs.model_inputs``); the mask defaults to ``token_ids != 0`` and is returned as bool.
    Raises ValueError as ``model_inputs``. The GPT and ELMo models and task heads read their inputs through it."""
    parts = model_inputs(inputs if isinstance(inputs, dict) else {"token_ids": inputs})
    token_ids = ops.convert_to_tensor(parts["token_ids"])
    return token_ids, ops.cast(ops.convert_to_tensor(parts["padding_mask"]), "bool")
