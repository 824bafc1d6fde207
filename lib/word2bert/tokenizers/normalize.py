"""Normalisation and word splitting before subwords: BERT's "basic tokenizer", written out.

A subword tokenizer first cuts text into words, then each word into pieces. This module is the first
half, with the rules of tensorflow-text's ``BasicTokenizer`` (which follow BERT's ``BasicTokenizer``,
Devlin et al. 2019, ``tokenization.py``, except where noted):

1. with ``lowercase``: Unicode NFKC case folding (ICU's ``NFKC_Casefold``, as tensorflow-text's
   ``case_fold_utf8``), which also deletes invisible "default ignorable" characters (soft hyphen, zero-width
   space and joiners, variation selectors: "co\u00adoperate" -> "cooperate"); otherwise the text is put in
   Unicode normal form ``form`` (NFC by default, so that "naïve" typed as one code point or as ``i`` +
   combining diaeresis gives the same word);
2. the control and format characters left (Unicode categories Cc, Cf) become spaces, as in tensorflow-text
   (BERT's original code deletes them);
3. with ``strip_accents``: NFD, then every combining mark (category Mn) is dropped ("café" -> "cafe",
   and also Spanish "año" -> "ano");
4. the text is split at whitespace; every punctuation character (ASCII ``!``-``/``, ``:``-``@``,
   ``[``-`````, ``{``-``~`` and every Unicode category P*) and every CJK ideograph is a word of its own.

Special tokens listed in ``special_tokens`` (``[MASK]``) are kept whole and never lowercased.
"""
from __future__ import annotations

import collections
import functools
import re
import unicodedata

FORMS = ("NFC", "NFD", "NFKC", "NFKD")

# default ignorable code points that NFKC_Casefold deletes, besides the format characters (category Cf)
_IGNORABLE_RANGES = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xE0100, 0xE01EF))
_CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
               (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def is_punctuation(char: str) -> bool:
    """True for ASCII non-alphanumeric printable characters and every Unicode punctuation (P*) character.

    BERT's rule: ``$``, ``+``, ``^`` and `````` are not Unicode punctuation but are split off all the same.
    """
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def is_cjk(char: str) -> bool:
    """True for a CJK unified ideograph (split off one character at a time, as BERT does)."""
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _CJK_RANGES)


def _ignorable(char: str) -> bool:
    code = ord(char)
    return unicodedata.category(char) == "Cf" or any(lo <= code <= hi for lo, hi in _IGNORABLE_RANGES)


def normalize(text: str, lowercase: bool = True, strip_accents: bool | None = None, form: str = "NFC") -> str:
    """The text a subword tokenizer sees: case folding, Unicode normal form, accents, control characters.

    Args:
        text: any string.
        lowercase: case-fold (NFKC_Casefold: "Straße" -> "strasse", full-width letters to ASCII, invisible
            characters deleted).
        strip_accents: drop combining marks after NFD. ``None`` (the default) means "as ``lowercase``",
            BERT's uncased convention; pass ``False`` to lowercase and keep "ï" and "ñ".
        form: the Unicode normal form when not lowercasing: ``"NFC"`` (default), ``"NFD"``,
            ``"NFKC"``, ``"NFKD"`` or ``None`` (leave the text as typed).

    Returns:
        the normalised string (control and format characters replaced by spaces).

    Raises:
        TypeError: ``text`` is not a ``str`` (bytes must be decoded first).
        ValueError: unknown ``form``.
    """
    if not isinstance(text, str):
        raise TypeError(f"normalize expects a str, got {type(text).__name__}: decode bytes first")
    if form is not None and form not in FORMS:
        raise ValueError(f"unknown Unicode normal form {form!r}: use one of {FORMS} or None")
    if strip_accents is None:
        strip_accents = lowercase
    if lowercase:  # ICU's NFKC_Casefold: NFKC, full case folding, NFKC again, default ignorables deleted
        text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
        text = "".join(c for c in text if not _ignorable(c))
    elif form is not None:
        text = unicodedata.normalize(form, text)
    if strip_accents:
        text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    return "".join(" " if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)


def _split_word(word: str) -> list[str]:
    out, current = [], []
    for char in word:
        if is_punctuation(char) or is_cjk(char):
            if current:
                out.append("".join(current))
                current = []
            out.append(char)
        else:
            current.append(char)
    if current:
        out.append("".join(current))
    return out


@functools.lru_cache(maxsize=64)
def _specials_pattern(special_tokens: tuple):
    """One compiled pattern that captures any of ``special_tokens``, longest first (None when there are none);
    built once per set of specials: a vocabulary with a thousand reserved tokens would otherwise rebuild it for
    every text."""
    specials = sorted((s for s in special_tokens if s), key=len, reverse=True)
    return re.compile("(" + "|".join(map(re.escape, specials)) + ")") if specials else None


def pretokenize(text: str, lowercase: bool = True, strip_accents: bool | None = None, form: str = "NFC",
                special_tokens=()) -> list[str]:
    """Words of ``text`` as BERT's basic tokenizer cuts them (rules in the module docstring).

    >>> pretokenize("He said: \\"Naïve café!\\" [MASK]", special_tokens=["[MASK]"])
    ['he', 'said', ':', '"', 'naive', 'cafe', '!', '"', '[MASK]']

    Args:
        text: a string.
        lowercase, strip_accents, form: as ``normalize``.
        special_tokens: strings kept as one word each wherever they occur, never normalised.

    Returns:
        list of words (strings without whitespace); empty for blank text.

    Raises:
        TypeError, ValueError: as ``normalize``.
    """
    if not isinstance(text, str):
        raise TypeError(f"pretokenize expects a str, got {type(text).__name__}: decode bytes first")
    pattern = _specials_pattern(tuple(special_tokens))
    parts = pattern.split(text) if pattern else [text]
    words: list[str] = []
    for i, part in enumerate(parts):
        if i % 2:  # a special token, as written
            words.append(part)
            continue
        for word in normalize(part, lowercase, strip_accents, form).split():
            words.extend(_split_word(word))
    return words


def word_counts(texts, lowercase: bool = True, strip_accents: bool | None = None, form: str = "NFC",
                special_tokens=()) -> collections.Counter:
    """How often each word (``pretokenize``) occurs in ``texts``.

    Raises:
        TypeError: ``texts`` is a single string (pass a list of texts).
        ValueError: no words at all.
    """
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a list of strings, got a single string")
    counts: collections.Counter = collections.Counter()
    for text in texts:
        counts.update(pretokenize(text, lowercase, strip_accents, form, special_tokens))
    if not counts:
        raise ValueError("texts hold no words")
    return counts
