"""Attention over a source sequence: score, softmax, weighted sum.

For one decoder state s (the *query*) and the encoder states h_1..h_S (the *values*):

    e_i     = score(s, h_i)                       (one number per source position)
    alpha_i = exp(e_i) / sum_j exp(e_j)           (softmax over the source positions)
    c       = sum_i alpha_i h_i                   (the context vector)

The decoder then combines c with s, e.g. ``tanh(W_c [c; s])`` (Luong et al. 2015, eq. 5).
Three score functions:

- ``dot``       e_i = s . h_i                              (Luong et al. 2015, eq. 8, "dot")
- ``general``   e_i = s . (W_a h_i)                        (Luong et al. 2015, eq. 8, "general")
- ``additive``  e_i = v_a . tanh(W_q s + W_k h_i)          (Bahdanau et al. 2015, appendix A.1.2)

Optionally (``scale=True``) the ``dot`` and ``general`` scores are divided by sqrt(d), d the
query size: the scaling of Vaswani et al. (2017), "Attention Is All You Need", section 3.2.1,
eq. 1. Unscaled, a dot product of d-dimensional states grows like sqrt(d), so the softmax starts
nearly one-hot and its gradients are small; scaling keeps the scores of order 1.

References: Bahdanau, Cho & Bengio (2015), "Neural Machine Translation by Jointly
Learning to Align and Translate"; Luong, Pham & Manning (2015), "Effective Approaches
to Attention-based Neural Machine Translation", section 3.1.
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.layers.masking import dtype_min

SCORES = ("dot", "general", "additive")


@keras.saving.register_keras_serializable(package="word2bert")
class Attention(keras.layers.Layer):
    """Attention of queries over values with a dot, general (Luong) or additive (Bahdanau) score.

    Names follow ``keras.layers.Attention`` / ``MultiHeadAttention``: ``query``, ``value``,
    ``query_mask``, ``value_mask`` (True = attend, as in Keras).

    Args:
        score: ``"dot"``, ``"general"`` or ``"additive"``.
        hidden_dim: size of the additive score's hidden layer (``W_q``, ``W_k``: ``d -> hidden_dim``);
            default: the value's feature size. Ignored by ``dot`` and ``general``.
        scale: divide the ``dot``/``general`` scores by ``sqrt(d_query)`` (Vaswani et al.
            2017, eq. 1). Default False: the published Luong definitions. Ignored by
            ``additive`` (its scores are already bounded by ``|v_a|_1``).
        **kwargs: the usual ``keras.layers.Layer`` arguments (name, dtype, ...).

    Call arguments:
        query: float, ``(batch, target_len, d_query)`` or ``(batch, d_query)`` (one step).
        value: float, ``(batch, source_len, d_value)``: the encoder states.
        value_mask: optional bool ``(batch, source_len)``; False marks padded source
            positions, which get weight exactly 0. When omitted, Keras passes the mask that
            ``value`` carries (e.g. from ``Embedding(mask_zero=True)``), if any.
        query_mask: optional bool ``(batch, target_len)``; False marks padded query
            positions, whose weights and context are all zero. When omitted, the mask that
            ``query`` carries, if any. That mask is also the mask of both outputs
            (``compute_mask``), so layers stacked on top see the padding.

    Returns:
        ``(context, weights)``: ``context`` ``(batch, target_len, d_value)`` and
        ``weights`` ``(batch, target_len, source_len)`` whose rows sum to 1 over the
        unmasked positions (without the ``target_len`` axis for a 2-D query). A row whose
        source positions are all masked gets all-zero weights and a zero context.

    Raises:
        ValueError: unknown ``score``; ``scale`` not a bool; ``dot`` with ``d_query != d_value``;
            wrong ranks; integer inputs; ``query`` and ``value`` with different batch sizes;
            a ``value_mask`` whose shape is not ``(batch, source_len)`` or a ``query_mask`` whose
            shape is not ``(batch, target_len)`` (checked where the
            shapes are known when the layer is called).

    Example:
        >>> attn = Attention("general")
        >>> context, weights = attn(ops.ones((2, 3, 8)), ops.ones((2, 5, 8)))
        >>> weights.shape   # (2, 3, 5)

    Reference: Luong et al. (2015) eq. 7-8; Bahdanau et al. (2015) eq. 5-6 and A.1.2.
    Masked scores are set to the smallest number of the compute dtype (never ``-1e9``,
    which overflows float16) before the softmax.
    """

    def __init__(self, score: str = "dot", hidden_dim: int | None = None, scale: bool = False, **kwargs):
        super().__init__(**kwargs)
        if score not in SCORES:
            raise ValueError(f"score must be one of {SCORES}, got {score!r}")
        if hidden_dim is not None and hidden_dim < 1:
            raise ValueError(f"hidden_dim must be >= 1, got {hidden_dim}")
        if not isinstance(scale, bool):
            raise ValueError(f"scale must be True or False, got {scale!r}")
        self.score = score
        self.hidden_dim = hidden_dim
        self.scale = scale
        self.supports_masking = True

    def build(self, query_shape, value_shape=None):
        if value_shape is None:
            raise ValueError("Attention needs both query and value")
        if len(value_shape) != 3:
            raise ValueError(f"value must have rank 3 (batch, source_len, d_value), got shape {value_shape}")
        if len(query_shape) not in (2, 3):
            raise ValueError(f"query must have rank 2 or 3, got shape {query_shape}")
        d_query, d_value = query_shape[-1], value_shape[-1]
        if self.score == "dot" and d_query != d_value:
            raise ValueError(f"the dot score needs d_query == d_value, got {d_query} and {d_value}")
        if self.score == "general":
            self.w_a = self.add_weight(name="w_a", shape=(d_value, d_query), initializer="glorot_uniform")
        elif self.score == "additive":
            hidden_dim = self.hidden_dim or d_value
            self.w_q = self.add_weight(name="w_q", shape=(d_query, hidden_dim), initializer="glorot_uniform")
            self.w_k = self.add_weight(name="w_k", shape=(d_value, hidden_dim), initializer="glorot_uniform")
            self.v_a = self.add_weight(name="v_a", shape=(hidden_dim,), initializer="glorot_uniform")
        self.built = True

    def scores(self, query, value):
        """Raw scores e: ``(batch, target_len, source_len)`` for a 3-D query."""
        if self.score in ("dot", "general"):
            keys = value if self.score == "dot" else ops.matmul(value, self.w_a)
            e = ops.einsum("btd,bsd->bts", query, keys)
            if self.scale:
                e = e / ops.sqrt(ops.cast(ops.shape(query)[-1], e.dtype))
            return e
        q = ops.matmul(query, self.w_q)[:, :, None, :]  # (b, t, 1, u)
        k = ops.matmul(value, self.w_k)[:, None, :, :]  # (b, 1, s, u)
        return ops.einsum("btsu,u->bts", ops.tanh(q + k), self.v_a)

    def call(self, query, value, value_mask=None, query_mask=None):
        _check_call_shapes(query, value, value_mask, query_mask)
        single_step = len(query.shape) == 2
        if single_step:
            query = query[:, None, :]
            if query_mask is not None:
                query_mask = ops.reshape(query_mask, (-1, 1))
        if value_mask is not None:  # zero the padded values: nothing there (not even a NaN) can leak in
            value = ops.where(ops.cast(value_mask, "bool")[:, :, None], value, ops.zeros_like(value))
        e = self.scores(query, value)
        if value_mask is not None:
            keep = ops.cast(value_mask, "bool")[:, None, :]
            lowest = ops.convert_to_tensor(dtype_min(e.dtype), dtype=e.dtype)
            e = ops.where(keep, e, lowest)
            weights = ops.where(keep, ops.softmax(e, axis=-1), ops.zeros_like(e))
        else:
            weights = ops.softmax(e, axis=-1)
        if query_mask is not None:  # a padded query position attends to nothing
            weights = ops.where(ops.cast(query_mask, "bool")[:, :, None], weights, ops.zeros_like(weights))
        context = ops.einsum("bts,bsd->btd", weights, ops.cast(value, weights.dtype))
        if single_step:
            return context[:, 0, :], weights[:, 0, :]
        return context, weights

    def compute_mask(self, query, previous_mask=None):
        # both outputs follow the query's positions: the query's mask passes on to each
        if isinstance(previous_mask, (list, tuple)):
            previous_mask = previous_mask[0] if previous_mask else None
        if previous_mask is None:
            return None
        return [previous_mask, previous_mask]

    def compute_output_shape(self, query_shape, value_shape):
        if len(query_shape) == 2:
            return (query_shape[0], value_shape[-1]), (query_shape[0], value_shape[1])
        return (*query_shape[:2], value_shape[-1]), (*query_shape[:2], value_shape[1])

    def get_config(self):
        config = super().get_config()
        config.update({"score": self.score, "hidden_dim": self.hidden_dim, "scale": self.scale})
        return config


def _check_call_shapes(query, value, value_mask, query_mask=None) -> None:
    for name, x in (("query", query), ("value", value)):
        dtype = keras.backend.standardize_dtype(x.dtype)
        if "float" not in dtype:
            raise ValueError(f"{name} must be a float tensor, got dtype {dtype}")
    qb, vb, source_len = query.shape[0], value.shape[0], value.shape[1]
    if qb is not None and vb is not None and qb != vb:
        raise ValueError(f"query and value must have the same batch size, got {qb} and {vb}")
    expected = {"value_mask": ("(batch, source_len)", (vb, source_len)),
                "query_mask": ("(batch, target_len)", (qb,) + ((query.shape[1],) if len(query.shape) == 3 else ()))}
    for name, mask in (("value_mask", value_mask), ("query_mask", query_mask)):
        mask_shape = getattr(mask, "shape", None)
        if mask_shape is None:
            continue
        mask_shape, (label, want) = tuple(mask_shape), expected[name]
        if name == "query_mask" and len(want) == 1:  # a one-step query: (batch,) or (batch, 1)
            ok = len(mask_shape) in (1, 2) and (len(mask_shape) == 1 or mask_shape[1] in (None, 1))
        else:
            ok = len(mask_shape) == len(want) and all(g is None or w is None or g == w for g, w in zip(mask_shape, want))
        if not ok:
            raise ValueError(f"{name} must have shape {label} = {want}, got {mask_shape}")
