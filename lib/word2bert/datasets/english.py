"""The English word corpus of the word-vector chapters: the Wikipedia sample, then PTB's training set.

Chapters 02-04 and ``benchmarks/word2vec.py`` train word vectors on one token stream: the 106
Wikipedia articles first (about 457k tokens), then Penn Treebank's training sentences (about
887k words), 1.34M tokens in all, lowercased. A smaller slice is the first sentences of that
stream up to a token budget.
"""
from __future__ import annotations

from word2bert.datasets.penn_treebank import ptb
from word2bert.datasets.wikipedia import wikipedia_sentences


def english_sentences(max_tokens: int | None = None, wikipedia: bool = True) -> list[list[str]]:
    """The Wikipedia sample's sentences followed by PTB's training sentences, up to ``max_tokens``.

    Args:
        max_tokens: stop after the first sentence that brings the total to at least this many
            tokens (None: the whole stream, 1,344,583 tokens in 66,408 sentences).
        wikipedia: start with the Wikipedia sample (parsing it takes about 10 s); False uses
            PTB alone.

    Returns:
        list of sentences, each a list of str tokens.

    Raises:
        ValueError: ``max_tokens`` < 1.
        CorpusNotFoundError: gensim (the Wikipedia sample) or treebank (PTB) is not installed.

    Sources and licenses: ``wikipedia_sentences`` (CC BY-SA 3.0) and ``ptb`` (LDC, research use).
    """
    if max_tokens is not None and max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1 (or None for everything), got {max_tokens}")
    stream = (wikipedia_sentences() if wikipedia else []) + ptb("train")
    if max_tokens is None:
        return stream
    out, n = [], 0
    for sentence in stream:
        if n >= max_tokens:
            break
        out.append(sentence)
        n += len(sentence)
    return out
