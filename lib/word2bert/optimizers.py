"""Learning-rate schedules and optimizer set-ups the models share.

- ``warmup_cosine_decay``: a linear warm-up from 0 to a peak, then a cosine decay (BERT's pretraining and
  fine-tuning, GPT): Keras's own ``CosineDecay`` with its warm-up, configured in one place.
- ``ResettableWarmupCosine``: the same curve with its three numbers held in variables, so that one traced training
  step serves many runs of different lengths and peaks (``word2bert.models.bert.Refitter``).
- ``adamw``: AdamW with BERT's exclusions (no weight decay on LayerNorm scales and offsets, nor on biases).

The Transformer's inverse-square-root schedule is ``word2bert.models.transformer.TransformerSchedule``, and Zaremba's
SGD is ``word2bert.models.lm.zaremba_sgd``: each belongs to one model family.
"""
from __future__ import annotations

import math

import keras
from keras import ops


def warmup_cosine_decay(peak: float, total_steps: int, warmup_steps: int, alpha: float = 0.0):
    """A linear warm-up from 0 to ``peak`` over ``warmup_steps``, then a cosine decay to ``alpha * peak`` at
    ``total_steps`` (constant after it).

    Args:
        peak: the highest learning rate (> 0).
        total_steps: optimizer steps of the whole run, warm-up included (>= 1).
        warmup_steps: steps of the warm-up, in ``[0, total_steps)``; 0 starts the decay at ``peak``.
        alpha: the final rate as a share of ``peak`` (0 decays to zero).

    Returns:
        ``keras.optimizers.schedules.CosineDecay``: step -> float32 learning rate.

    Raises:
        ValueError: ``peak`` <= 0, ``total_steps`` < 1, ``warmup_steps`` outside ``[0, total_steps)``, ``alpha``
            outside [0, 1].

    Source: Devlin et al. (2019) warm up linearly and decay linearly; the cosine decay is Loshchilov & Hutter
    (2017), SGDR, as Keras's ``CosineDecay`` computes it.
    """
    if not peak > 0 or total_steps < 1 or not 0 <= warmup_steps < total_steps or not 0 <= alpha <= 1:
        raise ValueError(f"need peak > 0, total_steps >= 1, 0 <= warmup_steps < total_steps and 0 <= alpha <= 1; "
                         f"got peak={peak}, total_steps={total_steps}, warmup_steps={warmup_steps}, alpha={alpha}")
    if warmup_steps == 0:
        return keras.optimizers.schedules.CosineDecay(peak, total_steps, alpha=alpha)
    return keras.optimizers.schedules.CosineDecay(0.0, total_steps - warmup_steps, alpha=alpha, warmup_target=peak,
                                                  warmup_steps=warmup_steps)


@keras.saving.register_keras_serializable(package="word2bert")
class ResettableWarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    """``warmup_cosine_decay(peak, warmup + decay, warmup)`` (decay to zero) with ``peak``, ``warmup`` and ``decay``
    held in non-trainable variables: ``set`` changes them without tracing the training step again, since a traced
    step reads variables at run time (a Python float would be baked into the trace).

    Call ``set(peak, warmup, decay)`` before each run. The rate at step ``s`` is ``peak * s / warmup`` for
    ``s < warmup``, then ``peak * (1 + cos(pi * min(s - warmup, decay) / decay)) / 2``.

    Raises:
        ValueError (from ``set``): ``peak`` <= 0, ``warmup`` < 0 or ``decay`` < 1.
    """

    def __init__(self, peak: float = 1e-3, warmup: int = 0, decay: int = 1):
        self.peak = keras.Variable(0.0, trainable=False, dtype="float32", name="peak_learning_rate")
        self.warmup = keras.Variable(0.0, trainable=False, dtype="float32", name="warmup_steps")
        self.decay = keras.Variable(1.0, trainable=False, dtype="float32", name="decay_steps")
        self.set(peak, warmup, decay)

    def set(self, peak: float, warmup: int, decay: int):
        if not peak > 0 or warmup < 0 or decay < 1:
            raise ValueError(f"need peak > 0, warmup >= 0 and decay >= 1, got {peak}, {warmup}, {decay}")
        self.peak.assign(float(peak))
        self.warmup.assign(float(warmup))
        self.decay.assign(float(decay))

    def __call__(self, step):
        step = ops.cast(step, "float32")
        warm = self.peak * step / ops.maximum(self.warmup, 1.0)
        t = ops.minimum(ops.maximum(step - self.warmup, 0.0), self.decay) / self.decay
        return ops.where(step < self.warmup, warm, 0.5 * self.peak * (1.0 + ops.cos(math.pi * t)))

    def get_config(self):
        return {"peak": float(self.peak.numpy()), "warmup": int(self.warmup.numpy()), "decay": int(self.decay.numpy())}


def adamw(learning_rate, weight_decay: float = 0.01, epsilon: float = 1e-6, **kwargs) -> keras.optimizers.AdamW:
    """AdamW with BERT's exclusions: no decoupled weight decay on LayerNorm scales and offsets (``gamma``,
    ``beta``) nor on biases.

    Args:
        learning_rate: a float or a schedule (``warmup_cosine_decay``).
        weight_decay: the decoupled decay (0.01 as BERT).
        epsilon: Adam's epsilon (1e-6 as BERT).
        **kwargs: other ``keras.optimizers.AdamW`` arguments (``beta_2``, ``clipnorm``, ...).

    Source: Loshchilov & Hutter (2019), decoupled weight decay; Devlin et al. (2019) for the exclusions.
    """
    optimizer = keras.optimizers.AdamW(learning_rate, weight_decay=weight_decay, epsilon=epsilon, **kwargs)
    optimizer.exclude_from_weight_decay(var_names=["gamma", "beta", "bias"])
    return optimizer
