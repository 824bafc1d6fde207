"""Minimal pairs built by rule from real sentences: a grammatical sentence and a copy made ungrammatical by one
small edit, for testing what a language model knows about grammar without labels.

A model "knows" a phenomenon when it prefers the grammatical sentence of each pair (Warstadt et al. 2020, BLiMP,
built its pairs from templates; here they come from held-out verses of the World English Bible, edited by rule).
Three phenomena, one edit each, at the first place in a sentence where the rule applies:

* ``agreement`` (subject-verb agreement): a subject pronoun and the auxiliary right after it disagree in number:
  "he is" -> "he are", "they were" -> "they was", "she has" -> "she have", "we do" -> "we does";
* ``determiner_noun`` (a determiner-noun number clash): "these" / "those" / "many" before a word ending in "s"
  become "this" / "that" / "a" ("these things" -> "this things", "many days" -> "a days"), and "a" / "an" before a
  word not ending in "s" becomes "many" ("a man" -> "many man");
* ``word_order`` (swapped word order): "the" and the word after it change places ("the king said" -> "king the
  said").

The edits keep the number of words, so a sentence score that grows with length cannot decide a pair by length
alone (a piece count may still differ by one where the two forms split differently). The grammatical sentence is
always the original text, unchanged.
"""
from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

PHENOMENA = ("agreement", "determiner_noun", "word_order")

# subject pronoun -> {auxiliary that agrees with it: the one that does not}
_AGREEMENT = {
    **{p: {"is": "are", "was": "were", "has": "have", "does": "do"} for p in ("he", "she", "it")},
    **{p: {"are": "is", "were": "was", "have": "has", "do": "does"} for p in ("they", "we")},
}
_ASCII_WORD = r"[A-Za-z]+"


class MinimalPair(NamedTuple):
    """One pair: ``good`` (the original sentence), ``bad`` (the edited copy), the phenomenon, and ``index``: the
    position of the original sentence in the list it came from."""

    good: str
    bad: str
    phenomenon: str
    index: int


def _keep_case(template: str, word: str) -> str:
    return word.capitalize() if template[:1].isupper() else word


def _agreement(sentence: str) -> str | None:
    for m in re.finditer(rf"\b({_ASCII_WORD})\s+({_ASCII_WORD})\b", sentence):
        subject, verb = m.group(1), m.group(2)
        swap = _AGREEMENT.get(subject.lower(), {}).get(verb.lower())
        if swap:
            return sentence[:m.start(2)] + _keep_case(verb, swap) + sentence[m.end(2):]
    return None


def _determiner_noun(sentence: str) -> str | None:
    plural = re.search(r"\b(these|those|many|These|Those|Many)\s+([a-z]+s)\b", sentence)
    if plural and plural.group(2).endswith("ss"):
        plural = None
    single = re.search(r"\b(a|an|A|An)\s+([a-z]+)\b", sentence)
    if single and single.group(2).endswith("s"):
        single = None
    m = min((x for x in (plural, single) if x), key=lambda x: x.start(), default=None)
    if m is None:
        return None
    swap = {"these": "this", "those": "that", "many": "a", "a": "many", "an": "many"}[m.group(1).lower()]
    return sentence[:m.start(1)] + _keep_case(m.group(1), swap) + sentence[m.end(1):]


def _word_order(sentence: str) -> str | None:
    m = re.search(r"\b(the)\s+([a-z]+)\b", sentence)     # lower-case "the" inside the sentence, before a word
    if not m:
        return None
    return sentence[:m.start(1)] + m.group(2) + " " + m.group(1) + sentence[m.end(2):]


_RULES = {"agreement": _agreement, "determiner_noun": _determiner_noun, "word_order": _word_order}


def minimal_pairs(sentences, phenomenon: str, max_pairs: int | None = None, seed: int = 0) -> list[MinimalPair]:
    """The minimal pairs of one phenomenon that the sentences give (at most one per sentence).

    Args:
        sentences: a list of strings (e.g. held-out Bible verses).
        phenomenon: one of ``PHENOMENA``: ``"agreement"``, ``"determiner_noun"``, ``"word_order"``.
        max_pairs: keep at most this many, a random sample drawn with ``seed`` (None: all), in sentence order.
        seed: the sampling seed.

    Returns:
        list of ``MinimalPair(good, bad, phenomenon, index)`` in the order of ``sentences``; ``good`` is the
        sentence itself and ``bad`` differs from it in one edit (see the module's docstring).

    Raises:
        ValueError: an unknown phenomenon; ``sentences`` not a list of strings; ``max_pairs`` < 1.
    """
    if phenomenon not in _RULES:
        raise ValueError(f"unknown phenomenon {phenomenon!r}: use one of {', '.join(PHENOMENA)}")
    if isinstance(sentences, str) or not all(isinstance(s, str) for s in sentences):
        raise ValueError("sentences must be a list of strings")
    if max_pairs is not None and max_pairs < 1:
        raise ValueError(f"max_pairs must be >= 1 or None, got {max_pairs}")
    pairs = []
    for index, sentence in enumerate(sentences):
        bad = _RULES[phenomenon](sentence)
        if bad is not None and bad != sentence:
            pairs.append(MinimalPair(sentence, bad, phenomenon, index))
    if max_pairs is not None and len(pairs) > max_pairs:
        keep = np.sort(np.random.default_rng(seed).choice(len(pairs), max_pairs, replace=False))
        pairs = [pairs[i] for i in keep]
    return pairs
