"""word2bert.training.best.fit_keeping_best: early stopping that ends on the best epoch's weights."""
import keras
import numpy as np
import pytest

from word2bert.training.best import fit_keeping_best


class _Weights(keras.callbacks.Callback):
    """Each epoch's weights, as they are when the epoch ends."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append([w.copy() for w in self.model.get_weights()])


def _model(rate):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(rate), loss="mse")
    return model


def test_stops_after_patience_and_ends_on_the_best_epochs_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 2)).astype("float32")
    y = x @ np.array([[4.0], [-4.0]], "float32")
    weights = _Weights()
    # the validation targets lie halfway between the start and the training targets: on the way the validation loss
    # falls, then rises again
    run = fit_keeping_best(_model(0.05), x, y, epochs=60, validation_data=(x, y / 2), patience=2,
                           batch_size=64, callbacks=[weights])
    losses = run["history"]["val_loss"]
    best = int(np.argmin(losses))
    assert run["best_epoch"] == best + 1 and run["epochs"] == len(losses)
    assert run["epochs"] == best + 1 + 2 < 60                 # stopped two epochs after the best one
    model_weights = weights.model.get_weights()
    for got, kept in zip(model_weights, weights.seen[best]):  # the best epoch's weights, not the last epoch's
        np.testing.assert_array_equal(got, kept)
    assert not np.array_equal(model_weights[0], weights.seen[-1][0])


def test_refuses_bad_arguments():
    x = np.zeros((4, 2), "float32")
    with pytest.raises(ValueError, match="epochs and patience"):
        fit_keeping_best(_model(0.1), x, x[:, :1], epochs=0, validation_data=(x, x[:, :1]))
    with pytest.raises(ValueError, match="never logged"):
        fit_keeping_best(_model(0.1), x, x[:, :1], epochs=1, validation_data=None)
