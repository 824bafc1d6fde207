"""BERT pretraining: the backbone with its two heads, the masked LM (tied to the token embedding)
and next-sentence prediction, trained on the sum of their losses (Devlin et al. 2019, section 3.1
and appendix A.2: "the training loss is the sum of the mean masked LM likelihood and the mean next
sentence prediction likelihood").
"""
from __future__ import annotations

import keras
import numpy as np

from word2bert.models.bert.masked_lm_head import MaskedLMHead
from word2bert.models.bert.model import BertBackbone
from word2bert.models.bert.next_sentence_head import NextSentenceHead
from word2bert.models.bert.training import MaskedLMAccuracy, MaskedLMLoss


@keras.saving.register_keras_serializable(package="word2bert")
class BertPretrainer(keras.Model):
    """A ``BertBackbone`` with a tied ``MaskedLMHead`` and a ``NextSentenceHead``.

    Args:
        backbone: a ``BertBackbone`` (its ``return_dict`` must be True); saved inside this model's config.
        **kwargs: the usual ``keras.Model`` arguments.

    Call arguments:
        inputs: a dict with int ``"token_ids"`` ``(batch, L)`` (already masked; 0 = padding), int
            ``"segment_ids"`` ``(batch, L)``, int ``"mask_positions"`` ``(batch, P)`` and optionally
            ``"padding_mask"`` bool or int ``(batch, L)`` (True / 1 on real tokens; default ``token_ids != 0``),
            as ``PretrainingBatches`` makes them.
        training: dropout on or off.

    Returns:
        ``{"mlm": float32 (batch, P, vocabulary_size), "nsp": float32 (batch, 2)}`` logits.

    Raises:
        ValueError: ``backbone`` is not a ``BertBackbone`` returning a dict; an input key missing.

    Example:
        >>> model = BertPretrainer(BertBackbone(vocabulary_size=8000, num_layers=4, hidden_dim=256, num_heads=4,
        ...                                     intermediate_dim=1024, max_sequence_length=128))
        >>> model.compile(optimizer=keras.optimizers.AdamW(1e-4))   # MaskedLMLoss + NSP cross-entropy
        >>> model.fit(PretrainingBatches(documents, tokenizer, batch_size=32, sequence_length=128), epochs=3)

    Reference: Devlin et al. (2019), section 3.1 and appendix A.
    """

    def __init__(self, backbone: BertBackbone, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(backbone, BertBackbone) or not backbone.return_dict:
            raise ValueError(f"backbone must be a BertBackbone with return_dict=True, got {backbone!r}")
        self.backbone = backbone
        self.mlm_head = MaskedLMHead(backbone.vocabulary_size, token_embedding=backbone.token_embedding,
                                     activation=backbone.activation, layer_norm_epsilon=backbone.layer_norm_epsilon,
                                     dtype=self.dtype_policy, name="mlm_head")
        self.nsp_head = NextSentenceHead(dtype=self.dtype_policy, name="nsp_head")

    def build(self, input_shape=None):
        ids = np.ones((1, 2), np.int32)
        self.call({"token_ids": ids, "segment_ids": ids * 0, "mask_positions": ids[:, :1] * 0})
        self.built = True

    def call(self, inputs, training=None):
        missing = {"token_ids", "segment_ids", "mask_positions"} - set(inputs)
        if missing:
            raise ValueError(f"BertPretrainer inputs lack {sorted(missing)}; got keys {sorted(inputs)}")
        backbone_inputs = {"token_ids": inputs["token_ids"], "segment_ids": inputs["segment_ids"]}
        if inputs.get("padding_mask") is not None:
            backbone_inputs["padding_mask"] = inputs["padding_mask"]
        out = self.backbone(backbone_inputs, training=training)
        return {"mlm": self.mlm_head(out["sequence_output"], inputs["mask_positions"]),
                "nsp": self.nsp_head(out["pooled_output"])}

    def compile(self, optimizer="adam", loss="auto", weighted_metrics="auto", **kwargs):
        """``keras.Model.compile`` with pretraining's defaults.

        ``loss="auto"``: ``{"mlm": MaskedLMLoss(), "nsp": SparseCategoricalCrossentropy(from_logits=True)}``
        (summed); ``weighted_metrics="auto"``: ``MaskedLMAccuracy`` on ``"mlm"`` and accuracy on ``"nsp"``;
        both read the weights of the data's third element (``PretrainingBatches`` gives them).
        """
        self._default_compile = loss == "auto" and weighted_metrics == "auto" and not kwargs
        if loss == "auto":
            loss = {"mlm": MaskedLMLoss(), "nsp": keras.losses.SparseCategoricalCrossentropy(from_logits=True)}
        if weighted_metrics == "auto":
            weighted_metrics = {"mlm": [MaskedLMAccuracy()],
                                "nsp": [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]}
        super().compile(optimizer=optimizer, loss=loss, weighted_metrics=weighted_metrics, **kwargs)

    def get_compile_config(self):
        """The optimizer, when ``compile`` ran with the default losses and metrics (what a saved model restores);
        None otherwise (then a loaded model comes back uncompiled: call ``compile`` again)."""
        if getattr(self, "_default_compile", False) and getattr(self, "optimizer", None) is not None:
            return {"optimizer": keras.optimizers.serialize(self.optimizer)}
        return None

    def compile_from_config(self, config):
        """Compile a loaded model as it was saved: the saved optimizer, the default losses and metrics."""
        self.compile(optimizer=keras.optimizers.deserialize(config["optimizer"]))
        if self.built:
            self.optimizer.build(self.trainable_variables)

    def get_config(self):
        return {**super().get_config(), "backbone": keras.saving.serialize_keras_object(self.backbone)}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["backbone"] = keras.saving.deserialize_keras_object(config["backbone"])
        return cls(**config)
