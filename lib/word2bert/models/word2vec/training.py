"""Training word2vec with one ``fit``: a dataset that redraws its examples every epoch.

``Word2VecDataset`` is a ``keras.utils.PyDataset``: at the start it draws one epoch of
examples (subsampling, word2vec.c's dynamic window, a shuffle, and for negative sampling the
negatives, drawn in numpy with an alias table) and at every epoch end it draws the next. The
number of steps is fixed by the first epoch (Keras needs one length): a later epoch whose draw
came out a little longer is cut, a shorter one is topped up from its own start, so every batch
is full and the compiled step keeps one shape. ``train_word2vec`` compiles the model with
word2vec's SGD schedule (or Adam) and calls ``fit`` once.
"""
from __future__ import annotations

import time

import keras
import numpy as np

from word2bert.models.word2vec.models import CBOW, SkipGram
from word2bert.models.word2vec.pairs import cbow_examples, skipgram_pairs
from word2bert.models.word2vec.sampling import alias_table, sample_negatives, subsample_keep_prob, unigram_probs


def _check_stream(ids, sentence_ids, vocabulary_size):
    ids, sentence_ids = np.asarray(ids), np.asarray(sentence_ids)
    if ids.ndim != 1 or ids.shape != sentence_ids.shape or ids.dtype.kind not in "iu" \
            or sentence_ids.dtype.kind not in "iu":
        raise ValueError(f"ids and sentence_ids must be 1-D integer arrays of equal length, got "
                         f"{ids.dtype} {ids.shape} and {sentence_ids.dtype} {sentence_ids.shape}")
    if len(ids) and (ids.min() < 0 or ids.max() >= vocabulary_size):
        raise ValueError(f"ids must lie in [0, vocabulary_size={vocabulary_size}), got [{ids.min()}, {ids.max()}]")
    return ids, sentence_ids


class Word2VecDataset(keras.utils.PyDataset):
    """Batches of skip-gram pairs or CBOW examples, redrawn at the end of every epoch.

    Args:
        ids, sentence_ids: the token stream and its sentence numbers (``encode_sentences``).
        architecture: ``"skipgram"`` (items ``(centre, context)``) or ``"cbow"`` (items
            ``(context (batch, 2 * window_size), centre)``).
        window_size: maximum context distance (dynamic window).
        batch_size: examples per batch (every batch is full).
        keep_prob: per-word keep probabilities of subsampling (``subsample_keep_prob``), or None.
        negative_probs: the noise distribution (``unigram_probs``) to draw ``num_negatives``
            negatives per example from (a third item, int32 ``(batch, num_negatives)``), or None.
        num_negatives: K, with ``negative_probs``.
        seed: seed of every draw (one ``numpy.random.Generator``).
        pad_id: CBOW's padding id (``CBOW.pad_id``); it must not occur in ``ids``.

    Attributes:
        num_batches: steps per epoch, fixed by the first epoch's draw.
        examples_per_epoch: ``num_batches * batch_size``.

    Returns (``__getitem__(i)``):
        a tuple of int32 arrays, batch ``i`` of the current epoch (the model's ``x``; no ``y``).

    Raises:
        ValueError: unknown architecture, ``batch_size`` or ``window_size`` < 1, malformed ids, or
            a corpus that gives no example.

    Reference: Mikolov et al. (2013a) section 3; (2013b) sections 2.2-2.3; word2vec.c.
    """

    def __init__(self, ids, sentence_ids, architecture: str, window_size: int, batch_size: int, keep_prob=None,
                 negative_probs=None, num_negatives: int = 5, seed: int = 0, pad_id: int = 0):
        super().__init__()
        if architecture not in ("skipgram", "cbow"):
            raise ValueError(f"architecture must be 'skipgram' or 'cbow', got {architecture!r}")
        if int(batch_size) < 1 or int(window_size) < 1:
            raise ValueError(f"batch_size and window_size must be >= 1, got {batch_size}, {window_size}")
        self.ids, self.sentence_ids = _check_stream(ids, sentence_ids, np.iinfo(np.int64).max)
        self.architecture, self.pad_id = architecture, int(pad_id)
        self.window_size, self.batch_size = int(window_size), int(batch_size)
        self.keep_prob, self.negative_probs, self.num_negatives = keep_prob, negative_probs, int(num_negatives)
        self.table = alias_table(negative_probs) if negative_probs is not None else None
        self.rng = np.random.default_rng(seed)
        self._steps = None
        self.epochs_drawn = 0
        self._draw()

    def _draw(self):
        if self.architecture == "skipgram":
            a, b = skipgram_pairs(self.ids, self.sentence_ids, self.window_size, self.rng, keep_prob=self.keep_prob)
        else:
            a, b = cbow_examples(self.ids, self.sentence_ids, self.window_size, self.rng, keep_prob=self.keep_prob,
                                 pad_id=self.pad_id)
        if len(b) == 0:
            raise ValueError("the corpus gave no training examples (sentences of one word, or everything subsampled)")
        if self._steps is None:
            self._steps = -(-len(b) // self.batch_size)
        n = self.num_batches * self.batch_size
        a, b = (np.resize(v, (n,) + v.shape[1:]).astype(np.int32) for v in (a, b))  # cut, or top up from the start
        self.arrays = (a, b) if self.negative_probs is None else (
            a, b, sample_negatives(self.negative_probs, (n, self.num_negatives), self.rng, self.table).astype(np.int32))
        self.epochs_drawn += 1

    @property
    def num_batches(self) -> int:
        return self._steps

    @property
    def examples_per_epoch(self) -> int:
        return self.num_batches * self.batch_size

    def __len__(self):
        return self.num_batches

    def __getitem__(self, index):
        if not 0 <= index < self.num_batches:
            raise IndexError(f"batch {index} outside [0, {self.num_batches})")
        lo = index * self.batch_size
        return (tuple(v[lo: lo + self.batch_size] for v in self.arrays),)

    def on_epoch_end(self):
        self._draw()


class _EpochClock(keras.callbacks.Callback):
    """Wall seconds per epoch; stops training with a FloatingPointError on a non-finite loss."""

    def __init__(self, learning_rate, batch_size):
        super().__init__()
        self.learning_rate, self.batch_size = learning_rate, batch_size
        self.seconds, self._start = [], None

    def on_train_begin(self, logs=None):
        self._start = time.time()

    def on_epoch_end(self, epoch, logs=None):
        now = time.time()
        self.seconds.append(now - self._start)
        self._start = now
        loss = (logs or {}).get("loss")
        if loss is not None and not np.isfinite(loss):
            raise FloatingPointError(
                f"training diverged in epoch {epoch + 1} (loss {loss}): lower learning_rate "
                f"(now {self.learning_rate}) or batch_size (now {self.batch_size})")


def train_word2vec(model, ids, sentence_ids, epochs: int = 5, window_size: int = 5, sample: float = 1e-3,
                   batch_size: int | None = None, learning_rate: float | None = None,
                   min_learning_rate: float = 1e-4, optimizer: str = "sgd", seed: int = 0, verbose: int = 0,
                   callbacks=None) -> dict:
    """Train a ``SkipGram`` or ``CBOW`` model with one ``fit`` over a ``Word2VecDataset``.

    The dataset redraws subsampling, dynamic windows, the shuffle and the negatives at every
    epoch (as word2vec.c does), so ``fit(epochs=epochs)`` sees a fresh epoch each time and
    its log, callbacks and ``History`` work as for any Keras model.

    ``optimizer="sgd"`` (default) is word2vec's own rule: plain SGD on the *summed*
    per-example loss (Keras SGD on the batch mean with ``learning_rate * batch_size``),
    decaying linearly from ``learning_rate`` to ``min_learning_rate`` over all steps,
    applied to a batch at once. On the TensorFlow backend this is the sparse SGD step of
    the module docstring, compiled with XLA; elsewhere Keras differentiates.

    ``optimizer="adam"`` is Keras Adam on the batch mean with a constant
    ``learning_rate`` (default 0.004). Adam scales each weight's step by the running RMS of
    its gradient, so a rare word's rows move about as far per update as a frequent word's,
    and a row summed over many examples of a batch does not take a giant step: on the
    Wikipedia sample + PTB (1.3M tokens, 3 epochs, sample 1e-4; chapter 03) skip-gram NS
    reached WordSim-353 0.45 / SimLex-999 0.18 (means over 3 seeds) against gensim's
    0.28 / 0.17 (our SGD: 0.30 / 0.13). It keeps two moments for every weight and updates
    whole tables each step (no sparse path): about 2x slower than the SGD step on CPU.

    Summing a batch's updates is where batch SGD differs from word2vec's one-pair-at-a-time
    SGD: a row used by many examples of one batch (a very frequent word; the root of the
    Huffman tree, which is on every path) gets all their updates at once. Measured on the
    Wikipedia sample + PTB (1.3M tokens, ``sample=1e-3``): negative sampling is stable at
    0.05 with 4096 examples a batch; hierarchical softmax diverged at 0.025 with 4096 and
    is stable with 2048 (hence the default batch sizes). A NaN loss stops training with a
    ``FloatingPointError``.

    Args:
        model: a ``SkipGram`` or ``CBOW``.
        ids, sentence_ids: from ``encode_sentences``.
        epochs: passes over the corpus (>= 1).
        window_size: maximum context distance.
        sample: subsampling threshold t (0: off), word2vec.c's formula, relative to
            ``sum(model.counts)``.
        batch_size: examples per step; default 2048 for hierarchical softmax, 4096 otherwise.
        learning_rate: SGD: the per-example step at the start (default 0.025; word2vec
            uses 0.025 for skip-gram, 0.05 for CBOW); Adam: its constant rate (default 0.004).
        min_learning_rate: SGD's step at the end (ignored by Adam).
        optimizer: ``"sgd"`` or ``"adam"``.
        seed: numpy seed of subsampling, windows, shuffling and negatives.
        verbose: passed to ``fit`` (2: one line per epoch).
        callbacks: list of Keras callbacks, passed to ``fit``.

    Returns:
        dict: ``loss`` (list, mean loss per epoch), ``examples`` (total), ``seconds``
        (wall time of example generation + fit, compilation included), ``epoch_seconds``
        (list: the same per epoch; the first includes compiling and the first draw),
        ``words_per_second`` (corpus tokens x epochs / seconds), ``history`` (the
        ``keras.callbacks.History`` of ``fit``).

    Raises:
        ValueError: ``epochs`` or ``batch_size`` < 1, a learning rate <= 0 (or a minimum
            above it), ``sample`` < 0, an unknown optimizer, a model that is neither
            SkipGram nor CBOW, ids that are not 1-D integers in ``[0, vocabulary_size)`` or
            differ in length from ``sentence_ids``, a corpus that gives no training example.
        FloatingPointError: the loss became NaN or infinite.
    """
    if optimizer not in ("sgd", "adam"):
        raise ValueError(f"optimizer must be 'sgd' or 'adam', got {optimizer!r}")
    if learning_rate is None:
        learning_rate = 0.025 if optimizer == "sgd" else 0.004
    if batch_size is None:
        batch_size = 2048 if getattr(model, "output_kind", None) == "hierarchical" else 4096
    for name, value in (("epochs", epochs), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if not learning_rate > 0 or (optimizer == "sgd" and not 0 <= min_learning_rate <= learning_rate):
        raise ValueError(f"need 0 <= min_learning_rate <= learning_rate and learning_rate > 0, "
                         f"got {min_learning_rate}, {learning_rate}")
    if not isinstance(model, (SkipGram, CBOW)):
        raise ValueError(f"model must be a SkipGram or CBOW, got {type(model).__name__}")
    if not sample >= 0:
        raise ValueError(f"sample must be >= 0, got {sample}")
    ids, sentence_ids = _check_stream(ids, sentence_ids, model.vocabulary_size)
    epochs = int(epochs)
    keep = None
    if sample > 0:
        counts = model.counts if model.counts is not None else np.bincount(ids, minlength=model.vocabulary_size)
        keep = subsample_keep_prob(counts, sample)
    started = time.time()
    data = Word2VecDataset(ids, sentence_ids, "skipgram" if isinstance(model, SkipGram) else "cbow", window_size,
                           batch_size, keep_prob=keep,
                           negative_probs=unigram_probs(model.counts) if model.output_kind == "negative" else None,
                           num_negatives=model.num_negatives, seed=seed, pad_id=getattr(model, "pad_id", 0))
    if optimizer == "sgd":
        schedule = keras.optimizers.schedules.PolynomialDecay(
            learning_rate * batch_size, max(data.num_batches * epochs, 1), min_learning_rate * batch_size)
        opt = keras.optimizers.SGD(schedule)
    else:
        opt = keras.optimizers.Adam(learning_rate)
    backend = keras.config.backend()
    model.compile(optimizer=opt,
                  steps_per_execution=1 if backend == "torch" else 16,  # PyTorch runs one step at a time
                  jit_compile=True if backend == "tensorflow" else "auto")  # XLA fuses the step: 2-3x on CPU
    clock = _EpochClock(learning_rate, batch_size)
    history = model.fit(data, epochs=epochs, shuffle=False, verbose=verbose, callbacks=[clock, *(callbacks or [])])
    seconds = time.time() - started
    losses = [float(v) for v in history.history["loss"]]
    return {"loss": losses, "examples": data.examples_per_epoch * len(losses), "seconds": seconds,
            "epoch_seconds": clock.seconds, "words_per_second": len(ids) * len(losses) / seconds, "history": history}
