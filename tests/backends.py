"""Markers for the two test passes of CI (TensorFlow, then JAX).

A test that never touches the Keras backend (a corpus loader, an n-gram count, a pure-Python tokenizer, a
comparison with tensorflow-text) gives the same answer on both passes: ``once_on_tensorflow`` runs it on the
TensorFlow pass only, so the JAX pass spends its time on what the backend changes.
"""
import keras
import pytest

once_on_tensorflow = pytest.mark.skipif(keras.backend.backend() != "tensorflow",
                                        reason="backend-independent: runs once, on the TensorFlow pass")
