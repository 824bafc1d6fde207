"""Multi-head attention: h attention heads side by side, each in its own learned subspace.

Vaswani et al. (2017), section 3.2.2:

    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,   head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)

with ``W_i^Q, W_i^K: hidden_dim x d_k``, ``W_i^V: hidden_dim x d_v`` and ``W^O: h d_v x hidden_dim``. The
weights are stored as keras's ``MultiHeadAttention`` stores them (``(hidden_dim, heads, key_dim)``
for the three input projections, ``(heads, value_dim, hidden_dim)`` for the output), so weights copy
across one to one; the computation is ours (``scaled_dot_product_attention``).

Incremental decoding: with ``cache=(keys, values)`` ``(batch, max_length, heads, key_dim)`` and a
``cache_index``, the new positions' keys and values are written into the cache at ``cache_index``
and the query attends over the filled part (causally); with ``cache`` alone (no index), the cache
holds keys and values projected once (``project_key_value``), e.g. of the encoder output.
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops

from word2bert.layers.checks import concrete_value
from word2bert.layers.initializers import fresh_copy
from word2bert.layers.masking import causal_mask, merge_masks
from word2bert.layers.scaled_dot_product import scaled_dot_product_attention


@keras.saving.register_keras_serializable(package="word2bert")
class MultiHeadAttention(keras.layers.Layer):
    """Multi-head scaled dot-product attention, numerically equal to ``keras.layers.MultiHeadAttention``.

    Args:
        num_heads: h, number of heads.
        key_dim: size of each head's queries and keys (``hidden_dim / h`` in the paper).
        value_dim: size of each head's values (default ``key_dim``).
        dropout: dropout rate on the attention weights (training only).
        use_bias: biases on the four projections (keras's default, True).
        output_shape: size of the output features (default: the query's feature size).
        kernel_initializer, bias_initializer: as Keras; each of the four projections gets its own copy
            (one seeded initializer object would give W^Q, W^K and W^V the same values).
        seed: int seed of the attention dropout (as keras's ``seed``); None (default) draws one from
            Keras's global generator, so ``keras.utils.set_random_seed`` fixes it and every layer of a
            stack drops different weights.
        **kwargs: the usual ``keras.layers.Layer`` arguments.

    Call arguments:
        query: float ``(batch, Lq, d_query)``.
        value: float ``(batch, Lk, d_value)``; None only with a precomputed ``cache``.
        key: float ``(batch, Lk, d_key)``; default ``value``.
        query_mask, value_mask, key_mask: optional bool ``(batch, Lq)`` / ``(batch, Lk)``; False =
            padding. Taken from the inputs' Keras masks when omitted. True = attend, as in Keras.
        attention_mask: optional bool ``(batch, Lq, Lk)``; True = attend.
        use_causal_mask: query i attends to keys j <= i only (keras's lower triangle, also when
            ``Lq != Lk``).
        return_attention_scores: also return the weights ``(batch, heads, Lq, Lk)`` float32.
        training: dropout on or off.
        cache: ``(keys, values)`` projected tensors ``(batch, Lc, heads, key_dim/value_dim)``.
        cache_index: int scalar (Python or tensor). With it, ``query``'s Lq new positions are
            written into ``cache`` at ``cache_index .. cache_index + Lq - 1`` (from ``value``/``key``,
            default ``query``) and attend causally over cache slots ``<= cache_index + i`` (with or
            without ``use_causal_mask``: a cache is filled left to right); the updated cache is
            returned. ``value_mask``/``key_mask`` then cover the cache slots ``(batch, Lc)`` and
            ``attention_mask`` is ``(batch, Lq, Lc)``; they are combined with the causal mask.
            Without it, ``cache`` is used as the keys and values as is.

    Returns:
        ``output`` ``(batch, Lq, output_shape)``; then the weights if ``return_attention_scores``;
        then the updated cache if ``cache_index`` is given (a tuple when more than one).

    Raises:
        ValueError: ``num_heads``/``key_dim`` < 1, wrong ranks, batch sizes that differ, no ``value``
            and no ``cache``, a ``cache_index`` without a ``cache``, a mask whose static shape is not
            the one listed above, a cache that is not a ``(keys, values)`` pair of shape
            ``(batch, Lc, num_heads, key_dim / value_dim)``, or a concrete ``cache_index`` with
            ``cache_index < 0`` or ``cache_index + Lq > Lc``. A ``cache_index`` traced inside a compiled function
            is not checked (``ops.slice_update`` would clip it): ``IncrementalDecoding``'s step functions check it
            in Python before each compiled step.

    Example:
        >>> mha = MultiHeadAttention(num_heads=4, key_dim=8)
        >>> mha(ops.ones((2, 5, 32)), ops.ones((2, 7, 32))).shape   # (2, 5, 32)

    Reference: Vaswani et al. (2017), section 3.2.2. Differences from keras's layer: a query with
    no key to attend to gets zero weights (keras: uniform weights), and the softmax runs in float32.
    """

    def __init__(self, num_heads: int, key_dim: int, value_dim: int | None = None, dropout: float = 0.0,
                 use_bias: bool = True, output_shape: int | None = None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", seed: int | None = None, **kwargs):
        super().__init__(**kwargs)
        if num_heads < 1 or key_dim < 1 or (value_dim is not None and value_dim < 1):
            raise ValueError(f"num_heads, key_dim and value_dim must be >= 1, got {num_heads}, {key_dim}, {value_dim}")
        if not 0 <= dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.num_heads, self.key_dim = int(num_heads), int(key_dim)
        self.value_dim = int(value_dim) if value_dim is not None else self.key_dim
        self.dropout, self.use_bias = float(dropout), bool(use_bias)
        self.output_dim = output_shape
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.supports_masking = True
        self.seed = None if seed is None else int(seed)
        self.seed_generator = keras.random.SeedGenerator(self.seed) if dropout > 0 else None

    def _projection(self, name, d_in, heads_dim):
        kernel = self.add_weight(name=f"{name}_kernel", shape=(d_in, self.num_heads, heads_dim),
                                 initializer=fresh_copy(self.kernel_initializer))
        bias = self.add_weight(name=f"{name}_bias", shape=(self.num_heads, heads_dim),
                               initializer=fresh_copy(self.bias_initializer)) if self.use_bias else None
        return kernel, bias

    def build(self, query_shape, value_shape=None, key_shape=None):
        if len(query_shape) != 3:
            raise ValueError(f"query must have rank 3 (batch, Lq, d), got shape {query_shape}")
        value_shape = query_shape if value_shape is None else value_shape
        key_shape = value_shape if key_shape is None else key_shape
        for name, shape in (("value", value_shape), ("key", key_shape)):
            if len(shape) != 3:
                raise ValueError(f"{name} must have rank 3 (batch, Lk, d), got shape {shape}")
        self.wq, self.bq = self._projection("query", query_shape[-1], self.key_dim)
        self.wk, self.bk = self._projection("key", key_shape[-1], self.key_dim)
        self.wv, self.bv = self._projection("value", value_shape[-1], self.value_dim)
        out = self.output_dim or query_shape[-1]
        self.wo = self.add_weight(name="output_kernel", shape=(self.num_heads, self.value_dim, out),
                                  initializer=fresh_copy(self.kernel_initializer))
        self.bo = self.add_weight(name="output_bias", shape=(out,), initializer=fresh_copy(self.bias_initializer)) \
            if self.use_bias else None
        self.built = True

    @staticmethod
    def _project(x, kernel, bias):
        y = ops.einsum("bld,dhk->blhk", x, kernel)
        return y if bias is None else y + bias

    def project_key_value(self, value, key=None, value_mask=None):
        """Keys and values of ``value`` (and ``key``), projected once: ``(batch, Lk, heads, dim)`` each.

        Positions where ``value_mask`` is False are zeroed, so nothing there (not even a NaN) can reach
        an output. Use the pair as ``cache`` (without ``cache_index``), e.g. the encoder's keys and
        values in a decoder's cross-attention, computed once per source sentence.
        """
        key = value if key is None else key
        k = self._project(key, self.wk, self.bk)
        v = self._project(value, self.wv, self.bv)
        if value_mask is not None:
            keep = ops.cast(value_mask, "bool")[:, :, None, None]
            k, v = ops.where(keep, k, ops.zeros_like(k)), ops.where(keep, v, ops.zeros_like(v))
        return k, v

    def call(self, query, value=None, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, use_causal_mask=False, return_attention_scores=False, training=None,
             cache=None, cache_index=None):
        if value is None and cache is None:
            raise ValueError("MultiHeadAttention needs a value (or a precomputed cache)")
        if cache_index is not None and cache is None:
            raise ValueError("cache_index was given without a cache: pass cache=(keys, values) as well")
        if len(query.shape) != 3:
            raise ValueError(f"query must have rank 3 (batch, Lq, d), got shape {query.shape}")
        if cache is not None:
            self._check_cache(cache, query, cache_index)
        lk = cache[0].shape[1] if cache is not None else (value if key is None else key).shape[1]
        _check_mask_shapes(query.shape[0], query.shape[1], lk, query_mask=query_mask, value_mask=value_mask,
                           key_mask=key_mask, attention_mask=attention_mask)
        q = self._project(query, self.wq, self.bq)                              # (b, Lq, h, dk)
        if key_mask is not None:
            value_mask = key_mask if value_mask is None else ops.logical_and(ops.cast(value_mask, "bool"),
                                                                              ops.cast(key_mask, "bool"))
        offset = 0
        if cache is not None and cache_index is not None:                       # write, then attend causally
            source = query if value is None else value
            new_k, new_v = self.project_key_value(source, key)
            k = ops.slice_update(cache[0], (0, cache_index, 0, 0), ops.cast(new_k, cache[0].dtype))
            v = ops.slice_update(cache[1], (0, cache_index, 0, 0), ops.cast(new_v, cache[1].dtype))
            cache, offset, use_causal_mask = (k, v), cache_index, True
        elif cache is not None:
            k, v = cache
        else:
            if value.shape[0] is not None and query.shape[0] is not None and value.shape[0] != query.shape[0]:
                raise ValueError(f"query and value must have the same batch size, got {query.shape[0]} "
                                 f"and {value.shape[0]}")
            k, v = self.project_key_value(value, key, value_mask)
        causal = causal_mask(ops.shape(q)[1], ops.shape(k)[1], offset) if use_causal_mask else None
        mask = merge_masks(query_mask, value_mask, attention_mask, causal)
        heads = [ops.transpose(t, (0, 2, 1, 3)) for t in (q, k, v)]              # (b, h, L, d)
        out, weights = scaled_dot_product_attention(
            *heads, mask=None if mask is None else mask[:, None, :, :],
            dropout_rate=self.dropout, training=training, seed=self.seed_generator)
        output = ops.einsum("bhqd,hdo->bqo", out, self.wo)
        if self.bo is not None:
            output = output + self.bo
        extras = ((weights,) if return_attention_scores else ()) + ((cache,) if cache_index is not None else ())
        return (output, *extras) if extras else output

    def _check_cache(self, cache, query, cache_index) -> None:
        """ValueErrors for a cache that cannot serve this call: not a (keys, values) pair of rank-4 tensors, another
        batch size, head count or head size than the layer's, or (for a concrete ``cache_index``) too few slots."""
        if not isinstance(cache, (tuple, list)) or len(cache) != 2:
            raise ValueError(f"cache must be a pair (keys, values), got {type(cache).__name__}")
        keys, values = cache
        want = {"keys": (query.shape[0], None, self.num_heads, self.key_dim),
                "values": (query.shape[0], None, self.num_heads, self.value_dim)}
        for name, tensor in (("keys", keys), ("values", values)):
            shape = tuple(tensor.shape)
            if len(shape) != 4 or any(w is not None and g is not None and g != w for g, w in zip(shape, want[name])):
                raise ValueError(f"cache {name} must have shape (batch, cache length, num_heads, head size) = "
                                 f"{want[name]} for this layer and query, got {shape}; build the cache for this "
                                 f"model and batch (e.g. decoding_state(batch_size, max_length))")
        if keys.shape[1] is not None and values.shape[1] is not None and keys.shape[1] != values.shape[1]:
            raise ValueError(f"cache keys and values must have the same length, got {keys.shape[1]} and {values.shape[1]}")
        index = concrete_value(cache_index)
        length, steps = keys.shape[1], query.shape[1]
        if index is None or length is None or steps is None:
            return
        index = int(index)
        if index < 0 or index + steps > length:
            raise ValueError(f"cache_index {index} + {steps} new position(s) does not fit a cache of {length} slots "
                             f"(0 <= cache_index <= {length - steps}); build the cache with as many positions as "
                             f"will be decoded")

    def compute_mask(self, query, previous_mask=None):
        if isinstance(previous_mask, (list, tuple)):
            previous_mask = previous_mask[0] if previous_mask else None
        return previous_mask

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        return (*query_shape[:2], self.output_dim or query_shape[-1])

    def get_config(self):
        config = super().get_config()
        config.update({"num_heads": self.num_heads, "key_dim": self.key_dim, "value_dim": self.value_dim,
                       "dropout": self.dropout, "use_bias": self.use_bias, "output_shape": self.output_dim,
                       "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
                       "bias_initializer": keras.initializers.serialize(self.bias_initializer),
                       "seed": self.seed})
        return config


def _check_mask_shapes(batch, lq, lk, **masks) -> None:
    """A ValueError for a mask whose static shape cannot be ``(batch, Lq)`` / ``(batch, Lk)`` / ``(batch, Lq, Lk)``."""
    wants = {"query_mask": (batch, lq), "value_mask": (batch, lk), "key_mask": (batch, lk),
             "attention_mask": (batch, lq, lk)}
    for name, mask in masks.items():
        if mask is None:
            continue
        shape, want = tuple(mask.shape if hasattr(mask, "shape") else np.shape(mask)), wants[name]
        ok = len(shape) == len(want) and all(g is None or w is None or g == w or (i == 0 and g == 1)
                                             for i, (g, w) in enumerate(zip(shape, want)))
        if not ok:
            raise ValueError(f"{name} must have shape {want} (batch, query length Lq, key length Lk: the cache's "
                             f"length when a cache is given), got {shape}")
