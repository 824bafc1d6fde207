"""Token-weighted accuracy: the share of real target tokens predicted right, over a whole epoch.

A metric *function* handed to ``compile`` is averaged by Keras batch by batch (each batch weighted by
its number of rows), so with length-grouped batches (``word2bert.preprocessing.batching.LengthBatches``) a batch
of 64 two-token verses counts as much as a batch of 64 thirty-token verses. The epoch's share of
right tokens is instead

    accuracy = sum_batches sum_t w_t * [argmax logits_t == y_t]  /  sum_batches sum_t w_t

with ``w_t`` = 0 on padding (and the ``sample_weight`` where given): two sums accumulated over the
epoch and divided once, as ``Perplexity`` accumulates the token-weighted negative log-likelihood
(the token-weighted loss: ``log(perplexity)``).
"""
from __future__ import annotations

import keras
from keras import ops


def token_hits(y_true, y_pred, ignore_class: int | None = 0, sample_weight=None):
    """Per-token hits and weights of a batch: ``(hits * weights, weights)``, both float32 of ``y_true``'s shape.

    Args:
        y_true: int ``(batch, T)`` (any rank) target ids.
        y_pred: float ``y_true.shape + (V,)`` scores (logits or probabilities: only the arg-max is used).
        ignore_class: the id that never counts (padding, 0), or None.
        sample_weight: None or float weights broadcastable to ``y_true`` from the left (``(batch,)`` or ``(batch, T)``).

    Raises:
        ValueError: ``y_pred`` is not of rank ``y_true``'s + 1.
    """
    y_true, y_pred = ops.convert_to_tensor(y_true), ops.convert_to_tensor(y_pred)
    if len(y_pred.shape) != len(y_true.shape) + 1:
        raise ValueError(f"y_pred must have one more axis (the vocabulary) than y_true: got y_true of shape "
                         f"{tuple(y_true.shape)} and y_pred of shape {tuple(y_pred.shape)}")
    labels = ops.cast(y_true, "int32")
    hits = ops.cast(ops.equal(ops.cast(ops.argmax(y_pred, axis=-1), "int32"), labels), "float32")
    weights = ops.ones_like(hits)
    if ignore_class is not None:
        weights = weights * ops.cast(ops.not_equal(labels, ignore_class), "float32")
    if sample_weight is not None:
        sample_weight = ops.cast(sample_weight, "float32")
        while len(sample_weight.shape) < len(hits.shape):
            sample_weight = ops.expand_dims(sample_weight, -1)
        weights = weights * ops.broadcast_to(sample_weight, ops.shape(hits))
    return hits * weights, weights


@keras.saving.register_keras_serializable(package="word2bert")
class MaskedAccuracy(keras.metrics.Metric):
    """Share of real (non-padding) target tokens whose arg-max prediction is right, over all batches seen.

    Accumulates the weighted hits and the weight (the number of real tokens) of every batch and
    returns their ratio, so the epoch value is right tokens / real tokens of the whole epoch, not the
    mean of per-batch shares.

    Args:
        ignore_class: the target id that never counts (0: padding; None: every token counts).
        name: the metric's name (``fit``'s history keys ``masked_accuracy``, ``val_masked_accuracy``).
        dtype: as for any Keras metric (the accumulators are float32).

    Call arguments:
        y_true: int ``(batch, T)`` target ids, ``ignore_class`` on padding.
        y_pred: float ``(batch, T, V)`` logits or probabilities (any float dtype).
        sample_weight: optional float ``(batch,)`` or ``(batch, T)``, multiplied into the weights (compile the
            metric under ``weighted_metrics`` for ``fit`` to pass the data's weights).

    Returns:
        (``result``) a float32 scalar in [0, 1]; 0 before any real token was seen.

    Raises:
        ValueError: (``update_state``) ``y_pred`` is not of rank ``y_true``'s + 1.

    Example:
        >>> metric = MaskedAccuracy()
        >>> metric.update_state([[3, 0]], one_hot_logits)   # only the 3 counts
        >>> float(metric.result())

    Reference: tensor2tensor's ``padded_accuracy`` (hits and non-padding weights, averaged with the
    weights); Vaswani et al. (2017), section 5.1, batch by tokens (about 25,000 per batch), not sentences.
    """

    def __init__(self, ignore_class: int | None = 0, name: str = "masked_accuracy", dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.ignore_class = None if ignore_class is None else int(ignore_class)
        self.hits = self.add_variable(shape=(), initializer="zeros", name="hits", dtype="float32")
        self.count = self.add_variable(shape=(), initializer="zeros", name="count", dtype="float32")

    def update_state(self, y_true, y_pred, sample_weight=None):
        hits, weights = token_hits(y_true, y_pred, self.ignore_class, sample_weight)
        self.hits.assign_add(ops.sum(hits))
        self.count.assign_add(ops.sum(weights))

    def result(self):
        return ops.divide_no_nan(self.hits, self.count)

    def reset_state(self):
        self.hits.assign(0.0)
        self.count.assign(0.0)

    def get_config(self):
        return {**super().get_config(), "ignore_class": self.ignore_class}
