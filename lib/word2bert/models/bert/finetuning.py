"""Fine-tuning recipe (Devlin et al. 2019, section 4 and appendix A.3): a fresh copy of the pretrained
backbone for every run, AdamW with a linear warm-up over the first steps and a decay to zero, a
few epochs, and the same architecture from random weights as the control.
"""
from __future__ import annotations

import math

import keras
import numpy as np

from word2bert.models.bert.model import BertBackbone
from word2bert.optimizers import ResettableWarmupCosine, adamw, warmup_cosine_decay
from word2bert.training.best import fit_keeping_best
from word2bert.training.resumable import random_number_states


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
    return adamw(warmup_cosine_decay(learning_rate, total_steps, warmup), weight_decay=weight_decay)


def steps_per_epoch(examples: int, batch_size: int) -> int:
    """``ceil(examples / batch_size)``: the batches ``fit`` runs per epoch."""
    return math.ceil(examples / batch_size)


def fine_tune(model: keras.Model, train, validation_data, loss, learning_rate: float, max_epochs: int,
              batch_size: int = 32, patience: int = 1, warmup_share: float = 0.1, metrics=None) -> dict:
    """Compile and train a task model the paper's way, with early stopping on the validation loss, silently.

    AdamW (``finetuning_optimizer``: warm-up, then cosine decay to zero at ``max_epochs``); after each epoch the
    validation loss is measured; training stops when it has not improved for ``patience`` epochs, and the weights of
    the epoch with the lowest validation loss are restored (also when all ``max_epochs`` ran).

    Args:
        model: an uncompiled (or to be recompiled) task model, e.g. ``BertClassifier``.
        train: ``(x, y)`` arrays (shuffled by ``fit`` in batches of ``batch_size``) or a ``keras.utils.PyDataset``
            of batches (``LengthBatches``), whose ``len`` is the batches per epoch.
        validation_data: ``(x, y)`` as ``fit`` takes it.
        loss: the Keras loss.
        learning_rate: the peak learning rate.
        max_epochs: at most this many passes over ``train``.
        batch_size: rows per batch for array input.
        patience: epochs without a lower validation loss before stopping (>= 1).
        warmup_share: share of the ``max_epochs`` steps spent warming up.
        metrics: Keras metrics to compile with (their training values at the kept epoch are returned).

    Returns:
        dict: ``{"epochs": epochs run, "best_epoch": the kept epoch (1-based), "val_loss": its validation loss,
        "train": {metric: value at the kept epoch} (training values, dropout on), "history": {metric: a value per
        epoch run} (``val_*`` included), "seconds": wall time}``.

    Raises:
        ValueError: ``max_epochs`` or ``patience`` < 1, or an empty ``train``; with ``SpanLoss``, array targets
            (of ``train`` or ``validation_data``) that ``check_span_targets`` refuses, e.g. on a padding position.
    """
    if max_epochs < 1 or patience < 1:
        raise ValueError(f"max_epochs and patience must be >= 1, got {max_epochs}, {patience}")
    batches = len(train) if isinstance(train, keras.utils.PyDataset) else steps_per_epoch(len(train[1]), batch_size)
    if batches < 1:
        raise ValueError("train holds no examples")
    from word2bert.models.bert.finetuning_data import check_span_targets
    from word2bert.models.bert.question_answerer import SpanLoss

    if isinstance(loss, SpanLoss):                       # the loss cannot raise inside fit: check the targets here
        for data in (train, validation_data):
            if isinstance(data, (tuple, list)) and len(data) == 2:
                check_span_targets(*data)
    model.compile(optimizer=finetuning_optimizer(learning_rate, max_epochs * batches, warmup_share), loss=loss,
                  metrics=metrics or [])
    return _fit_keeping_best(model, train, validation_data, max_epochs, batch_size, patience)


def _fit_keeping_best(model, train, validation_data, max_epochs, batch_size, patience) -> dict:
    """``fit_keeping_best`` on ``train`` (arrays or batches), as ``fine_tune``'s record."""
    x, y = (train, None) if isinstance(train, keras.utils.PyDataset) else train
    run = fit_keeping_best(model, x, y, epochs=max_epochs, validation_data=validation_data, patience=patience,
                           batch_size=None if y is None else batch_size)
    logs, best = run["history"], run["best_epoch"] - 1
    return {"epochs": run["epochs"], "best_epoch": run["best_epoch"], "val_loss": float(logs["val_loss"][best]),
            "train": {k: float(v[best]) for k, v in logs.items() if not k.startswith("val_")},
            "history": {k: [float(x) for x in v] for k, v in logs.items()}, "seconds": run["seconds"]}


class Refitter:
    """One task model compiled once and fine-tuned many times (other starting weights, learning rate, steps or seed
    each run), so that its training and prediction steps are traced once instead of once per run.

    Each ``run`` loads the given starting weights, zeroes the optimizer's state (moments and step count), sets the
    schedule (warm-up, then cosine decay to zero, as ``finetuning_optimizer``) and calls ``fine_tune``'s loop: the
    same result as a fresh model trained with ``fine_tune`` from the same weights. The reuse is on the TensorFlow
    backend, where a traced step reads the schedule's variables at run time; on other backends each run compiles
    again (the same numbers, traced anew).

    Args:
        model: the task model (e.g. ``BertClassifier``), built.
        loss: its Keras loss; ``metrics``: metrics to compile with.
        weight_decay: AdamW's decoupled decay, as ``finetuning_optimizer``.

    Use: ``refit = Refitter(model, loss)``; ``info = refit.run(fresh_model, train, validation_data, 1e-3,
    max_epochs=4)`` with ``fresh_model`` a model of the same architecture (a copy of the pretrained encoder with a
    new head, or a random one): its weights and the states of its random-number generators (dropout's) are copied,
    so the run draws the dropout masks that ``fresh_model`` would have drawn, whatever ran before on the reused
    model. ``refit.model`` then holds the kept epoch's weights.
    """

    def __init__(self, model: keras.Model, loss, metrics=None, weight_decay: float = 0.01):
        self.model, self.loss, self.metrics, self.weight_decay = model, loss, metrics or [], weight_decay
        self.schedule = ResettableWarmupCosine()
        self._compiled = False

    def _compile(self, learning_rate, total_steps, warmup_share):
        if keras.config.backend() == "tensorflow":
            warmup = int(warmup_share * total_steps)
            self.schedule.set(learning_rate, warmup, total_steps - warmup)
            if self._compiled:
                for variable in self.model.optimizer.variables:
                    variable.assign(np.zeros(variable.shape, variable.dtype))
                return
            optimizer = adamw(self.schedule, weight_decay=self.weight_decay)
        else:
            optimizer = finetuning_optimizer(learning_rate, total_steps, warmup_share, self.weight_decay)
        self.model.compile(optimizer=optimizer, loss=self.loss, metrics=list(self.metrics))
        self._compiled = True

    def run(self, weights, train, validation_data, learning_rate: float, max_epochs: int, batch_size: int = 32,
            patience: int = 1, warmup_share: float = 0.1) -> dict:
        """Fine-tune from ``weights``: a model of the same architecture (its weights and its random-number states
        are copied: the same run as ``fine_tune`` on that model), or a list as ``get_weights`` gives (then dropout
        goes on from the states the previous run left: the result depends on the runs before it). The other
        arguments and the returned record are ``fine_tune``'s.

        Raises:
            ValueError: as ``fine_tune``; ``weights`` that do not fit the model (Keras' message), or a model with
                another number of random-number generators.
        """
        if max_epochs < 1 or patience < 1:
            raise ValueError(f"max_epochs and patience must be >= 1, got {max_epochs}, {patience}")
        if learning_rate <= 0 or not 0 <= warmup_share < 1:
            raise ValueError(f"need learning_rate > 0 and 0 <= warmup_share < 1, got {learning_rate}, {warmup_share}")
        batches = len(train) if isinstance(train, keras.utils.PyDataset) else steps_per_epoch(len(train[1]), batch_size)
        if batches < 1:
            raise ValueError("train holds no examples")
        if isinstance(weights, keras.Model):
            source, target = random_number_states(weights), random_number_states(self.model)
            if len(source) != len(target):
                raise ValueError(f"the model given has {len(source)} random-number generators, the Refitter's model "
                                 f"{len(target)}: pass a model of the same architecture")
            for variable, value in zip(target, source):
                variable.assign(np.asarray(value))
            weights = weights.get_weights()
        self.model.set_weights(weights)
        self._compile(learning_rate, max_epochs * batches, warmup_share)
        return _fit_keeping_best(self.model, train, validation_data, max_epochs, batch_size, patience)
