"""Fine-tuning recipe (Devlin et al. 2019, section 4 and appendix A.3): a fresh copy of the pretrained
backbone for every run, AdamW with a linear warm-up over the first steps and a decay to zero, a
few epochs, and the same architecture from random weights as the control.
"""
from __future__ import annotations

import math

import keras

from word2bert.bert.model import BertBackbone


def copy_backbone(backbone: BertBackbone, pretrained: bool = True, seed: int | None = None) -> BertBackbone:
    """A new ``BertBackbone`` of the same configuration: with a copy of ``backbone``'s weights
    (``pretrained=True``, what every fine-tuning run starts from) or freshly initialised (``pretrained=False``:
    the "from scratch" control; ``seed`` seeds Python, NumPy and the backend first, which makes it repeatable).
    The copy is trainable whatever ``backbone.trainable`` is.

    Raises:
        ValueError: ``backbone`` is not a ``BertBackbone``.
    """
    if not isinstance(backbone, BertBackbone):
        raise ValueError(f"backbone must be a BertBackbone, got {type(backbone).__name__}")
    if seed is not None and not pretrained:
        keras.utils.set_random_seed(seed)
    config = backbone.get_config()
    config.pop("name", None)
    config["trainable"] = True          # a copy of a frozen backbone is not frozen: the task model decides
    fresh = BertBackbone.from_config(config)
    fresh.build()
    if pretrained:
        if not backbone.built:
            backbone.build()
        fresh.set_weights(backbone.get_weights())
    return fresh


def finetuning_optimizer(learning_rate: float, total_steps: int, warmup_share: float = 0.1,
                         weight_decay: float = 0.01) -> keras.optimizers.Optimizer:
    """AdamW with a linear warm-up to ``learning_rate`` over ``warmup_share`` of the steps, then a cosine
    decay to zero (the paper decays linearly; the shapes differ little over a few epochs).

    Args:
        learning_rate: the peak (the paper tries 5e-5, 3e-5, 2e-5 for BERT-Base; small models take more).
        total_steps: the number of optimiser steps of the whole run (epochs * batches per epoch).
        warmup_share: in [0, 1).
        weight_decay: AdamW's decoupled decay (0.01 as the paper), on every weight but the LayerNorm scales and
            offsets and the biases, as BERT's optimizer.

    Raises:
        ValueError: ``total_steps`` < 1, ``learning_rate`` <= 0 or ``warmup_share`` outside [0, 1).
    """
    if total_steps < 1 or learning_rate <= 0 or not 0 <= warmup_share < 1:
        raise ValueError(f"need total_steps >= 1, learning_rate > 0, 0 <= warmup_share < 1; got {total_steps}, "
                         f"{learning_rate}, {warmup_share}")
    warmup = int(warmup_share * total_steps)
    schedule = keras.optimizers.schedules.CosineDecay(0.0 if warmup else learning_rate, max(1, total_steps - warmup),
                                                      alpha=0.0, warmup_target=learning_rate if warmup else None,
                                                      warmup_steps=warmup)
    optimizer = keras.optimizers.AdamW(schedule, weight_decay=weight_decay, epsilon=1e-6)
    optimizer.exclude_from_weight_decay(var_names=["gamma", "beta", "bias"])   # LayerNorm and biases, as BERT
    return optimizer


def steps_per_epoch(examples: int, batch_size: int) -> int:
    """``ceil(examples / batch_size)``: the batches ``fit`` runs per epoch."""
    return math.ceil(examples / batch_size)
