"""Training callbacks: one clock of training time and what builds on it.

``TimeBudget`` counts the seconds a ``fit`` spends training, leaving out validation and the work other callbacks do
at the end of an epoch, and stops the ``fit`` after the first batch that ends past a budget: the way two models are
compared at equal minutes (chapters 08 and 12). ``BleuCurve`` is a ``TimeBudget`` that also scores a translation
model after every epoch, so that its curve is validation BLEU against those same training minutes.
"""
from __future__ import annotations

import math
import time

import keras

from word2bert.metrics.bleu import corpus_bleu


class TimeBudget(keras.callbacks.Callback):
    """Count training seconds; stop at the end of the first batch that finishes past ``seconds`` of them.

    The clock runs from the start of ``fit`` (the first batch, which traces and compiles the training step, counts:
    it is part of what a training costs) and leaves out what is not training: the validation pass of ``fit``
    (between ``on_test_begin`` and ``on_test_end``) and the end of each epoch (this callback's ``on_epoch_end``
    restarts the clock after whatever ran before it, so put it after the callbacks whose work should not count).
    The batch that crosses the budget is completed, so a run overshoots by at most one step; Keras then still runs
    that epoch's validation and ``on_epoch_end``.

    Args:
        seconds: the budget (> 0), or None to count without stopping.
        clock: a function returning seconds (default ``time.perf_counter``; a test passes a fake one).

    Attributes:
        spent: training seconds counted so far (over every ``fit`` this callback has seen).
        steps: batches taken in the current epoch.

    ``get_state`` / ``set_state`` hand over ``spent``, so that a training resumed by
    ``word2bert.training.resumable.resumable_fit`` keeps what the budget spent before an interruption.

    Raises:
        ValueError: ``seconds`` not > 0 (and not None).
    """

    def __init__(self, seconds: float | None = None, clock=time.perf_counter):
        super().__init__()
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be > 0 or None, got {seconds}")
        self.budget = math.inf if seconds is None else float(seconds)
        self.clock, self.spent, self.steps, self._since = clock, 0.0, 0, None

    def get_state(self) -> dict:
        """What the clock has counted, JSON-able: ``{"spent": seconds}``."""
        return {"spent": float(self.spent)}

    def set_state(self, state: dict) -> None:
        """Take back a state from ``get_state`` (ValueError: not one)."""
        if not isinstance(state, dict) or set(state) != {"spent"}:
            raise ValueError(f"a TimeBudget state is a dict with 'spent', got {state!r:.80}")
        self.spent = float(state["spent"])

    def _tick(self):
        now = self.clock()
        self.spent += now - self._since
        self._since = now

    def on_train_begin(self, logs=None):
        self._since, self.steps = self.clock(), 0

    def on_epoch_begin(self, epoch, logs=None):
        self.steps = 0

    def on_train_batch_end(self, batch, logs=None):
        self._tick()
        self.steps = batch + 1
        if self.spent >= self.budget:
            self.model.stop_training = True

    def on_test_begin(self, logs=None):
        self._tick()

    def on_test_end(self, logs=None):
        self._since = self.clock()          # the validation pass is not training time

    def on_epoch_end(self, epoch, logs=None):
        self._since = self.clock()          # nor the end of an epoch


class BleuCurve(TimeBudget):
    """Validation BLEU after every epoch, against the training minutes spent (``TimeBudget``'s clock); an optional
    budget of minutes.

    With ``minutes`` set, training stops after the first batch that ends past the budget; the last point is then
    scored at the budget, part-way through an epoch (its ``epochs`` value is fractional). The scoring itself is not
    training time.

    Args:
        translate: a function of no argument returning one hypothesis string per reference.
        references: as ``word2bert.metrics.corpus_bleu``'s (a string or a list of strings per hypothesis).
        minutes: the training budget (None: train every epoch ``fit`` was given).
        verbose: print one line per point.

    Attributes:
        points: list of dicts ``{"epochs": float, "minutes": float, "bleu": float}``, one per epoch.
        spent: training seconds so far.

    ``get_state`` / ``set_state`` hand over ``points`` and ``spent``.

    Raises:
        ValueError: ``minutes`` not positive; no reference.
    """

    def __init__(self, translate, references, minutes: float | None = None, verbose: bool = True):
        if minutes is not None and not minutes > 0:
            raise ValueError(f"minutes must be > 0 or None, got {minutes}")
        if not len(references):
            raise ValueError("BleuCurve needs at least one reference")
        super().__init__(None if minutes is None else 60 * minutes)
        self.translate, self.references, self.minutes, self.verbose = translate, list(references), minutes, verbose
        self.points: list[dict] = []

    def get_state(self) -> dict:
        """The curve so far, JSON-able: ``{"points": [...], "spent": seconds}``."""
        return {"points": [dict(p) for p in self.points], "spent": float(self.spent)}

    def set_state(self, state: dict) -> None:
        """Take back a state from ``get_state`` (ValueError: not one)."""
        if not isinstance(state, dict) or set(state) != {"points", "spent"}:
            raise ValueError(f"a BleuCurve state is a dict with 'points' and 'spent', got {state!r:.80}")
        self.points, self.spent = [dict(p) for p in state["points"]], float(state["spent"])

    def on_epoch_end(self, epoch, logs=None):
        steps = (self.params or {}).get("steps") or self.steps or 1
        bleu = corpus_bleu(self.translate(), self.references)
        self.points.append({"epochs": round(epoch + min(1.0, self.steps / steps), 3),
                            "minutes": round(self.spent / 60, 3), "bleu": round(float(bleu), 2)})
        if self.verbose:
            p = self.points[-1]
            print(f"  after {p['epochs']:g} epochs, {p['minutes']:.2f} min of training: validation BLEU "
                  f"{p['bleu']:.2f} on {len(self.references)} verses")
        super().on_epoch_end(epoch, logs)    # the scoring is not training time either
