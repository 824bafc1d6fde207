"""The count-based baseline: positive PMI and LSA by truncated SVD (scipy).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def ppmi(x: sp.spmatrix) -> sp.csr_matrix:
    """Positive pointwise mutual information of a co-occurrence matrix.

    PPMI_ij = max(0, log(X_ij * sum(X) / (sum_k X_ik * sum_k X_kj))), computed on the
    non-zero entries only (a zero count gives PMI = -inf, clipped to 0).

    Args:
        x: sparse ``(vocabulary_size, vocabulary_size)`` matrix of counts >= 0.

    Returns:
        ``scipy.sparse.csr_matrix`` float64 of the same shape, zeros removed.

    Raises:
        ValueError: ``x`` is all zeros.

    Reference: Church & Hanks (1990); Levy, Goldberg & Dagan (2015), TACL, section 2.
    """
    x = sp.csr_matrix(x, dtype=np.float64)
    total = x.sum()
    if total <= 0:
        raise ValueError("ppmi needs a matrix with a positive total count")
    row = np.asarray(x.sum(axis=1)).ravel()
    col = np.asarray(x.sum(axis=0)).ravel()
    coo = x.tocoo()
    pmi = np.log(coo.data * total / (row[coo.row] * col[coo.col]))
    out = sp.csr_matrix((np.maximum(pmi, 0.0), (coo.row, coo.col)), shape=x.shape)
    out.eliminate_zeros()
    return out


def lsa_vectors(m: sp.spmatrix, embedding_dim: int, power: float = 0.5, seed: int = 0) -> np.ndarray:
    """Word vectors from a truncated SVD M ~ U S V^T (``scipy.sparse.linalg.svds``).

    Args:
        m: sparse ``(vocabulary_size, n)`` matrix, e.g. ``log1p(X)`` or ``ppmi(X)``.
        embedding_dim: k, the number of singular vectors kept (< min(m.shape)).
        power: vectors are U S^power (1: the classic LSA U S; 0.5 is the symmetric
            choice Levy et al. 2015 found better for similarity).
        seed: seed of the starting vector, so that the result is reproducible.

    Returns:
        float32 ``(vocabulary_size, embedding_dim)``, columns by decreasing singular value.

    Raises:
        ValueError: ``embedding_dim`` not in ``[1, min(m.shape))``.

    Reference: Deerwester et al. (1990), "Indexing by Latent Semantic Analysis";
    Levy, Goldberg & Dagan (2015), section 3.3 (eigenvalue weighting).
    """
    from scipy.sparse.linalg import svds

    if not 1 <= embedding_dim < min(m.shape):
        raise ValueError(f"embedding_dim must be in [1, {min(m.shape)}), got {embedding_dim}")
    v0 = np.random.default_rng(seed).uniform(-1, 1, size=min(m.shape))
    u, s, _ = svds(sp.csr_matrix(m, dtype=np.float64), k=embedding_dim, v0=v0)
    order = np.argsort(-s)
    return (u[:, order] * s[order] ** power).astype(np.float32)
