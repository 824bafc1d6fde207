"""Learned absolute position embeddings: one trained vector per position (BERT, GPT; Gehring et al. 2017).

The alternative to the fixed sinusoids of ``SinusoidalPositionEncoding``: a ``(sequence_length, depth)``
table trained with the model. It cannot say anything about positions beyond ``sequence_length``.
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.layers.checks import check_length


@keras.saving.register_keras_serializable(package="word2bert")
class PositionEmbedding(keras.layers.Layer):
    """A trained embedding of each position 0 .. sequence_length - 1.

    Args:
        sequence_length: number of positions.
        initializer: of the table (default ``glorot_uniform``, as keras-hub's ``PositionEmbedding``).
        **kwargs: the usual ``keras.layers.Layer`` arguments.

    Call arguments:
        inputs: float ``(batch, length, depth)``; only its shape is used.
        start_index: position of the first row (int or int tensor).
        mask: passed through unchanged.

    Returns:
        ``inputs``'s shape: row t holds the embedding of position ``start_index + t``.

    Raises:
        ValueError: ``sequence_length`` < 1; ``start_index + length > sequence_length`` (both named).

    Example:
        >>> PositionEmbedding(sequence_length=64)(ops.zeros((2, 10, 16))).shape   # (2, 10, 16)

    Reference: Devlin et al. (2019), section 3 ("learned positional embeddings"); Gehring et al. (2017).

    Differs from keras-hub's ``PositionEmbedding`` (same arguments): ``start_index + length`` past
    ``sequence_length`` raises ``ValueError`` naming both.
    """

    def __init__(self, sequence_length: int, initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        if sequence_length < 1:
            raise ValueError(f"sequence_length must be >= 1, got {sequence_length}")
        self.sequence_length = int(sequence_length)
        self.initializer = keras.initializers.get(initializer)
        self.supports_masking = True

    def build(self, input_shape):
        self.embeddings = self.add_weight(name="embeddings", shape=(self.sequence_length, input_shape[-1]),
                                          initializer=self.initializer)
        self.built = True

    def call(self, inputs, start_index=0):
        length = inputs.shape[1]
        check_length(length, self.sequence_length, start_index)
        length = ops.shape(inputs)[1] if length is None else length
        table = ops.convert_to_tensor(self.embeddings)
        rows = ops.slice(table, (start_index, 0), (length, ops.shape(table)[1]))
        return ops.broadcast_to(ops.cast(rows, self.compute_dtype)[None], ops.shape(inputs))

    def compute_mask(self, inputs, mask=None):
        return mask

    def get_config(self):
        config = super().get_config()
        config.update({"sequence_length": self.sequence_length, "initializer": keras.initializers.serialize(self.initializer)})
        return config
