"""The inputs of a model that reads token ids: one reading of the forms a user passes, for every model and helper.

A model of the library takes ``{"token_ids", "segment_ids", "padding_mask"}`` (keras-hub's names and BERT's three
inputs), a pair ``(token_ids, segment_ids)``, or the ids alone. ``model_inputs`` turns any of them into the dict,
checks it, and fills what is missing: segment 0 everywhere, and the mask ``token_ids != 0`` (0 is the padding id).
"""
from __future__ import annotations

import numpy as np
from keras import ops

KEYS = ("token_ids", "segment_ids", "padding_mask")


def _same_shape(a, b) -> bool:
    a, b = tuple(a), tuple(b)
    return len(a) == len(b) and all(x is None or y is None or int(x) == int(y) for x, y in zip(a, b))


def model_inputs(inputs, fill: bool = True) -> dict:
    """``{"token_ids", "segment_ids", "padding_mask"}`` from a dict, a ``(token_ids, segment_ids)`` pair, or ids.

    Args:
        inputs: a dict with ``"token_ids"`` (int ``(batch, L)``) and optionally ``"segment_ids"`` (int, same shape)
            and ``"padding_mask"`` (bool or int, same shape; a value of None counts as missing; other keys are
            ignored); a list or tuple of two, ``(token_ids, segment_ids)``; or the ids alone. NumPy arrays, backend
            tensors or symbolic Keras tensors.
        fill: fill a missing segment with zeros and a missing mask with ``token_ids != 0`` (NumPy in, NumPy out;
            tensors in, tensors out); False leaves them None.

    Returns:
        dict with the three keys; the given parts are passed through unconverted.

    Raises:
        ValueError: a dict without ``"token_ids"``; a sequence of other than two items; a segment or mask whose
            shape is not the ids' (dimensions unknown at trace time are not compared).
    """
    if isinstance(inputs, dict):
        if "token_ids" not in inputs:
            raise ValueError(f"the inputs dict needs 'token_ids', got keys {sorted(inputs)}")
        token_ids, segment_ids, padding_mask = (inputs.get(key) for key in KEYS)
    elif isinstance(inputs, (list, tuple)):
        if len(inputs) != 2:
            raise ValueError(f"inputs as a sequence must be (token_ids, segment_ids), got {len(inputs)} items")
        (token_ids, segment_ids), padding_mask = inputs, None
    else:
        token_ids, segment_ids, padding_mask = inputs, None, None
    if isinstance(token_ids, (list, tuple)):
        token_ids = np.asarray(token_ids)
    for name, part in (("segment_ids", segment_ids), ("padding_mask", padding_mask)):
        if part is not None and not _same_shape(np.shape(part) if isinstance(part, (list, tuple)) else part.shape,
                                                token_ids.shape):
            raise ValueError(f"{name} must have the shape of token_ids {tuple(token_ids.shape)}, got "
                             f"{tuple(np.shape(part) if isinstance(part, (list, tuple)) else part.shape)}")
    if fill:
        as_numpy = isinstance(token_ids, np.ndarray)
        if segment_ids is None:
            segment_ids = np.zeros_like(token_ids) if as_numpy else ops.zeros_like(token_ids)
        if padding_mask is None:
            padding_mask = token_ids != 0 if as_numpy else ops.not_equal(token_ids, 0)
    return {"token_ids": token_ids, "segment_ids": segment_ids, "padding_mask": padding_mask}
