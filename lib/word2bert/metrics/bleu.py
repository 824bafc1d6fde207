"""Evaluation metrics for generated text.

``corpus_bleu`` is a thin wrapper on sacrebleu (Post 2018, "A Call for Clarity in
Reporting BLEU Scores"): BLEU is computed on *detokenized* strings with sacrebleu's
standard ``13a`` tokenizer, so scores are comparable with published ones whatever
tokenizer the model used. BLEU itself: Papineni et al. (2002), "BLEU: a Method for
Automatic Evaluation of Machine Translation", eq. 1-2 (geometric mean of modified
1-4-gram precisions times a brevity penalty), corpus-level.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from word2bert.utils.checks import not_a_string
from word2bert.utils.imports import require


def _reference_streams(references, n: int) -> list[list]:
    if len(references) != n:
        raise ValueError(f"references must have one entry per hypothesis: {n} hypotheses, {len(references)} references")
    per_hyp = [[r] if isinstance(r, str) else list(r) for r in references]
    if any(len(r) == 0 for r in per_hyp):
        raise ValueError("every hypothesis needs at least one reference string")
    width = max(len(r) for r in per_hyp)
    # sacrebleu takes reference *streams*; None marks a missing reference for that line
    return [[r[i] if i < len(r) else None for r in per_hyp] for i in range(width)]


def _checked_corpus(hypotheses, references, name: str):
    """The checks both corpus metrics make: (list of hypotheses, sacrebleu reference streams)."""
    not_a_string(hypotheses, "hypotheses", "a list of detokenized strings")
    not_a_string(references, "references", "a list with one reference string (or list of strings) per hypothesis")
    hypotheses = list(hypotheses)
    if not hypotheses:
        raise ValueError(f"{name} needs at least one hypothesis")
    return hypotheses, _reference_streams(list(references), len(hypotheses))


def corpus_bleu(hypotheses: Sequence[str], references, lowercase: bool = False, tokenize: str = "13a") -> float:
    """Corpus BLEU (0-100) of detokenized hypotheses against one or more references each.

    Args:
        hypotheses: list of N detokenized strings.
        references: list of N entries, each a reference string or a list of reference
            strings (the number may vary from line to line).
        lowercase: compare case-insensitively.
        tokenize: sacrebleu tokenizer name (default ``"13a"``, sacrebleu's standard).

    Returns:
        float, BLEU in [0, 100], with sacrebleu's defaults (its ``exp`` smoothing:
        the k-th zero n-gram precision counts as 1 / 2^k).

    Raises:
        TypeError: ``hypotheses`` or ``references`` is a single string.
        ValueError: the lengths differ, the corpus is empty, or a hypothesis has no reference.
    """
    sacrebleu = require("sacrebleu", purpose="corpus_bleu")

    hypotheses, streams = _checked_corpus(hypotheses, references, "corpus_bleu")
    return float(sacrebleu.corpus_bleu(hypotheses, streams, lowercase=lowercase, tokenize=tokenize).score)


def corpus_chrf(hypotheses: Sequence[str], references, lowercase: bool = False) -> float:
    """Corpus chrF (0-100): the character n-gram F-score of Popović (2015), sacrebleu's ``CHRF``.

    Character 1-6-grams, recall weighted twice as much as precision (beta = 2), spaces ignored.
    Unlike BLEU it gives partial credit to a word with the right stem and the wrong ending, and
    it is not zero when no 4-gram matches, so it separates weak systems better.

    Args:
        hypotheses, references: as ``corpus_bleu``.
        lowercase: compare case-insensitively (chrF is case-sensitive by default).

    Returns:
        float in [0, 100].

    Raises:
        TypeError, ValueError: as ``corpus_bleu``.

    Reference: Popović (2015), "chrF: character n-gram F-score for automatic MT evaluation".
    """
    sacrebleu = require("sacrebleu", purpose="corpus_chrf")

    hypotheses, streams = _checked_corpus(hypotheses, references, "corpus_chrf")
    return float(sacrebleu.metrics.CHRF(lowercase=lowercase).corpus_score(hypotheses, streams).score)


def bleu_by_bucket(lengths, hypotheses, references, edges=(5, 10, 15, 20), metric=None,
                   **kwargs) -> dict[str, tuple[float, int]]:
    """Corpus BLEU (or another corpus metric) for groups of sentences by source length.

    Args:
        lengths: N source lengths (any unit, e.g. tokens).
        hypotheses, references: as ``corpus_bleu``.
        edges: increasing bucket upper bounds; with integer lengths, bucket ``"a-b"`` holds
            a <= length <= b (the bounds are edges[i-1] < length <= edges[i]) and a last bucket ``">b"``
            the rest.
        metric: ``f(hypotheses, references, **kwargs) -> float`` (default ``corpus_bleu``; e.g.
            ``corpus_chrf``).
        **kwargs: passed to the metric.

    Returns:
        dict ``{bucket label: (score, number of sentences)}``; empty buckets are left out.

    Raises:
        TypeError: ``hypotheses`` or ``references`` is a single string.
        ValueError: the three lists differ in length or are empty, a length is below 1, or ``edges`` is
            not increasing.
    """
    not_a_string(hypotheses, "hypotheses", "a list of detokenized strings")
    not_a_string(references, "references", "a list with one reference string (or list of strings) per hypothesis")
    lengths = np.asarray(lengths)
    hypotheses, references = list(hypotheses), list(references)
    if not (len(lengths) == len(hypotheses) == len(references)):
        raise ValueError(
            f"lengths, hypotheses, references must be equally long, got {len(lengths)}, {len(hypotheses)}, {len(references)}"
        )
    if len(lengths) == 0:
        raise ValueError("bleu_by_bucket needs at least one sentence")
    if np.any(lengths < 1):
        raise ValueError(f"source lengths must be >= 1, got {lengths.min()}")
    if list(edges) != sorted(set(edges)):
        raise ValueError(f"edges must be strictly increasing, got {edges}")
    metric = corpus_bleu if metric is None else metric
    bounds = [0, *edges, np.inf]
    out = {}
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        idx = np.flatnonzero((lengths > lo) & (lengths <= hi))
        if len(idx):
            label = f"{lo + 1}-{hi}" if np.isfinite(hi) else f">{lo}"
            out[label] = (metric([hypotheses[i] for i in idx], [references[i] for i in idx], **kwargs), len(idx))
    return out
