"""Initializers given to a layer that creates several weights.

A layer such as ``TransformerEncoder`` takes one ``kernel_initializer`` and hands it to every
kernel it creates. Each weight gets its own copy (``fresh_copy``), as keras-hub clones its
initializers: an initializer object keeps its state, so sharing one could tie weights together.
"""
from __future__ import annotations

import keras


def fresh_copy(initializer):
    """A new initializer of the same configuration as ``initializer`` (a name, a config dict or an object).

    Returns:
        a ``keras.initializers.Initializer`` built from ``initializer``'s serialized config.

    Raises:
        ValueError: ``initializer`` is not something ``keras.initializers.get`` knows.
    """
    return keras.initializers.get(keras.initializers.serialize(keras.initializers.get(initializer)))
