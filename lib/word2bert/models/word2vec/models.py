"""word2vec: CBOW and skip-gram with full softmax, hierarchical softmax or negative sampling.

Mikolov et al. (2013a), "Efficient Estimation of Word Representations in Vector Space"
(CBOW and skip-gram, section 3; hierarchical softmax with a Huffman tree) and Mikolov et
al. (2013b), "Distributed Representations of Words and Phrases and their
Compositionality" (negative sampling, eq. 4; subsampling, eq. 5).

Every word has two vectors: an *input* vector (row of ``V``, the embedding we keep) and an
*output* vector (row of ``U``; for hierarchical softmax, one vector per inner tree node).
A model maps its input (a centre word for skip-gram, the averaged context for CBOW) to a
hidden vector ``h`` and an output layer returns the per-example loss of predicting the
target word from ``h``:

- ``SoftmaxOutput``        -- ``-log softmax(U h)[target]``: cost ``O(|V|)`` per example.
- ``HierarchicalSoftmax``  -- ``-sum_j log sigmoid(+-u_{n_j} . h)`` along the target's
  Huffman path: ``O(log |V|)``.
- ``NegativeSampling``     -- ``-log sigmoid(u_t . h) - sum_k log sigmoid(-u_{n_k} . h)``
  with K negatives from the unigram^0.75 distribution: O(K + 1).

``SkipGram`` and ``CBOW`` are ``keras.Model``s whose output *is* the per-example loss;
they train with plain ``fit`` (``y`` is not used). ``train_word2vec`` is the loop the
chapters and the benchmark use: it makes a fresh epoch of examples with
``word2bert.word2vec_data`` (subsampling and dynamic window redrawn every epoch, as
word2vec.c does) and calls ``fit`` on it with large batches and plain SGD.

Sparse SGD step. With plain SGD on the TensorFlow backend and a hierarchical-softmax or
negative-sampling output, ``fit`` does not differentiate the graph: ``train_step``
applies word2vec.c's own update -- ``g_j = sigmoid(u_j . h) - y_j``, ``u_j -= lr g_j h``,
``h``'s rows ``-= lr sum_j g_j u_j`` (both from the old values) -- to the rows a batch uses
only (``scatter_sub``). It equals autodiff + SGD (tested). With XLA
(``jit_compile=True``) it took skip-gram-NS from 0.13x to 0.33x gensim's words/s on 2 CPU
cores (``benchmarks/word2vec.py``; autodiff + XLA alone: about 0.2x). Every other case
(JAX, PyTorch, softmax output, other optimisers, mixed precision, a distribution
strategy, frozen tables: ``uses_sparse_sgd``) uses Keras's automatic differentiation.
The output layers (``word2vec_layers``) and the data helpers (``word2vec_data``) are
re-exported here, so ``word2bert.models.word2vec`` is the one import.
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops

from word2bert.models.word2vec.outputs import HierarchicalSoftmax, NegativeSampling, SoftmaxOutput


OUTPUTS = ("softmax", "hierarchical", "negative")


def _make_output(output, vocabulary_size, counts, num_negatives, seed):
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    if output == "softmax":
        return SoftmaxOutput(vocabulary_size, name="softmax")
    if counts is None or len(counts) != vocabulary_size:
        raise ValueError(f"output={output!r} needs counts of length vocabulary_size={vocabulary_size}, "
                         f"got {None if counts is None else len(counts)}")
    if output == "hierarchical":
        return HierarchicalSoftmax(counts, name="hierarchical")
    return NegativeSampling(counts, num_negatives=num_negatives, seed=seed, name="negative")


def _unpack(inputs, output_kind):
    """``(input, target)`` or ``(input, target, negatives)``; negatives only for ``negative``."""
    if not isinstance(inputs, (tuple, list)) or len(inputs) not in (2, 3):
        raise ValueError("inputs must be a tuple (input_ids, target_ids) or (input_ids, target_ids, negatives)")
    if len(inputs) == 3 and output_kind != "negative":
        raise ValueError(f"negatives were given but output={output_kind!r} does not use them")
    for name, ids in zip(("input ids", "target ids", "negatives"), inputs):
        dtype = keras.backend.standardize_dtype(getattr(ids, "dtype", None) or np.asarray(ids).dtype)
        if "int" not in dtype:
            raise ValueError(f"{name} must be integers, got dtype {dtype}: cast them (ids.astype('int32'))")
    return inputs[0], inputs[1], (inputs[2] if len(inputs) == 3 else None)


class _Word2VecModel(keras.Model):
    """Shared parts: the input embedding, the output layer, loss = mean of the output."""

    def __init__(self, vocabulary_size, embedding_dim, output="negative", counts=None, num_negatives=5,
                 seed=None, **kwargs):
        super().__init__(**kwargs)
        if vocabulary_size < 2 or embedding_dim < 1:
            raise ValueError(f"need vocabulary_size >= 2 and embedding_dim >= 1, got {vocabulary_size}, {embedding_dim}")
        self.sparse_updates = True
        self.vocabulary_size, self.embedding_dim = int(vocabulary_size), int(embedding_dim)
        self.output_kind, self.num_negatives, self.seed = output, int(num_negatives), seed
        self.counts = None if counts is None else [float(c) for c in np.asarray(counts).ravel()]
        half = 0.5 / self.embedding_dim  # word2vec.c: uniform in [-0.5/d, 0.5/d]
        self.input_embedding = keras.layers.Embedding(
            self.vocabulary_size, self.embedding_dim, name="input_vectors",
            embeddings_initializer=keras.initializers.RandomUniform(-half, half, seed=seed))
        self.output_layer = _make_output(output, self.vocabulary_size, self.counts, num_negatives, seed)
        # every weight's shape is known now: build here, so the sparse train_step finds them
        self.input_embedding.build((None,))
        self.output_layer.build((None, self.embedding_dim))
        self.built = True

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        loss = ops.mean(y_pred)
        for extra in self.losses:
            loss = loss + extra
        return loss

    def uses_sparse_sgd(self) -> bool:
        """True when ``train_step`` uses the analytic sparse update (see the module docstring).

        Needs: the TensorFlow backend, no distribution strategy, ``sparse_updates``, an
        ``hierarchical`` or ``negative`` output, float32 compute, no regularisation losses,
        both tables trainable, and a plain ``keras.optimizers.SGD`` (no momentum, clipping,
        weight decay, EMA, gradient accumulation or loss scaling). Otherwise Keras's
        automatic differentiation trains the model. Decided when ``fit`` first traces the
        train function: change ``sparse_updates`` before ``compile``.
        """
        opt = self.optimizer
        if not (self.sparse_updates and keras.config.backend() == "tensorflow" and opt is not None
                and self.output_kind in ("hierarchical", "negative")):
            return False
        import tensorflow as tf

        tables = (self.input_embedding.embeddings, self.output_layer.table)
        return (not tf.distribute.has_strategy() and type(opt) is keras.optimizers.SGD and opt.momentum == 0
                and opt.clipnorm is None and opt.clipvalue is None and opt.global_clipnorm is None
                and not opt.weight_decay and not opt.use_ema and not getattr(opt, "gradient_accumulation_steps", None)
                and getattr(opt, "loss_scale_factor", None) is None
                and self.compute_dtype == "float32" and not self.losses
                and all(layer.trainable for layer in (self.input_embedding, self.output_layer))
                and all(w.trainable for w in tables))

    def _input_rows(self, inputs):
        """``(hidden (B, d) float32, rows, weights)``: the input-vector rows and d(hidden)/d(row) weights."""
        raise NotImplementedError

    def train_step(self, *args):
        # JAX's train_step is (state, data), TensorFlow's and PyTorch's (data,): pass through unchanged
        if not self.uses_sparse_sgd():
            return super().train_step(*args)
        import tensorflow as tf  # only reached on the TensorFlow backend

        (data,) = args  # on TensorFlow
        x, _, _ = keras.utils.unpack_x_y_sample_weight(data)
        inputs, target, negatives = (None if v is None else ops.cast(v, "int32")
                                     for v in _unpack(x, self.output_kind))
        hidden, in_rows, in_weights = self._input_rows(inputs)
        loss, d_hidden, out_rows, d_out = self.output_layer.sgd_gradients(hidden, target, negatives)
        batch = ops.shape(target)[0]
        # the schedule's value at this step, divided by the batch size: fit minimises the batch mean
        rate = ops.cast(self.optimizer.learning_rate, "float32") / ops.cast(batch, "float32")
        # both updates use the gradients of the old values; repeated rows add up (scatter)
        self.output_layer.table.value.scatter_sub(tf.IndexedSlices(rate * d_out, out_rows))
        d_in = ops.reshape(ops.expand_dims(rate * d_hidden, 1) * ops.expand_dims(in_weights, -1),
                           (-1, self.embedding_dim))
        self.input_embedding.embeddings.value.scatter_sub(tf.IndexedSlices(d_in, ops.reshape(in_rows, (-1,))))
        self.optimizer.iterations.assign_add(1)
        self._loss_tracker.update_state(self.compute_loss(y_pred=loss), sample_weight=batch)
        return self.compute_metrics(x, None, loss)

    def word_vectors(self) -> np.ndarray:
        """The input vectors ``V``: numpy ``(vocabulary_size, embedding_dim)``."""
        return np.asarray(ops.convert_to_numpy(self.input_embedding.embeddings))

    def get_config(self):
        return {**super().get_config(), "vocabulary_size": self.vocabulary_size, "embedding_dim": self.embedding_dim,
                "output": self.output_kind, "counts": self.counts, "num_negatives": self.num_negatives,
                "seed": self.seed}


@keras.saving.register_keras_serializable(package="word2bert")
class SkipGram(_Word2VecModel):
    """Skip-gram: the centre word's input vector predicts one context word.

    Each (centre, context) pair is one example; the context words of a window are
    predicted independently of each other (the model's independence assumption).

    Args:
        vocabulary_size: ``|V|``.
        embedding_dim: vector length d.
        output: ``"softmax"``, ``"hierarchical"`` or ``"negative"``.
        counts: word counts (length ``|V|``), needed by ``hierarchical`` and ``negative``.
        num_negatives: K for ``negative``.
        seed: seed of the initialiser and the negative draws.

    Attributes:
        sparse_updates: set False (before ``compile``) to make ``fit`` use automatic
            differentiation even where the sparse SGD step applies (``uses_sparse_sgd``).
            Not saved with the model.

    Call arguments:
        inputs: tuple ``(centre, context)``, int ``(batch,)`` each; with
            ``output="negative"`` optionally ``(centre, context, negatives)`` with
            negatives int ``(batch, num_negatives)`` drawn outside the graph (the fast path
            of ``train_word2vec``: drawing them in the graph costs 2.5x the step time on CPU).

    Returns:
        float32 ``(batch,)``: the loss of each pair (nats); ``fit`` minimises its mean.

    Raises:
        ValueError: unknown ``output``; ``counts`` missing or of the wrong length.

    Example:
        >>> m = SkipGram(100, 16, "negative", counts=np.ones(100))
        >>> m.compile(keras.optimizers.SGD(1.0))
        >>> m.fit((centres, contexts), batch_size=1024, verbose=0)

    Reference: Mikolov et al. (2013a), section 3.2; (2013b), eq. 1-2.
    """

    def _input_rows(self, centre):
        hidden = ops.take(ops.cast(self.input_embedding.embeddings, "float32"), centre, axis=0)
        return hidden, ops.expand_dims(centre, -1), ops.ones_like(ops.expand_dims(centre, -1), "float32")

    def call(self, inputs):
        centre, context, negatives = _unpack(inputs, self.output_kind)
        if len(centre.shape) != 1 or len(context.shape) != 1:
            raise ValueError(f"SkipGram takes centre and context ids of shape (batch,), "
                             f"got {tuple(centre.shape)} and {tuple(context.shape)}")
        hidden = self.input_embedding(centre)
        if negatives is not None:
            return self.output_layer(hidden, context, negatives)
        return self.output_layer(hidden, context)


@keras.saving.register_keras_serializable(package="word2bert")
class CBOW(_Word2VecModel):
    """Continuous bag of words: the mean of the context's input vectors predicts the centre.

    The hidden vector is the mean of the context words' input vectors (gensim's
    ``cbow_mean=1``), and each context word's input vector gets word2vec.c's update: the
    whole gradient with respect to that mean (``syn0[c] += neu1e`` for every context word c),
    not 1/C of it. The sparse SGD step applies this directly; with automatic differentiation
    the mean is computed as ``sum + stop_gradient(mean - sum)``, whose value is the mean and
    whose gradient with respect to each row is the full one.

    Args:
        as ``SkipGram``, and
        pad_id: the id that fills empty context slots (masked out of the mean); no word may
            have it. Default 0, the ``<pad>`` of a vocabulary built with ``specials=("<pad>",)``.

    Call arguments:
        inputs: tuple ``(context, centre)``: int ``(batch, 2 * window_size)`` context ids,
            ``pad_id`` in empty slots, and int ``(batch,)``; optionally a third item, the
            negatives, as for ``SkipGram``.

    Returns:
        float32 ``(batch,)``: the loss of each example (nats).

    Raises:
        ValueError: as ``SkipGram``; ``pad_id`` outside the vocabulary, or the id of a real
            word (its count in ``counts`` is above 0).

    Example:
        >>> m = CBOW(100, 16, "hierarchical", counts=np.r_[0, np.ones(99)])
        >>> m((np.array([[3, 4, 0, 0]]), np.array([5])))   # (1,)

    Reference: Mikolov et al. (2013a), section 3.1; word2vec.c (``cbow`` branch of
    ``TrainModelThread``); gensim's ``cbow_mean=1``.
    """

    def __init__(self, vocabulary_size, embedding_dim, output="negative", counts=None, num_negatives=5, seed=None,
                 pad_id: int = 0, **kwargs):
        super().__init__(vocabulary_size, embedding_dim, output=output, counts=counts, num_negatives=num_negatives,
                         seed=seed, **kwargs)
        if isinstance(pad_id, bool) or int(pad_id) != pad_id or not 0 <= pad_id < self.vocabulary_size:
            raise ValueError(f"pad_id must be an id in [0, vocabulary_size={self.vocabulary_size}), got {pad_id!r}")
        self.pad_id = int(pad_id)
        if self.counts is not None and self.counts[self.pad_id] > 0:
            raise ValueError(
                f"pad_id {self.pad_id} is a real word (count {self.counts[self.pad_id]:g}): CBOW needs a padding id "
                "that no word has; build the vocabulary with a '<pad>' special first (specials=('<pad>',)) "
                "or pass the pad_id it uses")

    def get_config(self):
        return {**super().get_config(), "pad_id": self.pad_id}

    def _mask(self, context, dtype):
        return ops.cast(ops.not_equal(context, self.pad_id), dtype)

    def _input_rows(self, context):
        vectors = ops.take(ops.cast(self.input_embedding.embeddings, "float32"), context, axis=0)
        mask = self._mask(context, "float32")
        mean_weights = mask / ops.maximum(ops.sum(mask, axis=1, keepdims=True), 1.0)
        # the hidden vector is the mean; each row receives the whole gradient (weight 1), as in word2vec.c
        return ops.sum(vectors * ops.expand_dims(mean_weights, -1), axis=1), context, mask

    def call(self, inputs):
        context, centre, negatives = _unpack(inputs, self.output_kind)
        if len(context.shape) != 2 or len(centre.shape) != 1:
            raise ValueError(f"CBOW takes context ids of shape (batch, 2 * window_size) and centre ids of shape "
                             f"(batch,), got {tuple(context.shape)} and {tuple(centre.shape)}")
        vectors = self.input_embedding(context)  # (B, C, d)
        mask = self._mask(context, vectors.dtype)[..., None]
        total = ops.sum(vectors * mask, axis=1)
        mean = total / ops.maximum(ops.sum(mask, axis=1), 1.0)
        hidden = total + ops.stop_gradient(mean - total)  # value: the mean; gradient per row: the full one
        if negatives is not None:
            return self.output_layer(hidden, centre, negatives)
        return self.output_layer(hidden, centre)
