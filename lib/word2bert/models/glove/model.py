"""GloVe's objective and model (Pennington, Socher & Manning 2014, eq. 8-9).

    J = sum_{i,j: X_ij > 0} f(X_ij) (w_i . w~_j + b_i + b~_j - log X_ij)^2        (eq. 8)
    f(x) = min(1, (x / x_max)^alpha),  x_max = 100, alpha = 3/4                     (eq. 9)
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops


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
        vocabulary_size: ``|V|``.
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
        ValueError: ``vocabulary_size``, ``embedding_dim`` or ``init_scale`` not positive;
            inputs whose last axis is not 2.

    Training: ``pairs, counts = cooccurrence_triples(X)``, then ``fit`` with AdaGrad (the
    paper's optimiser, lr 0.05 per pair) and ``GloVeLoss()``. Start AdaGrad's accumulator
    small (``initial_accumulator_value=1e-4``): the first gradients are tiny (the vectors
    start near 0), and Keras's default of 0.1 would shrink the first steps to almost
    nothing. With batches of tens of thousands of pairs a larger rate (0.1) makes up for
    the fewer steps (chapter 04).

    Example:
        >>> model = GloVe(vocabulary_size=10, embedding_dim=4)
        >>> model.compile(keras.optimizers.Adagrad(0.05, initial_accumulator_value=1e-4), GloVeLoss())
        >>> model.fit(pairs, counts, batch_size=4096)   # pairs (N, 2), counts (N,)

    Reference: Pennington et al. (2014), sections 3 and 4.2 (final vectors W + W~).
    """

    def __init__(self, vocabulary_size: int, embedding_dim: int = 50, init_scale: float = 0.5, name="glove", **kwargs):
        super().__init__(name=name, **kwargs)
        if vocabulary_size < 1:
            raise ValueError(f"vocabulary_size must be >= 1, got {vocabulary_size}")
        if embedding_dim < 1:
            raise ValueError(f"embedding_dim must be >= 1, got {embedding_dim}")
        if init_scale <= 0:
            raise ValueError(f"init_scale must be > 0, got {init_scale}")
        self.vocabulary_size = int(vocabulary_size)
        self.embedding_dim = int(embedding_dim)
        self.init_scale = float(init_scale)

    def build(self, input_shape=None):
        if input_shape is not None and input_shape[-1] is not None and input_shape[-1] != 2:
            raise ValueError(f"GloVe inputs must have shape (batch, 2) holding (i, j), got {tuple(input_shape)}")
        limit = self.init_scale / self.embedding_dim
        init = keras.initializers.RandomUniform(-limit, limit)
        v, d = self.vocabulary_size, self.embedding_dim
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
        """The learned word vectors as a float32 numpy array ``(vocabulary_size, embedding_dim)``.

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
        return {**super().get_config(), "vocabulary_size": self.vocabulary_size, "embedding_dim": self.embedding_dim,
                "init_scale": self.init_scale}
