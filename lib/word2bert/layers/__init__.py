"""Keras layers that several models share, one layer a file.

``Attention`` (dot, general, additive scores; chapters 05-06); the Transformer's pieces:
``scaled_dot_product_attention``, ``MultiHeadAttention``, ``SinusoidalPositionEncoding``,
``PositionEmbedding``, ``ReversibleEmbedding`` (the tied input/output table),
``TokenAndPositionEmbedding``, ``TransformerEncoder`` and ``TransformerDecoder``; ``ScalarMix`` (ELMo's learned mix of layers). The Transformer, BERT and GPT compose these same layers.
Helpers they share: ``masking`` (the fill value of a dtype, the masked softmax, merged and causal
masks), ``activations`` (GELU's exact and tanh forms by name), ``checks`` (argument checks) and ``initializers`` (``fresh_copy``).
"""
from word2bert.layers.activations import GELU_APPROXIMATE, gelu_approximate
from word2bert.layers.attention import SCORES, Attention
from word2bert.layers.masking import causal_mask, masked_softmax, merge_masks
from word2bert.layers.multi_head_attention import MultiHeadAttention
from word2bert.layers.position_embedding import PositionEmbedding
from word2bert.layers.position_encoding import SinusoidalPositionEncoding, sinusoidal_table
from word2bert.layers.reversible_embedding import ReversibleEmbedding
from word2bert.layers.scalar_mix import ScalarMix
from word2bert.layers.scaled_dot_product import scaled_dot_product_attention
from word2bert.layers.token_and_position_embedding import TokenAndPositionEmbedding
from word2bert.layers.transformer_decoder import TransformerDecoder
from word2bert.layers.transformer_encoder import TransformerEncoder

__all__ = ["Attention", "GELU_APPROXIMATE", "gelu_approximate", "MultiHeadAttention", "PositionEmbedding", "ReversibleEmbedding", "SCORES", "ScalarMix", "SinusoidalPositionEncoding",
           "TokenAndPositionEmbedding", "TransformerDecoder", "TransformerEncoder", "causal_mask",
           "masked_softmax", "merge_masks",
           "scaled_dot_product_attention", "sinusoidal_table"]
