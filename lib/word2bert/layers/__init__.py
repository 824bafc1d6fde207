"""Keras layers that several models share, one layer a file.

``Attention`` (dot, general, additive scores; chapters 05-06); the Transformer's pieces:
``scaled_dot_product_attention``, ``MultiHeadAttention``, ``SinusoidalPositionEncoding``,
``PositionEmbedding``, ``TokenAndPositionEmbedding``, ``TransformerEncoderBlock`` and
``TransformerDecoderBlock``. The Transformer, BERT and GPT compose these same layers.
"""
from word2bert.layers.attention import SCORES, Attention
from word2bert.layers.multi_head_attention import MultiHeadAttention
from word2bert.layers.position_embedding import PositionEmbedding
from word2bert.layers.position_encoding import SinusoidalPositionEncoding, sinusoidal_table
from word2bert.layers.scaled_dot_product import masked_softmax, scaled_dot_product_attention
from word2bert.layers.token_and_position_embedding import TokenAndPositionEmbedding
from word2bert.layers.transformer_decoder import TransformerDecoderBlock
from word2bert.layers.transformer_encoder import TransformerEncoderBlock

__all__ = ["Attention", "MultiHeadAttention", "PositionEmbedding", "SCORES", "SinusoidalPositionEncoding",
           "TokenAndPositionEmbedding", "TransformerDecoderBlock", "TransformerEncoderBlock", "masked_softmax",
           "scaled_dot_product_attention", "sinusoidal_table"]
