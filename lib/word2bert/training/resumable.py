"""Training that survives an interruption: ``resumable_fit`` saves its state after every epoch and, run again
with the same folder, carries on from the last finished epoch instead of starting over.

Long trainings on a laptop meet closed lids, killed kernels and the end of a session. Keras ships
``keras.callbacks.BackupAndRestore`` for this; it writes the weights and then, separately, the epoch number, so a
kill between the two files leaves a pair that disagrees, and the order of the data in the epochs after a restart is
whatever the data pipeline draws afresh. ``resumable_fit`` keeps three promises instead:

* **atomic**: an epoch's state is one ``.weights.h5`` file (the model's weights, the optimizer's slots and step
  count) written under a temporary name and renamed into place, then a small JSON record (the epoch, the history so
  far and the random-number states of dropout, which ``save_weights`` leaves out) written the same way; the record
  is the commit. A
  file without its record, or a temporary file left by a kill, is ignored and removed on the next run.
* **the same run**: the data of epoch ``e`` are shuffled by a generator seeded with ``(seed, e)``, so an
  interrupted and resumed run sees exactly the batches an uninterrupted one sees, and (with the restored dropout
  state) reaches the same weights, up to float round-off.
* **says so**: a resumed run prints the epoch it resumes from when ``verbose`` is on, and returns it.

``EpochCheckpoint`` does the same for a plain ``fit`` that keeps its own data pipeline, and ``RunRecords`` for a
chapter of many short runs: each finished run's result is kept, so a rerun skips it.

Source: the idea of ``keras.callbacks.BackupAndRestore`` (Keras 3), with a commit record and per-epoch seeding.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import shutil
import time
from pathlib import Path

import keras
import numpy as np

from word2bert.utils.io import atomic_save, atomic_write

_RECORD = re.compile(r"^epoch_(\d{4,})\.json$")


def _state_files(directory: Path, epoch: int) -> tuple[Path, Path]:
    return directory / f"epoch_{epoch:04d}.weights.h5", directory / f"epoch_{epoch:04d}.json"


def last_finished_epoch(checkpoint_dir: str | os.PathLike) -> int:
    """The number of epochs a resumable run in ``checkpoint_dir`` has finished and committed (0: none).

    Args:
        checkpoint_dir: the folder ``resumable_fit`` writes to (it need not exist).

    Returns:
        int >= 0: the highest epoch whose record and weights file are both present.
    """
    directory = Path(checkpoint_dir)
    if not directory.is_dir():
        return 0
    done = [int(m.group(1)) for p in directory.iterdir() if (m := _RECORD.match(p.name))]
    done = [e for e in done if _state_files(directory, e)[0].is_file()]
    return max(done, default=0)


def _tidy(directory: Path, keep: int, best: int | None = None) -> None:
    """Remove temporary files, every epoch's files but ``keep`` (also weights written without a record) and every
    best-epoch weights file but ``best``'s."""
    for p in directory.iterdir():
        m = re.match(r"^epoch_(\d{4,})\.(weights\.h5|json)$", p.name)
        b = re.match(r"^best_epoch_(\d{4,})\.weights\.h5$", p.name)
        if p.name.startswith(".") or (m and int(m.group(1)) != keep) or (b and int(b.group(1)) != best):
            p.unlink(missing_ok=True)                                        # "." : a temporary file of atomic_save


def _best_epoch(values) -> int:
    """The 1-based epoch of the lowest value (the first of equal ones; NaN never counts as lower); 0: none."""
    best, best_epoch = float("inf"), 0
    for i, v in enumerate(values, 1):
        if v < best:
            best, best_epoch = v, i
    return best_epoch


def random_number_states(model: keras.Model) -> list:
    """The model's variables that ``get_weights`` and ``save_weights`` leave out: the states of its random-number
    generators (dropout's ``keras.random.SeedGenerator``), in the model's own order.

    Two models of one architecture list them in the same order, so copying them makes the second draw the same
    dropout masks as the first from then on (``Refitter.run`` does this to a reused model).

    Args:
        model: a built ``keras.Model``.

    Returns:
        list of ``keras.Variable`` (empty for a model without random layers).
    """
    saved = {id(v) for v in model.weights}
    return [v for v in model.variables if id(v) not in saved]


def _signature(model: keras.Model) -> list:
    return [list(v.shape) for v in model.weights]


def _load_state(model: keras.Model, directory: Path, epoch: int) -> dict:
    """Load epoch ``epoch``'s committed state into ``model`` (weights, optimizer, random-number states); return its
    record. ValueError: the state of a model with other weight shapes or other random-number states."""
    weights_path, record_path = _state_files(directory, epoch)
    if not model.optimizer.built:
        model.optimizer.build(model.trainable_variables)
    record = json.loads(record_path.read_text())
    if record.get("weights", _signature(model)) != _signature(model):
        raise ValueError(f"{directory} holds the state of another model (other weight shapes): delete "
                         f"that folder or use another checkpoint_dir")
    states = random_number_states(model)
    if len(states) != len(record["random_states"]):
        raise ValueError(f"{record_path} holds {len(record['random_states'])} random-number states, the model has "
                         f"{len(states)}: it was written by another model; use another checkpoint_dir")
    model.load_weights(weights_path)
    for variable, value in zip(states, record["random_states"]):
        variable.assign(np.asarray(value, dtype=variable.dtype))
    return record


def _save_state(model: keras.Model, directory: Path, epoch: int, record: dict) -> None:
    """Commit epoch ``epoch``'s state: the weights file, then the record (``record`` plus the epoch, the weight
    shapes and the random-number states), each written atomically; the record is the commit."""
    weights_path, record_path = _state_files(directory, epoch)
    atomic_save(model.save_weights, weights_path)
    states = [np.asarray(v).tolist() for v in random_number_states(model)]
    atomic_write(record_path, json.dumps({"epoch": epoch, **record, "weights": _signature(model),
                                          "random_states": states}, indent=1))


def resumable_fit(model: keras.Model, x, y=None, *, epochs: int, checkpoint_dir: str | os.PathLike,
                  batch_size: int = 32, seed: int = 0, shuffle: bool = True, validation_data=None, callbacks=(),
                  verbose: int = 0, keep: bool = True, patience: int | None = None,
                  monitor: str = "val_loss") -> dict:
    """``model.fit`` for ``epochs`` epochs, one at a time, saving after each; rerun, it resumes where it stopped.

    The model must be compiled (its optimizer, loss and metrics are the run's). Each epoch shuffles the training
    rows with ``numpy.random.default_rng((seed, epoch))`` (or keeps their order, ``shuffle=False``, or takes the
    epoch's rows from a function of the epoch) and calls ``fit`` for that epoch with ``shuffle=False``,
    so the batches depend only on the seed and the epoch, never on whether the run was interrupted. After the epoch,
    the model's weights and optimizer state go to ``checkpoint_dir/epoch_NNNN.weights.h5`` and the epoch, the
    history and dropout's random-number states to ``epoch_NNNN.json``, each atomically;
    the previous epoch's files are then removed. Called again with the same folder, the function loads the last
    committed epoch and trains only the remaining ones; with every epoch done, it only loads the final state.

    Args:
        model: a compiled, built ``keras.Model``.
        x: training inputs, an array or a dict of arrays, all with the same first dimension N (>= 1); or a
            function ``epoch -> (inputs, targets)`` giving each epoch its own rows (``epoch`` counts from 0), which
            are trained in the order given: for a run cut into rounds of a longer stream (then ``y`` is None); the
            inputs may be a ``keras.utils.PyDataset`` holding the epoch's batches (then the targets are None): its
            batches as they are when it is returned, each read once (its ``on_epoch_end`` is not called).
        y: training targets, an array (or dict) with first dimension N, or None.
        epochs: total epochs of the run (>= 1), counted over interruptions.
        checkpoint_dir: folder of the run's state (created if missing); one folder per run.
        batch_size: rows per step.
        seed: seeds the per-epoch shuffles (set ``keras.utils.set_random_seed`` yourself for the initial weights).
        shuffle: False keeps the rows in their order every epoch (a stateful model reading a stream in order).
        validation_data: passed to ``fit`` each epoch (a ``PyDataset`` is read as it is, the same batches every
            epoch: its ``on_epoch_end`` is not called).
        callbacks: Keras callbacks passed to each epoch's ``fit`` (they see one epoch per call, with its epoch
            index, so a learning-rate schedule by epoch carries on after a resume); one that sets
            ``model.stop_training`` ends the run after that epoch, for good (a rerun trains nothing more). Their
            ``on_train_begin`` runs every epoch, so one that keeps a state from there (``EarlyStopping``,
            ``ReduceLROnPlateau``) starts over each epoch: use ``patience`` for early stopping. A callback with
            the methods ``get_state()`` (returning a JSON-able value) and ``set_state(state)`` has its state saved
            in every epoch's record and given back on a resume, e.g. ``word2bert.metrics.BleuCurve``'s points and
            the training seconds its time budget has spent.
            The carried states of a stateful RNN are not saved: reset them at the start of each epoch.
        verbose: 0 silent; 1: ``fit``'s progress log; 2: one line per epoch (``epoch 2/4 - 107 s - loss 5.1507 -
            val_loss 5.1159``); with 1 or 2 also a line when the run resumes or stops early.
        patience: early stopping: stop once ``monitor`` has not been lower than its lowest value for ``patience``
            epochs, then load the weights of the epoch with the lowest value (as ``keras.callbacks.EarlyStopping``
            with ``restore_best_weights=True``, whose state a per-epoch ``fit`` could not keep); the best epoch's
            weights are saved beside the state, so a resume keeps them. None: every epoch runs, the last weights stay.
        monitor: the logged value early stopping watches (lower is better), e.g. ``"val_loss"``; a NaN is never
            lower, so a run whose every value is NaN keeps its last weights (``best_epoch`` 0).
        keep: False deletes the folder once every epoch is done (the model in memory holds the result; a rerun
            then trains afresh, as ``keras.callbacks.BackupAndRestore`` does); True keeps the final state, and a
            rerun only loads it.

    Returns:
        dict: ``history`` (metric name -> per-epoch list, over all epochs, resumed ones included),
        ``resumed_from`` (the epochs already finished when this call started; 0 for a fresh run) and ``seconds``
        (wall seconds of training, summed over every epoch of the run, those before a resume included); with
        ``patience``, also ``best_epoch`` (1-based: the epoch whose weights the model now holds) and ``stopped_early``.

    Raises:
        ValueError: ``epochs`` < 1; ``x`` empty or its arrays of different lengths (checked for every epoch when
            ``x`` is a function); the model not compiled or not built; a checkpoint folder that holds more finished
            epochs than ``epochs``, or the state of another model (weights of other shapes: delete the folder
            or use another one); a folder of a run with another ``seed``, ``shuffle``, ``patience`` or ``monitor``, or
            whose best epoch's weights are missing, or whose saved callback states are not as many as the callbacks
            with ``get_state`` now; ``patience`` < 1; a ``monitor`` that the training does not log; ``x`` a dataset
            (pass a function of the epoch instead).
    """
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    if getattr(model, "optimizer", None) is None or not getattr(model, "compiled", False):
        raise ValueError("resumable_fit needs a compiled model: call model.compile(...) first")
    if not model.built:
        raise ValueError("resumable_fit needs a built model: call it on a batch first")
    if patience is not None and patience < 1:
        raise ValueError(f"patience must be >= 1 or None, got {patience}")
    if isinstance(x, keras.utils.PyDataset) or type(x).__name__.endswith("Dataset"):
        raise ValueError(f"x is a {type(x).__name__}, whose batches resumable_fit cannot order by epoch: pass arrays, "
                         f"or a function of the epoch that returns the epoch's dataset, or use EpochCheckpoint")
    per_epoch = callable(x)
    if per_epoch and y is not None:
        raise ValueError("when x is a function of the epoch it returns the targets too: pass y=None")
    n = None if per_epoch else _rows(x, y)
    directory = Path(checkpoint_dir)
    directory.mkdir(parents=True, exist_ok=True)
    start = last_finished_epoch(directory)
    if start > epochs:
        raise ValueError(f"{directory} holds a run of {start} finished epochs, more than epochs={epochs}: "
                         f"use another checkpoint_dir or delete that folder")
    history: dict[str, list] = {}
    seconds, stopped = 0.0, False
    stateful = [c for c in callbacks if callable(getattr(c, "get_state", None))
                and callable(getattr(c, "set_state", None))]
    settings = {"seed": seed, "shuffle": bool(shuffle), "per_epoch": per_epoch, "patience": patience,
                "monitor": monitor if patience else None}
    if start:
        record = _load_state(model, directory, start)
        before = record.get("settings", settings)
        if before != settings:
            changed = {k: (before.get(k), v) for k, v in settings.items() if before.get(k) != v}
            raise ValueError(f"{directory} holds a run with other settings (was, now): {changed}; resume with the "
                             f"same ones, or delete that folder to start over")
        history, seconds, stopped = record["history"], record.get("seconds", 0.0), record.get("stopped", False)
        states = record.get("callback_states", [])
        if len(states) != len(stateful):
            raise ValueError(f"{directory} holds the states of {len(states)} callbacks with get_state, this run has "
                             f"{len(stateful)} ({[type(c).__name__ for c in stateful]}): resume with the same callbacks, "
                             f"or delete that folder to start over")
        for callback, state in zip(stateful, states):
            callback.set_state(state)
        if verbose:
            print(f"resumable_fit: resuming after epoch {start} of {epochs} (state in {directory})")
    best = _best_epoch(history.get(monitor, [])) if patience else None
    if best and not (directory / f"best_epoch_{best:04d}.weights.h5").is_file():
        raise ValueError(f"{directory} lacks the weights of its best epoch {best} (best_epoch_{best:04d}.weights.h5): "
                         f"delete that folder to start over")
    _tidy(directory, keep=start, best=best)
    # a validation dataset is read as it is, every epoch: Keras calls its on_epoch_end after each evaluation, and a
    # dataset that regroups its batches there would score each epoch (and early stopping) on another grouping
    valid = _OneEpoch(validation_data) if isinstance(validation_data, keras.utils.PyDataset) else validation_data
    for epoch in range(start, epochs if not stopped else start):
        if per_epoch:
            got = x(epoch)
            if not (isinstance(got, tuple) and len(got) == 2):
                raise ValueError(f"x(epoch) must return a pair (inputs, targets), got {type(got).__name__}")
            x_epoch, y_epoch = got
            if isinstance(x_epoch, keras.utils.PyDataset):
                if y_epoch is not None:
                    raise ValueError("x(epoch) gave a PyDataset, which holds its own targets: return (dataset, None)")
            else:
                _rows(x_epoch, y_epoch)
        elif shuffle:
            order = np.random.default_rng((seed, epoch)).permutation(n)
            take = lambda a: None if a is None else np.asarray(a)[order]
            x_epoch = keras.tree.map_structure(take, x)
            y_epoch = None if y is None else keras.tree.map_structure(take, y)
        else:
            x_epoch, y_epoch = x, y
        dataset = isinstance(x_epoch, keras.utils.PyDataset)
        only = _OnlyThisEpoch()          # fit is told the whole run's epochs (its log reads "Epoch 2/3"), runs one
        started = time.perf_counter()
        out = model.fit(_OneEpoch(x_epoch) if dataset else x_epoch, y_epoch, batch_size=None if dataset else batch_size,
                        epochs=epochs, initial_epoch=epoch, shuffle=False, validation_data=valid,
                        callbacks=[*callbacks, only], verbose=1 if verbose == 1 else 0)
        took = time.perf_counter() - started
        seconds += took
        for name, values in out.history.items():
            history.setdefault(name, []).extend(float(v) for v in values)
        if verbose == 2:
            print(f"epoch {epoch + 1}/{epochs} - {took:.0f} s - "
                  + " - ".join(f"{name} {values[-1]:.4f}" for name, values in out.history.items() if values))
        if patience:
            if monitor not in history:
                raise ValueError(f"monitor {monitor!r} is not among the logged values {sorted(history)}: pass "
                                 f"validation_data for a val_ value, or name one of those")
            best = _best_epoch(history[monitor])
            if best == epoch + 1:
                atomic_save(model.save_weights, directory / f"best_epoch_{best:04d}.weights.h5")
            stopped = epoch + 1 - best >= patience
        stopped = stopped or only.stopped_by_another          # a callback ended the run
        _save_state(model, directory, epoch + 1, {"of_epochs": epochs, "settings": settings, "seconds": seconds,
                                                  "stopped": stopped, "history": history,
                                                  "callback_states": [c.get_state() for c in stateful]})
        _tidy(directory, keep=epoch + 1, best=best)
        if stopped:
            if verbose:
                why = "a callback stopped it" if only.stopped_by_another else f"{monitor} not lower for {patience} epochs"
                print(f"resumable_fit: stopped after epoch {epoch + 1} ({why})")
            break
    info = {"history": history, "resumed_from": start, "seconds": seconds}
    if patience:
        if best:                                     # the weights of the best epoch (0: no value was ever finite)
            model.load_weights(directory / f"best_epoch_{best:04d}.weights.h5")
        info.update(best_epoch=best, stopped_early=stopped)
    if not keep:
        _remove(directory)
    return info


def _remove(directory: Path, records: str = "epoch_*.json") -> None:
    """Delete a state folder, its records (``records``, a glob) first: a kill during the removal leaves a folder
    that reads as empty."""
    for record in directory.glob(records):
        record.unlink(missing_ok=True)
    shutil.rmtree(directory, ignore_errors=True)


class _OnlyThisEpoch(keras.callbacks.Callback):
    """Last among a per-epoch ``fit``'s callbacks: ends the fit after its first epoch, noting whether another
    callback had already ended the run (``model.stop_training``)."""

    stopped_by_another = False

    def on_epoch_end(self, epoch, logs=None):
        self.stopped_by_another = bool(self.model.stop_training)
        self.model.stop_training = True


class _OneEpoch(keras.utils.PyDataset):
    """The batches a dataset holds now, for one epoch: its ``on_epoch_end`` is not called. (Keras's TensorFlow
    adapter reads two batches to learn their shapes, then calls ``on_epoch_end`` before the epoch goes on, so a
    dataset that reshuffles there would mix two epochs' batches.)"""

    def __init__(self, dataset):
        super().__init__()
        self.dataset = dataset

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, index):
        return self.dataset[index]


def _rows(x, y) -> int:
    """The common first dimension N >= 1 of the arrays in ``x`` and ``y`` (ValueError otherwise)."""
    arrays = [np.asarray(a) for a in keras.tree.flatten((x, y)) if a is not None]
    lengths = {len(a) for a in arrays}
    if not arrays or len(lengths) != 1 or 0 in lengths:
        raise ValueError(f"x and y must be non-empty arrays with one first dimension, got lengths {sorted(lengths)}")
    return lengths.pop()


class EpochCheckpoint(keras.callbacks.Callback):
    """The state of a plain ``model.fit`` saved after every epoch, for a training that keeps its own data pipeline.

    ``resumable_fit`` calls ``fit`` once per epoch with the epoch's data; some trainings cannot be cut so without
    changing their batches (a dataset that redraws its batches, or its masks, in ``on_epoch_end`` from a generator
    it keeps). This callback leaves the ``fit`` call as it is and writes the same atomic state as ``resumable_fit``
    (weights and optimizer, random-number states, the history and the training seconds, one record as the commit)
    at the end of every epoch::

        checkpoint = EpochCheckpoint(folder)
        done = checkpoint.restore(model)            # 0, or the epochs finished before (their state is loaded)
        model.fit(data, epochs=E, initial_epoch=done, callbacks=[checkpoint, ...])
        checkpoint.history, checkpoint.seconds     # every epoch's logs and seconds, those before a resume included
        checkpoint.clear()                          # once the training is done

    What a resume cannot restore is the data pipeline's own state: after a resume the batches come from a dataset
    built afresh (advance it yourself to come close), so a resumed run ends near, not exactly at, the weights of
    an uninterrupted one. Put it first in ``callbacks``, so that later callbacks see its ``seconds`` up to date.
    Other callbacks start afresh after a resume (``EarlyStopping`` forgets its best epoch); ``stopped`` says that a
    callback ended the run (``model.stop_training``) before the resume, so the caller need not fit again.

    Args:
        checkpoint_dir: the training's folder (created if missing); one per training.

    Raises:
        ValueError (``restore``): the folder holds the state of a model with other weight shapes.
    """

    def __init__(self, checkpoint_dir: str | os.PathLike):
        super().__init__()
        self.directory = Path(checkpoint_dir)
        self.history: dict[str, list] = {}
        self.seconds = 0.0
        self.stopped = False
        self._started, self._last = None, 0

    def restore(self, model: keras.Model) -> int:
        """Load the last committed epoch's state into ``model`` (compiled and built); return the epochs finished."""
        self.directory.mkdir(parents=True, exist_ok=True)
        done = last_finished_epoch(self.directory)
        if done:
            record = _load_state(model, self.directory, done)
            self.history, self.seconds = record["history"], record.get("seconds", 0.0)
            self.stopped = record.get("stopped", False)
        _tidy(self.directory, keep=done)
        return done

    def on_epoch_begin(self, epoch, logs=None):
        self._started = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.seconds += time.perf_counter() - self._started
        for name, value in (logs or {}).items():
            self.history.setdefault(name, []).append(float(value))
        self.directory.mkdir(parents=True, exist_ok=True)
        _save_state(self.model, self.directory, epoch + 1, {"seconds": self.seconds, "stopped": False,
                                                            "history": self.history})
        _tidy(self.directory, keep=epoch + 1)
        self._last = epoch + 1

    def on_train_end(self, logs=None):
        # a callback after this one may have ended the run at the last epoch: mark its record (a rewrite of the JSON)
        if self.model.stop_training and self._last:
            self.stopped = True
            record_path = _state_files(self.directory, self._last)[1]
            atomic_write(record_path, json.dumps({**json.loads(record_path.read_text()), "stopped": True}, indent=1))

    def clear(self) -> None:
        """Delete the folder (the training is done; the model in memory holds its result)."""
        _remove(self.directory)


class RunRecords:
    """The results of finished runs, kept on disk, so that a rerun after an interruption skips them.

    A chapter made of many short runs (fine-tuning every encoder on every task, each for a few seconds to a few
    minutes) loses little to a kill mid-run but much to starting over. Here each run's result is one file under
    ``folder``, written atomically once the run is done; called again with the same key, ``run`` loads the result
    instead of computing it::

        records = RunRecords(folder, settings={"sizes": ..., "encoder": fingerprint})
        result = records.run(("ours", "finetuned", "pos"), lambda: expensive())   # computed once
        records.loaded                                                        # the keys read back from disk
        records.clear()                                                       # once every run is done

    The files are pickles, the folder's own cache: never load a folder from elsewhere. ``settings`` (JSON) says
    what the results depend on besides the key (sizes, the encoder's weights); a folder written under other
    settings is refused, never silently reused.

    Args:
        folder: the records' folder (created if missing); one per group of runs.
        settings: a JSON-able dict of everything the results depend on that the keys do not name.

    Raises:
        ValueError: ``folder`` holds records made under other settings (the message names the differences: delete
            the folder to start over); from ``run``, a key that is not a tuple of str, int and float, or a record
            file whose key is not the one asked for.
    """

    def __init__(self, folder: str | os.PathLike, settings: dict):
        self.directory = Path(folder)
        self.settings = json.loads(json.dumps(settings))            # as JSON reads it back (tuples become lists)
        self.loaded: list[tuple] = []
        self.directory.mkdir(parents=True, exist_ok=True)
        settings_path = self.directory / "settings.json"
        if settings_path.is_file():
            before = json.loads(settings_path.read_text())
            if before != self.settings:
                changed = sorted(k for k in set(before) | set(self.settings) if before.get(k) != self.settings.get(k))
                raise ValueError(f"{self.directory} holds the records of runs made under other settings (differing: "
                                 f"{changed}): delete that folder to start over")
        else:
            for stale in self.directory.glob("run_*.pkl"):                # records without settings: not ours
                stale.unlink()
            atomic_write(settings_path, json.dumps(self.settings, indent=1))

    def _path(self, key: tuple) -> Path:
        if not isinstance(key, tuple) or not key or not all(isinstance(k, (str, int, float)) for k in key):
            raise ValueError(f"a run's key must be a non-empty tuple of str, int and float, got {key!r}")
        readable = re.sub(r"[^A-Za-z0-9.-]+", "_", "-".join(str(k) for k in key))[:80]
        digest = hashlib.sha256(repr(key).encode()).hexdigest()[:10]
        return self.directory / f"run_{readable}_{digest}.pkl"

    def run(self, key: tuple, compute):
        """``compute()``'s result for ``key``: read from its record if a run before finished it, else computed
        now and recorded (atomically) before it is returned."""
        path = self._path(key)
        if path.is_file():
            saved = pickle.loads(path.read_bytes())
            if saved.get("key") != key:
                raise ValueError(f"{path} records the run {saved.get('key')!r}, not {key!r}: delete {self.directory}")
            self.loaded.append(key)
            return saved["value"]
        value = compute()
        atomic_write(path, pickle.dumps({"key": key, "value": value}))
        return value

    def clear(self) -> None:
        """Delete the folder (every run is done; the results are in memory)."""
        _remove(self.directory, records="run_*.pkl")
