"""Sentence-pair classification tasks built from the installed English Bibles (chapter 10, BERT fine-tuning).

Two tasks whose labels come from the verse numbering itself, with no annotation:

- ``paraphrase_pairs``: is ``b`` (King James Version) the same verse as ``a`` (World English Bible)?
  The negatives are the KJV's *neighbouring* verse of the same chapter: same story, same names, same
  style, so word overlap helps less than it would against a random verse.
- ``next_verse_pairs``: does ``b`` follow ``a`` in the WEB (verse v+1 of the same chapter), or is it
  another verse of that chapter? Both candidates share the chapter's vocabulary, so word overlap does
  not answer it; the order of events and the syntax of the continuation do.

Both are split by whole books with ``split_of_book`` (``BIBLE_SPLITS``: the translation chapters'
held-out books), so no book of one split appears in another. Source and license: the World English
Bible and the King James Version, public domain, Debian's ``sword-text-web`` and ``sword-text-kjv``
(see ``datasets/bible.py``); the pairs are computed in memory in about a second and nothing is written.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from word2bert.datasets.bible import SPLITS, bible, bible_pairs, split_of_book


class PairExample(NamedTuple):
    """One labelled sentence pair: texts ``a`` and ``b``, ``label`` 1 or 0, ``verse`` the anchor's (book, chapter, verse)."""

    a: str
    b: str
    label: int
    verse: tuple


def _check(split: str, seed) -> None:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: use one of {SPLITS}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise ValueError(f"seed must be an int, got {seed!r}")


def _labels(n: int, rng) -> np.ndarray:
    """A shuffled array of n labels, exactly half of them 1 (n even)."""
    return rng.permutation(np.arange(n) % 2)


@functools.lru_cache(maxsize=8)
def _paraphrase(split: str, seed: int) -> tuple:
    kjv = bible("eng_kjv")
    anchors = []
    for ref, pair in bible_pairs("eng_web", "eng_kjv", split, with_verses=True):
        book, chapter, verse = ref
        neighbours = [n for n in ((book, chapter, verse - 1), (book, chapter, verse + 1))
                      if n in kjv and kjv[n] != pair.target]  # repeated verses (Numbers 7) are no negative
        if neighbours:
            anchors.append((ref, pair, neighbours))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(anchors))[: len(anchors) // 2 * 2]
    labels = _labels(len(order), rng)
    picks = rng.integers(0, 2, size=len(order))
    out = []
    for i, label, pick in zip(order, labels, picks):
        ref, pair, neighbours = anchors[i]
        b = pair.target if label else kjv[neighbours[pick % len(neighbours)]]
        out.append(PairExample(pair.source, b, int(label), ref))
    return tuple(out)


def paraphrase_pairs(split: str = "train", seed: int = 0) -> list[PairExample]:
    """Paraphrase detection across translations: WEB verse ``a``, KJV verse ``b``, is it the same verse?

    Anchors: every verse of the split that both the World English Bible and the KJV have (non-empty)
    under the same (book, chapter, verse), whose word counts differ at most 2.5 times (``bible_pairs``'s
    rule: it drops the few numbers where the two versifications disagree), and that has a KJV neighbour
    (verse v-1 or v+1 of the same chapter). Each anchor appears once: ``a`` is its WEB text; with label 1
    ``b`` is the KJV text of the same verse, with label 0 the KJV text of a neighbour (v-1 or v+1, whichever
    exists; a seeded coin where both do; a neighbour whose KJV text is the same verse's, as in the repeated
    offerings of Numbers 7, is no negative and is not used): a hard negative from the same passage. Labels come from a
    shuffled half/half array, so the classes are exactly balanced (an odd anchor is dropped).

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"`` (whole books, ``BIBLE_SPLITS``).
        seed: seeds the order, the labels and the neighbour chosen (``numpy.random.default_rng``).

    Returns:
        list of ``PairExample(a, b, label, verse)`` in a seeded shuffled order (``[:n]`` is a random
        sample), ``verse`` the anchor's ``(book, chapter, verse)``. Sizes (counted, seed 0): train 28,184,
        valid 798, test 2,106 examples, half of them positive.

    Raises:
        ValueError: unknown split, or a seed that is not an int.
        CorpusNotFoundError: ``sword-text-web``, ``sword-text-kjv`` or pysword is missing (see ``bible``).

    Source and license: World English Bible and King James Version, public domain (Debian's SWORD modules).
    """
    _check(split, seed)
    return list(_paraphrase(split, int(seed)))


@functools.lru_cache(maxsize=8)
def _next_verse(split: str, seed: int) -> tuple:
    chapters: dict = {}
    for (book, chapter, verse), text in bible("eng_web").items():
        if split_of_book(book) == split:
            chapters.setdefault((book, chapter), {})[verse] = text
    anchors = []
    for (book, chapter), verses in chapters.items():
        if len(verses) < 3:
            continue
        for v in verses:
            if v + 1 not in verses:
                continue
            # negatives: not v, not v+1, nor a verse with the same text as either (Numbers 7 repeats its verses)
            others = [u for u in verses if u not in (v, v + 1) and verses[u] not in (verses[v], verses[v + 1])]
            if others:
                anchors.append(((book, chapter, v), verses, others))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(anchors))[: len(anchors) // 2 * 2]
    labels = _labels(len(order), rng)
    out = []
    for i, label in zip(order, labels):
        (book, chapter, v), verses, others = anchors[i]
        b = verses[v + 1] if label else verses[others[rng.integers(len(others))]]
        out.append(PairExample(verses[v], b, int(label), (book, chapter, v)))
    return tuple(out)


def next_verse_pairs(split: str = "train", seed: int = 0) -> list[PairExample]:
    """Next-verse prediction in the World English Bible: does ``b`` follow ``a`` in its chapter?

    Anchors: every verse v of the split's books whose chapter has at least 3 (non-empty) verses and a
    verse v+1. With label 1 ``b`` is verse v+1; with label 0 another verse of the same chapter, neither v
    nor v+1 and with a text different from both (Numbers 7 repeats verses word for word), drawn
    uniformly (seeded); an anchor with no such verse is not used. Both kinds of ``b`` share the chapter's names and vocabulary, so
    word overlap does not answer the task. Labels come from a shuffled half/half array, so the classes
    are exactly balanced (an odd anchor is dropped). The WEB's deuterocanonical books are included (all
    in train).

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"`` (whole books, ``BIBLE_SPLITS``).
        seed: seeds the order, the labels and the negatives (``numpy.random.default_rng``).

    Returns:
        list of ``PairExample(a, b, label, verse)`` in a seeded shuffled order, ``verse`` the anchor's
        ``(book, chapter, verse)`` (``b`` is verse ``verse[2] + 1`` exactly when ``label`` is 1). Sizes
        (counted, seed 0): train 33,286, valid 752, test 2,000 examples, half of them positive.

    Raises:
        ValueError: unknown split, or a seed that is not an int.
        CorpusNotFoundError: ``sword-text-web`` or pysword is missing (see ``bible``).

    Source and license: World English Bible (2015 edition), public domain (Debian's ``sword-text-web``).
    """
    _check(split, seed)
    return list(_next_verse(split, int(seed)))
