"""Intrinsic evaluation of word vectors: similarity rho, analogies, nearest neighbours.

Three standard checks of an embedding table, usable with any source of word vectors:

- ``similarity_spearman`` -- Spearman's rank correlation between the cosine similarity of
  word pairs and human scores (WordSim-353: Finkelstein et al. 2002; SimLex-999: Hill et
  al. 2015), over the pairs whose two words both have a vector (the *coverage* is reported).
- ``analogy_accuracy`` -- Google's analogy questions a : b :: c : d answered with 3CosAdd
  (Mikolov et al. 2013, "Linguistic regularities in continuous space word
  representations", section 4; Levy & Goldberg 2014 name it 3CosAdd): the answer is the
  word x, other than a, b and c, that maximises ``cos(x, b - a + c)`` on unit vectors.
- ``nearest_neighbours`` -- the words of highest cosine similarity.

Every function takes ``vectors`` in one of three forms, turned into gensim's
``KeyedVectors`` by ``as_keyed_vectors``: a ``KeyedVectors``, a ``{word: vector}`` dict,
or a ``(Vocabulary, matrix)`` pair. The computations are our own numpy (the reference
we test against is gensim's ``evaluate_word_pairs`` / ``evaluate_word_analogies``).

Conventions (so the numbers match gensim's on the same vectors):

- Words are looked up exactly as given. The course's evaluation sets and corpora are
  lowercase, so this equals gensim's default ``case_insensitive=True`` on a lowercase
  vocabulary.
- ``restrict_vocab=N`` (analogies) keeps only the first N words in the vectors' order
  (frequency order for trained models) both for deciding which questions are covered
  and as answer candidates -- gensim's rule; gensim's default is 300,000, ours is None
  (all words), which is the same for any vocabulary below 300,000 words.
- Pairs/questions with a missing word are skipped (gensim's ``dummy4unknown=False``).
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from word2bert.utils.checks import not_a_string
from word2bert.utils.imports import require

_EPS = 1e-12


def as_keyed_vectors(source):
    """Turn any supported source of word vectors into a gensim ``KeyedVectors``.

    Args:
        source: one of

            - ``gensim.models.KeyedVectors`` (returned as is; a ``Word2Vec`` model's
              ``.wv`` too; a ``Word2Vec`` model itself is unwrapped);
            - ``dict`` ``{word: 1-D array}``, all of one length (order is kept);
            - ``(Vocabulary, matrix)`` with ``matrix`` of shape ``(len(vocab), dim)``: one
              row per id. Entries with count 0 (``<pad>``, an unused ``<unk>``) are
              dropped; real tokens, PTB's ``<unk>`` included, are kept.

    Returns:
        ``KeyedVectors`` with float32 vectors.

    Raises:
        ValueError: empty source, vectors of different lengths, a vector that is not 1-D,
            a non-finite (NaN or infinite) vector, or a matrix whose row count differs
            from the vocabulary size.
        TypeError: an unsupported type.
    """
    KeyedVectors = require("gensim.models", purpose="word vectors as KeyedVectors").KeyedVectors

    if isinstance(source, KeyedVectors):
        return source
    if hasattr(source, "wv") and isinstance(source.wv, KeyedVectors):
        return source.wv
    if isinstance(source, dict):
        if not source:
            raise ValueError("vectors: the {word: vector} dict is empty")
        keys = list(source)
        shapes = {np.shape(v) for v in source.values()}
        if any(len(s) != 1 for s in shapes):
            raise ValueError(f"vectors: each vector must be 1-D, got shapes {sorted(shapes)[:3]}")
        try:
            matrix = np.stack([np.asarray(source[k], dtype=np.float32).ravel() for k in keys])
        except ValueError:
            lengths = sorted({np.asarray(v).size for v in source.values()})
            raise ValueError(f"vectors: all vectors must have one length, got lengths {lengths}") from None
    elif isinstance(source, tuple) and len(source) == 2 and hasattr(source[0], "itos"):
        vocab, matrix = source
        matrix = np.asarray(matrix, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(vocab):
            raise ValueError(
                f"vectors: matrix must have shape (len(vocab)={len(vocab)}, dim), got {matrix.shape}"
            )
        keep = np.asarray(vocab.counts) > 0
        keys = [w for w, k in zip(vocab.itos, keep) if k]
        matrix = matrix[keep]
        if not keys:
            raise ValueError("vectors: the vocabulary has no word with a count > 0")
    else:
        raise TypeError(
            "vectors must be a gensim KeyedVectors, a {word: vector} dict or a (Vocabulary, matrix) "
            f"pair, got {type(source).__name__}"
        )
    bad = ~np.isfinite(matrix).all(axis=1)
    if bad.any():
        raise ValueError(f"vectors: {int(bad.sum())} vector(s) hold NaN or infinite values, e.g. {keys[int(np.argmax(bad))]!r}")
    kv = KeyedVectors(vector_size=matrix.shape[1], count=0, dtype=np.float32)
    kv.add_vectors(keys, matrix)
    return kv


def _unit_matrix(kv, limit: int | None = None) -> np.ndarray:
    """Rows of ``kv`` scaled to unit length (zero rows stay zero), float32."""
    m = np.asarray(kv.vectors if limit is None else kv.vectors[:limit], dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.maximum(norms, _EPS)


def similarity_spearman(vectors, pairs: Iterable) -> dict:
    """Spearman's rho between cosine similarity and human scores, over covered pairs.

    Args:
        vectors: see ``as_keyed_vectors``.
        pairs: iterable of ``(word1, word2, score)`` as from ``word2bert.datasets.wordsim353()``
            or ``simlex999()``.

    Returns:
        dict with ``rho`` (float, ``scipy.stats.spearmanr`` of cosine vs score; NaN when
        fewer than 2 pairs are covered), ``p_value`` (two-sided, of rho = 0; scipy's), ``coverage`` (share of pairs with both words
        present, 0-1), ``n_pairs``, ``n_covered`` (ints).

    Raises:
        ValueError: ``pairs`` is empty or holds something other than triples.

    Equals gensim's ``KeyedVectors.evaluate_word_pairs(...)[1][0]`` on the same vectors
    and a lowercase vocabulary (tested).
    """
    from scipy.stats import spearmanr

    pairs = list(pairs)
    if not pairs:
        raise ValueError("pairs is empty: expected (word1, word2, score) triples")
    kv = as_keyed_vectors(vectors)
    index = kv.key_to_index
    if any(len(p) != 3 for p in pairs):
        raise ValueError("pairs must be (word1, word2, score) triples; one has "
                         f"{next(len(p) for p in pairs if len(p) != 3)} fields")
    covered = [(index[a], index[b], float(s)) for a, b, s in pairs if a in index and b in index]
    rho = p_value = float("nan")
    if len(covered) >= 2:
        unit = _unit_matrix(kv)
        ia, ib, gold = (np.array(col) for col in zip(*covered))
        cosines = np.sum(unit[ia] * unit[ib], axis=1)
        result = spearmanr(gold, cosines)
        rho, p_value = float(result.statistic), float(result.pvalue)
    return {"rho": rho, "p_value": p_value, "coverage": len(covered) / len(pairs), "n_pairs": len(pairs),
            "n_covered": len(covered)}


def analogy_accuracy(vectors, sections: dict, restrict_vocab: int | None = None, batch_size: int = 512) -> dict:
    """3CosAdd accuracy on analogy questions whose four words all have a vector.

    For a : b :: c : d the prediction is ``argmax_x cos(x, b^ - a^ + c^)`` over unit
    vectors ``^``, excluding a, b and c; it is correct when it equals d.

    Args:
        vectors: see ``as_keyed_vectors``.
        sections: ``{section: [(a, b, c, d), ...]}`` as from
            ``word2bert.datasets.google_analogies()``; sections whose name starts with
            ``gram`` count as syntactic, the others as semantic.
        restrict_vocab: use only the first N words of ``vectors`` (None: all); see the
            module docstring.
        batch_size: questions scored per matrix product (memory only).

    Returns:
        dict with ``accuracy`` (correct / covered questions; NaN when none is covered),
        ``coverage`` (covered / all questions), ``correct``, ``total`` (covered
        questions), ``semantic_accuracy``, ``syntactic_accuracy`` (NaN when that part has
        no covered question).

    Raises:
        ValueError: no questions at all, or ``restrict_vocab`` < 1.
        TypeError: ``sections`` is not a dict.

    Equals gensim's ``KeyedVectors.evaluate_word_analogies`` (its "Total accuracy") on the
    same vectors with the same ``restrict_vocab`` (tested).
    """
    if restrict_vocab is not None and restrict_vocab < 1:
        raise ValueError(f"restrict_vocab must be None or >= 1, got {restrict_vocab}")
    if not isinstance(sections, dict):
        raise TypeError(f"sections must be a dict {{section: [(a, b, c, d), ...]}}, got {type(sections).__name__}")
    kv = as_keyed_vectors(vectors)
    n = len(kv.index_to_key) if restrict_vocab is None else min(restrict_vocab, len(kv.index_to_key))
    index = {w: i for w, i in kv.key_to_index.items() if i < n}
    unit = _unit_matrix(kv, n)
    n_questions = 0
    counts = {"semantic": [0, 0], "syntactic": [0, 0]}  # [correct, covered]
    for name, questions in sections.items():
        part = counts["syntactic" if name.startswith("gram") else "semantic"]
        n_questions += len(questions)
        ids = np.array([[index[w] for w in q] for q in questions if all(w in index for w in q)], dtype=np.int64)
        for start in range(0, len(ids), batch_size):
            chunk = ids[start:start + batch_size]
            a, b, c, d = chunk.T
            target = unit[b] - unit[a] + unit[c]
            scores = target @ unit.T
            rows = np.arange(len(chunk))
            for col in (a, b, c):
                scores[rows, col] = -np.inf
            part[0] += int(np.sum(np.argmax(scores, axis=1) == d))
            part[1] += len(chunk)
    if n_questions == 0:
        raise ValueError("sections holds no analogy questions")
    correct = counts["semantic"][0] + counts["syntactic"][0]
    total = counts["semantic"][1] + counts["syntactic"][1]

    def ratio(x, y):
        return x / y if y else float("nan")

    return {
        "accuracy": ratio(correct, total),
        "coverage": total / n_questions,
        "correct": correct,
        "total": total,
        "semantic_accuracy": ratio(*counts["semantic"]),
        "syntactic_accuracy": ratio(*counts["syntactic"]),
    }


def nearest_neighbours(vectors, word: str, topn: int = 10) -> list[tuple[str, float]]:
    """The ``topn`` words of highest cosine similarity to ``word`` (itself excluded).

    Args:
        vectors: see ``as_keyed_vectors``.
        word: the query word.
        topn: how many neighbours (>= 1).

    Returns:
        list of ``(word, cosine)`` pairs, most similar first.

    Raises:
        KeyError: ``word`` has no vector.
        ValueError: ``topn`` < 1.
    """
    if not isinstance(topn, (int, np.integer)) or topn < 1:
        raise ValueError(f"topn must be an integer >= 1, got {topn!r}")
    kv = as_keyed_vectors(vectors)
    if word not in kv.key_to_index:
        raise KeyError(f"word {word!r} has no vector ({len(kv.index_to_key)} words known)")
    unit = _unit_matrix(kv)
    i = kv.key_to_index[word]
    scores = unit @ unit[i]
    scores[i] = -np.inf
    k = min(topn, len(scores) - 1)
    best = np.argpartition(-scores, k - 1)[:k] if k > 0 else np.array([], dtype=int)
    best = best[np.argsort(-scores[best], kind="stable")]
    return [(kv.index_to_key[j], float(scores[j])) for j in best]


def random_baseline_vectors(words: Iterable[str], dim: int = 100, seed: int = 0) -> dict:
    """Standard-normal random vectors for ``words``: the chance level of every metric here.

    Args:
        words: the words to cover (duplicates are kept once). A set is sorted first, so the
            same seed gives each word the same vector in every process (set order depends
            on Python's hash seed).
        dim: vector length (>= 1).
        seed: numpy seed.

    Returns:
        ``{word: float32 array of shape (dim,)}``.

    Raises:
        ValueError: ``dim`` < 1 or no words.
    """
    if dim < 1:
        raise ValueError(f"dim must be >= 1, got {dim}")
    if isinstance(words, (set, frozenset)):
        words = sorted(words)
    words = list(dict.fromkeys(not_a_string(words, "words", "a list of words")))
    if not words:
        raise ValueError("words is empty")
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((len(words), dim)).astype(np.float32)
    return dict(zip(words, matrix))


def evaluate_vectors(vectors, wordsim=None, simlex=None, analogies=None) -> dict:
    """Score one set of word vectors on the similarity and analogy sets given.

    Args:
        vectors: a ``KeyedVectors``, ``{word: vector}`` dict or ``(Vocabulary, matrix)`` pair.
        wordsim, simlex: lists of ``(word, word, score)`` (``datasets.wordsim353()``,
            ``datasets.simlex999()``), or None to skip.
        analogies: ``{section: [(a, b, c, d), ...]}`` (``datasets.google_analogies()``), or None.

    Returns:
        dict with the full result of each set given (``"wordsim"``, ``"simlex"``: as
        ``similarity_spearman``; ``"analogies"``: as ``analogy_accuracy``), and the flat
        numbers ``ws``, ``ws_cov``, ``sl``, ``sl_cov``, ``analogy``, ``analogy_cov`` for the sets given.

    Raises:
        ValueError: no set given.
    """
    if wordsim is None and simlex is None and analogies is None:
        raise ValueError("evaluate_vectors needs at least one of wordsim, simlex, analogies")
    kv = as_keyed_vectors(vectors)
    out = {}
    if wordsim is not None:
        out["wordsim"] = r = similarity_spearman(kv, wordsim)
        out["ws"], out["ws_cov"] = r["rho"], r["coverage"]
    if simlex is not None:
        out["simlex"] = r = similarity_spearman(kv, simlex)
        out["sl"], out["sl_cov"] = r["rho"], r["coverage"]
    if analogies is not None:
        out["analogies"] = r = analogy_accuracy(kv, analogies)
        out["analogy"], out["analogy_cov"] = r["accuracy"], r["coverage"]
    return out
