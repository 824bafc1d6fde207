"""GloVe: global co-occurrence counts fitted by weighted least squares, and the LSA baseline.

Window-based methods (word2vec) see one local context at a time; count-based LSA
factorises a whole co-occurrence matrix with an SVD but treats every count alike. GloVe
(Pennington, Socher & Manning 2014) fits word vectors to the logarithm of the global
counts, weighting each pair by how often it was seen:

    J = sum_{i,j: X_ij > 0} f(X_ij) (w_i . w~_j + b_i + b~_j - log X_ij)^2        (eq. 8)
    f(x) = min(1, (x / x_max)^alpha),  x_max = 100, alpha = 3/4                     (eq. 9)

This module holds:

- ``cooccurrence_matrix``: X from token ids, symmetric window, each pair weighted 1/d
  (section 4.2 of the paper), vectorised over the offsets d = 1..window_size.
- ``cooccurrence_triples``: the (i, j, X_ij) training triples of the non-zero entries.
- ``glove_weight``: f(x), eq. 9.
- ``glove_loss`` / ``GloVeLoss``: the per-pair terms of eq. 8 and the Keras loss.
- ``GloVe``: a Keras model holding W, W~, b, b~ that maps (i, j) pairs to
  w_i . w~_j + b_i + b~_j; ``GloVe.word_vectors()`` returns W + W~ (section 4.2).
- ``ppmi`` and ``lsa_vectors``: the count-based baseline (truncated SVD with scipy).
"""
from __future__ import annotations

import keras
import numpy as np
import scipy.sparse as sp
from keras import ops


# ----------------------------------------------------------------- counting
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


def cooccurrence_matrix(token_ids, vocab_size: int, window_size: int, distance_weighting: bool = True,
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
            ``[0, vocab_size)``.
        vocab_size: |V|, the matrix is ``(vocab_size, vocab_size)``.
        window_size: the largest distance counted (>= 1).
        distance_weighting: weight each pair by 1/d (True) or count it as 1 (False).
        ignore_ids: ids (e.g. ``<unk>``, ``<pad>``) whose pairs are not counted; they
            still take up their position, so distances are measured in the text.
        dtype: float dtype of the counts (float64 keeps sums of 1/d exact enough).

    Returns:
        ``scipy.sparse.csr_matrix`` of shape ``(vocab_size, vocab_size)``, symmetric,
        explicit zeros removed, indices sorted.

    Raises:
        ValueError: ``window_size`` < 1, ``vocab_size`` < 1, or an id outside
            ``[0, vocab_size)``.

    Reference: Pennington, Socher & Manning (2014), "GloVe: Global Vectors for Word
    Representation", EMNLP, section 4.2 (symmetric window of 10, 1/d weighting).
    """
    if int(window_size) < 1:
        raise ValueError(f"window_size must be >= 1, got {window_size}")
    if int(vocab_size) < 1:
        raise ValueError(f"vocab_size must be >= 1, got {vocab_size}")
    ids, sentence = _as_sentences(token_ids)
    if len(ids) and (ids.min() < 0 or ids.max() >= vocab_size):
        raise ValueError(f"token_ids must lie in [0, vocab_size={vocab_size}), got range [{ids.min()}, {ids.max()}]")
    keep = np.ones(len(ids), dtype=bool)
    if ignore_ids is not None:
        keep &= ~np.isin(ids, np.asarray(list(np.atleast_1d(ignore_ids)), dtype=np.int64))
    shape = (int(vocab_size), int(vocab_size))
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
        x: sparse (or dense) ``(vocab_size, vocab_size)`` co-occurrence matrix.

    Returns:
        ``(pairs, counts)``: ``pairs`` int32 ``(nnz, 2)`` holding (i, j); ``counts``
        float32 ``(nnz,)`` holding X_ij > 0.

    Raises:
        ValueError: ``x`` is not square, or holds negative entries.
    """
    x = sp.coo_matrix(x)
    if x.shape[0] != x.shape[1]:
        raise ValueError(f"x must be square (vocab_size, vocab_size), got shape {x.shape}")
    x.sum_duplicates()
    if x.nnz and x.data.min() < 0:
        raise ValueError(f"co-occurrence counts must be >= 0, got a minimum of {x.data.min()}")
    nz = x.data > 0
    pairs = np.stack([x.row[nz], x.col[nz]], axis=1).astype(np.int32)
    return pairs, x.data[nz].astype(np.float32)


# --------------------------------------------------------------- objective
def glove_weight(x, x_max: float = 100.0, alpha: float = 0.75):
    """GloVe's weighting function f(x) = min(1, (x / x_max)^alpha) (eq. 9).

    f(0) = 0, f grows as a power < 1 so that rare pairs (noisy) weigh little and frequent
    pairs are capped at 1 instead of dominating.

    Args:
        x: co-occurrence counts >= 0, any shape (numpy array or tensor).
        x_max: the count from which the weight is 1 (paper: 100).
        alpha: the exponent (paper: 3/4).

    Returns:
        float32 tensor of the shape of ``x``, values in [0, 1].

    Raises:
        ValueError: ``x_max`` <= 0 or ``alpha`` <= 0.

    Reference: Pennington et al. (2014), section 3, eq. 9.
    """
    if x_max <= 0:
        raise ValueError(f"x_max must be > 0, got {x_max}")
    if alpha <= 0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    x = ops.cast(x, "float32")
    return ops.minimum(ops.power(ops.maximum(x, 0.0) / x_max, alpha), 1.0)


def glove_loss(counts, scores, x_max: float = 100.0, alpha: float = 0.75):
    """The per-pair terms of GloVe's objective: f(X_ij) (s_ij - log X_ij)^2 (eq. 8).

    No factor 1/2 is used: the term is exactly the summand of eq. 8 in the paper (the
    authors' C code reports half of it). Pairs with X_ij = 0 contribute exactly 0 (and
    no NaN: log 0 is never evaluated).

    Args:
        counts: X_ij >= 0, float ``(batch,)``.
        scores: s_ij = w_i . w~_j + b_i + b~_j, float ``(batch,)``.
        x_max, alpha: as in ``glove_weight``.

    Returns:
        float32 tensor ``(batch,)``.

    Reference: Pennington et al. (2014), eqs. 8-9.
    """
    counts = ops.cast(counts, "float32")
    scores = ops.cast(scores, "float32")
    positive = ops.greater(counts, 0.0)
    log_x = ops.log(ops.where(positive, counts, ops.ones_like(counts)))
    term = glove_weight(counts, x_max, alpha) * ops.square(scores - log_x)
    return ops.where(positive, term, ops.zeros_like(term))


@keras.saving.register_keras_serializable(package="word2bert")
class GloVeLoss(keras.losses.Loss):
    """GloVe's weighted least-squares loss for ``model.compile``.

    ``y_true`` holds the counts X_ij, ``y_pred`` the model's scores; each pair gives
    f(X_ij)(s_ij - log X_ij)^2 (``glove_loss``, no factor 1/2).

    Args:
        x_max: weight cap (paper: 100).
        alpha: weight exponent (paper: 3/4).
        reduction: ``"sum"`` (default) makes a batch's loss the objective J of eq. 8
            restricted to that batch, so AdaGrad sees per-pair gradients of the size
            the paper's per-pair updates have; ``"sum_over_batch_size"`` gives J / batch.
        name: loss name.

    Reference: Pennington et al. (2014), eq. 8.
    """

    def __init__(self, x_max: float = 100.0, alpha: float = 0.75, reduction="sum", name="glove_loss", dtype=None):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        if x_max <= 0:
            raise ValueError(f"x_max must be > 0, got {x_max}")
        if alpha <= 0:
            raise ValueError(f"alpha must be > 0, got {alpha}")
        self.x_max = float(x_max)
        self.alpha = float(alpha)

    def call(self, y_true, y_pred):
        return glove_loss(ops.reshape(y_true, (-1,)), ops.reshape(y_pred, (-1,)), self.x_max, self.alpha)

    def get_config(self):
        return {**super().get_config(), "x_max": self.x_max, "alpha": self.alpha}


# -------------------------------------------------------------------- model
@keras.saving.register_keras_serializable(package="word2bert")
class GloVe(keras.Model):
    """GloVe's two vector sets and two biases, scoring (i, j) word pairs.

    Args:
        vocab_size: |V|.
        embedding_dim: d, the size of each vector.
        init_scale: vectors and biases start uniform in ``[-init_scale/d, init_scale/d]``
            (the authors' code uses 0.5).
        name: model name.

    Call arguments:
        inputs: int ``(batch, 2)``; column 0 is the word i, column 1 the context j.

    Returns:
        float32 ``(batch,)``: s_ij = w_i . w~_j + b_i + b~_j, which training pulls
        towards log X_ij.

    Raises:
        ValueError: ``vocab_size``, ``embedding_dim`` or ``init_scale`` not positive;
            inputs whose last axis is not 2.

    Training: ``pairs, counts = cooccurrence_triples(X)``, then ``fit`` with AdaGrad (the
    paper's optimiser, lr 0.05 per pair) and ``GloVeLoss()``. Start AdaGrad's accumulator
    small (``initial_accumulator_value=1e-4``): the first gradients are tiny (the vectors
    start near 0), and Keras's default of 0.1 would shrink the first steps to almost
    nothing. With batches of tens of thousands of pairs a larger rate (0.1) makes up for
    the fewer steps (chapter 04).

    Example:
        >>> model = GloVe(vocab_size=10, embedding_dim=4)
        >>> model.compile(keras.optimizers.Adagrad(0.05, initial_accumulator_value=1e-4), GloVeLoss())
        >>> model.fit(pairs, counts, batch_size=4096)   # pairs (N, 2), counts (N,)

    Reference: Pennington et al. (2014), sections 3 and 4.2 (final vectors W + W~).
    """

    def __init__(self, vocab_size: int, embedding_dim: int = 50, init_scale: float = 0.5, name="glove", **kwargs):
        super().__init__(name=name, **kwargs)
        if vocab_size < 1:
            raise ValueError(f"vocab_size must be >= 1, got {vocab_size}")
        if embedding_dim < 1:
            raise ValueError(f"embedding_dim must be >= 1, got {embedding_dim}")
        if init_scale <= 0:
            raise ValueError(f"init_scale must be > 0, got {init_scale}")
        self.vocab_size = int(vocab_size)
        self.embedding_dim = int(embedding_dim)
        self.init_scale = float(init_scale)

    def build(self, input_shape=None):
        if input_shape is not None and input_shape[-1] is not None and input_shape[-1] != 2:
            raise ValueError(f"GloVe inputs must have shape (batch, 2) holding (i, j), got {tuple(input_shape)}")
        limit = self.init_scale / self.embedding_dim
        init = keras.initializers.RandomUniform(-limit, limit)
        v, d = self.vocab_size, self.embedding_dim
        self.w = self.add_weight(shape=(v, d), initializer=init, name="w")
        self.w_tilde = self.add_weight(shape=(v, d), initializer=init, name="w_tilde")
        self.b = self.add_weight(shape=(v,), initializer=init, name="b")
        self.b_tilde = self.add_weight(shape=(v,), initializer=init, name="b_tilde")
        self.built = True

    def call(self, inputs):
        inputs = ops.cast(inputs, "int32")
        i, j = inputs[:, 0], inputs[:, 1]
        wi = ops.take(self.w, i, axis=0)
        wj = ops.take(self.w_tilde, j, axis=0)
        scores = ops.sum(ops.cast(wi, "float32") * ops.cast(wj, "float32"), axis=-1)
        return scores + ops.cast(ops.take(self.b, i), "float32") + ops.cast(ops.take(self.b_tilde, j), "float32")

    def compute_output_shape(self, input_shape):
        return (input_shape[0],)

    def word_vectors(self, combine: str = "sum") -> np.ndarray:
        """The learned word vectors as a float32 numpy array ``(vocab_size, embedding_dim)``.

        Args:
            combine: ``"sum"`` for W + W~ (the paper's choice, section 4.2), ``"w"`` or
                ``"w_tilde"`` for one set alone.

        Raises:
            ValueError: unknown ``combine``; RuntimeError: the model is not built yet.
        """
        if not self.built:
            raise RuntimeError("GloVe has no weights yet: call it, fit it or build() it first")
        w = ops.convert_to_numpy(self.w).astype(np.float32)
        wt = ops.convert_to_numpy(self.w_tilde).astype(np.float32)
        if combine == "sum":
            return w + wt
        if combine == "w":
            return w
        if combine == "w_tilde":
            return wt
        raise ValueError(f"combine must be 'sum', 'w' or 'w_tilde', got {combine!r}")

    def get_config(self):
        return {"vocab_size": self.vocab_size, "embedding_dim": self.embedding_dim,
                "init_scale": self.init_scale, "name": self.name}


# ---------------------------------------------------------------------- LSA
def ppmi(x: sp.spmatrix) -> sp.csr_matrix:
    """Positive pointwise mutual information of a co-occurrence matrix.

    PPMI_ij = max(0, log(X_ij * sum(X) / (sum_k X_ik * sum_k X_kj))), computed on the
    non-zero entries only (a zero count gives PMI = -inf, clipped to 0).

    Args:
        x: sparse ``(vocab_size, vocab_size)`` matrix of counts >= 0.

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
        m: sparse ``(vocab_size, n)`` matrix, e.g. ``log1p(X)`` or ``ppmi(X)``.
        embedding_dim: k, the number of singular vectors kept (< min(m.shape)).
        power: vectors are U S^power (1: the classic LSA U S; 0.5 is the symmetric
            choice Levy et al. 2015 found better for similarity).
        seed: seed of the starting vector, so that the result is reproducible.

    Returns:
        float32 ``(vocab_size, embedding_dim)``, columns by decreasing singular value.

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
