"""A token embedding that is also the output layer: ids -> vectors, and vectors -> vocabulary logits
with the same matrix transposed (weight tying; Press & Wolf 2017; Vaswani et al. 2017, section 3.4;
BERT's masked-LM output, Devlin et al. 2019, appendix A).

    embed:   x_t = E[id_t]            E: (vocabulary_size, d)
    reverse: logits = h E^T           (batch, ..., d) -> (batch, ..., vocabulary_size)

One matrix learns from both ends: the input side updates the rows of the ids seen, the output side
(through the softmax) every row.
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.layers.checks import check_ids


@keras.saving.register_keras_serializable(package="word2bert")
class ReversibleEmbedding(keras.layers.Embedding):
    """``keras.layers.Embedding`` whose table also maps vectors back to logits (``reverse=True``).

    Args:
        input_dim, output_dim, embeddings_initializer, mask_zero, ...: as ``keras.layers.Embedding``
            (``input_dim`` = vocabulary_size, ``output_dim`` = the width).

    Call arguments:
        inputs: int ``(batch, ...)`` ids; or, with ``reverse=True``, float ``(batch, ..., output_dim)``.
        reverse: False (default) embeds ids; True returns the logits ``inputs E^T``.

    Returns:
        ``(batch, ..., output_dim)`` vectors in the compute dtype; with ``reverse``, float32
        ``(batch, ..., input_dim)`` logits (the matmul runs in the compute dtype, the result is cast up
        so that a softmax over a large vocabulary stays finite under mixed precision).

    Raises:
        ValueError: float ids without ``reverse``; concrete ids outside ``0 .. input_dim - 1`` (``keras.ops.take``
            would read row -1 as the last row, and NaN on JAX for an id past the end; inside a compiled graph,
            ``fit``/``predict``/``jax.jit``, ids are not checked); with ``reverse``, integer inputs or inputs whose
            last axis is not ``output_dim``.

    Example:
        >>> table = ReversibleEmbedding(1000, 64)
        >>> h = table(ids)                   # (batch, L, 64)
        >>> logits = table(h, reverse=True)  # (batch, L, 1000), float32

    Reference: Press & Wolf (2017), "Using the Output Embedding to Improve Language Models";
    keras-hub's ``ReversibleEmbedding`` offers the same interface (read, not copied).

    Differs from keras-hub's ``ReversibleEmbedding``: the table is always tied (no ``tie_weights``), the reverse
    logits are always float32 (keras-hub: ``reverse_dtype``), there is no ``logit_soft_cap``, and concrete ids
    outside the vocabulary raise ``ValueError``.
    """

    def __init__(self, input_dim: int, output_dim: int, **kwargs):
        super().__init__(input_dim, output_dim, **kwargs)
        self.supports_masking = True   # a tied output layer may receive the decoder's masked states

    def call(self, inputs, reverse: bool = False):
        dtype = keras.backend.standardize_dtype(inputs.dtype)
        if not reverse:
            if "int" not in dtype:
                raise ValueError(f"token ids must be integers, got dtype {dtype} (pass reverse=True for logits)")
            check_ids(inputs, self.input_dim, "token ids",
                      "encode text with the vocabulary the model was built with (unknown words map to its [UNK] id)")
            return super().call(inputs)
        if "float" not in dtype:
            raise ValueError(f"reverse=True takes float vectors, got dtype {dtype}")
        if inputs.shape[-1] is not None and inputs.shape[-1] != self.output_dim:
            raise ValueError(f"reverse=True needs vectors of width output_dim={self.output_dim}, got shape "
                             f"{tuple(inputs.shape)}")
        table = ops.cast(ops.convert_to_tensor(self.embeddings), inputs.dtype)
        return ops.cast(ops.matmul(inputs, ops.transpose(table)), "float32")

    def compute_mask(self, inputs, mask=None):
        if "float" in keras.backend.standardize_dtype(inputs.dtype):   # reverse: the logits keep no mask
            return None
        return super().compute_mask(inputs, mask)

    def compute_output_shape(self, input_shape, reverse: bool = False):
        if reverse:
            return (*tuple(input_shape)[:-1], self.input_dim)
        return super().compute_output_shape(input_shape)

    def compute_output_spec(self, inputs, reverse: bool = False):
        if reverse:
            return keras.KerasTensor(self.compute_output_shape(inputs.shape, reverse=True), dtype="float32")
        return super().compute_output_spec(inputs)
