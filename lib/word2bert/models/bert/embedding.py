"""BERT's input representation: the sum of a token, a segment and a learned position embedding,
then LayerNorm and dropout (Devlin et al. 2019, section 3.2 and figure 2):

    E(x_t) = LayerNorm(E_token[x_t] + E_segment[s_t] + E_position[t])

The token and position parts are the shared ``word2bert.layers.TokenAndPositionEmbedding`` (learned
positions, no sqrt(d) scaling); BERT adds the segment table, the LayerNorm and dropout.
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.layers import ReversibleEmbedding, TokenAndPositionEmbedding
from word2bert.layers.checks import check_ids, check_length
from word2bert.layers.initializers import fresh_copy


def bert_initializer():
    """BERT's initializer of its tables and kernels: a normal truncated at 2 sigma, sigma = 0.02
    (google-research/bert ``initializer_range``). ``BertBackbone`` gives it to the embedding tables, every
    kernel of the encoder blocks (attention and FFN) and the pooler; biases start at zero, LayerNorms at
    ones and zeros."""
    return keras.initializers.TruncatedNormal(stddev=0.02)


@keras.saving.register_keras_serializable(package="word2bert")
class BertEmbedding(keras.layers.Layer):
    """Token + segment + learned position embeddings, summed, layer-normalised, dropped out.

    Args:
        vocabulary_size: token ids 0 .. vocabulary_size - 1; id 0 is ``[PAD]``.
        hidden_dim: H, the output size.
        max_sequence_length: positions of the learned table (512 in BERT).
        num_segments: segment ids 0 .. num_segments - 1 (2: sentence A, sentence B).
        dropout: on the normalised sum (0.1).
        layer_norm_epsilon: 1e-12 as BERT.
        embeddings_initializer: of the three tables (default: truncated normal, stddev 0.02).
        **kwargs: the usual ``keras.layers.Layer`` arguments.

    Call arguments:
        token_ids: int ``(batch, L)``, 0 = padding.
        segment_ids: int ``(batch, L)`` in ``0 .. num_segments - 1``; default all 0.
        Token and segment ids are range-checked when concrete (eager calls); inside a compiled graph (``fit``,
        ``predict``, ``jax.jit``) they are not, and an id out of range there reads a wrapped row (negative ids)
        or NaN (JAX, ids past the end).
        training: dropout on or off.

    Returns:
        float ``(batch, L, hidden_dim)``, carrying the padding mask ``token_ids != 0`` ``(batch, L)``.

    Raises:
        ValueError: a size < 1; dropout outside [0, 1); float token ids; ``L > max_sequence_length`` (both named);
            ``segment_ids`` of another shape than ``token_ids``; concrete token ids outside ``0 .. vocabulary_size - 1``
            or segment ids outside ``0 .. num_segments - 1`` (the message names the argument and the id).

    Example:
        >>> emb = BertEmbedding(vocabulary_size=100, hidden_dim=16, max_sequence_length=32)
        >>> emb(np.array([[2, 7, 3, 0]]), np.array([[0, 0, 0, 0]])).shape   # (1, 4, 16)

    Reference: Devlin et al. (2019), section 3.2 ("Input/Output Representations"), figure 2.
    """

    def __init__(self, vocabulary_size: int, hidden_dim: int, max_sequence_length: int = 512, num_segments: int = 2,
                 dropout: float = 0.1, layer_norm_epsilon: float = 1e-12, embeddings_initializer=None, **kwargs):
        super().__init__(**kwargs)
        if min(vocabulary_size, hidden_dim, max_sequence_length, num_segments) < 1:
            raise ValueError(f"vocabulary_size, hidden_dim, max_sequence_length and num_segments must be >= 1, got {vocabulary_size}, "
                             f"{hidden_dim}, {max_sequence_length}, {num_segments}")
        if not 0 <= dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.vocabulary_size, self.hidden_dim, self.max_sequence_length = int(vocabulary_size), int(hidden_dim), int(max_sequence_length)
        self.num_segments, self.dropout = int(num_segments), float(dropout)
        self.layer_norm_epsilon = float(layer_norm_epsilon)
        self.embeddings_initializer = keras.initializers.get(embeddings_initializer or bert_initializer())
        init = self.embeddings_initializer
        self.token_and_position = TokenAndPositionEmbedding(
            vocabulary_size, max_sequence_length, hidden_dim, position="learned", scale_embeddings=False,
            embeddings_initializer=fresh_copy(init), position_initializer=fresh_copy(init), dtype=self.dtype_policy,
            name="token_and_position")
        self.segment_embedding = keras.layers.Embedding(num_segments, hidden_dim,
                                                        embeddings_initializer=fresh_copy(init),
                                                        dtype=self.dtype_policy, name="segment_embedding")
        self.layer_norm = keras.layers.LayerNormalization(epsilon=layer_norm_epsilon, dtype=self.dtype_policy,
                                                          name="layer_norm")
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=self.dtype_policy, name="dropout")
        self.supports_masking = True

    @property
    def token_embedding(self) -> ReversibleEmbedding:
        """The token table ``(vocabulary_size, hidden_dim)``, the matrix a tied masked-LM head reuses."""
        return self.token_and_position.token_embedding

    @property
    def position_embedding(self):
        """The learned position table's layer (``embeddings`` ``(max_sequence_length, hidden_dim)``)."""
        return self.token_and_position.position_encoding

    def build(self, token_ids_shape, segment_ids_shape=None):
        self.token_and_position.build(token_ids_shape)
        self.segment_embedding.build(token_ids_shape)
        self.layer_norm.build((*token_ids_shape, self.hidden_dim))
        self.built = True

    def call(self, token_ids, segment_ids=None, training=None):
        dtype = keras.backend.standardize_dtype(token_ids.dtype)
        if "int" not in dtype:
            raise ValueError(f"token_ids must be integers, got dtype {dtype}")
        if len(token_ids.shape) != 2:
            raise ValueError(f"token_ids must have rank 2 (batch, L), got shape {tuple(token_ids.shape)}")
        check_length(token_ids.shape[1], self.max_sequence_length, what="token_ids sequence")
        if segment_ids is None:
            segment_ids = ops.zeros_like(token_ids)
        elif tuple(segment_ids.shape) != tuple(token_ids.shape):
            raise ValueError(f"segment_ids must have the shape of token_ids {tuple(token_ids.shape)}, got "
                             f"{tuple(segment_ids.shape)}")
        else:
            check_ids(segment_ids, self.num_segments, "segment_ids",
                      "0 marks the first sentence and 1 the second (WordPieceTokenizer.encode_pair builds them)")
        x = self.token_and_position(token_ids) + self.segment_embedding(segment_ids)
        return self.dropout_layer(self.layer_norm(x), training=training)

    def compute_mask(self, token_ids, mask=None):
        return ops.not_equal(token_ids, 0)

    def compute_output_shape(self, token_ids_shape, segment_ids_shape=None):
        return (*token_ids_shape, self.hidden_dim)

    def get_config(self):
        config = super().get_config()
        config.update({"vocabulary_size": self.vocabulary_size, "hidden_dim": self.hidden_dim, "max_sequence_length": self.max_sequence_length,
                       "num_segments": self.num_segments, "dropout": self.dropout,
                       "layer_norm_epsilon": self.layer_norm_epsilon,
                       "embeddings_initializer": keras.initializers.serialize(self.embeddings_initializer)})
        return config
