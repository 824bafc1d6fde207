"""The Transformer's encoder block: self-attention and a feed-forward network, each wrapped in a
residual connection and layer normalisation (Vaswani et al. 2017, section 3.1).

Post-LN (the paper, BERT):  x = LN(x + Dropout(Sublayer(x)))
Pre-LN (GPT-2; Xiong et al. 2020, trains without warm-up more easily):  x = x + Dropout(Sublayer(LN(x)));
a pre-LN stack needs one more LayerNorm after its last block (the models add it).
The feed-forward network is ``FFN(x) = act(x W_1 + b_1) W_2 + b_2`` (eq. 2; ReLU in the paper, GELU in BERT).
"""
from __future__ import annotations

import keras

from word2bert.layers.activations import get_activation
from word2bert.layers.checks import check_model_dims
from word2bert.layers.initializers import fresh_copy
from word2bert.layers.multi_head_attention import MultiHeadAttention


class _Sublayers(keras.layers.Layer):
    """What both blocks share: the FFN, dropout and the residual + LayerNorm wrapping."""

    def __init__(self, intermediate_dim: int, num_heads: int, dropout: float = 0.1, activation: str = "relu",
                 normalize_first: bool = False, layer_norm_epsilon: float = 1e-5,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", **kwargs):
        super().__init__(**kwargs)
        if intermediate_dim < 1:
            raise ValueError(f"intermediate_dim must be >= 1, got {intermediate_dim}")
        if not 0 <= dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.intermediate_dim, self.num_heads = int(intermediate_dim), int(num_heads)
        self.dropout, self.activation = float(dropout), activation
        self.normalize_first, self.layer_norm_epsilon = bool(normalize_first), float(layer_norm_epsilon)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.supports_masking = True

    def _initializers(self):
        """A fresh copy of each initializer, for one sublayer."""
        return {"kernel_initializer": fresh_copy(self.kernel_initializer),
                "bias_initializer": fresh_copy(self.bias_initializer)}

    def _norm(self, name):
        return keras.layers.LayerNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=name)

    def _attention(self, hidden_dim, name):
        return MultiHeadAttention(self.num_heads, check_model_dims(hidden_dim, self.num_heads), dropout=self.dropout,
                                  dtype=self.dtype_policy, name=name, **self._initializers())

    def _build_ffn(self, input_shape):
        hidden_dim = input_shape[-1]
        self.ffn_norm = self._norm("feedforward_norm")
        self.ffn_norm.build(input_shape)
        self.ffn_inner = keras.layers.Dense(self.intermediate_dim, activation=get_activation(self.activation),
                                            dtype=self.dtype_policy, name="feedforward_inner", **self._initializers())
        self.ffn_inner.build(input_shape)
        self.ffn_outer = keras.layers.Dense(hidden_dim, dtype=self.dtype_policy, name="feedforward_outer",
                                            **self._initializers())
        self.ffn_outer.build((*input_shape[:-1], self.intermediate_dim))
        self.dropout_layer = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy, name="dropout")

    def _residual(self, x, norm, sublayer, training):
        """``LN(x + Dropout(f(x)))`` (post-LN) or ``x + Dropout(f(LN(x)))`` (pre-LN); f may return extras."""
        out = sublayer(norm(x) if self.normalize_first else x)
        y, extras = (out[0], out[1:]) if isinstance(out, tuple) else (out, ())
        y = x + self.dropout_layer(y, training=training)
        return (y if self.normalize_first else norm(y)), extras

    def _ffn(self, x):
        return self.ffn_outer(self.ffn_inner(x))

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape, *args, **kwargs):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"intermediate_dim": self.intermediate_dim, "num_heads": self.num_heads,
                       "dropout": self.dropout, "activation": self.activation,
                       "normalize_first": self.normalize_first, "layer_norm_epsilon": self.layer_norm_epsilon,
                       "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
                       "bias_initializer": keras.initializers.serialize(self.bias_initializer)})
        return config


@keras.saving.register_keras_serializable(package="word2bert")
class TransformerEncoder(_Sublayers):
    """One encoder layer: multi-head self-attention, then the position-wise FFN.

    Args:
        intermediate_dim: d_ff, the FFN's hidden size (2048 in the paper's base model).
        num_heads: h; must divide hidden_dim (the input's feature size).
        dropout: on the attention weights and on each sublayer's output (0.1 in the paper).
        activation: the FFN's (``"relu"``; BERT: ``"gelu"``, the exact erf form; ``"gelu_approximate"``: the tanh
            form keras-hub's BERT uses; see ``word2bert.layers.activations``). A name is saved in the config.
        normalize_first: pre-LN instead of the paper's post-LN.
        layer_norm_epsilon: 1e-5 as keras-hub (BERT: 1e-12).
        kernel_initializer, bias_initializer: of every kernel and bias of the attention and the FFN (each
            weight gets its own copy); ``"glorot_uniform"`` / ``"zeros"`` as keras-hub (BERT: a truncated
            normal with stddev 0.02). The LayerNorms keep ones and zeros.
        **kwargs: the usual ``keras.layers.Layer`` arguments.

    Call arguments:
        inputs: float ``(batch, length, hidden_dim)``.
        mask: optional bool ``(batch, length)``, False = padding (taken from ``inputs``'s Keras mask):
            padded positions are never attended to. Passed on unchanged.
        attention_mask: optional bool ``(batch, length, length)``; True = attend.
        return_attention_scores: also return the weights ``(batch, heads, length, length)``.
        training: dropout on or off.

    Returns:
        float ``(batch, length, hidden_dim)`` (and the weights).

    Raises:
        ValueError: ``num_heads`` does not divide hidden_dim; ``intermediate_dim`` < 1; dropout outside [0, 1).

    Example:
        >>> block = TransformerEncoder(intermediate_dim=64, num_heads=4)
        >>> block(ops.ones((2, 5, 32))).shape   # (2, 5, 32)

    Reference: Vaswani et al. (2017), section 3.1 and eq. 2. Computes what keras-hub's
    ``TransformerEncoder`` computes (tested with copied weights).

    Differs from keras-hub's ``TransformerEncoder`` (same arguments otherwise): ``dropout`` defaults to the
    paper's 0.1 (keras-hub: 0), the padding mask is the Keras mask or ``mask`` (keras-hub: ``padding_mask``),
    and ``return_attention_scores`` is offered on the call.
    """

    def build(self, input_shape):
        hidden_dim = input_shape[-1]
        self.self_attention = self._attention(hidden_dim, "self_attention")
        self.self_attention.build(input_shape, input_shape)
        self.self_attention_norm = self._norm("self_attention_norm")
        self.self_attention_norm.build(input_shape)
        self._build_ffn(input_shape)
        self.built = True

    def call(self, inputs, mask=None, attention_mask=None, return_attention_scores=False, training=None):
        def attend(x):
            return self.self_attention(x, x, query_mask=mask, value_mask=mask, attention_mask=attention_mask,
                                       return_attention_scores=return_attention_scores, training=training)

        x, extras = self._residual(inputs, self.self_attention_norm, attend, training)
        x, _ = self._residual(x, self.ffn_norm, self._ffn, training)
        return (x, extras[0]) if return_attention_scores else x
