"""Argument checks shared by the layers and the models built from them.

Each raises a ``ValueError`` that names the argument, the value given and the value allowed, at
the Python boundary (on static shapes, and on values that are concrete: eager calls, not compiled
graphs), so that bad sizes and ids never reach a backend kernel.
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops


def check_length(length, max_sequence_length: int, start_index=0, what: str = "sequence") -> None:
    """Raise a ValueError when ``start_index + length`` (static ints) exceeds ``max_sequence_length``.

    Args:
        length: the sequence length (an int, or None / a tensor when unknown: then nothing is checked).
        max_sequence_length: the most positions the layer has.
        start_index: the position of the first element (incremental decoding); a tensor is not checked.
        what: how the message names the sequence.

    Raises:
        ValueError: ``start_index + length > max_sequence_length``, naming both.
    """
    if isinstance(length, int) and isinstance(start_index, int) and start_index + length > max_sequence_length:
        raise ValueError(f"the {what} has {start_index + length} positions (start {start_index} + length {length}) "
                         f"but max_sequence_length is {max_sequence_length}")


def check_model_dims(hidden_dim: int, num_heads: int) -> int:
    """``hidden_dim // num_heads``, each head's width (Vaswani et al. 2017, section 3.2.2: d_k = hidden_dim / h).

    Raises:
        ValueError: ``num_heads`` < 1 or it does not divide ``hidden_dim``.
    """
    if num_heads < 1 or hidden_dim % num_heads:
        raise ValueError(f"num_heads ({num_heads}) must divide the model width hidden_dim ({hidden_dim})")
    return hidden_dim // num_heads


def concrete_value(x):
    """``x`` as a NumPy array when its values are known now, else None.

    Known: Python numbers and lists, NumPy arrays, eager TensorFlow tensors, JAX arrays outside ``jit``, PyTorch
    tensors. Unknown (None): ``keras.KerasTensor`` (a functional model being built), a ``tf.function`` graph tensor
    or a JAX tracer (inside ``fit``, ``predict`` or a compiled step). The value checks below use it so that they
    run on every eager call and cost nothing inside compiled graphs, where they cannot run.
    """
    if x is None or isinstance(x, keras.KerasTensor):
        return None
    if isinstance(x, (int, float, list, tuple, np.ndarray, np.generic)):
        return np.asarray(x)
    try:
        return np.asarray(ops.convert_to_numpy(x))
    except Exception:   # a symbolic or traced tensor: each backend raises its own error type
        return None


def check_ids(ids, upper: int, what: str = "token_ids", fix: str = "") -> None:
    """Raise a ValueError when a concrete id in ``ids`` lies outside ``0 .. upper - 1``.

    Why: ``keras.ops.take`` wraps a negative id around (``-1`` reads the last row, on TensorFlow and JAX alike),
    and on JAX an id ``>= upper`` reads NaN; neither raises. Only concrete values are checked (see
    ``concrete_value``): inside a compiled graph (``fit``, ``predict``, ``jax.jit``) the ids are not checked, and
    the data pipeline, which builds them from a vocabulary, is where they are kept in range.

    Args:
        ids: int ids of any shape (a tensor, an array, a list).
        upper: the number of rows of the table (``vocabulary_size``, ``num_segments``).
        what: the argument's name in the message.
        fix: what the caller should do, appended to the message.

    Raises:
        ValueError: an id < 0 or >= ``upper``, naming the argument, the smallest and largest id and the range.
    """
    values = concrete_value(ids)
    if values is None or values.size == 0:
        return
    low, high = int(values.min()), int(values.max())
    if low < 0 or high >= upper:
        bad = low if low < 0 else high
        raise ValueError(f"{what}: id {bad} is outside 0 .. {upper - 1}, the rows of a table of {upper} (the ids given "
                         f"range from {low} to {high}){'; ' + fix if fix else ''}")
