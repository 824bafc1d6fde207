"""word2vec's output layers: full softmax, hierarchical softmax, negative sampling.

Each layer takes a hidden vector ``h`` (batch, embedding_dim) and target ids (batch,) and
returns the per-example loss of predicting the target from ``h``:

- ``SoftmaxOutput``        -- ``-log softmax(U h)[target]``: ``O(|V|)`` per example
  (Mikolov et al. 2013a, section 3, the baseline).
- ``HierarchicalSoftmax``  -- ``-sum_j log sigmoid(+-u_{n_j} . h)`` along the target's
  Huffman path: ``O(log |V|)`` (Morin & Bengio 2005; Mikolov et al. 2013a, section 3).
- ``NegativeSampling``     -- ``-log sigmoid(u_t . h) - sum_k log sigmoid(-u_{n_k} . h)``
  with K negatives from the unigram^0.75 distribution: O(K + 1) (Mikolov et al. 2013b, eq. 4).

Hierarchical softmax and negative sampling are the same computation on different rows:
each example has J rows ``u_j`` of the layer's table with labels ``y_j`` in {0, 1}, and
its loss is ``-sum_j log sigmoid((2 y_j - 1) u_j . h)``. Its gradient with respect to the
logit ``x_j = u_j . h`` is ``sigmoid(x_j) - y_j`` -- word2vec.c's ``g`` (up to the
learning rate) -- so ``dL/dh = sum_j g_j u_j`` and ``dL/du_j = g_j h``.
``sgd_gradients`` returns these for the sparse SGD step of ``word2bert.models.word2vec``.

The models that use them (``SkipGram``, ``CBOW``) live in ``word2bert.models.word2vec``, which
re-exports these layers.
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops

from word2bert.models.word2vec.huffman import build_huffman_tree
from word2bert.models.word2vec.sampling import unigram_probs


def _check_hidden(hidden, target):
    if len(hidden.shape) != 2:
        raise ValueError(f"hidden must have shape (batch, None), got {tuple(hidden.shape)}")
    if len(target.shape) != 1:
        raise ValueError(f"target must have shape (batch,), got {tuple(target.shape)}")
    if hidden.shape[0] is not None and target.shape[0] is not None and hidden.shape[0] != target.shape[0]:
        raise ValueError(f"hidden and target differ in batch size: {hidden.shape[0]} vs {target.shape[0]}")


def _logistic_logits(hidden, table, rows):
    """Rows ``(B, J)`` of ``table`` -> their vectors ``(B, J, d)`` and logits ``u_j . h`` (float32 ``(B, J)``)."""
    u = ops.take(ops.cast(table, hidden.dtype), rows, axis=0)
    # multiply-and-sum, not einsum: TF lowers this einsum to tiny batched matmuls (4x slower on CPU)
    return u, ops.cast(ops.sum(ops.expand_dims(hidden, 1) * u, axis=-1), "float32")


def _logistic_loss(logits, labels, mask):
    """``-sum_j mask_j log sigmoid((2 y_j - 1) x_j)``: float32 ``(B,)``."""
    terms = ops.log_sigmoid((2.0 * labels - 1.0) * logits)
    return -ops.sum(ops.where(mask, terms, ops.zeros_like(terms)), axis=-1)


class _BinaryLogisticOutput(keras.layers.Layer):
    """Shared maths of hierarchical softmax and negative sampling (see the module docstring).

    Subclasses define ``table`` (the weight whose rows are used) and ``_rows(target,
    negatives)`` -> ``(rows (B, J) int32, labels (B, J) float32, mask (B, J) bool)``.
    """

    def _loss(self, hidden, target, negatives=None):
        rows, labels, mask = self._rows(target, negatives)
        _, logits = _logistic_logits(hidden, self.table, rows)
        return _logistic_loss(logits, labels, mask)

    def sgd_gradients(self, hidden, target, negatives=None):
        """The loss and its analytic gradients, for a sparse SGD step (word2vec.c's update).

        Args:
            hidden: float ``(B, d)``; target: int ``(B,)``; negatives: int ``(B, K)``
                (``NegativeSampling`` only; drawn with ``sample`` when None).

        Returns:
            ``(loss, d_hidden, rows, d_rows)``: float32 ``(B,)`` per-example loss (nats);
            float32 ``(B, d)`` gradient of the summed loss w.r.t. ``hidden``; int32
            ``(B * J,)`` the table rows used; float32 ``(B * J, d)`` the gradient of the
            summed loss w.r.t. those rows (repeated rows: add their gradients). Masked
            rows get a zero gradient. Equal to automatic differentiation of ``call``
            (tested).
        """
        _check_hidden(hidden, target)
        hidden = ops.cast(hidden, "float32")
        rows, labels, mask = self._rows(ops.cast(target, "int32"), negatives)
        u, logits = _logistic_logits(hidden, ops.cast(self.table, "float32"), rows)
        g = ops.where(mask, ops.sigmoid(logits) - labels, ops.zeros_like(logits))  # dL/dx, (B, J)
        d_hidden = ops.sum(ops.expand_dims(g, -1) * u, axis=1)
        d_rows = ops.expand_dims(g, -1) * ops.expand_dims(hidden, 1)
        dim = ops.shape(hidden)[-1]
        return (_logistic_loss(logits, labels, mask), d_hidden, ops.reshape(rows, (-1,)),
                ops.reshape(d_rows, (-1, dim)))


@keras.saving.register_keras_serializable(package="word2bert")
class SoftmaxOutput(keras.layers.Layer):
    """Full softmax over the vocabulary: per-example ``-log p(target | h)``.

    ``p(w | h) = exp(u_w . h) / sum_v exp(u_v . h)`` (no bias, as in word2vec).

    Args:
        vocabulary_size: number of words ``|V|``.

    Call arguments:
        hidden: float ``(batch, embedding_dim)``.
        target: int ``(batch,)`` word ids.

    Returns:
        float ``(batch,)``: the negative log-likelihood, in nats.

    Raises:
        ValueError: wrong ranks or dims.

    Example:
        >>> out = SoftmaxOutput(10)
        >>> out(np.zeros((2, 4), "float32"), np.array([1, 2])).shape   # log(10) each
        (2,)

    Reference: Mikolov et al. (2013a), section 3 (the "full softmax" baseline).
    """

    def __init__(self, vocabulary_size: int, **kwargs):
        super().__init__(**kwargs)
        if vocabulary_size < 2:
            raise ValueError(f"vocabulary_size must be >= 2, got {vocabulary_size}")
        self.vocabulary_size = int(vocabulary_size)

    def build(self, hidden_shape, target_shape=None):
        self.output_vectors = self.add_weight(
            name="output_vectors", shape=(self.vocabulary_size, hidden_shape[-1]), initializer="zeros")

    def log_probs(self, hidden):
        """``(batch, vocabulary_size)`` log-probabilities of every word."""
        logits = ops.matmul(hidden, ops.transpose(ops.cast(self.output_vectors, hidden.dtype)))
        return ops.log_softmax(ops.cast(logits, "float32"), axis=-1)

    def call(self, hidden, target):
        _check_hidden(hidden, target)
        logp = self.log_probs(hidden)
        return -ops.take_along_axis(logp, ops.expand_dims(ops.cast(target, "int32"), -1), axis=-1)[:, 0]

    def compute_output_shape(self, hidden_shape, target_shape=None):
        return (hidden_shape[0],)

    def get_config(self):
        return {**super().get_config(), "vocabulary_size": self.vocabulary_size}


@keras.saving.register_keras_serializable(package="word2bert")
class HierarchicalSoftmax(_BinaryLogisticOutput):
    """Hierarchical softmax over a Huffman tree: per-example ``-log p(target | h)``.

    Word ``w`` is the leaf reached from the root by branches ``code_j`` at inner nodes
    ``n_j``; ``p(w | h) = prod_j sigmoid((1 - 2 code_j) * u_{n_j} . h)`` (code 0 takes
    ``sigmoid(+x)``, word2vec.c's convention). The probabilities of all leaves sum to 1.

    Args:
        counts: word counts (length ``|V|``); the Huffman tree is built from them
            (``build_huffman_tree``), so frequent words have short paths.

    Call arguments:
        hidden: float ``(batch, embedding_dim)``.
        target: int ``(batch,)`` word ids.

    Returns:
        float ``(batch,)``: negative log-likelihood in nats.

    Raises:
        ValueError: fewer than 2 counts; wrong ranks.

    Example:
        >>> hs = HierarchicalSoftmax([5, 3, 1])
        >>> hs(np.zeros((1, 4), "float32"), np.array([0]))   # root code: log 2
        >>> hs.log_probs(np.zeros((1, 4), "float32"))        # (1, 3)

    Reference: Morin & Bengio (2005); Mikolov et al. (2013a), section 3; (2013b) eq. 3.
    """

    def __init__(self, counts, **kwargs):
        super().__init__(**kwargs)
        self.counts = [float(c) for c in np.asarray(counts).ravel()]
        self.tree = build_huffman_tree(self.counts)
        self.vocabulary_size = len(self.counts)

    def build(self, hidden_shape, target_shape=None):
        self.inner_vectors = self.add_weight(
            name="inner_vectors", shape=(self.vocabulary_size - 1, hidden_shape[-1]), initializer="zeros")

    @property
    def table(self):
        return self.inner_vectors

    def _rows(self, target, negatives=None):
        target = ops.cast(target, "int32")
        nodes = ops.take(ops.convert_to_tensor(self.tree.path_nodes), target, axis=0)
        codes = ops.take(ops.convert_to_tensor(self.tree.path_codes), target, axis=0)
        mask = ops.take(ops.convert_to_tensor(self.tree.path_mask), target, axis=0)
        return nodes, 1.0 - ops.cast(codes, "float32"), mask  # code 0 -> label 1: sigmoid(+x)

    def call(self, hidden, target):
        _check_hidden(hidden, target)
        return self._loss(hidden, target)

    def log_probs(self, hidden):
        """``(batch, vocabulary_size)`` log-probabilities of every word (``O(|V| log |V|)``: for checks)."""
        b, v = hidden.shape[0], self.vocabulary_size
        flat_h = ops.repeat(hidden, v, axis=0)  # (b * v, d): every word for every row
        words = np.tile(np.arange(v, dtype="int32"), b)
        return ops.reshape(-self._loss(flat_h, words), (b, v))

    def compute_output_shape(self, hidden_shape, target_shape=None):
        return (hidden_shape[0],)

    def get_config(self):
        return {**super().get_config(), "counts": self.counts}


@keras.saving.register_keras_serializable(package="word2bert")
class NegativeSampling(_BinaryLogisticOutput):
    """Negative-sampling loss with K negatives drawn from the unigram^0.75 distribution.

    ``loss = -log sigmoid(u_t . h) - sum_k m_k log sigmoid(-u_{n_k} . h)``.

    The positive may be drawn as a negative: draws are independent of the target, and a
    draw equal to the target is *masked out* (``m_k = 0``: it adds nothing to the loss or
    the gradient), as word2vec.c skips it (``if (target == word) continue``). So an
    example has at most K (on average slightly fewer) effective negatives.

    Args:
        counts: word counts (length ``|V|``) for the noise distribution.
        num_negatives: K (>= 1); 5-20 for small corpora (2013b, section 2.2).
        power: the exponent, 0.75.
        seed: int seed of the negative draws (None: random).

    Call arguments:
        hidden: float ``(batch, embedding_dim)``.
        target: int ``(batch,)`` word ids.
        negatives: optional int ``(batch, K)`` ids to use instead of drawing.

    Returns:
        float ``(batch,)``: the loss per example, in nats.

    Raises:
        ValueError: ``num_negatives`` < 1, bad counts, wrong ranks.

    Example:
        >>> ns = NegativeSampling([100, 10, 1], num_negatives=2, seed=0)
        >>> ns(np.zeros((3, 4), "float32"), np.array([0, 1, 2]))   # 3 * log 2 when unmasked
        >>> ns.sample((1000, 5))                                    # ids ~ [0.827, 0.147, 0.026]

    Reference: Mikolov et al. (2013b), eq. 4 and section 2.2.
    """

    def __init__(self, counts, num_negatives: int = 5, power: float = 0.75, seed=None, **kwargs):
        super().__init__(**kwargs)
        if int(num_negatives) < 1:
            raise ValueError(f"num_negatives must be >= 1, got {num_negatives}")
        self.counts = [float(c) for c in np.asarray(counts).ravel()]
        self.num_negatives = int(num_negatives)
        self.power = float(power)
        self.seed = seed
        self.probs = unigram_probs(self.counts, self.power)
        self.vocabulary_size = len(self.counts)
        self._cdf = np.cumsum(self.probs).astype("float32")
        self.seed_generator = keras.random.SeedGenerator(seed)

    def build(self, hidden_shape, target_shape=None, negatives_shape=None):
        self.output_vectors = self.add_weight(
            name="output_vectors", shape=(self.vocabulary_size, hidden_shape[-1]), initializer="zeros")

    def sample(self, shape):
        """Draw negative ids of ``shape`` (int32) by inverse CDF: ``O(log |V|)`` per draw."""
        u = keras.random.uniform(shape, maxval=float(self._cdf[-1]), seed=self.seed_generator)
        ids = ops.searchsorted(ops.convert_to_tensor(self._cdf), ops.reshape(u, (-1,)), side="right")
        return ops.reshape(ops.minimum(ops.cast(ids, "int32"), self.vocabulary_size - 1), shape)

    @property
    def table(self):
        return self.output_vectors

    def _rows(self, target, negatives=None):
        target = ops.cast(target, "int32")
        if negatives is None:
            negatives = self.sample((ops.shape(target)[0], self.num_negatives))
        negatives = ops.cast(negatives, "int32")
        if len(negatives.shape) != 2:
            raise ValueError(f"negatives must have shape (batch, num_negatives), got {tuple(negatives.shape)}")
        rows = ops.concatenate([ops.expand_dims(target, -1), negatives], axis=-1)  # (B, 1 + K)
        labels = ops.concatenate([ops.ones_like(rows[:, :1], "float32"), ops.zeros_like(negatives, "float32")], axis=-1)
        keep = ops.not_equal(negatives, ops.expand_dims(target, -1))  # a draw equal to the target is masked
        mask = ops.concatenate([ops.ones_like(rows[:, :1], "bool"), keep], axis=-1)
        return rows, labels, mask

    def call(self, hidden, target, negatives=None):
        _check_hidden(hidden, target)
        return self._loss(hidden, target, negatives)

    def compute_output_shape(self, hidden_shape, target_shape=None, negatives_shape=None):
        return (hidden_shape[0],)

    def get_config(self):
        return {**super().get_config(), "counts": self.counts, "num_negatives": self.num_negatives,
                "power": self.power, "seed": self.seed}
