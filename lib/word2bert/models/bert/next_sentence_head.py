"""The next-sentence-prediction classifier: two logits, IsNext and NotNext, from the pooled ``[CLS]``
vector (Devlin et al. 2019, section 3.1, task 2: "C is used for next sentence prediction").
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.models.bert.embedding import bert_initializer

# google-research/bert's labels: 1 = "is_random_next"
IS_NEXT = 0
NOT_NEXT = 1


@keras.saving.register_keras_serializable(package="word2bert")
class NextSentenceHead(keras.layers.Layer):
    """A linear classifier over the pooled output: is sentence B the one that follows A?

    Args:
        num_classes: 2 (``IS_NEXT = 0``, ``NOT_NEXT = 1``).
        kernel_initializer: default truncated normal, stddev 0.02.
        **kwargs: the usual ``keras.layers.Layer`` arguments.

    Call arguments:
        inputs: float ``(batch, H)``, the backbone's ``pooled_output``.

    Returns:
        float32 logits ``(batch, num_classes)``.

    Raises:
        ValueError: ``num_classes`` < 2; inputs not of rank 2.

    Example:
        >>> NextSentenceHead()(ops.zeros((4, 64))).shape   # (4, 2)

    Reference: Devlin et al. (2019), section 3.1 and figure 1.
    """

    def __init__(self, num_classes: int = 2, kernel_initializer=None, **kwargs):
        super().__init__(**kwargs)
        if num_classes < 2:
            raise ValueError(f"num_classes must be >= 2, got {num_classes}")
        self.num_classes = int(num_classes)
        self.kernel_initializer = keras.initializers.get(kernel_initializer or bert_initializer())
        self.dense = keras.layers.Dense(num_classes, kernel_initializer=self.kernel_initializer,
                                        dtype=self.dtype_policy, name="dense")

    def build(self, inputs_shape):
        if len(inputs_shape) != 2:
            raise ValueError(f"NextSentenceHead takes the pooled output (batch, H), got shape {inputs_shape}")
        self.dense.build(inputs_shape)
        self.built = True

    def call(self, inputs):
        return ops.cast(self.dense(inputs), "float32")

    def compute_output_shape(self, inputs_shape):
        return (inputs_shape[0], self.num_classes)

    def compute_output_spec(self, inputs):
        return keras.KerasTensor(self.compute_output_shape(inputs.shape), dtype="float32")   # logits: float32

    def get_config(self):
        config = super().get_config()
        config.update({"num_classes": self.num_classes,
                       "kernel_initializer": keras.initializers.serialize(self.kernel_initializer)})
        return config
