"""Perplexity as a Keras metric: exp(mean negative log-likelihood per token).
"""
from __future__ import annotations

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="word2bert")
class Perplexity(keras.metrics.Metric):
    """exp(mean negative log-likelihood per token): the language-modelling metric.

    Args:
        from_logits: ``y_pred`` holds logits (True) or probabilities (False).
        mask_token_id: target id to ignore (padding), or None.
        name, dtype: as for any Keras metric.

    Call arguments:
        y_true: int targets, shape ``(batch,)`` or ``(batch, sequence_length)``.
        y_pred: float scores, shape ``y_true.shape + (vocabulary_size,)``.
        sample_weight: optional float weights broadcastable to ``y_true``.

    Returns (``result``):
        float32 scalar, >= 1. Unlike averaging per-batch perplexities, the mean is taken
        over all tokens seen, so it equals exp(mean cross-entropy) over the whole set. NaN
        when no real token was seen (all masked or weighted 0), as ``NGramLM.perplexity``
        refuses an empty corpus: a perplexity of 1.0 would look perfect.

    Reference: Jurafsky & Martin, SLP3 section 3.2.1.
    """

    def __init__(self, from_logits=True, mask_token_id=None, name="perplexity", dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.from_logits = from_logits
        self.mask_token_id = mask_token_id
        self.nll_sum = self.add_variable(shape=(), initializer="zeros", name="nll_sum")
        self.count = self.add_variable(shape=(), initializer="zeros", name="count")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.cast(y_true, "int32")
        y_pred = ops.cast(y_pred, "float32")
        nll = keras.losses.sparse_categorical_crossentropy(y_true, y_pred, from_logits=self.from_logits)
        weight = ops.ones_like(nll)
        if self.mask_token_id is not None:
            weight = weight * ops.cast(ops.not_equal(y_true, self.mask_token_id), "float32")
        if sample_weight is not None:
            weight = weight * ops.cast(sample_weight, "float32")
        self.nll_sum.assign_add(ops.sum(nll * weight))
        self.count.assign_add(ops.sum(weight))

    def result(self):
        # no real token seen (everything padded or weighted 0): undefined, NaN -- never a perfect-looking 1.0
        nan = ops.convert_to_tensor(float("nan"), dtype=self.nll_sum.dtype)
        return ops.where(ops.greater(self.count, 0.0), ops.exp(ops.divide_no_nan(self.nll_sum, self.count)), nan)

    def reset_state(self):
        self.nll_sum.assign(0.0)
        self.count.assign(0.0)

    def get_config(self):
        return {**super().get_config(), "from_logits": self.from_logits, "mask_token_id": self.mask_token_id}
