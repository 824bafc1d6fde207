"""The word tokenizer of the translation chapters: lowercase, words and single punctuation marks.

``tokenize`` splits on word characters (keeping inner ``'`` and ``-``, as in "don't" and
"e-mail") and makes every other non-space character a token; ``detokenize`` joins tokens back
into a string for BLEU, which sacrebleu tokenizes again its own way (Post 2018). Subword
tokenizers come in chapter 07.
"""
from __future__ import annotations

import re

from word2bert.tokenizers.specials import BOS, EOS, PAD

_TOKEN = re.compile(r"\w+(?:['\-]\w+)*|[^\w\s]")
WORD_OR_MARK = re.compile(r"\w+|[^\w\s]")
"""A run of word characters, or one other non-space character: the split BERT's basic tokenizer makes before
WordPiece (no inner apostrophes or hyphens, unlike ``tokenize``), shared by the span finders and the baselines."""
_NO_SPACE_BEFORE = re.compile(r" ([.,!?;:%)\]}]|'s\b|n't\b)")
_NO_SPACE_AFTER = re.compile(r"([(\[{]) ")
_DROPPED = frozenset({PAD, BOS, EOS})


def tokenize(text: str) -> list[str]:
    """Lowercase and split into words (with inner ``'``/``-``) and single punctuation marks.

    >>> tokenize("Don't forget the e-mail, Tom!")
    ["don't", 'forget', 'the', 'e-mail', ',', 'tom', '!']
    """
    return _TOKEN.findall(text.lower().replace("’", "'"))


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the words of ``text`` under ``WORD_OR_MARK`` (case kept).

    >>> word_spans("Hi, Tom!")
    [(0, 2), (2, 3), (4, 7), (7, 8)]
    """
    return [m.span() for m in WORD_OR_MARK.finditer(text)]


def detokenize(tokens) -> str:
    """Join tokens with spaces, then remove the space before closing punctuation.

    Inverse of ``tokenize`` up to case and spacing, for BLEU on detokenized strings. ``<pad>``,
    ``<s>`` and ``</s>`` are dropped; ``<unk>`` is kept, so a translation shows the words its
    vocabulary lacked and BLEU counts them as the misses they are.

    >>> detokenize(["hello", ",", "world", "!"])
    'hello, world!'
    >>> detokenize(["<s>", "the", "<unk>", "came", "</s>"])
    'the <unk> came'
    """
    text = " ".join(t for t in tokens if t not in _DROPPED)
    text = _NO_SPACE_BEFORE.sub(r"\1", text)
    return _NO_SPACE_AFTER.sub(r"\1", text)
