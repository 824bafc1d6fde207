"""Bengio et al.'s neural probabilistic language model (2003, JMLR 3, section 2, eq. 1).

y = b + W x + U tanh(d + H x), x = the concatenated embeddings of the n-1 previous words.
"""
from __future__ import annotations

import keras


def build_nnlm(vocabulary_size: int, context_size: int = 4, embedding_dim: int = 100, hidden_dim: int = 200,
               dropout: float = 0.0, direct: bool = True, name: str = "nnlm") -> keras.Model:
    """Bengio et al.'s neural probabilistic language model.

    y = b + W x + U tanh(d + H x), where x is the concatenation of the embeddings
    (the shared matrix C) of the ``context_size`` previous words; softmax(y) is
    P(w_t | w_{t-n+1}..w_{t-1}). ``direct=False`` drops W (the paper's "no direct
    connections" variant).

    Args:
        vocabulary_size: ``|V|``.
        context_size: n-1 previous words.
        embedding_dim: m, the size of each word's vector.
        hidden_dim: h, the tanh layer.
        dropout: dropout on x and on the hidden layer (0 in the paper).
        direct: add the direct connections W x.

    Returns:
        Uncompiled ``keras.Model``: int32 ``(batch, context_size)`` -> float32 logits
        ``(batch, vocabulary_size)``.

    Raises:
        ValueError: a size < 1.

    Reference: Bengio, Ducharme, Vincent & Jauvin (2003), JMLR 3, section 2, eq. 1.
    """
    for arg, value in (("vocabulary_size", vocabulary_size), ("context_size", context_size),
                       ("embedding_dim", embedding_dim), ("hidden_dim", hidden_dim)):
        if value < 1:
            raise ValueError(f"{arg} must be >= 1, got {value}")
    inputs = keras.Input(shape=(context_size,), dtype="int32", name="context")
    x = keras.layers.Embedding(vocabulary_size, embedding_dim, name="C")(inputs)
    x = keras.layers.Flatten(name="concat")(x)
    x = keras.layers.Dropout(dropout)(x)
    h = keras.layers.Dense(hidden_dim, activation="tanh", name="H")(x)
    h = keras.layers.Dropout(dropout)(h)
    logits = keras.layers.Dense(vocabulary_size, name="U")(h)
    if direct:
        logits = keras.layers.Add(name="y")([logits, keras.layers.Dense(vocabulary_size, use_bias=False, name="W")(x)])
    logits = keras.layers.Activation("linear", dtype="float32", name="logits")(logits)
    return keras.Model(inputs, logits, name=name)
