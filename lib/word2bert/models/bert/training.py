"""What masked-LM pretraining measures: the cross-entropy and the accuracy over the chosen
positions only, each divided by the number of chosen positions.

A batch holds ``P`` prediction slots per sequence, and short sequences fill fewer of them; the
padded slots carry weight 0. Keras's default reduction (``sum_over_batch_size``) would divide the
weighted sum by ``batch * P``, every slot counted, and so shrink the loss of a batch of short
sentences. Here, as in google-research/bert's ``get_masked_lm_output``:

    loss = sum_p w_p * CE(y_p, logits_p) / sum_p w_p
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.metrics.token_accuracy import MaskedAccuracy


@keras.saving.register_keras_serializable(package="word2bert")
class MaskedLMLoss(keras.losses.Loss):
    """Sparse cross-entropy from logits, weighted by ``sample_weight`` and divided by the sum of the weights.

    Args:
        name: loss name. (The reduction is always this weighted mean; a ``reduction`` argument is ignored.)

    Call arguments:
        y_true: int ``(batch, P)`` original token ids at the chosen positions (any value on padded slots).
        y_pred: float ``(batch, P, V)`` logits (computed in float32).
        sample_weight: float ``(batch, P)``: 1 on chosen positions, 0 on padded slots (``mask_tokens``'s
            ``weights``; ``fit`` passes it from the data's third element). None: every slot counts.

    Returns:
        a float32 scalar ``sum(ce * w) / sum(w)``; 0 when every weight is 0.

    Example:
        >>> MaskedLMLoss()(labels, logits, sample_weight=weights)

    Reference: google-research/bert ``run_pretraining.py``, ``get_masked_lm_output``
    (``numerator / denominator`` over ``label_weights``).
    """

    def __init__(self, name: str = "masked_lm_loss", **kwargs):
        kwargs.pop("reduction", None)
        super().__init__(name=name, reduction="mean_with_sample_weight", **kwargs)

    def call(self, y_true, y_pred):
        return keras.losses.sparse_categorical_crossentropy(ops.cast(y_true, "int32"), ops.cast(y_pred, "float32"),
                                                            from_logits=True)

    def get_config(self):
        return {"name": self.name}


@keras.saving.register_keras_serializable(package="word2bert")
class MaskedLMAccuracy(MaskedAccuracy):
    """Share of chosen positions whose arg-max prediction is the original token, weighted as ``MaskedLMLoss``.

    ``word2bert.metrics.MaskedAccuracy`` with no ignored class: every slot counts by its weight.
    Accumulates ``sum(hit * w)`` and ``sum(w)`` over the batches of an epoch and returns their ratio,
    so padded slots (w = 0) never count. Compile it under ``weighted_metrics`` so that ``fit`` passes
    the weights.

    Call arguments:
        y_true: int ``(batch, P)``; y_pred: float ``(batch, P, V)``; sample_weight: float ``(batch, P)``
        (None: every slot counts).

    Returns:
        (``result``) a float32 scalar in [0, 1]; 0 before any weight was seen.
    """

    def __init__(self, name: str = "accuracy", **kwargs):
        kwargs.pop("ignore_class", None)
        super().__init__(ignore_class=None, name=name, **kwargs)

    def get_config(self):
        config = super().get_config()
        config.pop("ignore_class", None)
        return config
