"""``fit`` that ends on the weights of its best epoch: early stopping on a validation score, the best epoch's
weights restored (Keras's ``EarlyStopping(restore_best_weights=True)``), with a record of the run.

``word2bert.training.resumable.resumable_fit(..., patience=...)`` does the same one epoch at a time with its state
saved after each (a training that survives an interruption); this is the plain, in-memory form.
"""
from __future__ import annotations

import time

import keras
import numpy as np


def fit_keeping_best(model: keras.Model, x, y=None, *, epochs: int, validation_data, patience: int = 1,
                     batch_size: int | None = None, callbacks=(), verbose: int = 0, monitor: str = "val_loss") -> dict:
    """Train ``model`` (compiled) for at most ``epochs``, stop once ``monitor`` has not improved for ``patience``
    epochs, and end on the weights of the epoch where it was lowest.

    Args:
        model: a compiled ``keras.Model``.
        x, y: as ``fit`` takes them (arrays, a dict, or a ``keras.utils.PyDataset`` of batches with ``y`` None).
        epochs: the most epochs (>= 1).
        validation_data: as ``fit`` takes it; ``monitor`` is computed on it.
        patience: epochs without a lower ``monitor`` before stopping (>= 1).
        batch_size: rows per batch for array input (None: ``fit``'s default, or the dataset's batches).
        callbacks: more Keras callbacks, run after the early stopping.
        verbose: ``fit``'s verbosity.
        monitor: the logged value to minimise (``val_loss``).

    Returns:
        dict: ``{"history": {name: a value per epoch run}, "epochs": epochs run, "best_epoch": the kept epoch
        (1-based), "seconds": wall time of the fit}``.

    Raises:
        ValueError: ``epochs`` or ``patience`` < 1; ``monitor`` never logged (no validation data).
    """
    if epochs < 1 or patience < 1:
        raise ValueError(f"epochs and patience must be >= 1, got {epochs}, {patience}")
    keep = keras.callbacks.EarlyStopping(monitor, patience=patience, restore_best_weights=True)
    started = time.time()
    history = model.fit(x, y, batch_size=batch_size, validation_data=validation_data, epochs=epochs, verbose=verbose,
                        callbacks=[keep, *callbacks]).history
    seconds = time.time() - started
    if monitor not in history:
        raise ValueError(f"{monitor!r} was never logged (logged: {sorted(history)}): pass validation_data")
    return {"history": history, "epochs": len(history[monitor]), "best_epoch": int(np.argmin(history[monitor])) + 1,
            "seconds": seconds}
