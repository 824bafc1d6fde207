"""GloVe's input: the word-word co-occurrence matrix X, each pair weighted 1/d (Pennington et al. 2014, section 4.2).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def _as_sentences(token_ids):
    """(flat int64 ids, sentence index per token) from one stream or a list of streams."""
    if isinstance(token_ids, np.ndarray):
        if token_ids.ndim != 1:
            raise ValueError(f"token_ids must be 1-D (one stream) or a list of 1-D arrays, got shape {token_ids.shape}")
        return token_ids.astype(np.int64, copy=False), np.zeros(len(token_ids), dtype=np.int32)
    token_ids = list(token_ids)
    if not token_ids or np.ndim(token_ids[0]) == 0:  # a plain list of ints: one stream
        ids = np.asarray(token_ids, dtype=np.int64).ravel()
        return ids, np.zeros(len(ids), dtype=np.int32)
    parts = [np.asarray(s, dtype=np.int64).ravel() for s in token_ids]
    lengths = np.array([len(p) for p in parts], dtype=np.int64)
    return np.concatenate(parts), np.repeat(np.arange(len(parts), dtype=np.int32), lengths)


def cooccurrence_matrix(token_ids, vocabulary_size: int, window_size: int, distance_weighting: bool = True,
                        ignore_ids=None, dtype=np.float64) -> sp.csr_matrix:
    """The symmetric word-word co-occurrence matrix X, as a scipy CSR matrix.

    For every token i and every token j at distance d = 1..``window_size`` to its left
    or right, X[i, j] grows by 1/d (``distance_weighting=True``, GloVe section 4.2) or by
    1. Both directions are counted, so X is symmetric and each unordered pair at
    distance d adds 1/d to X[i, j] and to X[j, i] (X[i, i] gets 2/d for a word next to
    itself). Pairs never cross a sentence boundary when ``token_ids`` is a list of
    sentences.

    The counts are built without a loop over tokens: for each offset d the arrays
    ``ids[:-d]`` and ``ids[d:]`` give all pairs at that distance at once; a
    ``coo -> csr`` conversion sums duplicate pairs.

    Args:
        token_ids: 1-D int array (one stream; pairs may span the whole stream) or a list
            of 1-D int arrays (sentences; no pair crosses two of them). Ids must lie in
            ``[0, vocabulary_size)``.
        vocabulary_size: ``|V|``, the matrix is ``(vocabulary_size, vocabulary_size)``.
        window_size: the largest distance counted (>= 1).
        distance_weighting: weight each pair by 1/d (True) or count it as 1 (False).
        ignore_ids: ids (e.g. ``<unk>``, ``<pad>``) whose pairs are not counted; they
            still take up their position, so distances are measured in the text.
        dtype: float dtype of the counts (float64 keeps sums of 1/d exact enough).

    Returns:
        ``scipy.sparse.csr_matrix`` of shape ``(vocabulary_size, vocabulary_size)``, symmetric,
        explicit zeros removed, indices sorted.

    Raises:
        ValueError: ``window_size`` < 1, ``vocabulary_size`` < 1, or an id outside
            ``[0, vocabulary_size)``.

    Reference: Pennington, Socher & Manning (2014), "GloVe: Global Vectors for Word
    Representation", EMNLP, section 4.2 (symmetric window of 10, 1/d weighting).
    """
    if int(window_size) < 1:
        raise ValueError(f"window_size must be >= 1, got {window_size}")
    if int(vocabulary_size) < 1:
        raise ValueError(f"vocabulary_size must be >= 1, got {vocabulary_size}")
    ids, sentence = _as_sentences(token_ids)
    if len(ids) and (ids.min() < 0 or ids.max() >= vocabulary_size):
        raise ValueError(f"token_ids must lie in [0, vocabulary_size={vocabulary_size}), got range [{ids.min()}, {ids.max()}]")
    keep = np.ones(len(ids), dtype=bool)
    if ignore_ids is not None:
        keep &= ~np.isin(ids, np.asarray(list(np.atleast_1d(ignore_ids)), dtype=np.int64))
    shape = (int(vocabulary_size), int(vocabulary_size))
    right = sp.csr_matrix(shape, dtype=dtype)  # right[i, j]: j seen to the right of i
    for d in range(1, int(window_size) + 1):
        if d >= len(ids):
            break
        ok = (sentence[:-d] == sentence[d:]) & keep[:-d] & keep[d:]
        rows, cols = ids[:-d][ok], ids[d:][ok]
        weight = 1.0 / d if distance_weighting else 1.0
        data = np.full(len(rows), weight, dtype=dtype)
        right = right + sp.coo_matrix((data, (rows, cols)), shape=shape).tocsr()
    x = (right + right.T).tocsr()
    x.eliminate_zeros()
    x.sort_indices()
    return x


def cooccurrence_triples(x: sp.spmatrix):
    """The non-zero entries of X as training data for ``GloVe``.

    Args:
        x: sparse (or dense) ``(vocabulary_size, vocabulary_size)`` co-occurrence matrix.

    Returns:
        ``(pairs, counts)``: ``pairs`` int32 ``(nnz, 2)`` holding (i, j); ``counts``
        float32 ``(nnz,)`` holding X_ij > 0.

    Raises:
        ValueError: ``x`` is not square, or holds negative entries.
    """
    x = sp.coo_matrix(x)
    if x.shape[0] != x.shape[1]:
        raise ValueError(f"x must be square (vocabulary_size, vocabulary_size), got shape {x.shape}")
    x.sum_duplicates()
    if x.nnz and x.data.min() < 0:
        raise ValueError(f"co-occurrence counts must be >= 0, got a minimum of {x.data.min()}")
    nz = x.data > 0
    pairs = np.stack([x.row[nz], x.col[nz]], axis=1).astype(np.int32)
    return pairs, x.data[nz].astype(np.float32)
