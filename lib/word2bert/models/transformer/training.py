"""How the Transformer is trained: label-smoothed cross-entropy over the real target tokens, the
learning-rate schedule of the paper (Vaswani et al. 2017, sections 5.3 and 5.4), and the accuracy over
the real target tokens (``MaskedAccuracy``, from ``word2bert.metrics``).
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.metrics.token_accuracy import MaskedAccuracy, token_hits  # noqa: F401 (MaskedAccuracy: named in a docstring)


@keras.saving.register_keras_serializable(package="word2bert")
class TransformerSchedule(keras.optimizers.schedules.LearningRateSchedule):
    """``lr(step) = scale * hidden_dim^-0.5 * min(step^-0.5, step * warmup_steps^-1.5)`` (eq. 3).

    The rate grows linearly for ``warmup_steps`` steps, peaks at ``scale / sqrt(hidden_dim *
    warmup_steps)`` and then decays like ``1 / sqrt(step)``. Steps count from 1 (Keras's optimizer
    counts from 0, so step 0 here is the paper's step 1).

    Args:
        hidden_dim: the model width.
        warmup_steps: 4000 in the paper.
        scale: a factor on the whole curve (1.0 in the paper).

    Raises:
        ValueError: ``hidden_dim`` or ``warmup_steps`` < 1, or ``scale`` <= 0.

    Example:
        >>> schedule = TransformerSchedule(hidden_dim=512, warmup_steps=4000)
        >>> float(schedule(3999))   # the peak, 7.0e-4

    Reference: Vaswani et al. (2017), section 5.3, eq. 3.
    """

    def __init__(self, hidden_dim: int, warmup_steps: int = 4000, scale: float = 1.0):
        if hidden_dim < 1 or warmup_steps < 1 or not scale > 0:
            raise ValueError(f"hidden_dim and warmup_steps must be >= 1 and scale > 0, got {hidden_dim}, {warmup_steps}, "
                             f"{scale}")
        self.hidden_dim, self.warmup_steps, self.scale = int(hidden_dim), int(warmup_steps), float(scale)

    def __call__(self, step):
        step = ops.cast(step, "float32") + 1.0
        return self.scale * self.hidden_dim ** -0.5 * ops.minimum(step ** -0.5, step * self.warmup_steps ** -1.5)

    def get_config(self):
        return {"hidden_dim": self.hidden_dim, "warmup_steps": self.warmup_steps, "scale": self.scale}


def warmup_inverse_sqrt(peak: float, warmup_steps: int, hidden_dim: int = 512) -> TransformerSchedule:
    """The paper's schedule rescaled so that it peaks at ``peak``: linear warm-up, then ``1 / sqrt(step)``.

    ``TransformerSchedule(hidden_dim, warmup_steps, scale)`` with ``scale = peak * sqrt(hidden_dim * warmup_steps)``;
    the curve no longer depends on ``hidden_dim``, which only names the scale. Lets the warm-up be sized to the
    steps a run can afford while the peak is chosen on its own.

    Raises:
        ValueError: ``peak`` <= 0 or ``warmup_steps`` < 1.

    Example:
        >>> float(warmup_inverse_sqrt(1e-3, 100)(99))   # the peak, 1e-3 at step 100
    """
    if not peak > 0 or warmup_steps < 1:
        raise ValueError(f"peak must be > 0 and warmup_steps >= 1, got {peak}, {warmup_steps}")
    return TransformerSchedule(hidden_dim, warmup_steps, peak * (hidden_dim * warmup_steps) ** 0.5)


def _token_losses(y_true, y_pred, label_smoothing: float):
    """Per-token smoothed cross-entropy ``(batch, T)`` float32 and the mask of real tokens."""
    logits = ops.cast(y_pred, "float32")
    labels = ops.cast(y_true, "int32")
    log_probs = ops.log_softmax(logits, axis=-1)
    picked = ops.take_along_axis(log_probs, labels[..., None], axis=-1)[..., 0]
    # the target distribution: 1 - eps on the right token, eps spread uniformly over all V tokens
    losses = -(1.0 - label_smoothing) * picked - label_smoothing * ops.mean(log_probs, axis=-1)
    return losses, ops.cast(ops.not_equal(labels, 0), "float32")


@keras.saving.register_keras_serializable(package="word2bert")
class MaskedCrossEntropy(keras.losses.Loss):
    """Cross-entropy from logits with label smoothing, averaged over the real (non-pad) target tokens.

    The smoothed target puts ``1 - label_smoothing`` on the right token and spreads
    ``label_smoothing`` uniformly over the whole vocabulary (Szegedy et al. 2016; the paper's
    ``eps_ls = 0.1``). Id 0 (padding) contributes nothing, and the batch's loss is the sum over
    real tokens divided by their number, so a batch of short sentences is not down-weighted.

    Args:
        label_smoothing: in [0, 1).
        name: loss name.

    Call arguments:
        y_true: int ``(batch, T)`` target ids, 0 = padding.
        y_pred: float ``(batch, T, V)`` logits (any float dtype; computed in float32).

    Returns:
        a float32 scalar. A batch without a real token gives 0.

    Raises:
        ValueError: ``label_smoothing`` outside [0, 1).

    Reference: Vaswani et al. (2017), section 5.4; Szegedy et al. (2016), section 7.
    """

    def __init__(self, label_smoothing: float = 0.1, name: str = "masked_cross_entropy", **kwargs):
        if not 0 <= label_smoothing < 1:
            raise ValueError(f"label_smoothing must be in [0, 1), got {label_smoothing}")
        kwargs.pop("reduction", None)
        super().__init__(name=name, reduction="sum", **kwargs)
        self.label_smoothing = float(label_smoothing)

    def call(self, y_true, y_pred):
        losses, real = _token_losses(y_true, y_pred, self.label_smoothing)
        return losses * real / ops.maximum(ops.sum(real), 1.0)

    def get_config(self):
        return {"name": self.name, "label_smoothing": self.label_smoothing}


@keras.saving.register_keras_serializable(package="word2bert")
def masked_accuracy(y_true, y_pred):
    """Share of real (non-pad) target tokens of ONE batch whose arg-max prediction is right: a float32 scalar.

    ``y_true`` int ``(batch, T)`` (0 = padding), ``y_pred`` float ``(batch, T, V)``; 0 for a batch without a
    real token. For ``compile`` use ``MaskedAccuracy`` (``word2bert.metrics``): Keras averages a metric
    function's per-batch values, which is not the share of real tokens when batches hold different numbers
    of them (``LengthBatches``). Kept for one-batch use and for models saved with it.

    Raises:
        ValueError: ``y_pred`` is not of rank ``y_true``'s + 1.
    """
    hits, real = token_hits(y_true, y_pred, ignore_class=0)
    return ops.sum(hits) / ops.maximum(ops.sum(real), 1.0)
