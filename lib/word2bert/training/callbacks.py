"""Training callbacks the course shares.

``TimeBudget`` ends a ``fit`` after a number of seconds: the way chapter 12 gives three different models
the same CPU minutes of pretraining (each then takes as many optimiser steps as its speed allows).
"""
from __future__ import annotations

import time

import keras


class TimeBudget(keras.callbacks.Callback):
    """Stop training at the end of the first batch that finishes after ``seconds`` of training.

    The clock starts when the first batch ends (that batch traces and compiles the training step, which
    is not training and differs from model to model) and counts the rest of the ``fit``, validation at the
    end of an epoch included; the batch that crosses the budget is completed, so a run overshoots by at
    most one step (and one validation pass). After ``fit``, ``steps`` holds the batches taken (the first
    one included) and ``seconds`` the seconds counted.

    Args:
        seconds: the budget (> 0).
        clock: a function returning seconds (default ``time.perf_counter``; a test passes a fake one).

    Raises:
        ValueError: ``seconds`` <= 0.
    """

    def __init__(self, seconds: float, clock=time.perf_counter):
        super().__init__()
        if not seconds > 0:
            raise ValueError(f"seconds must be > 0, got {seconds}")
        self.budget, self.clock = float(seconds), clock
        self.steps, self.seconds, self._start = 0, 0.0, None

    def on_train_begin(self, logs=None):
        self._start, self.steps, self.seconds = None, 0, 0.0

    def on_train_batch_end(self, batch, logs=None):
        self.steps += 1
        if self._start is None:                  # the first batch compiled the step: start counting now
            self._start = self.clock()
            return
        self.seconds = self.clock() - self._start
        if self.seconds >= self.budget:
            self.model.stop_training = True
