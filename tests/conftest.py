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
