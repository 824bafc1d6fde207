"""The sliding-window baseline for extractive question answering: no learning, only word overlap.

Richardson et al. (2013, MCTest) score an answer by the question words found in a window of the
passage around it, each weighted by its inverse frequency; Rajpurkar et al. (2016, SQuAD, section
5) use the same sliding window to choose among candidate spans. Here, on a context and a question:

1. The context is split into tokens with their character offsets, ``\\w+|[^\\w\\s]`` (words, and each
   punctuation mark alone); sentences end at a token ``.``, ``!`` or ``?``. Matching is on lowercased
   tokens; question words are the distinct lowercased ``\\w+`` tokens of the question.
2. Each word ``w`` of the context weighs ``log(1 + 1 / count(w))``, ``count`` its number of occurrences
   in the context (rare words count more).
3. Candidates: every span of 1 to ``max_answer_words`` tokens inside one sentence that does not
   start with a punctuation token or a function word (``FUNCTION_WORDS`` other than a/an/the), does
   not end with a punctuation token or a function word, and does not consist only of question
   words, function words and punctuation (so "the" or "of Nun" are never answers, "the Amorites" can be).
4. A candidate's score is the sum of the weights of the distinct question words that occur among the
   ``window`` tokens on each side of it, within its sentence, the candidate's own tokens excluded
   (``window=None``: as many tokens as the question has distinct words).
5. The highest score wins; ties go to the earliest start, then to the shortest span. The answer is the
   context's exact substring from the candidate's first to its last character.

It knows nothing about answer types: asked "How many years did Seth live?" on "Adam lived 930 years.
Seth lived 912 years." it picks "lived" (next to "Seth" and "years", like "912", and earlier), since
"live" and "lived" are different words to it. The measured scores are in ``sliding_window_predictions``.

Reference: M. Richardson, C. Burges, E. Renshaw (2013), "MCTest", EMNLP, section 4 (SW); P. Rajpurkar,
J. Zhang, K. Lopyrev, P. Liang (2016), "SQuAD: 100,000+ Questions for Machine Comprehension of Text",
EMNLP, section 5.
"""
from __future__ import annotations

import math
import re
from collections import Counter

from word2bert.tokenizers.words import WORD_OR_MARK

_WORD_CHARS = re.compile(r"\w+")
_SENTENCE_END = frozenset(".!?")
_ARTICLES = frozenset({"a", "an", "the"})
FUNCTION_WORDS = _ARTICLES | frozenset(
    "of and or to in on at by for with from as is was were be been are he she it they his her their its".split())


def _sentences(tokens):
    """Lists of token indices, one per sentence (a sentence ends after a ``.``, ``!`` or ``?`` token)."""
    out, current = [], []
    for i, (text, _, _) in enumerate(tokens):
        current.append(i)
        if text in _SENTENCE_END:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def sliding_window_answer(context: str, question: str, max_answer_words: int = 4, window: int | None = None):
    """The sliding-window baseline's answer span (see the module docstring for the exact rule).

    Args:
        context: the passage.
        question: the question.
        max_answer_words: the longest candidate, in tokens (>= 1).
        window: tokens looked at on each side of a candidate, within its sentence (>= 1); None: the
            number of distinct words of the question.

    Returns:
        ``(text, char_start)``: ``context[char_start:char_start + len(text)] == text``; ``("", 0)`` when the
        context has no candidate.

    Raises:
        ValueError: ``max_answer_words`` or ``window`` below 1.

    Source: Richardson et al. (2013), section 4; Rajpurkar et al. (2016), section 5.
    """
    if max_answer_words < 1:
        raise ValueError(f"max_answer_words must be >= 1, got {max_answer_words}")
    if window is not None and window < 1:
        raise ValueError(f"window must be >= 1 or None, got {window}")
    q_words = set(_WORD_CHARS.findall(question.lower()))
    window = max(1, len(q_words)) if window is None else int(window)
    tokens = [(m.group(0).lower(), m.start(), m.end()) for m in WORD_OR_MARK.finditer(context)]
    counts = Counter(text for text, _, _ in tokens)
    weight = {w: math.log(1 + 1 / counts[w]) for w in q_words if w in counts}
    is_punct = [not _WORD_CHARS.fullmatch(text) for text, _, _ in tokens]
    is_function = [text in FUNCTION_WORDS for text, _, _ in tokens]
    is_filler = [p or f or text in q_words for p, f, (text, _, _) in zip(is_punct, is_function, tokens)]
    bad_start = [p or (f and text not in _ARTICLES) for p, f, (text, _, _) in zip(is_punct, is_function, tokens)]
    bad_end = [p or f for p, f in zip(is_punct, is_function)]
    best = None  # (score, -start, -length) is maximised
    for sentence in _sentences(tokens):
        first, last = sentence[0], sentence[-1]
        for i in sentence:
            if bad_start[i]:
                continue
            for j in range(i, min(i + max_answer_words, last + 1)):
                if bad_end[j] or all(is_filler[i:j + 1]):
                    continue
                around = range(max(first, i - window), i), range(j + 1, min(last, j + window) + 1)
                found = {tokens[k][0] for part in around for k in part} & weight.keys()
                key = (math.fsum(weight[w] for w in found), -i, -(j - i))  # fsum: the same in any set order
                if best is None or key > best[0]:
                    best = (key, i, j)
    if best is None:
        return "", 0
    _, i, j = best
    start, end = tokens[i][1], tokens[j][2]
    return context[start:end], start


def sliding_window_predictions(examples, max_answer_words: int = 4, window: int | None = None) -> dict:
    """``sliding_window_answer`` on every example: ``{id: answer text}`` for ``word2bert.metrics.squad.squad_scores``.

    Measured on ``word2bert.datasets.template_qa.template_qa("valid")`` with the defaults: see that
    module's docstring (exact match and F1 of this baseline per split).

    Args:
        examples: ``QAExample``s (``id``, ``context``, ``question`` are used).
        max_answer_words, window: as ``sliding_window_answer``.

    Returns:
        dict ``{question id: predicted answer string}``.

    Raises:
        ValueError: as ``sliding_window_answer``.

    Source: Richardson et al. (2013); Rajpurkar et al. (2016), section 5.
    """
    return {e.id: sliding_window_answer(e.context, e.question, max_answer_words, window)[0] for e in examples}
