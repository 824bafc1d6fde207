"""Keras layers that several models share, one layer a file.

``Attention`` (dot, general, additive scores) now; multi-head attention, position encodings and
the Transformer's blocks join here, so that the Transformer, BERT and GPT compose the same code.
"""
from word2bert.layers.attention import SCORES, Attention

__all__ = ["Attention", "SCORES"]
