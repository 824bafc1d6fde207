"""BLEU against training time: a Keras callback that scores a translation model after every epoch and
stops training once a budget of training minutes is spent, so that two models can be compared at equal
minutes and at equal epochs (the clock counts training only, never the scoring or the validation loss).
"""
from __future__ import annotations

import time

import keras

from word2bert.metrics.bleu import corpus_bleu


class BleuCurve(keras.callbacks.Callback):
    """Validation BLEU after every epoch, against the training seconds spent; an optional time budget.

    The clock runs from the start of ``fit`` and leaves out what is not training: the validation pass
    of ``fit`` (between ``on_test_begin`` and ``on_test_end``) and the scoring done here. With
    ``minutes`` set, training stops after the first batch that ends past the budget; Keras still runs
    that epoch's validation and ``on_epoch_end``, so the last point is scored at the budget, part-way
    through an epoch (its ``epochs`` value is then fractional).

    Args:
        translate: a function of no argument returning one hypothesis string per reference.
        references: as ``corpus_bleu``'s (a string or a list of strings per hypothesis).
        minutes: the training budget (None: train every epoch ``fit`` was given).
        verbose: print one line per point.

    Attributes:
        points: list of dicts ``{"epochs": float, "minutes": float, "bleu": float}``, one per epoch.
        spent: training seconds so far.

    ``get_state`` / ``set_state`` hand over ``points`` and ``spent``, so that a training resumed by
    ``word2bert.training.resumable.resumable_fit`` keeps the curve and what the budget has spent before the interruption.

    Raises:
        ValueError: ``minutes`` not positive; no reference.
    """

    def __init__(self, translate, references, minutes: float | None = None, verbose: bool = True):
        super().__init__()
        if minutes is not None and not minutes > 0:
            raise ValueError(f"minutes must be > 0 or None, got {minutes}")
        if not len(references):
            raise ValueError("BleuCurve needs at least one reference")
        self.translate, self.references, self.minutes, self.verbose = translate, list(references), minutes, verbose
        self.points: list[dict] = []
        self.spent = 0.0

    def get_state(self) -> dict:
        """The curve so far, JSON-able: ``{"points": [...], "spent": seconds}``."""
        return {"points": [dict(p) for p in self.points], "spent": float(self.spent)}

    def set_state(self, state: dict) -> None:
        """Take back a state from ``get_state`` (ValueError: not one)."""
        if not isinstance(state, dict) or set(state) != {"points", "spent"}:
            raise ValueError(f"a BleuCurve state is a dict with 'points' and 'spent', got {state!r:.80}")
        self.points, self.spent = [dict(p) for p in state["points"]], float(state["spent"])

    def _tick(self):
        now = time.perf_counter()
        self.spent += now - self._since
        self._since = now

    def on_train_begin(self, logs=None):
        self._since, self._steps = time.perf_counter(), 0

    def on_epoch_begin(self, epoch, logs=None):
        self._steps = 0

    def on_train_batch_end(self, batch, logs=None):
        self._tick()
        self._steps = batch + 1
        if self.minutes is not None and self.spent >= 60 * self.minutes:
            self.model.stop_training = True

    def on_test_begin(self, logs=None):
        self._tick()

    def on_test_end(self, logs=None):
        self._since = time.perf_counter()          # the validation pass is not training time

    def on_epoch_end(self, epoch, logs=None):
        steps = (self.params or {}).get("steps") or self._steps or 1
        bleu = corpus_bleu(self.translate(), self.references)
        self.points.append({"epochs": round(epoch + min(1.0, self._steps / steps), 3),
                            "minutes": round(self.spent / 60, 3), "bleu": round(float(bleu), 2)})
        if self.verbose:
            p = self.points[-1]
            print(f"  after {p['epochs']:g} epochs, {p['minutes']:.2f} min of training: validation BLEU "
                  f"{p['bleu']:.2f} on {len(self.references)} verses")
        self._since = time.perf_counter()          # the scoring is not training time either
