"""Argument checks shared by the layers and the models built from them.

Each raises a ``ValueError`` that names the argument, the value given and the value allowed, at
the Python boundary (on static shapes), so that bad sizes never reach a backend kernel.
"""
from __future__ import annotations


def check_length(length, max_len: int, start_index=0, what: str = "sequence") -> None:
    """Raise a ValueError when ``start_index + length`` (static ints) exceeds ``max_len``.

    Args:
        length: the sequence length (an int, or None / a tensor when unknown: then nothing is checked).
        max_len: the most positions the layer has.
        start_index: the position of the first element (incremental decoding); a tensor is not checked.
        what: how the message names the sequence.

    Raises:
        ValueError: ``start_index + length > max_len``, naming both.
    """
    if isinstance(length, int) and isinstance(start_index, int) and start_index + length > max_len:
        raise ValueError(f"the {what} has {start_index + length} positions (start {start_index} + length {length}) "
                         f"but max_len is {max_len}")


def check_model_dims(d_model: int, num_heads: int) -> int:
    """``d_model // num_heads``, each head's width (Vaswani et al. 2017, section 3.2.2: d_k = d_model / h).

    Raises:
        ValueError: ``num_heads`` < 1 or it does not divide ``d_model``.
    """
    if num_heads < 1 or d_model % num_heads:
        raise ValueError(f"num_heads ({num_heads}) must divide the model width d_model ({d_model})")
    return d_model // num_heads
