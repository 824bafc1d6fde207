"""Translation baselines that learn nothing: look up the nearest training sentence, or copy the source.

A neural translator is worth its training only if it beats these on the same test sentences.

- ``NearestSentenceLookup``: for a test source, output the target side of the training pair whose
  source is most similar by idf-weighted word overlap (cosine of tf-idf vectors, Salton & Buckley
  1988). On a corpus with repeated sentences (or parallel passages) it scores high without
  translating anything, which is how a leaky split shows itself.
- ``copy_source``: output the source sentence unchanged; it scores on names and numbers that both
  languages share.
"""
from __future__ import annotations

import numpy as np

from word2bert.utils.checks import not_a_string
from word2bert.tokenizers.words import detokenize, tokenize


class NearestSentenceLookup:
    """Translate by returning the target of the most similar training source (tf-idf cosine).

    Args:
        sources: training source strings; targets: their translations (same length).
        tokenizer: str -> list of tokens (default ``word2bert.tokenizers.tokenize``).

    Methods:
        ``translate(sources, batch_size=1024)``: list of detokenized target strings
        (``detokenize(tokenize(target))``, lowercased like the models' outputs).
        ``nearest(sources, batch_size=1024)``: int64 ``(N,)`` index of the chosen training pair and
        float32 ``(N,)`` cosine. A source with no informative word (none seen in training, or only words
        that occur in every training source, whose idf is 0) gets the training pair 0 and cosine 0.

    Raises:
        TypeError: ``sources``/``targets`` is a single string.
        ValueError: empty training set or different lengths.

    Reference: idf weighting, Sparck Jones (1972); tf-idf cosine, Salton & Buckley (1988).
    """

    def __init__(self, sources, targets, tokenizer=tokenize):
        not_a_string(sources, "sources", "a list of source sentences")
        not_a_string(targets, "targets", "a list of target sentences")
        sources, targets = list(sources), list(targets)
        if not sources or len(sources) != len(targets):
            raise ValueError(f"need equally many training sources and targets (at least one), got {len(sources)} and "
                             f"{len(targets)}")
        self.tokenizer = tokenizer
        self.targets = [detokenize(tokenizer(t)) for t in targets]
        self.index: dict[str, int] = {}
        docs = [tokenizer(s) for s in sources]
        for doc in docs:
            for word in doc:
                self.index.setdefault(word, len(self.index))
        counts = self._counts(docs)
        df = np.asarray((counts > 0).sum(axis=0)).ravel()
        self.idf = np.log(len(docs) / np.maximum(df, 1)).astype(np.float32)
        self.matrix = self._normalise(counts.multiply(self.idf).tocsr())

    def _counts(self, docs):
        import scipy.sparse as sp

        rows, cols = [], []
        for i, doc in enumerate(docs):
            for word in doc:
                if word in self.index:
                    rows.append(i)
                    cols.append(self.index[word])
        return sp.csr_matrix((np.ones(len(rows), np.float32), (rows, cols)), shape=(len(docs), len(self.index)))

    @staticmethod
    def _normalise(matrix):
        import scipy.sparse as sp

        norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
        return sp.diags(1.0 / np.maximum(norms, 1e-12)) @ matrix

    def nearest(self, sources, batch_size: int = 1024):
        not_a_string(sources, "sources", "a list of source sentences")
        query = self._normalise(self._counts([self.tokenizer(s) for s in sources]).multiply(self.idf).tocsr())
        best, score = [], []
        for lo in range(0, query.shape[0], batch_size):
            sims = (query[lo:lo + batch_size] @ self.matrix.T).toarray()
            best.append(sims.argmax(axis=1))
            score.append(sims.max(axis=1))
        if not best:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        return np.concatenate(best).astype(np.int64), np.concatenate(score).astype(np.float32)

    def translate(self, sources, batch_size: int = 1024) -> list[str]:
        index, _ = self.nearest(sources, batch_size)
        return [self.targets[i] for i in index]


def copy_source(sources) -> list[str]:
    """The copy baseline: each source sentence as its own translation (``detokenize(tokenize(s))``).

    Raises:
        TypeError: ``sources`` is a single string.
    """
    not_a_string(sources, "sources", "a list of source sentences")
    return [detokenize(tokenize(s)) for s in sources]
