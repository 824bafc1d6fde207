"""A Keras callback that stands for a kernel stopped mid-training, shared by the resume tests."""
import keras


class RaiseAt(keras.callbacks.Callback):
    """Raises ``KeyboardInterrupt`` at the start of epoch ``epoch`` (0-based): the epochs before it finished, that
    one never began."""

    def __init__(self, epoch):
        super().__init__()
        self.at = epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.at:
            raise KeyboardInterrupt(f"stopped before epoch {epoch + 1}")
