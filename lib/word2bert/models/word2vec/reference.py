"""gensim's ``Word2Vec`` at our settings: the reference the word2vec chapters compare with.

The argument names differ between the two (``vector_size`` / ``embedding_dim``, ``alpha`` /
``learning_rate``, ``hs`` + ``negative`` / ``output``, ``sg`` / the architecture), and a
mismatch silently compares different models; this one function maps them.
"""
from __future__ import annotations

import time

from word2bert.utils.imports import require


def gensim_word2vec(sentences, architecture: str = "skipgram", output: str = "negative", embedding_dim: int = 100,
                    window_size: int = 5, min_count: int = 5, sample: float = 1e-3, num_negatives: int = 5,
                    epochs: int = 5, learning_rate: float = 0.025, min_learning_rate: float = 1e-4,
                    workers: int = 2, seed: int = 0):
    """Train gensim's ``Word2Vec`` with our argument names; return the model and its training seconds.

    Args:
        sentences: list of token lists (the same corpus our model sees).
        architecture: ``"skipgram"`` (gensim ``sg=1``) or ``"cbow"`` (``sg=0``, ``cbow_mean=1``:
            the context is averaged, as in our ``CBOW``).
        output: ``"negative"`` (``hs=0, negative=num_negatives``) or ``"hierarchical"``
            (``hs=1, negative=0``).
        embedding_dim, window_size, min_count, sample, epochs: gensim's ``vector_size``,
            ``window``, ``min_count``, ``sample``, ``epochs``.
        num_negatives: K.
        learning_rate, min_learning_rate: gensim's ``alpha`` and ``min_alpha`` (linear decay).
        workers: gensim's worker threads.
        seed: gensim's ``seed``.

    Returns:
        ``(model, seconds)``: the trained ``gensim.models.Word2Vec`` (vectors in ``model.wv``) and
        the wall seconds of ``train`` (vocabulary building excluded).

    Raises:
        ValueError: unknown ``architecture`` or ``output``.
        ImportError: gensim is not installed (``pip install gensim``).

    Reference: gensim 4 ``gensim.models.Word2Vec`` (Řehůřek & Sojka 2010).
    """
    if architecture not in ("skipgram", "cbow"):
        raise ValueError(f"architecture must be 'skipgram' or 'cbow', got {architecture!r}")
    if output not in ("negative", "hierarchical"):
        raise ValueError(f"output must be 'negative' or 'hierarchical', got {output!r}")
    Word2Vec = require("gensim.models", purpose="the gensim reference word2vec").Word2Vec

    model = Word2Vec(vector_size=embedding_dim, window=window_size, min_count=min_count, sample=sample,
                     sg=int(architecture == "skipgram"), cbow_mean=1, hs=int(output == "hierarchical"),
                     negative=num_negatives if output == "negative" else 0, alpha=learning_rate,
                     min_alpha=min_learning_rate, workers=workers, seed=seed)
    model.build_vocab(sentences)
    started = time.time()
    model.train(sentences, total_examples=len(sentences), epochs=epochs)
    return model, time.time() - started
