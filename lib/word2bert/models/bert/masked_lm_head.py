"""The masked-LM output layer: the final hidden vectors at the chosen positions, a dense + GELU +
LayerNorm transform, then a softmax layer over the vocabulary whose weights are the input token
embedding matrix, transposed, plus a bias of its own (Devlin et al. 2019, appendix A.1; the tie as
in Press & Wolf 2017 and Vaswani et al. 2017, section 3.4):

    logits_p = LayerNorm(gelu(h_{pos_p} W + b)) E^T + c
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.models.bert.embedding import bert_initializer
from word2bert.layers import ReversibleEmbedding
from word2bert.layers.initializers import fresh_copy


@keras.saving.register_keras_serializable(package="word2bert")
class MaskedLMHead(keras.layers.Layer):
    """Vocabulary logits at the masked positions, tied to the token embedding.

    Args:
        vocabulary_size: V, the number of logits per position.
        token_embedding: the backbone's token ``word2bert.layers.ReversibleEmbedding``: the logits are
            ``token_embedding(h, reverse=True)``, so the output matrix *is* its
            ``embeddings`` variable ``(V, H)`` (the same object, not a copy) and it is not part of this
            layer's config (the model that owns both passes it again when it is rebuilt). None: an output
            kernel ``(H, V)`` of this layer's own (untied).
        activation: of the transform (``"gelu"``).
        layer_norm_epsilon: of the transform's LayerNorm (1e-12 as BERT).
        kernel_initializer: of the transform (and the untied kernel); default truncated normal 0.02.
        **kwargs: the usual ``keras.layers.Layer`` arguments.

    Call arguments:
        inputs: float ``(batch, L, H)``, the encoder's sequence output.
        mask_positions: int ``(batch, P)``, positions in ``0 .. L - 1`` to predict (padded slots may
            point anywhere in that range, e.g. 0; their weight in the loss is 0). The range is not checked
            (inside a compiled step it cannot be): out-of-range positions raise on TensorFlow's CPU but are
            clamped on JAX.

    Returns:
        float32 logits ``(batch, P, V)``.

    Raises:
        ValueError: ``vocabulary_size`` < 1, or not the token embedding's ``input_dim``; a token embedding that is
            not a ``ReversibleEmbedding``; float positions;
            the embedding's width differs from ``H``.

    Example:
        >>> head = MaskedLMHead(backbone.vocabulary_size, token_embedding=backbone.token_embedding)
        >>> head(sequence_output, mask_positions).shape   # (batch, P, vocabulary_size)

    Reference: Devlin et al. (2019), section 3.1 (task 1) and google-research/bert ``get_masked_lm_output``.

    Differs from keras-hub's ``MaskedLMHead``: ``activation`` is the transform's (keras-hub calls that one
    ``intermediate_activation`` and uses ``activation`` on the output), the output is always float32 logits,
    and ``layer_norm_epsilon`` defaults to BERT's 1e-12 (keras-hub: 1e-5).
    """

    def __init__(self, vocabulary_size: int, token_embedding: ReversibleEmbedding | None = None, activation="gelu",
                 layer_norm_epsilon: float = 1e-12, kernel_initializer=None, **kwargs):
        super().__init__(**kwargs)
        if vocabulary_size < 1:
            raise ValueError(f"vocabulary_size must be >= 1, got {vocabulary_size}")
        if token_embedding is not None and not isinstance(token_embedding, ReversibleEmbedding):
            raise ValueError(f"token_embedding must be a word2bert.layers.ReversibleEmbedding (the backbone's "
                             f"token_embedding), got {type(token_embedding).__name__}")
        if token_embedding is not None and token_embedding.input_dim != vocabulary_size:
            raise ValueError(f"vocabulary_size ({vocabulary_size}) must be the token embedding's input_dim "
                             f"({token_embedding.input_dim})")
        self.vocabulary_size, self.token_embedding = int(vocabulary_size), token_embedding
        self.activation, self.layer_norm_epsilon = activation, float(layer_norm_epsilon)
        self.kernel_initializer = keras.initializers.get(kernel_initializer or bert_initializer())

    def build(self, inputs_shape, mask_positions_shape=None):
        hidden = inputs_shape[-1]
        if self.token_embedding is not None and self.token_embedding.output_dim != hidden:
            raise ValueError(f"the token embedding is {self.token_embedding.output_dim} wide but the inputs are "
                             f"{hidden} wide")
        self.transform = keras.layers.Dense(hidden, activation=self.activation,
                                            kernel_initializer=fresh_copy(self.kernel_initializer),
                                            dtype=self.dtype_policy, name="transform")
        self.transform.build((None, None, hidden))
        self.transform_norm = keras.layers.LayerNormalization(epsilon=self.layer_norm_epsilon,
                                                              dtype=self.dtype_policy, name="transform_norm")
        self.transform_norm.build((None, None, hidden))
        self.output_kernel = None
        if self.token_embedding is None:
            self.output_kernel = self.add_weight(name="output_kernel", shape=(hidden, self.vocabulary_size),
                                                 initializer=fresh_copy(self.kernel_initializer))
        self.output_bias = self.add_weight(name="output_bias", shape=(self.vocabulary_size,), initializer="zeros")
        self.built = True

    @property
    def output_embeddings(self):
        """The output matrix ``(V, H)``: the token embedding's own variable when tied, else the kernel transposed."""
        if self.token_embedding is not None:
            return self.token_embedding.embeddings
        return ops.transpose(self.output_kernel)

    def call(self, inputs, mask_positions):
        dtype = keras.backend.standardize_dtype(mask_positions.dtype)
        if "int" not in dtype:
            raise ValueError(f"mask_positions must be integers, got dtype {dtype}")
        x = ops.take_along_axis(inputs, ops.cast(mask_positions, "int32")[:, :, None], axis=1)   # (batch, P, H)
        x = self.transform_norm(self.transform(x))
        if self.token_embedding is not None:
            logits = self.token_embedding(x, reverse=True)
        else:
            logits = ops.matmul(x, ops.cast(self.output_kernel, x.dtype))
        return ops.cast(logits, "float32") + ops.cast(self.output_bias, "float32")

    def compute_mask(self, inputs, mask=None):
        return None   # the sequence's padding mask does not apply to the gathered positions

    def compute_output_shape(self, inputs_shape, mask_positions_shape):
        return (*tuple(mask_positions_shape), self.vocabulary_size)

    def compute_output_spec(self, inputs, mask_positions):
        return keras.KerasTensor(self.compute_output_shape(inputs.shape, mask_positions.shape), dtype="float32")

    def get_config(self):
        config = super().get_config()
        activation = self.activation if isinstance(self.activation, str) else keras.activations.serialize(
            keras.activations.get(self.activation))
        config.update({"vocabulary_size": self.vocabulary_size, "activation": activation,
                       "layer_norm_epsilon": self.layer_norm_epsilon,
                       "kernel_initializer": keras.initializers.serialize(self.kernel_initializer)})
        return config
