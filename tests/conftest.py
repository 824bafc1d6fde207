"""Shared pytest set-up: quiet TensorFlow logs, fixed seeds, a tiny toy corpus."""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _seed():
    np.random.seed(0)
    try:
        import keras

        keras.utils.set_random_seed(0)
    except ImportError:
        pass
    yield


@pytest.fixture
def toy_corpus():
    """Three sentences whose n-gram counts are easy to work out by hand."""
    return [s.split() for s in ["the cat sat", "the dog sat", "the cat ran"]]


def pytest_collection_modifyitems(config, items):
    """Skip ``once_on_tensorflow`` tests (see ``tests/backends.py``) when the Keras backend is not TensorFlow."""
    import keras

    if keras.backend.backend() == "tensorflow":
        return
    skip = pytest.mark.skip(reason="backend-independent: runs once, on the TensorFlow pass")
    for item in items:
        if item.get_closest_marker("once_on_tensorflow") is not None:
            item.add_marker(skip)
