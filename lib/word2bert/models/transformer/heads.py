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
from word2bert.models.task import Task
from word2bert.models.transformer.model import DecoderOnlyTransformer


def last_real_index(mask):
    """int32 ``(batch,)``: the position of each row's last True in the bool ``(batch, T)`` mask (rows hold
    their real tokens first, then padding); 0 for a row with no real token."""
    return ops.maximum(ops.sum(ops.cast(mask, "int32"), axis=1) - 1, 0)


class _GPTHead(Task):
    """What the GPT heads add to ``Task``: the language model's last-layer vectors, and its output layer kept out
    of training (a head never reads it)."""

    backbone_class = DecoderOnlyTransformer

    def __init__(self, backbone: DecoderOnlyTransformer, dropout: float = 0.1, freeze_backbone: bool = False,
                 **kwargs):
        super().__init__(backbone, dropout=dropout, freeze_backbone=freeze_backbone, **kwargs)

    def _head(self, name: str, value) -> keras.layers.Dense:
        return keras.layers.Dense(self.check_outputs(name, value), dtype=self.dtype_policy, name="head")

    def states(self, inputs, training=None):
        """``(vectors, mask)``: the language model's last-layer vectors ``(batch, T, hidden_dim)`` and the bool
        padding mask ``(batch, T)``."""
        token_ids, mask = token_ids_and_mask(inputs)
        if token_ids.shape[-1] is not None and token_ids.shape[-1] > self.backbone.max_sequence_length:
            raise ValueError(f"rows of {token_ids.shape[-1]} tokens are longer than the model's max_sequence_length "
                             f"{self.backbone.max_sequence_length}")
        x = self.backbone.decoder_states(token_ids, training=self.backbone_training(training), decoder_mask=mask)
        return self.feature_dropout(x, training=training), mask

    def unused_backbone_variables(self) -> list:
        """The language model's output layer (its bias, or its own Dense when untied): no head reads it, so it gets
        no gradient from one."""
        lm = self.backbone
        if not lm.built:
            return []
        unused = list(lm.output_dense.weights) if lm.output_dense is not None else []
        return unused + ([lm.output_bias] if lm.tie_embeddings else [])

    def build(self, input_shape=None):
        if not self.backbone.built:
            self.backbone.build()
        ids = ops.ones((1, 2), "int32")
        self.call({"token_ids": ids, "padding_mask": ops.ones((1, 2), "bool")})
        self.built = True


@keras.saving.register_keras_serializable(package="word2bert")
class GPTClassifier(_GPTHead):
    """A sequence classifier on a pretrained decoder-only Transformer: the last real token's vector ->
    dropout -> Dense(num_classes).

    Args:
        backbone: a ``DecoderOnlyTransformer`` (trained as a language model; fine-tuned with the head). Its
            output layer (``output_bias``, or ``output_dense`` when untied) is read by no head and not trained by
            this model (``trainable_weights`` leaves it out); its ``trainable`` flags are left as they are, so the
            language model alone still trains it.
        num_classes: output classes (>= 2, as every ``Task``).
        dropout: on the vector before the dense layer.
        freeze_backbone: train the head alone (the language model runs without dropout).
        **kwargs: the usual ``keras.Model`` arguments.

    Call arguments:
        inputs: ``{"token_ids": int (batch, T), "padding_mask": (batch, T)}`` (real tokens first, then padding)
            or the int ids alone (padding = id 0).

    Returns:
        float32 logits ``(batch, num_classes)``.

    Raises:
        ValueError: ``backbone`` not a ``DecoderOnlyTransformer``; ``num_classes`` < 2; ``dropout`` outside [0, 1);
            rows longer than the model's ``max_sequence_length``; a dict without ``"token_ids"``.

    Reference: Radford et al. (2018), "Improving Language Understanding by Generative Pre-Training", section 3.2.
    """

    def __init__(self, backbone: DecoderOnlyTransformer, num_classes: int = 2, dropout: float = 0.1,
                 freeze_backbone: bool = False, **kwargs):
        super().__init__(backbone, dropout=dropout, freeze_backbone=freeze_backbone, **kwargs)
        self.output_layer = self._head("num_classes", num_classes)
        self.num_classes = int(num_classes)

    def call(self, inputs, training=None):
        x, mask = self.states(inputs, training=training)
        last = ops.take_along_axis(x, ops.reshape(last_real_index(mask), (-1, 1, 1)), axis=1)[:, 0]
        return ops.cast(self.output_layer(last), "float32")

    def get_config(self):
        return {**super().get_config(), "num_classes": self.num_classes}


@keras.saving.register_keras_serializable(package="word2bert")
class GPTTokenTagger(_GPTHead):
    """A token tagger on a pretrained decoder-only Transformer: every position's vector (its left context and
    itself) -> dropout -> Dense(num_tags).

    Args:
        backbone: a ``DecoderOnlyTransformer``.
        num_tags: tags (>= 2, as every ``Task``).
        dropout, freeze_backbone: as ``GPTClassifier``.
        **kwargs: as ``GPTClassifier``.

    Call arguments:
        inputs: as ``GPTClassifier``.

    Returns:
        float32 logits ``(batch, T, num_tags)`` carrying the bool padding mask ``(batch, T)`` as their Keras mask
        (``compute_mask``), so a Keras loss in ``fit`` leaves the padding positions out under every dtype policy
        (they hold logits too; outside Keras's losses leave them out yourself, e.g. with ``ignore_class``).

    Raises:
        ValueError: as ``GPTClassifier``.

    Reference: Radford et al. (2018), section 3.2 (the head); a tagger is the per-token form of it.
    """

    def __init__(self, backbone: DecoderOnlyTransformer, num_tags: int, dropout: float = 0.1,
                 freeze_backbone: bool = False, **kwargs):
        super().__init__(backbone, dropout=dropout, freeze_backbone=freeze_backbone, **kwargs)
        self.output_layer = self._head("num_tags", num_tags)
        self.num_tags = int(num_tags)

    def call(self, inputs, training=None):
        x, _ = self.states(inputs, training=training)
        return ops.cast(self.output_layer(x), "float32")

    def compute_output_spec(self, inputs, training=None):
        # float32 logits (batch, T, num_tags); JAX cannot trace the call on a symbolic batch of a dict input
        shape = inputs["token_ids"].shape if isinstance(inputs, dict) else inputs.shape
        return keras.KerasTensor((*shape[:2], self.num_tags), dtype="float32")

    def compute_mask(self, inputs, mask=None):
        # the padding mask; the call's Dense output carries it already, but ops.cast drops it where it casts
        # (mixed precision), so without this the loss in fit was masked under float32 alone
        return token_ids_and_mask(inputs)[1]

    def get_config(self):
        return {**super().get_config(), "num_tags": self.num_tags}
