"""Token embedding plus position: the input layer of every Transformer.

    x_t = E[token_t] * scale + P(t)

with ``scale = sqrt(hidden_dim)`` in the paper (section 3.4, so that the embeddings, tied to the
output layer and initialised small, are not drowned by the unit-size sinusoids) and 1 in BERT.
"""
from __future__ import annotations

import math

import keras
from keras import ops

from word2bert.layers.checks import check_length
from word2bert.layers.initializers import fresh_copy
from word2bert.layers.position_embedding import PositionEmbedding
from word2bert.layers.position_encoding import SinusoidalPositionEncoding
from word2bert.layers.reversible_embedding import ReversibleEmbedding

POSITIONS = ("sinusoidal", "learned")


@keras.saving.register_keras_serializable(package="word2bert")
class TokenAndPositionEmbedding(keras.layers.Layer):
    """Token ids to vectors, plus a sinusoidal or learned position encoding; id 0 is padding.

    The token table is a ``ReversibleEmbedding`` (``self.token_embedding``): a tied output layer
    computes its logits with ``token_embedding(h, reverse=True)``.

    Args:
        vocabulary_size: number of token ids.
        sequence_length: the longest sequence accepted.
        embedding_dim: the width of each vector (the model's hidden_dim).
        position: ``"sinusoidal"`` (the Transformer paper) or ``"learned"`` (BERT, GPT).
        scale_embeddings: multiply token vectors by ``sqrt(embedding_dim)`` (the paper; default True).
        mask_zero: id 0 is padding: the output carries the mask ``ids != 0``.
        embeddings_initializer: of the token table (default: normal with stddev
            ``embedding_dim ** -0.5``, so that scaled embeddings have unit size).
        position_initializer: of the learned position table (default ``glorot_uniform``, as keras-hub;
            BERT: its truncated normal); ignored by the sinusoids.
        **kwargs: the usual ``keras.layers.Layer`` arguments.

    Call arguments:
        inputs: int ``(batch, length)`` token ids.
        start_index: position of the first column (incremental decoding).

    Returns:
        float ``(batch, length, embedding_dim)`` with the mask ``inputs != 0`` when ``mask_zero``.

    Raises:
        ValueError: unknown ``position``; sizes < 1; float ids; ``start_index + length > sequence_length``.

    Example:
        >>> emb = TokenAndPositionEmbedding(vocabulary_size=100, sequence_length=32, embedding_dim=16)
        >>> emb(np.array([[5, 7, 0]])).shape   # (1, 3, 16), mask [[True, True, False]]

    Reference: Vaswani et al. (2017), sections 3.4-3.5.

    Differs from keras-hub's ``TokenAndPositionEmbedding`` (same name, other defaults): positions are sinusoidal
    unless ``position="learned"`` (keras-hub: always learned), token vectors are scaled by ``sqrt(embedding_dim)``
    (keras-hub: not scaled) and id 0 is masked (keras-hub: ``mask_zero=False``); an input longer than
    ``sequence_length`` raises ``ValueError``.
    """

    def __init__(self, vocabulary_size: int, sequence_length: int, embedding_dim: int, position: str = "sinusoidal",
                 scale_embeddings: bool = True, mask_zero: bool = True, embeddings_initializer=None,
                 position_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        if position not in POSITIONS:
            raise ValueError(f"position must be one of {POSITIONS}, got {position!r}")
        if min(vocabulary_size, sequence_length, embedding_dim) < 1:
            raise ValueError(f"vocabulary_size, sequence_length and embedding_dim must be >= 1, got {vocabulary_size}, {sequence_length}, "
                             f"{embedding_dim}")
        self.vocabulary_size, self.sequence_length, self.embedding_dim = int(vocabulary_size), int(sequence_length), int(embedding_dim)
        self.position, self.scale_embeddings, self.mask_zero = position, bool(scale_embeddings), bool(mask_zero)
        init = embeddings_initializer or keras.initializers.RandomNormal(stddev=embedding_dim ** -0.5)
        self.embeddings_initializer = keras.initializers.get(init)
        self.position_initializer = keras.initializers.get(position_initializer)
        self.token_embedding = ReversibleEmbedding(vocabulary_size, embedding_dim,
                                                   embeddings_initializer=fresh_copy(self.embeddings_initializer),
                                                   dtype=self.dtype_policy, name="token_embedding")
        if position == "sinusoidal":
            self.position_encoding = SinusoidalPositionEncoding(sequence_length, dtype=self.dtype_policy,
                                                                name="position_encoding")
        else:
            self.position_encoding = PositionEmbedding(sequence_length, initializer=fresh_copy(self.position_initializer),
                                                       dtype=self.dtype_policy, name="position_encoding")
        self.supports_masking = True

    def build(self, input_shape):
        self.token_embedding.build(input_shape)
        self.position_encoding.build((*input_shape, self.embedding_dim))
        self.built = True

    def call(self, inputs, start_index=0):
        dtype = keras.backend.standardize_dtype(inputs.dtype)
        if "int" not in dtype:
            raise ValueError(f"token ids must be integers, got dtype {dtype}")
        check_length(inputs.shape[1], self.sequence_length, start_index)
        x = self.token_embedding(inputs)
        if self.scale_embeddings:
            x = x * ops.cast(math.sqrt(self.embedding_dim), x.dtype)
        return x + self.position_encoding(x, start_index=start_index)

    def compute_mask(self, inputs, mask=None):
        return ops.not_equal(inputs, 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape):
        return (*input_shape, self.embedding_dim)

    def get_config(self):
        config = super().get_config()
        config.update({"vocabulary_size": self.vocabulary_size, "sequence_length": self.sequence_length, "embedding_dim": self.embedding_dim,
                       "position": self.position, "scale_embeddings": self.scale_embeddings,
                       "mask_zero": self.mask_zero,
                       "embeddings_initializer": keras.initializers.serialize(self.embeddings_initializer),
                       "position_initializer": keras.initializers.serialize(self.position_initializer)})
        return config
