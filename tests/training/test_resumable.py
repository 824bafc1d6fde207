"""``resumable_fit``: a training killed with SIGKILL mid-epoch resumes from its last finished epoch and ends
with the weights of an uninterrupted run of the same seed; no half-written file survives."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import keras
import numpy as np
import pytest

from interrupts import RaiseAt
from word2bert.training.resumable import EpochCheckpoint, RunRecords, last_finished_epoch, resumable_fit

# A small classifier with dropout 0.3 (so the random state of dropout matters) and Adam (so the optimizer's
# moments and step count matter); 4 epochs of 12 steps. argv: checkpoint folder, output .npz, and "stall" to hang
# in the middle of the third epoch (after printing STALLED) until the test kills the process.
SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np, keras
    from word2bert.training.resumable import resumable_fit
    folder, out, stall = sys.argv[1], sys.argv[2], len(sys.argv) > 3
    keras.utils.set_random_seed(7)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(192, 6)).astype("float32")
    y = (x[:, 0] + x[:, 1] * x[:, 2] > 0).astype("int32")
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dropout(0.3), keras.layers.Dense(2)])
    model.compile(keras.optimizers.Adam(1e-2), keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    class Stall(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.epoch = epoch
        def on_train_batch_end(self, batch, logs=None):
            if stall and self.epoch == 2 and batch == 5:
                print("STALLED", flush=True)
                time.sleep(600)

    info = resumable_fit(model, x, y, epochs=4, checkpoint_dir=folder, batch_size=16, seed=3, callbacks=[Stall()])
    np.savez(out, *[np.asarray(v) for v in model.weights], resumed_from=info["resumed_from"],
             loss=np.array(info["history"]["loss"]))
""")


def _run(tmp_path, folder, out, *extra):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "KERAS_BACKEND": keras.backend.backend()}
    return subprocess.Popen([sys.executable, "-c", SCRIPT, str(folder), str(out), *extra], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def _finish(process):
    assert process.wait(timeout=300) == 0


@pytest.mark.slow
@pytest.mark.jax_too
def test_a_run_killed_mid_epoch_resumes_and_ends_with_the_weights_of_an_uninterrupted_run(tmp_path):
    whole = _run(tmp_path, tmp_path / "whole", tmp_path / "whole.npz")
    killed = _run(tmp_path, tmp_path / "run", tmp_path / "never.npz", "stall")
    for line in killed.stdout:
        if "STALLED" in line:
            break
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=60)
    assert killed.returncode == -signal.SIGKILL
    # What the kill left: the state of epoch 2 (two epochs finished), complete and loadable; nothing else.
    left = sorted(p.name for p in (tmp_path / "run").iterdir() if not p.name.startswith("."))
    assert left == ["epoch_0002.json", "epoch_0002.weights.h5"]
    assert json.loads((tmp_path / "run" / "epoch_0002.json").read_text())["epoch"] == 2
    assert last_finished_epoch(tmp_path / "run") == 2
    assert not (tmp_path / "never.npz").exists()

    resumed = _run(tmp_path, tmp_path / "run", tmp_path / "resumed.npz")
    _finish(resumed)
    _finish(whole)
    a, b = np.load(tmp_path / "whole.npz"), np.load(tmp_path / "resumed.npz")
    assert int(a["resumed_from"]) == 0 and int(b["resumed_from"]) == 2
    assert len(b["loss"]) == 4                      # the history covers all four epochs, two of them from the record
    np.testing.assert_allclose(b["loss"], a["loss"], rtol=1e-5)
    weights = [k for k in a.files if k.startswith("arr_")]
    assert len(weights) == 4
    for k in weights:
        np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-6)
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["epoch_0004.json", "epoch_0004.weights.h5"]


def _model(dropout=0.3):
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dropout(dropout),
                              keras.layers.Dense(2)])
    model.compile(keras.optimizers.Adam(1e-2), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def test_a_finished_run_only_loads_and_stray_files_are_removed(tmp_path):
    x = np.random.default_rng(0).normal(size=(40, 3)).astype("float32")
    y = (x[:, 0] > 0).astype("int32")
    first = _model()
    info = resumable_fit(first, x, y, epochs=2, checkpoint_dir=tmp_path, batch_size=8)
    assert info["resumed_from"] == 0 and len(info["history"]["loss"]) == 2
    (tmp_path / ".epoch_0003.weights.x1y2.weights.h5").write_bytes(b"half")   # as a kill during a save leaves it
    (tmp_path / "epoch_0003.weights.h5").write_bytes(b"no record")        # weights whose record was never written
    second = _model()
    again = resumable_fit(second, x, y, epochs=2, checkpoint_dir=tmp_path, batch_size=8)
    assert again["resumed_from"] == 2 and again["history"] == info["history"]
    for u, v in zip(first.weights, second.weights):
        np.testing.assert_array_equal(np.asarray(u), np.asarray(v))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["epoch_0002.json", "epoch_0002.weights.h5"]


def test_bad_arguments_are_refused(tmp_path):
    x, y = np.zeros((4, 3), "float32"), np.zeros(4, "int32")
    with pytest.raises(ValueError, match="epochs must be >= 1"):
        resumable_fit(_model(), x, y, epochs=0, checkpoint_dir=tmp_path)
    with pytest.raises(ValueError, match="one first dimension"):
        resumable_fit(_model(), x, y[:3], epochs=1, checkpoint_dir=tmp_path)
    uncompiled = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="compiled"):
        resumable_fit(uncompiled, x, y, epochs=1, checkpoint_dir=tmp_path)
    resumable_fit(_model(), x, y, epochs=2, checkpoint_dir=tmp_path / "two")
    with pytest.raises(ValueError, match="2 finished epochs, more than epochs=1"):
        resumable_fit(_model(), x, y, epochs=1, checkpoint_dir=tmp_path / "two")


def _stream(n=48):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(n, 3)).astype("float32")
    return x, (x[:, 0] - x[:, 2] > 0).astype("int32")


def _halve_from_epoch_1(epoch, lr):
    return lr * 0.5 if epoch >= 1 else lr


def test_rows_in_order_with_an_epoch_schedule_match_plain_fit_and_a_resume_matches_both(tmp_path):
    # shuffle=False (a stateful stream) with a learning rate halved from epoch 1 on, as chapter 01's LSTM trains:
    # plain fit, one resumable run and a run stopped after 2 of 4 epochs then resumed all end with the same weights.
    x, y = _stream()
    plain = _model(dropout=0.0)
    plain.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0,
              callbacks=[keras.callbacks.LearningRateScheduler(_halve_from_epoch_1)])
    whole = _model(dropout=0.0)
    resumable_fit(whole, x, y, epochs=4, checkpoint_dir=tmp_path / "whole", batch_size=8, shuffle=False,
                  callbacks=[keras.callbacks.LearningRateScheduler(_halve_from_epoch_1)])
    cut = _model(dropout=0.0)
    first = resumable_fit(cut, x, y, epochs=2, checkpoint_dir=tmp_path / "cut", batch_size=8, shuffle=False,
                          callbacks=[keras.callbacks.LearningRateScheduler(_halve_from_epoch_1)])
    again = _model(dropout=0.0)
    info = resumable_fit(again, x, y, epochs=4, checkpoint_dir=tmp_path / "cut", batch_size=8, shuffle=False,
                         callbacks=[keras.callbacks.LearningRateScheduler(_halve_from_epoch_1)])
    assert info["resumed_from"] == 2 and len(info["history"]["loss"]) == 4
    assert info["seconds"] > first["seconds"] > 0      # the first two epochs' seconds are counted after the resume
    for p, w, a in zip(plain.weights, whole.weights, again.weights):
        np.testing.assert_allclose(np.asarray(w), np.asarray(p), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(a), np.asarray(p), rtol=1e-5, atol=1e-6)
    assert float(again.optimizer.learning_rate) == pytest.approx(1e-2 / 8)   # halved at epochs 1, 2 and 3


def test_rounds_of_a_stream_given_by_a_function_of_the_epoch(tmp_path):
    # x as a function of the epoch: three rounds of 16 rows of one ordered stream, trained in turn, equal one
    # epoch over the whole stream; keep=False removes the folder at the end.
    x, y = _stream()
    plain = _model(dropout=0.0)
    plain.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    calls = []

    def rounds(epoch):
        calls.append(epoch)
        return x[16 * epoch:16 * (epoch + 1)], y[16 * epoch:16 * (epoch + 1)]

    model = _model(dropout=0.0)
    info = resumable_fit(model, rounds, epochs=3, checkpoint_dir=tmp_path / "run", batch_size=8, keep=False)
    assert calls == [0, 1, 2] and len(info["history"]["loss"]) == 3
    for p, w in zip(plain.weights, model.weights):
        np.testing.assert_allclose(np.asarray(w), np.asarray(p), rtol=1e-5, atol=1e-6)
    assert not (tmp_path / "run").exists()
    with pytest.raises(ValueError, match="pass y=None"):
        resumable_fit(_model(), rounds, y, epochs=1, checkpoint_dir=tmp_path / "r2")
    with pytest.raises(ValueError, match="must return a pair"):
        resumable_fit(_model(), lambda e: x, epochs=1, checkpoint_dir=tmp_path / "r3")


def test_the_state_of_another_model_is_refused(tmp_path):
    x, y = _stream()
    resumable_fit(_model(), x, y, epochs=1, checkpoint_dir=tmp_path)
    keras.utils.set_random_seed(1)
    wider = keras.Sequential([keras.Input((3,)), keras.layers.Dense(5), keras.layers.Dropout(0.3),
                              keras.layers.Dense(2)])
    wider.compile(keras.optimizers.Adam(1e-2), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    with pytest.raises(ValueError, match="another model"):
        resumable_fit(wider, x, y, epochs=2, checkpoint_dir=tmp_path)


def _overfitting_data():
    # labels unrelated to the inputs: the training loss falls, the validation loss soon rises
    rng = np.random.default_rng(11)
    x, xv = rng.normal(size=(64, 3)).astype("float32"), rng.normal(size=(32, 3)).astype("float32")
    return x, rng.integers(0, 2, 64).astype("int32"), (xv, rng.integers(0, 2, 32).astype("int32"))


def test_early_stopping_matches_keras_and_a_resume_keeps_the_best_epoch(tmp_path):
    x, y, valid = _overfitting_data()
    reference = _model(dropout=0.0)
    stop = keras.callbacks.EarlyStopping("val_loss", patience=2, restore_best_weights=True)
    ran = len(reference.fit(x, y, batch_size=8, epochs=30, shuffle=False, validation_data=valid, verbose=0,
                            callbacks=[stop]).history["loss"])
    assert 3 <= ran < 30                                  # it did stop early, after a best epoch that was not the last
    whole = _model(dropout=0.0)
    info = resumable_fit(whole, x, y, epochs=30, checkpoint_dir=tmp_path / "whole", batch_size=8, shuffle=False,
                         validation_data=valid, patience=2)
    assert info["stopped_early"] and len(info["history"]["loss"]) == ran
    assert info["best_epoch"] == stop.best_epoch + 1 == ran - 2
    # interrupted after epoch 1, before the best epoch: the resumed run still stops at the same place
    first = _model(dropout=0.0)
    resumable_fit(first, x, y, epochs=1, checkpoint_dir=tmp_path / "cut", batch_size=8, shuffle=False,
                  validation_data=valid, patience=2)
    resumed = _model(dropout=0.0)
    again = resumable_fit(resumed, x, y, epochs=30, checkpoint_dir=tmp_path / "cut", batch_size=8, shuffle=False,
                          validation_data=valid, patience=2)
    assert again["resumed_from"] == 1 and again["best_epoch"] == info["best_epoch"]
    for r, w, a in zip(reference.weights, whole.weights, resumed.weights):
        np.testing.assert_allclose(np.asarray(w), np.asarray(r), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(a), np.asarray(r), rtol=1e-5, atol=1e-6)
    # a stopped run, called again, trains nothing and still hands back the best epoch's weights
    later = _model(dropout=0.0)
    done = resumable_fit(later, x, y, epochs=30, checkpoint_dir=tmp_path / "cut", batch_size=8, shuffle=False,
                         validation_data=valid, patience=2)
    assert done["resumed_from"] == ran and done["best_epoch"] == info["best_epoch"]
    for r, w in zip(reference.weights, later.weights):
        np.testing.assert_allclose(np.asarray(w), np.asarray(r), rtol=1e-5, atol=1e-6)
    assert sorted(p.name for p in (tmp_path / "cut").iterdir()) == [
        f"best_epoch_{info['best_epoch']:04d}.weights.h5", f"epoch_{ran:04d}.json", f"epoch_{ran:04d}.weights.h5"]
    with pytest.raises(ValueError, match="not among the logged values"):
        resumable_fit(_model(), x, y, epochs=1, checkpoint_dir=tmp_path / "m", patience=1)
    with pytest.raises(ValueError, match="patience must be >= 1"):
        resumable_fit(_model(), x, y, epochs=1, checkpoint_dir=tmp_path / "p", patience=0)


class _Reshuffled(keras.utils.PyDataset):
    """Batches of 4 rows of (x, y) in an order reshuffled by on_epoch_end; records the rows it hands out."""

    def __init__(self, x, y, seed, read):
        super().__init__()
        self.x, self.y, self.rng, self.read = x, y, np.random.default_rng(seed), read
        self.on_epoch_end()

    def on_epoch_end(self):
        self.order = self.rng.permutation(len(self.x))

    def __len__(self):
        return len(self.x) // 4

    def __getitem__(self, i):
        rows = self.order[4 * i:4 * (i + 1)]
        self.read.extend(rows.tolist())
        return self.x[rows], self.y[rows]


def test_a_dataset_per_epoch_is_read_whole_once_with_no_reshuffle_in_the_middle(tmp_path):
    # Keras's TensorFlow adapter calls on_epoch_end after reading a dataset's first two batches; resumable_fit must
    # not let that reshuffle mix two orders: every epoch reads each of the 24 rows exactly once.
    x, y = _stream(24)
    reads = []

    def epoch_data(epoch):
        reads.append([])
        return _Reshuffled(x, y, seed=epoch, read=reads[-1]), None

    resumable_fit(_model(), epoch_data, epochs=2, checkpoint_dir=tmp_path)
    assert len(reads) == 2
    for read in reads:     # (Keras reads the first batch or two once more, before the epoch, for their shapes)
        assert len(read) in (24, 28, 32) and sorted(read[-24:]) == list(range(24)), read
        assert read[:len(read) - 24] == read[-24:][:len(read) - 24]
    with pytest.raises(ValueError, match="holds its own targets"):
        resumable_fit(_model(), lambda e: (_Reshuffled(x, y, 0, []), y), epochs=1, checkpoint_dir=tmp_path / "t")


class _StopAfter(keras.callbacks.Callback):
    def __init__(self, epoch):
        super().__init__()
        self.last = epoch

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.last:
            self.model.stop_training = True


def test_a_callback_that_stops_training_ends_the_run_for_good(tmp_path):
    x, y = _stream()
    info = resumable_fit(_model(), x, y, epochs=5, checkpoint_dir=tmp_path, callbacks=[_StopAfter(1)])
    assert len(info["history"]["loss"]) == 2 and last_finished_epoch(tmp_path) == 2
    again = resumable_fit(_model(), x, y, epochs=5, checkpoint_dir=tmp_path)    # nothing left to train
    assert again["resumed_from"] == 2 and len(again["history"]["loss"]) == 2


def test_epoch_checkpoint_resumes_a_plain_fit_to_the_weights_of_an_uninterrupted_one(tmp_path):
    # dropout 0.3 and Adam: the random-number states and the optimizer's moments must come back too
    x, y = _stream()
    plain = _model()
    plain.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0)
    cut = _model()
    first = EpochCheckpoint(tmp_path / "run")
    assert first.restore(cut) == 0
    with pytest.raises(KeyboardInterrupt):
        cut.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0, callbacks=[first, RaiseAt(2)])
    assert last_finished_epoch(tmp_path / "run") == 2
    resumed = _model()
    second = EpochCheckpoint(tmp_path / "run")
    done = second.restore(resumed)
    assert done == 2 and len(second.history["loss"]) == 2 and second.seconds > 0
    resumed.fit(x, y, batch_size=8, epochs=4, initial_epoch=done, shuffle=False, verbose=0, callbacks=[second])
    assert len(second.history["loss"]) == 4 and second.seconds > first.seconds
    for p, r in zip(plain.weights, resumed.weights):
        np.testing.assert_allclose(np.asarray(r), np.asarray(p), rtol=1e-5, atol=1e-6)
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["epoch_0004.json", "epoch_0004.weights.h5"]
    second.clear()
    assert not (tmp_path / "run").exists()


def test_a_validation_dataset_keeps_its_batches_and_changed_settings_are_refused(tmp_path):
    x, y = _stream(24)
    valid = _Reshuffled(x, y, seed=9, read=[])
    order = valid.order.copy()
    resumable_fit(_model(), x, y, epochs=2, checkpoint_dir=tmp_path / "v", validation_data=valid, patience=3)
    np.testing.assert_array_equal(valid.order, order)         # never regrouped between epochs
    for changed in (dict(seed=1), dict(shuffle=False), dict(patience=2), dict(patience=None)):
        args = dict(epochs=3, checkpoint_dir=tmp_path / "v", validation_data=valid, patience=3) | changed
        with pytest.raises(ValueError, match="other settings"):
            resumable_fit(_model(), x, y, **args)
    for best in (tmp_path / "v").glob("best_epoch_*"):
        best.unlink()
    with pytest.raises(ValueError, match="lacks the weights of its best epoch"):
        resumable_fit(_model(), x, y, epochs=3, checkpoint_dir=tmp_path / "v", validation_data=valid, patience=3)
    with pytest.raises(ValueError, match="cannot order by epoch"):
        resumable_fit(_model(), valid, epochs=1, checkpoint_dir=tmp_path / "d")


def test_epoch_checkpoint_records_a_run_a_callback_stopped(tmp_path):
    x, y = _stream()
    model = _model()
    checkpoint = EpochCheckpoint(tmp_path)
    checkpoint.restore(model)
    model.fit(x, y, epochs=5, verbose=0, callbacks=[checkpoint, _StopAfter(1)])
    again = EpochCheckpoint(tmp_path)
    assert again.restore(_model()) == 2 and again.stopped and not EpochCheckpoint(tmp_path / "new").stopped


def test_the_log_counts_the_epochs_of_the_whole_run(tmp_path, capsys):
    x, y = _stream()
    info = resumable_fit(_model(), x, y, epochs=3, checkpoint_dir=tmp_path, verbose=2)
    lines = capsys.readouterr().out.splitlines()   # verbose=2: one line per epoch, nothing else
    assert [line.split(" - ")[0] for line in lines] == ["epoch 1/3", "epoch 2/3", "epoch 3/3"]
    assert [line.rsplit(" - loss ", 1)[1] for line in lines] == [f"{v:.4f}" for v in info["history"]["loss"]]
    assert len(info["history"]["loss"]) == 3 and last_finished_epoch(tmp_path) == 3
    resumable_fit(_model(), x, y, epochs=5, checkpoint_dir=tmp_path, verbose=2)   # resumed: the count goes on
    assert [line.split(" - ")[0] for line in capsys.readouterr().out.splitlines()] == [
        "resumable_fit: resuming after epoch 3 of 5 (state in " + str(tmp_path) + ")", "epoch 4/5", "epoch 5/5"]


class _Seen(keras.callbacks.Callback):
    """Notes every epoch it sees; its notes are its state (get_state / set_state)."""

    def __init__(self):
        super().__init__()
        self.epochs = []

    def on_epoch_end(self, epoch, logs=None):
        self.epochs.append(epoch)

    def get_state(self):
        return {"epochs": list(self.epochs)}

    def set_state(self, state):
        self.epochs = list(state["epochs"])


def test_a_callback_with_get_state_has_its_state_saved_and_given_back_on_a_resume(tmp_path):
    x, y = _stream()
    first = _Seen()
    with pytest.raises(KeyboardInterrupt):
        resumable_fit(_model(), x, y, epochs=4, checkpoint_dir=tmp_path, batch_size=8, callbacks=[first, RaiseAt(2)])
    assert first.epochs == [0, 1]
    second = _Seen()
    resumable_fit(_model(), x, y, epochs=4, checkpoint_dir=tmp_path, batch_size=8, callbacks=[second])
    assert second.epochs == [0, 1, 2, 3]                   # the two epochs before the interruption came back
    finished = _Seen()                                     # a rerun of the finished run only loads, state included
    resumable_fit(_model(), x, y, epochs=4, checkpoint_dir=tmp_path, batch_size=8, callbacks=[finished])
    assert finished.epochs == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="states of 1 callbacks with get_state, this run has 2"):
        resumable_fit(_model(), x, y, epochs=4, checkpoint_dir=tmp_path, batch_size=8, callbacks=[_Seen(), _Seen()])


def test_run_records_compute_each_run_once_and_a_rerun_reads_them_back(tmp_path):
    calls = []

    def compute(value):
        def go():
            calls.append(value)
            return {"score": value, "weights": [np.full(3, value, np.float32)]}
        return go

    settings = {"sizes": (600, 200), "encoder": "abc"}
    first = RunRecords(tmp_path / "runs", settings)
    assert first.run(("ours", "finetuned", 1e-3), compute(1.0))["score"] == 1.0
    assert first.run(("ours", "finetuned", 3e-3), compute(2.0))["score"] == 2.0
    (tmp_path / "runs" / ".run_half.pkl.x1").write_bytes(b"half")   # a kill during a write leaves such a file
    # the kernel dies; a rerun reads the finished runs back and computes only the new one
    second = RunRecords(tmp_path / "runs", settings)
    assert second.run(("ours", "finetuned", 1e-3), compute(9.0))["score"] == 1.0
    got = second.run(("ours", "finetuned", 3e-3), compute(9.0))
    assert got["score"] == 2.0 and got["weights"][0].tolist() == [2.0, 2.0, 2.0]
    assert second.run(("ours", "frozen", 1e-3), compute(3.0))["score"] == 3.0
    assert calls == [1.0, 2.0, 3.0]
    assert second.loaded == [("ours", "finetuned", 1e-3), ("ours", "finetuned", 3e-3)]
    # keys whose readable names agree are still told apart
    assert second.run(("a b",), compute(4.0))["score"] == 4.0 and second.run(("a_b",), compute(5.0))["score"] == 5.0
    with pytest.raises(ValueError, match=r"other settings \(differing: \['encoder'\]\)"):
        RunRecords(tmp_path / "runs", {"sizes": (600, 200), "encoder": "xyz"})
    with pytest.raises(ValueError, match="non-empty tuple of str, int and float"):
        second.run(["ours"], compute(0.0))
    # a record file under another key's name is refused, not read as that run's result
    a, b = second._path(("a b",)), second._path(("a_b",))
    a.replace(b)
    with pytest.raises(ValueError, match="records the run"):
        second.run(("a_b",), compute(0.0))
    second.clear()
    assert not (tmp_path / "runs").exists()
