"""The feed-forward activations the encoder and decoder blocks take by name, GELU's two forms among them.

GELU (Hendrycks & Gimpel 2016) is ``x * Phi(x)``, ``Phi`` the standard normal CDF:

- exact:        ``gelu(x) = x / 2 * (1 + erf(x / sqrt(2)))`` (Keras' ``"gelu"``; what BERT's PyTorch and
  Hugging Face implementations compute for ``"hidden_act": "gelu"``);
- approximate:  ``x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))`` (the paper's eq. for speed; Google's
  original TensorFlow BERT code, Hugging Face's ``"gelu_new"``, and keras-hub's ``BertBackbone``).

The two differ by at most about 2e-4 per unit (near ``|x| = 2``); through a deep stack the difference grows.
"""
from __future__ import annotations

import keras

GELU_APPROXIMATE = "gelu_approximate"


@keras.saving.register_keras_serializable(package="word2bert", name=GELU_APPROXIMATE)
def gelu_approximate(x):
    """GELU in its tanh approximation: ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.

    Args:
        x: float tensor of any shape.

    Returns:
        a tensor of ``x``'s shape and dtype.

    Source: Hendrycks & Gimpel (2016), section 2; ``keras.activations.gelu(x, approximate=True)``.
    """
    return keras.activations.gelu(x, approximate=True)


def get_activation(identifier):
    """The callable for an activation given by name (``"gelu_approximate"`` included) or as a callable.

    Args:
        identifier: a Keras activation name (``"relu"``, ``"gelu"``: the exact erf form), ``"gelu_approximate"``
            (the tanh form, ``gelu_approximate`` above), a callable, or None (linear).

    Returns:
        a callable taking and returning a tensor.

    Raises:
        ValueError: an unknown name (Keras' message).
    """
    if identifier == GELU_APPROXIMATE:
        return gelu_approximate
    return keras.activations.get(identifier)
