"""The scalar mix of ELMo (Peters et al. 2018, equation 1): a task-specific, learned weighted sum of the
layers of a pretrained network,

    mix = gamma * sum_j softmax(w)_j * h_j,

with one scalar ``w_j`` per layer (softmax-normalised, so the weights are positive and sum to 1) and a
scale ``gamma``. Chapter 11 reads BERT's layers through it, chapter 12 ELMo's.
"""
from __future__ import annotations

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="word2bert")
class ScalarMix(keras.layers.Layer):
    """A learned, softmax-weighted sum of ``num_layers`` tensors of one shape, times a learned scale.

    Args:
        num_layers: how many tensors are mixed (>= 1).
        initial_weights: the starting scalars ``w`` (default all 0: the plain mean); a list of ``num_layers``.
        initial_scale: the starting ``gamma`` (1.0).
        **kwargs: the usual ``keras.layers.Layer`` arguments (``dtype`` policy, ``name``, ...).

    Call arguments:
        inputs: a list of ``num_layers`` float tensors of one shape ``(batch, ..., dim)``, or one tensor
            ``(batch, ..., num_layers, dim)`` with the layers on axis -2.
        mask: passed through unchanged (the mask of the first input when a list is given).

    Returns:
        float ``(batch, ..., dim)`` in the layer's compute dtype; the softmax is taken in float32.

    Raises:
        ValueError: ``num_layers`` < 1; ``initial_weights`` of another length; a list of another length
            than ``num_layers`` or of tensors of different shapes; a stacked tensor whose axis -2 is not
            ``num_layers``.

    Example:
        >>> mix = ScalarMix(3)
        >>> mix([h0, h1, h2]).shape        # each (2, 7, 128) -> (2, 7, 128), at first their mean
        >>> mix.mixing_weights()           # array([0.333, 0.333, 0.333])

    Reference: Peters et al. (2018), "Deep contextualized word representations", section 3.2, eq. 1.
    """

    def __init__(self, num_layers: int, initial_weights=None, initial_scale: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        if int(num_layers) < 1:
            raise ValueError(f"num_layers must be >= 1, got {num_layers}")
        self.num_layers = int(num_layers)
        if initial_weights is not None:
            initial_weights = [float(w) for w in initial_weights]
            if len(initial_weights) != self.num_layers:
                raise ValueError(f"initial_weights needs {self.num_layers} values (one per layer), got "
                                 f"{len(initial_weights)}")
        self.initial_weights, self.initial_scale = initial_weights, float(initial_scale)
        self.supports_masking = True

    def build(self, input_shape=None):
        start = self.initial_weights or [0.0] * self.num_layers
        self.layer_weights = self.add_weight(shape=(self.num_layers,), name="layer_weights",
                                             initializer=keras.initializers.Constant(start))
        self.scale = self.add_weight(shape=(), name="scale",
                                     initializer=keras.initializers.Constant(self.initial_scale))
        self.built = True

    def _stacked(self, inputs):
        if isinstance(inputs, (list, tuple)):
            if len(inputs) != self.num_layers:
                raise ValueError(f"ScalarMix({self.num_layers}) got a list of {len(inputs)} tensors")
            shapes = {tuple(x.shape) for x in inputs}
            if len(shapes) != 1:
                raise ValueError(f"ScalarMix needs tensors of one shape, got {sorted(map(str, shapes))}")
            return ops.stack(inputs, axis=-2)
        if len(inputs.shape) < 2 or inputs.shape[-2] != self.num_layers:
            raise ValueError(f"a stacked input to ScalarMix({self.num_layers}) needs the layers on axis -2, got "
                             f"shape {tuple(inputs.shape)}")
        return inputs

    def call(self, inputs, mask=None):
        stacked = ops.cast(self._stacked(inputs), self.compute_dtype)
        weights = ops.softmax(ops.cast(self.layer_weights, "float32"))
        weights = ops.cast(weights, self.compute_dtype)[:, None]           # (num_layers, 1)
        mixed = ops.sum(stacked * weights, axis=-2)
        return ops.cast(self.scale, self.compute_dtype) * mixed

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            return mask[0]
        return mask

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, (list, tuple)) and isinstance(input_shape[0], (list, tuple)):
            return tuple(input_shape[0])
        return tuple(input_shape[:-2]) + (input_shape[-1],)

    def mixing_weights(self):
        """The current ``softmax(w)`` as a NumPy float32 array ``(num_layers,)`` (they sum to 1)."""
        if not self.built:
            self.build()
        return ops.convert_to_numpy(ops.softmax(ops.cast(self.layer_weights, "float32")))

    def get_config(self):
        return {**super().get_config(), "num_layers": self.num_layers, "initial_weights": self.initial_weights,
                "initial_scale": self.initial_scale}
