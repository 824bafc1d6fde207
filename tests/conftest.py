"""Shared pytest set-up: quiet TensorFlow logs, fixed seeds, a tiny toy corpus."""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# The library's cache folder (word2bert.utils.paths.cache_dir) is the repository's data/cache, as for the course.
os.environ.setdefault("WORD2BERT_CACHE", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                      "data", "cache"))
# The JAX pass compiles every eager op and every step once per shape and dtype: XLA compiling the tiny test models
# took most of its CPU time. XLA's backend optimization level 0 compiles them with less LLVM optimisation (the same
# computations): test_bert, test_elmo_gpt, test_seq2seq, test_finetuning, test_translation_data, test_hf_checkpoint
# and test_transformer on JAX took 432 CPU seconds instead of 524, and the models here are too small for the less
# optimised code to run slower (training tests got faster too).
# Set before JAX starts, for this process and the ones it starts; the TensorFlow pass is left as it is.
_XLA_FLAGS = os.environ.get("XLA_FLAGS", "")
if os.environ.get("KERAS_BACKEND") == "jax" and "xla_backend_optimization_level" not in _XLA_FLAGS:
    os.environ["XLA_FLAGS"] = f"{_XLA_FLAGS} --xla_backend_optimization_level=0".strip()

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
