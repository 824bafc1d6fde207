"""Count-based n-gram language models: MLE, add-k and interpolated Kneser-Ney.

A language model gives a sentence its probability by the chain rule,
P(w_1..w_T) = prod_t P(w_t | w_1..w_{t-1}), and an n-gram model cuts each history to the
last n-1 words: P(w_t | w_{t-n+1}..w_{t-1}) (Jurafsky & Martin, SLP3 ch. 3).

Sentences are padded with one ``<s>`` in front (never predicted) and end with ``</s>``
(predicted; PTB's ``<eos>``), so near the start of a sentence the history is shorter
than n-1 words. Perplexity is exp of the mean negative log-probability per predicted
token (words + end markers).

Smoothing:

- ``"mle"``: relative frequency c(h,w)/c(h); unseen events get probability 0.
- ``"add_k"``: ``(c(h,w) + k) / (c(h) + k|V|)`` at the highest order only.
- ``"kneser_ney"``: interpolated Kneser-Ney (Kneser & Ney 1995; Chen & Goodman 1998,
  eq. 11-14). At each order m, with the counts c' of that order::

      P_m(w|h) = max(c'(h,w) - D_m(c'), 0) / c'(h) + gamma(h) * P_{m-1}(w|h'),
      gamma(h) = sum_w min(D_m(c'(h,w)), c'(h,w)) / c'(h),

  where c' is the raw count at the highest order (and for n-grams that start with
  ``<s>``, which have no left extension) and the continuation count N1+(. h w) (number
  of distinct words seen before h w) at lower orders. Order 0 is uniform, ``1/|V|``. An
  unseen history h passes the lower-order probability through unchanged.
  ``discount="modified"`` estimates three discounts D1, D2, D3+ per order from the
  count-of-counts (Chen & Goodman 1998, eq. 26); ``discount="single"`` one D = n1/(n1+2 n2);
  a float uses that D everywhere.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Iterable, Sequence

import numpy as np

from word2bert.utils.checks import token_lists
from word2bert.tokenizers.specials import BOS, EOS



def _pad(sentence: Sequence[str], eos: str) -> list[str]:
    return [BOS, *sentence, eos]


class _Context:
    """Counts of the words that follow one history at one order."""

    __slots__ = ("counts", "total", "gamma_mass")

    def __init__(self):
        self.counts: dict = {}
        self.total = 0
        self.gamma_mass = 0.0


class NGramLM:
    """An n-gram language model fitted by counting.

    Args:
        n: order (1 = unigram, 2 = bigram, ...), >= 1.
        smoothing: ``"mle"``, ``"add_k"`` or ``"kneser_ney"``.
        k: pseudo-count for ``add_k`` (> 0).
        discount: for ``kneser_ney``: ``"modified"``, ``"single"``, or a float in (0, 1].
        eos: the end-of-sentence token appended to every sentence and predicted. Use
            ``"<eos>"`` for PTB, whose usual token stream already calls it that.

    Methods return natural-log probabilities; ``perplexity`` = exp(mean NLL).

    Raises:
        ValueError: bad ``n``, ``smoothing``, ``k`` or ``discount``; ``fit`` on an empty
            corpus; scoring before ``fit``.

    Example:
        >>> lm = NGramLM(2, "add_k", k=1).fit([["a", "b"], ["a", "c"]])
        >>> round(lm.prob("b", ["a"]), 4)    # (1 + 1) / (2 + 1*4), |V| = {a, b, c, </s>}
        0.3333

    Reference: Chen & Goodman (1998), "An Empirical Study of Smoothing Techniques for
    Language Modeling", TR-10-98, sections 2.4, 2.7, 3.
    """

    def __init__(self, n: int, smoothing: str = "kneser_ney", k: float = 1.0,
                 discount: str | float = "modified", eos: str = EOS):
        if int(n) != n or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        if smoothing not in ("mle", "add_k", "kneser_ney"):
            raise ValueError(f"smoothing must be 'mle', 'add_k' or 'kneser_ney', got {smoothing!r}")
        if smoothing == "add_k" and not k > 0:
            raise ValueError(f"k must be > 0 for add_k smoothing, got {k}")
        if smoothing == "kneser_ney" and not (
            discount in ("modified", "single") or (isinstance(discount, (int, float)) and 0 < discount <= 1)
        ):
            raise ValueError(f"discount must be 'modified', 'single' or a float in (0, 1], got {discount!r}")
        self.n, self.smoothing, self.k, self.discount, self.eos = int(n), smoothing, float(k), discount, eos
        self.tables: list[dict] | None = None
        self.discounts: list[tuple[float, float, float]] = []

    # ------------------------------------------------------------------ fitting
    def fit(self, sentences: Iterable[Sequence[str]]) -> "NGramLM":
        """Count n-grams of every order up to n in ``sentences`` (lists of tokens).

        Returns:
            self.

        Raises:
            TypeError: ``sentences`` (or one sentence) is a string, not a list of tokens.
            ValueError: no tokens at all.
        """
        sentences = token_lists(sentences)
        raw = [Counter() for _ in range(self.n + 1)]  # raw[m][(h..., w)] for m = 1..n
        vocab = set()
        for sentence in sentences:
            seq = _pad(sentence, self.eos)
            vocab.update(seq[1:])
            for m in range(1, self.n + 1):
                for i in range(max(1, m - 1), len(seq)):
                    start = i - m + 1
                    if start >= 0:
                        raw[m][tuple(seq[start:i + 1])] += 1
        if not vocab - {self.eos}:
            raise ValueError("cannot fit an n-gram model on an empty corpus (no tokens): pass at least one non-empty sentence")
        self.vocab = frozenset(vocab)
        self.V = len(self.vocab)
        self.tables = [dict() for _ in range(self.n + 1)]
        self.discounts = [(0.0, 0.0, 0.0)] * (self.n + 1)
        kn = self.smoothing == "kneser_ney"
        for m in range(1, self.n + 1):
            if kn and m < self.n:
                counts = Counter()
                for gram in raw[m + 1]:  # each distinct left extension x + gram adds one
                    counts[gram[1:]] += 1
                for gram, c in raw[m].items():  # n-grams at a sentence start keep raw counts
                    if gram[0] == BOS:
                        counts[gram] = c
            else:
                counts = raw[m]
            table = self.tables[m]
            for gram, c in counts.items():
                ctx = table.get(gram[:-1])
                if ctx is None:
                    ctx = table[gram[:-1]] = _Context()
                ctx.counts[gram[-1]] = c
                ctx.total += c
            if kn:
                self.discounts[m] = self._estimate_discounts(counts.values())
                for ctx in table.values():
                    ctx.gamma_mass = sum(self._d(m, c) for c in ctx.counts.values())
        return self

    def _estimate_discounts(self, counts: Iterable[int]) -> tuple[float, float, float]:
        if isinstance(self.discount, (int, float)):
            d = float(self.discount)
            return d, d, d
        coc = Counter(c for c in counts if c <= 4)
        n1, n2, n3, n4 = (coc.get(i, 0) for i in (1, 2, 3, 4))
        if n1 == 0 or n2 == 0:  # too little data to estimate: fall back to a common default
            return 0.75, 0.75, 0.75
        y = n1 / (n1 + 2 * n2)
        if self.discount == "single" or n3 == 0 or n4 == 0:
            return y, y, y
        return 1 - 2 * y * n2 / n1, 2 - 3 * y * n3 / n2, 3 - 4 * y * n4 / n3

    def _d(self, m: int, c: int) -> float:
        d1, d2, d3 = self.discounts[m]
        return min(c, d1 if c == 1 else d2 if c == 2 else d3)

    # ------------------------------------------------------------------ scoring
    def _check(self):
        if self.tables is None:
            raise ValueError("this NGramLM is not fitted yet: call fit(sentences) first")

    def prob(self, word: str, history: Sequence[str] = ()) -> float:
        """P(word | history), using the last n-1 tokens of ``history``.

        ``history`` may start with ``"<s>"`` to mark a sentence start. Words outside the
        training vocabulary get the order-0 share (``1/|V|`` times the backed-off mass) under
        Kneser-Ney, ``k/(c(h)+k|V|)`` under add-k, and 0 under MLE.
        """
        self._check()
        history = tuple(history)[-(self.n - 1):] if self.n > 1 else ()
        if self.smoothing == "add_k":
            ctx = self.tables[len(history) + 1].get(history)
            c, total = (ctx.counts.get(word, 0), ctx.total) if ctx else (0, 0)
            return (c + self.k) / (total + self.k * self.V)
        if self.smoothing == "mle":
            ctx = self.tables[len(history) + 1].get(history)
            if ctx is None:
                return 0.0
            return ctx.counts.get(word, 0) / ctx.total
        p = 1.0 / self.V
        for m in range(1, len(history) + 2):
            ctx = self.tables[m].get(history[len(history) - m + 1:])
            if ctx is None:
                continue
            c = ctx.counts.get(word, 0)
            p = (c - self._d(m, c)) / ctx.total + ctx.gamma_mass / ctx.total * p
        return p

    def sentence_logprob(self, sentence: Sequence[str]) -> float:
        """Natural-log probability of a whole sentence, ``</s>`` included (chain rule)."""
        (sentence,) = token_lists([sentence], "sentence")
        seq = _pad(sentence, self.eos)
        return sum(self._logp(seq[i], seq[max(0, i - self.n + 1):i]) for i in range(1, len(seq)))

    def _logp(self, word, history) -> float:
        p = self.prob(word, history)
        return math.log(p) if p > 0 else -math.inf

    def token_logprobs(self, sentences: Iterable[Sequence[str]]) -> np.ndarray:
        """Log-probability of every predicted token (words and ``</s>``): 1-D float64.

        Raises:
            TypeError: ``sentences`` (or one sentence) is a string, not a list of tokens.
        """
        sentences = token_lists(sentences)
        out = []
        for sentence in sentences:
            seq = _pad(sentence, self.eos)
            out.extend(self._logp(seq[i], seq[max(0, i - self.n + 1):i]) for i in range(1, len(seq)))
        return np.asarray(out, dtype=np.float64)

    def perplexity(self, sentences: Iterable[Sequence[str]]) -> float:
        """exp(-mean log P) over every predicted token of ``sentences``.

        Returns ``inf`` when a token has probability 0 (MLE on unseen events).

        Raises:
            ValueError: not fitted, or no tokens to score.
        """
        self._check()
        lp = self.token_logprobs(sentences)
        if lp.size == 0:
            raise ValueError("perplexity of an empty corpus is undefined (no tokens)")
        return float(np.exp(-lp.mean()))

    def num_ngrams(self) -> int:
        """Number of distinct n-grams of the highest order (the table a model stores)."""
        self._check()
        return sum(len(c.counts) for c in self.tables[self.n].values())


def ngram_statistics(train: Sequence[Sequence[str]], test: Sequence[Sequence[str]],
                     orders: Iterable[int] = (1, 2, 3, 4, 5), eos: str = EOS) -> list[dict]:
    """The data-sparsity drawbacks of n-gram models, measured.

    For each order n: distinct n-grams in ``train``; the size a dense table of all
    ``|V|^n`` counts would have; and the share of ``test`` n-grams (tokens, with the same
    ``<s>``/``</s>`` padding) never seen in ``train``.

    Returns:
        list of dicts with keys ``n``, ``distinct``, ``dense_cells``, ``unseen_share``.
    """
    def grams(sentences, m):
        for s in sentences:
            seq = _pad(s, eos)
            for i in range(max(1, m - 1), len(seq)):
                if i - m + 1 >= 0:
                    yield tuple(seq[i - m + 1:i + 1])

    train, test = token_lists(train, "train"), token_lists(test, "test")
    orders = list(orders)
    if not orders or any(int(m) != m or m < 1 for m in orders):
        raise ValueError(f"orders must be positive integers, got {orders}")
    vocab = {w for s in train for w in s} | {eos}
    rows = []
    for m in orders:
        seen = set(grams(train, m))
        test_grams = list(grams(test, m))
        unseen = sum(g not in seen for g in test_grams)
        rows.append({"n": m, "distinct": len(seen), "dense_cells": float(len(vocab)) ** m,
                     "unseen_share": unseen / max(1, len(test_grams))})
    return rows
