"""The Transformer's decoder block: masked self-attention, encoder-decoder attention, FFN
(Vaswani et al. 2017, section 3.1), each with a residual connection and LayerNorm.

Masked self-attention lets position i see positions <= i only, so training on a whole target
sentence at once (teacher forcing) predicts each token from its past alone. In encoder-decoder
("cross") attention the queries come from the decoder and the keys and values are the encoder's
output, masked with the **source** padding mask. Without an encoder sequence (``encoder_sequence
=None``) the cross-attention sublayer is skipped: a decoder-only (GPT-style) block.

Incremental decoding: ``self_attention_cache`` ``(keys, values)``, each ``(batch, max_length, heads,
key_dim)``, and ``cache_index`` t: the new position's keys and values are written at t and it
attends over slots 0..t; ``cross_attention_cache``: the encoder's keys and values, projected once
(``cross_attention.project_key_value``).
"""
from __future__ import annotations

import keras

from word2bert.layers.transformer_encoder import _Sublayers


@keras.saving.register_keras_serializable(package="word2bert")
class TransformerDecoder(_Sublayers):
    """One decoder layer: causal self-attention, cross-attention over the encoder output, FFN.

    Args:
        intermediate_dim, num_heads, dropout, activation, normalize_first, layer_norm_epsilon: as
            ``TransformerEncoder``.
        cross_attention: build the encoder-decoder attention sublayer (False: decoder-only).
        **kwargs: the usual ``keras.layers.Layer`` arguments.

    Call arguments:
        decoder_sequence: float ``(batch, T, hidden_dim)``.
        encoder_sequence: float ``(batch, S, hidden_dim)`` or None (decoder-only, or with a cross cache).
        decoder_sequence_mask: bool ``(batch, T)``, False = target padding (default: its Keras mask).
        encoder_sequence_mask: bool ``(batch, S)``, False = source padding (default: its Keras mask):
            padded source positions get weight exactly 0.
        use_causal_mask: True (the decoder's masking); False only for experiments.
        self_attention_cache, cache_index: see the module docstring; the updated cache is returned.
        cross_attention_cache: precomputed ``(keys, values)`` of the encoder output.
        return_attention_scores: also return ``{"self": (batch, heads, T, T), "cross": (batch, heads, T, S)}``.
        training: dropout on or off.

    Returns:
        float ``(batch, T, hidden_dim)``; ``(output, scores)`` with ``return_attention_scores``;
        ``(output, new_self_attention_cache)`` with ``cache_index``.

    Raises:
        ValueError: as ``TransformerEncoder``; a block with cross-attention called without
            ``encoder_sequence`` or ``cross_attention_cache``; a block without cross-attention given either;
            ``self_attention_cache`` without ``cache_index`` or the reverse; scores and a cache asked together.

    Example:
        >>> block = TransformerDecoder(intermediate_dim=64, num_heads=4)
        >>> block(ops.ones((2, 5, 32)), ops.ones((2, 7, 32))).shape   # (2, 5, 32)

    Reference: Vaswani et al. (2017), section 3.1 and 3.2.3.

    Differs from keras-hub's ``TransformerDecoder``: cross-attention is chosen at construction
    (``cross_attention``; keras-hub builds it when the first call passes ``encoder_sequence``), ``dropout``
    defaults to 0.1 (keras-hub: 0), and a cached call takes ``cache_index`` and returns only the updated
    self-attention cache (keras-hub: ``self_attention_cache_update_index``, and both caches returned).
    """

    def __init__(self, intermediate_dim: int, num_heads: int, cross_attention: bool = True, **kwargs):
        super().__init__(intermediate_dim, num_heads, **kwargs)
        self.cross_attention = bool(cross_attention)

    def build(self, decoder_sequence_shape, encoder_sequence_shape=None):
        hidden_dim = decoder_sequence_shape[-1]
        self.self_attention = self._attention(hidden_dim, "self_attention")
        self.self_attention.build(decoder_sequence_shape, decoder_sequence_shape)
        self.self_attention_norm = self._norm("self_attention_norm")
        self.self_attention_norm.build(decoder_sequence_shape)
        if self.cross_attention:
            encoder_shape = encoder_sequence_shape or decoder_sequence_shape
            self.cross_attention_layer = self._attention(hidden_dim, "cross_attention")
            self.cross_attention_layer.build(decoder_sequence_shape, encoder_shape)
            self.cross_attention_norm = self._norm("cross_attention_norm")
            self.cross_attention_norm.build(decoder_sequence_shape)
        self._build_ffn(decoder_sequence_shape)
        self.built = True

    def call(self, decoder_sequence, encoder_sequence=None, decoder_sequence_mask=None, encoder_sequence_mask=None,
             use_causal_mask=True, self_attention_cache=None, cache_index=None, cross_attention_cache=None,
             return_attention_scores=False, training=None):
        if return_attention_scores and cache_index is not None:
            raise ValueError("ask for attention scores or pass a cache, not both")
        if self.cross_attention and encoder_sequence is None and cross_attention_cache is None:
            raise ValueError("this block has cross-attention: pass encoder_sequence or cross_attention_cache")
        if not self.cross_attention and (encoder_sequence is not None or cross_attention_cache is not None):
            raise ValueError("this block was built with cross_attention=False (decoder-only): it takes no "
                             "encoder_sequence and no cross_attention_cache")
        if (self_attention_cache is None) != (cache_index is None):
            raise ValueError("self_attention_cache and cache_index go together: pass both (incremental decoding) "
                             "or neither")
        mask = decoder_sequence_mask
        scores = {}

        def attend_self(x):
            if cache_index is not None:
                return self.self_attention(x, query_mask=mask, cache=self_attention_cache, cache_index=cache_index,
                                           training=training)
            return self.self_attention(x, x, query_mask=mask, value_mask=mask, use_causal_mask=use_causal_mask,
                                       return_attention_scores=return_attention_scores, training=training)

        x, extras = self._residual(decoder_sequence, self.self_attention_norm, attend_self, training)
        if return_attention_scores:
            scores["self"] = extras[0]
        new_cache = extras[0] if cache_index is not None else None
        if self.cross_attention:
            def attend_source(x):
                return self.cross_attention_layer(x, encoder_sequence, query_mask=mask,
                                                  value_mask=encoder_sequence_mask, cache=cross_attention_cache,
                                                  return_attention_scores=return_attention_scores,
                                                  training=training)

            x, extras = self._residual(x, self.cross_attention_norm, attend_source, training)
            if return_attention_scores:
                scores["cross"] = extras[0]
        x, _ = self._residual(x, self.ffn_norm, self._ffn, training)
        if return_attention_scores:
            return x, scores
        return (x, new_cache) if cache_index is not None else x

    def compute_mask(self, decoder_sequence, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        return mask

    def get_config(self):
        config = super().get_config()
        config["cross_attention"] = self.cross_attention
        return config
