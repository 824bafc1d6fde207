"""Fine-tuning heads on a decoder-only Transformer, GPT's recipe (Radford et al. 2018, section 3.2): the
pretrained language model's last-layer vectors feed one new dense layer, and every weight is trained on
the labelled task.

- ``GPTClassifier`` reads the vector of each row's **last real token**: with a causal mask it is the only
  position that has seen the whole input (GPT-1 appends an extract token for this; a row that ends with
  ``[SEP]``, as ``word2bert.models.bert.encode_texts`` writes it, plays that part).
- ``GPTTokenTagger`` reads every position's vector, which has seen the tokens up to it and none after:
  the left context only (the contrast with BERT's both sides that chapter 12 measures).

Both take the same inputs as the BERT heads: a dict with ``"token_ids"`` (and ``"padding_mask"``; a
``"segment_ids"`` entry is ignored) or the ids alone, so the same data feeds GPT, ELMo and BERT.
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.layers.masking import token_ids_and_mask
from word2bert.models.transformer.model import DecoderOnlyTransformer


def last_real_index(mask):
    """int32 ``(batch,)``: the position of each row's last True in the bool ``(batch, T)`` mask (rows hold
    their real tokens first, then padding); 0 for a row with no real token."""
    return ops.maximum(ops.sum(ops.cast(mask, "int32"), axis=1) - 1, 0)


class _GPTTaskModel(keras.Model):
    def __init__(self, lm: DecoderOnlyTransformer, num_outputs: int, dropout: float = 0.1, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(lm, DecoderOnlyTransformer):
            raise ValueError(f"lm must be a DecoderOnlyTransformer, got {type(lm).__name__}")
        if int(num_outputs) < 1:
            raise ValueError(f"the number of classes or tags must be >= 1, got {num_outputs}")
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.lm, self.dropout = lm, float(dropout)
        self.feature_dropout = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy, name="feature_dropout")
        self.output_layer = keras.layers.Dense(int(num_outputs), dtype=self.dtype_policy, name="head")

    def states(self, inputs, training=None):
        """``(vectors, mask)``: the language model's last-layer vectors ``(batch, T, d_model)`` and the bool
        padding mask ``(batch, T)``."""
        token_ids, mask = token_ids_and_mask(inputs)
        if token_ids.shape[-1] is not None and token_ids.shape[-1] > self.lm.max_len:
            raise ValueError(f"rows of {token_ids.shape[-1]} tokens are longer than the model's max_len "
                             f"{self.lm.max_len}")
        x = self.lm.decoder_states(token_ids, training=training, decoder_mask=mask)
        return self.feature_dropout(x, training=training), mask

    # The language model's output layer (its bias, or its own Dense when untied) gets no gradient from a head, so
    # the head does not train it. That is decided here, per model: setting the variables' ``trainable`` flags
    # would outlive the head and stop the language model itself from training its output layer.
    def _kept_fixed(self) -> set:
        lm = getattr(self, "lm", None)
        if lm is None or not lm.built:
            return set()
        unused = list(lm.output_dense.weights) if lm.output_dense is not None else []
        return {id(v) for v in unused + ([lm.output_bias] if lm.tie_embeddings else [])}

    @property
    def trainable_variables(self):
        """The variables ``fit`` trains: Keras's list less the language model's output layer."""
        fixed = self._kept_fixed()
        return [v for v in super().trainable_variables if id(v) not in fixed]

    @property
    def non_trainable_variables(self):
        """Every other variable of the model (the ones it keeps fixed included), in ``variables`` order."""
        kept = {id(v) for v in self.trainable_variables}
        return [v for v in self.variables if id(v) not in kept]

    @property
    def trainable_weights(self):
        """As ``trainable_variables`` (weights only)."""
        fixed = self._kept_fixed()
        return [v for v in super().trainable_weights if id(v) not in fixed]

    @property
    def non_trainable_weights(self):
        """Every other weight of the model (the ones it keeps fixed included), in ``weights`` order."""
        kept = {id(v) for v in self.trainable_weights}
        return [v for v in self.weights if id(v) not in kept]

    def build(self, input_shape=None):
        if not self.lm.built:
            self.lm.build()
        ids = ops.ones((1, 2), "int32")
        self.call({"token_ids": ids, "padding_mask": ops.ones((1, 2), "bool")})
        self.built = True

    def get_config(self):
        return {**super().get_config(), "lm": keras.saving.serialize_keras_object(self.lm),
                "dropout": self.dropout}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["lm"] = keras.saving.deserialize_keras_object(config["lm"])
        return cls(**config)


@keras.saving.register_keras_serializable(package="word2bert")
class GPTClassifier(_GPTTaskModel):
    """A sequence classifier on a pretrained decoder-only Transformer: the last real token's vector ->
    dropout -> Dense(num_classes).

    Args:
        lm: a ``DecoderOnlyTransformer`` (trained as a language model; fine-tuned with the head). Its output
            layer (``output_bias``, or ``output_dense`` when untied) is read by no head and not trained by this
            model (``trainable_weights`` leaves it out); its ``trainable`` flags are left as they are, so the
            language model alone still trains it.
        num_classes: output classes (>= 1).
        dropout: on the vector before the dense layer.
        **kwargs: the usual ``keras.Model`` arguments.

    Call arguments:
        inputs: ``{"token_ids": int (batch, T), "padding_mask": (batch, T)}`` (real tokens first, then padding)
            or the int ids alone (padding = id 0).

    Returns:
        float32 logits ``(batch, num_classes)``.

    Raises:
        ValueError: ``lm`` not a ``DecoderOnlyTransformer``; ``num_classes`` < 1; ``dropout`` outside [0, 1);
            rows longer than the model's ``max_len``; a dict without ``"token_ids"``.

    Reference: Radford et al. (2018), "Improving Language Understanding by Generative Pre-Training", section 3.2.
    """

    def __init__(self, lm: DecoderOnlyTransformer, num_classes: int = 2, dropout: float = 0.1, **kwargs):
        super().__init__(lm, num_classes, dropout, **kwargs)
        self.num_classes = int(num_classes)

    def call(self, inputs, training=None):
        x, mask = self.states(inputs, training=training)
        last = ops.take_along_axis(x, ops.reshape(last_real_index(mask), (-1, 1, 1)), axis=1)[:, 0]
        return ops.cast(self.output_layer(last), "float32")

    def get_config(self):
        return {**super().get_config(), "num_classes": self.num_classes}


@keras.saving.register_keras_serializable(package="word2bert")
class GPTTokenTagger(_GPTTaskModel):
    """A token tagger on a pretrained decoder-only Transformer: every position's vector (its left context and
    itself) -> dropout -> Dense(num_tags).

    Args:
        lm: a ``DecoderOnlyTransformer``.
        num_tags: tags (>= 1).
        dropout: as ``GPTClassifier``.
        **kwargs: as ``GPTClassifier``.

    Call arguments:
        inputs: as ``GPTClassifier``.

    Returns:
        float32 logits ``(batch, T, num_tags)`` (padding positions hold logits too; leave them out of the loss,
        e.g. with ``ignore_class``).

    Raises:
        ValueError: as ``GPTClassifier``.

    Reference: Radford et al. (2018), section 3.2 (the head); a tagger is the per-token form of it.
    """

    def __init__(self, lm: DecoderOnlyTransformer, num_tags: int, dropout: float = 0.1, **kwargs):
        super().__init__(lm, num_tags, dropout, **kwargs)
        self.num_tags = int(num_tags)

    def call(self, inputs, training=None):
        x, _ = self.states(inputs, training=training)
        return ops.cast(self.output_layer(x), "float32")

    def get_config(self):
        return {**super().get_config(), "num_tags": self.num_tags}
