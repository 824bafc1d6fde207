"""Markers for the two test passes of CI (TensorFlow, then JAX).

A test that never touches the Keras backend (a corpus loader, an n-gram count, a pure-Python tokenizer, a
comparison with tensorflow-text) gives the same answer on both passes. ``once_on_tensorflow`` is a pytest marker
(registered in ``pyproject.toml``): CI's JAX pass deselects it with ``-m "not once_on_tensorflow"``, so that pass
spends its time only on tests that touch the backend; run under another backend without that option, such a test
is skipped with a reason (``tests/conftest.py``), never run twice for nothing.

The JAX pass also leaves out the tests marked ``slow`` (whole models through the shared layer check, small
trainings): the TensorFlow pass runs them, and the fast tests already run every layer on JAX. A slow test whose
answer can depend on the backend (sharding over devices, backend tensors in a cache, random-number state across a
resume, the shared check on the central model) carries ``jax_too`` as well, and the JAX pass keeps it.
"""
import pytest

once_on_tensorflow = pytest.mark.once_on_tensorflow
