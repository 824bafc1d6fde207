"""SQuAD v1.1's evaluation: exact match and token F1 of a predicted answer string against the gold answers.

As defined by the official ``evaluate-v1.1.py`` (Rajpurkar et al. 2016, section 6): both strings are
normalised (lowercased; every ASCII punctuation character removed; the words "a", "an", "the"
removed; whitespace collapsed to single spaces), then

    exact_match = [normalised prediction == normalised gold]
    f1          = 2 P R / (P + R),  P = common / len(prediction tokens),  R = common / len(gold tokens)

where tokens are the normalised string split on whitespace and ``common`` is the size of the
multiset intersection of the two token lists (0 common tokens: F1 = 0). A question's score is the
maximum over its gold answers; the data set's score is the mean over questions, in percent.

Written here from that definition (the official script is not copied).

Source: SQuAD v1.1 evaluation, https://rajpurkar.github.io/SQuAD-explorer/ (script under CC BY-SA 4.0).
"""
from __future__ import annotations

import re
import string
from collections import Counter

from word2bert.datasets.squad import answer_spans

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(s: str) -> str:
    """SQuAD's normalisation: lowercase, drop punctuation, drop the articles a/an/the, collapse whitespace.

    The steps run in the official order: lowercase; remove every character of ``string.punctuation``
    (so "U.S." becomes "us" and "don't" becomes "dont"); remove the whole words "a", "an", "the"; split on
    whitespace and join with single spaces.

    Args:
        s: an answer string.

    Returns:
        the normalised string (possibly empty).

    Source: ``normalize_answer`` of SQuAD v1.1's ``evaluate-v1.1.py``.

    >>> normalize_answer("  The Cat's  hat! ")
    'cats hat'
    """
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCTUATION)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def _check_truths(ground_truths) -> list[str]:
    """The gold answer strings of ``ground_truths`` (the layouts of ``word2bert.datasets.answer_spans``, but not one
    bare string, which is more likely a mistake than a question with one answer)."""
    if isinstance(ground_truths, str):
        raise ValueError(f"ground_truths must be a list of answer strings, got one string {ground_truths!r}: wrap it in a list")
    truths = [text for text, _ in answer_spans(ground_truths, "ground_truths")]
    if not truths:
        raise ValueError("ground_truths is empty: a question needs at least one gold answer")
    return truths


def _check_prediction(prediction) -> str:
    if not isinstance(prediction, str):
        raise TypeError(f"prediction must be the predicted answer string (\"\" for no answer), got "
                        f"{type(prediction).__name__} {prediction!r:.40}")
    return prediction


def _gold_texts(example) -> list[str]:
    """The gold answer strings of one example, in any layout of ``answer_spans`` (one plain string is one answer,
    never read character by character)."""
    return [text for text, _ in answer_spans(example.answers, f"question {example.id!r}")]


def _f1_one(prediction: str, truth: str) -> float:
    pred, gold = normalize_answer(prediction).split(), normalize_answer(truth).split()
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str, ground_truths) -> float:
    """1.0 if the normalised prediction equals some normalised gold answer, else 0.0.

    Args:
        prediction: the predicted answer string.
        ground_truths: the gold answers (the maximum over them is taken): a list of strings, of ``(text,
            answer_start)`` pairs or of SQuAD dicts ``{"text", "answer_start"}``, or a Hugging Face dict
            ``{"text": [...], "answer_start": [...]}`` (``word2bert.datasets.answer_spans``).

    Returns:
        1.0 or 0.0.

    Raises:
        TypeError: ``prediction`` is not a string (None included); ``ground_truths`` is None.
        ValueError: ``ground_truths`` is a single string, empty, or holds an answer of another layout.

    Source: ``exact_match_score`` and ``metric_max_over_ground_truths`` of SQuAD v1.1's evaluation.
    """
    prediction = _check_prediction(prediction)
    return float(max(normalize_answer(prediction) == normalize_answer(t) for t in _check_truths(ground_truths)))


def f1(prediction: str, ground_truths) -> float:
    """Token-level F1 of the normalised prediction against the best gold answer, in [0, 1].

    Tokens are the normalised strings split on whitespace; the common count is the multiset
    intersection (``Counter`` ``&``); no common token gives 0. "the cat sat" against "a cat sat
    down": tokens [cat, sat] and [cat, sat, down], 2 common, P = 1, R = 2/3, F1 = 0.8.

    Args:
        prediction: the predicted answer string.
        ground_truths: the gold answers (the maximum over them is taken), in the layouts ``exact_match`` takes.

    Returns:
        the best F1 over ``ground_truths``.

    Raises:
        TypeError, ValueError: as ``exact_match``.

    Source: ``f1_score`` and ``metric_max_over_ground_truths`` of SQuAD v1.1's evaluation.
    """
    prediction = _check_prediction(prediction)
    return max(_f1_one(prediction, t) for t in _check_truths(ground_truths))


def squad_scores(predictions: dict, examples, allow_missing: bool = False) -> dict:
    """Exact match and F1 of predictions over a question set, in percent, as SQuAD v1.1 reports them.

    Args:
        predictions: ``{question id: predicted answer string}``; ids not among ``examples`` are ignored.
        examples: ``QAExample``s (``word2bert.datasets.squad``): each needs ``id`` and ``answers``: a list of
            ``(text, answer_start)`` pairs, of plain strings or of ``{"text": ...}`` dicts, a Hugging Face dict
            ``{"text": [...], "answer_start": [...]}``, or one plain string (one gold answer: ``"UK"`` is the answer
            "UK", not "U" and "K"); see ``word2bert.datasets.answer_spans``.
        allow_missing: score a question without a prediction as 0 (as the official script does,
            after a message) instead of raising.

    Returns:
        ``{"exact_match": float, "f1": float}``, each 100 times the mean over all examples.

    Raises:
        ValueError: no example; an example without answers, or with an answer that is neither a string, a
            ``(text, start)`` pair nor a dict with ``"text"`` (naming the question; TypeError for answers of another
            type); a prediction is not a string;
            some example has no prediction and ``allow_missing`` is False (the message counts them and names
            the first few).

    Source: ``evaluate`` of SQuAD v1.1's ``evaluate-v1.1.py``.
    """
    examples = list(examples)
    if not examples:
        raise ValueError("examples is empty: nothing to score")
    missing = [e.id for e in examples if e.id not in predictions]
    if missing and not allow_missing:
        raise ValueError(f"{len(missing)} of {len(examples)} questions have no prediction (e.g. {missing[:3]}); "
                         f"pass allow_missing=True to score them 0")
    em = total_f1 = 0.0
    for e in examples:
        if e.id not in predictions:
            continue
        prediction = predictions[e.id]
        if not isinstance(prediction, str):
            raise ValueError(f"prediction for {e.id!r} must be a string, got {type(prediction).__name__}")
        truths = _gold_texts(e)
        if not truths:
            raise ValueError(f"question {e.id!r} has no gold answer")
        em += exact_match(prediction, truths)
        total_f1 += f1(prediction, truths)
    return {"exact_match": 100.0 * em / len(examples), "f1": 100.0 * total_f1 / len(examples)}
