"""Batching for ``fit`` and ``predict``: examples of similar length batched together (``LengthBatches``)."""
from word2bert.preprocessing.batching import LengthBatches

__all__ = ["LengthBatches"]
