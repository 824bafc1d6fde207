"""Fixed sinusoidal position encodings (Vaswani et al. 2017, section 3.5).

    PE(t, 2i)   = sin(t / 10000^(2i / d))
    PE(t, 2i+1) = cos(t / 10000^(2i / d))

Layout: the paper's, **interleaved** (even features sine, odd features cosine, one frequency per
pair), as keras-hub's ``SinePositionEncoding``; tensor2tensor and some tutorials instead put all
sines first and all cosines after, which is the same set of features in another order. Each pair
is a rotation: for a fixed offset k, PE(t + k) is a linear function of PE(t), which is why the
paper expected the model to learn relative positions from it.
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.layers.checks import check_length


def sinusoidal_table(length, depth: int, start_index=0, max_wavelength: float = 10000.0, dtype="float32"):
    """Rows ``start_index .. start_index + length - 1`` of the encoding: ``(length, depth)``."""
    positions = ops.cast(ops.arange(length) + start_index, "float32")
    pair = ops.cast((ops.arange(depth) // 2) * 2, "float32") / float(depth)       # 2i / d
    angles = positions[:, None] / ops.power(float(max_wavelength), pair)[None, :]
    odd = ops.cast(ops.arange(depth) % 2, "float32")[None, :]
    return ops.cast(ops.sin(angles) * (1.0 - odd) + ops.cos(angles) * odd, dtype)


@keras.saving.register_keras_serializable(package="word2bert")
class SinusoidalPositionEncoding(keras.layers.Layer):
    """The fixed sine/cosine position encoding of the Transformer (no weights).

    Args:
        sequence_length: the longest sequence accepted.
        max_wavelength: the base of the geometric frequencies (10000 in the paper).
        **kwargs: the usual ``keras.layers.Layer`` arguments.

    Call arguments:
        inputs: float ``(batch, length, depth)`` (e.g. token embeddings); only its shape is used.
        start_index: position of the first row (int or int tensor; incremental decoding).
        mask: passed through unchanged.

    Returns:
        the encoding, ``inputs``'s shape and dtype: row t holds PE(start_index + t).

    Raises:
        ValueError: ``sequence_length`` < 1; an odd ``depth``; ``start_index + length > sequence_length`` (both named).

    Example:
        >>> pe = SinusoidalPositionEncoding(sequence_length=64)(ops.zeros((1, 10, 16)))
        >>> pe[0, 0]   # [0, 1, 0, 1, ...]

    Reference: Vaswani et al. (2017), section 3.5.
    """

    def __init__(self, sequence_length: int, max_wavelength: float = 10000.0, **kwargs):
        super().__init__(**kwargs)
        if sequence_length < 1:
            raise ValueError(f"sequence_length must be >= 1, got {sequence_length}")
        self.sequence_length, self.max_wavelength = int(sequence_length), float(max_wavelength)
        self.supports_masking = True

    def call(self, inputs, start_index=0):
        length, depth = inputs.shape[1], inputs.shape[-1]
        if depth % 2:
            raise ValueError(f"the sinusoidal encoding needs an even depth, got {depth}")
        check_length(length, self.sequence_length, start_index)
        length = ops.shape(inputs)[1] if length is None else length
        table = sinusoidal_table(length, depth, start_index, self.max_wavelength, self.compute_dtype)
        return ops.broadcast_to(table[None], ops.shape(inputs))

    def compute_mask(self, inputs, mask=None):
        return mask

    def get_config(self):
        config = super().get_config()
        config.update({"sequence_length": self.sequence_length, "max_wavelength": self.max_wavelength})
        return config
