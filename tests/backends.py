"""Markers for the two test passes of CI (TensorFlow, then JAX).

A test that never touches the Keras backend (a corpus loader, an n-gram count, a pure-Python tokenizer, a
comparison with tensorflow-text) gives the same answer on both passes. ``once_on_tensorflow`` is a pytest marker
(registered in ``pyproject.toml``): CI's JAX pass deselects it with ``-m "not once_on_tensorflow"``, so that pass
spends its time only on tests that touch the backend; run under another backend without that option, such a test
is skipped with a reason (``tests/conftest.py``), never run twice for nothing.
"""
import pytest

once_on_tensorflow = pytest.mark.once_on_tensorflow
