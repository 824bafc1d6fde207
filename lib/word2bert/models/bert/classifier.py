"""Sentence and sentence-pair classification with BERT: the ``[CLS]`` vector, dropout, one dense layer
(Devlin et al. 2019, section 4.1: "the final hidden vector C corresponding to the first input token
([CLS]) ... the only new parameters introduced during fine-tuning are classification layer weights
W in R^{K x H}"). keras-hub's ``BertTextClassifier`` has the same shape (read for naming, not copied).
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.models.bert.embedding import bert_initializer
from word2bert.models.bert.head import BertHead

POOLINGS = ("pooled", "cls", "mean")


@keras.saving.register_keras_serializable(package="word2bert")
class BertClassifier(BertHead):
    """One label per input text or text pair: ``logits = W dropout(v) + b``.

    Args:
        backbone, dropout, feature_layers, freeze_backbone: as ``BertHead``.
        num_classes: number of labels (2 for polarity or paraphrase).
        pooling: which vector ``v`` of the input feeds the head: ``"pooled"`` (the backbone's pooler,
            tanh of a dense layer on the last layer's ``[CLS]`` vector: the paper's C; needs
            ``feature_layers=1``), ``"cls"`` (the features at ``[CLS]``) or ``"mean"`` (the mean of the
            features over the real tokens, padding left out).
        **kwargs: the usual ``keras.Model`` arguments.

    Call arguments:
        inputs: a dict with int ``"token_ids"`` ``(batch, L)``, int ``"segment_ids"`` ``(batch, L)`` and bool
            ``"padding_mask"`` ``(batch, L)``, as ``WordPieceTokenizer.encode_pair`` / ``encode_texts`` make them.
        training: dropout on or off.

    Returns:
        float32 logits ``(batch, num_classes)``.

    Raises:
        ValueError: ``num_classes`` < 2; an unknown ``pooling``; ``pooling="pooled"`` with ``feature_layers``
            > 1; and what ``BertHead`` raises.

    Example:
        >>> classifier = BertClassifier(backbone, num_classes=2)
        >>> classifier.compile(optimizer=keras.optimizers.AdamW(3e-5), loss=keras.losses.SparseCategoricalCrossentropy(
        ...     from_logits=True), metrics=["accuracy"])
        >>> classifier.fit(encode_texts(tokenizer, texts, sequence_length=64), labels, epochs=3)

    Reference: Devlin et al. (2019), section 4.1 and figure 4 (a), (b).
    """

    def __init__(self, backbone, num_classes: int = 2, pooling: str = "pooled", dropout: float = 0.1,
                 feature_layers: int = 1, freeze_backbone: bool = False, **kwargs):
        super().__init__(backbone, dropout=dropout, feature_layers=feature_layers,
                         freeze_backbone=freeze_backbone, **kwargs)
        num_classes = self.check_outputs("num_classes", num_classes)
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
        if pooling == "pooled" and self.feature_layers != 1:
            raise ValueError(f"pooling='pooled' reads the pooler of the last layer: it needs feature_layers=1, got "
                             f"{feature_layers} (use pooling='cls' or 'mean' with several layers)")
        self.num_classes, self.pooling = int(num_classes), pooling
        self.pooled_dropout = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy, name="pooled_dropout")
        self.output_dense = keras.layers.Dense(self.num_classes, kernel_initializer=bert_initializer(),
                                               dtype=self.dtype_policy, name="logits")

    @property
    def reads_pooler(self) -> bool:
        return getattr(self, "pooling", None) == "pooled"

    def call(self, inputs, training=None):
        features, pooled, mask = self.backbone_outputs(inputs, training=training)
        if self.pooling == "pooled":
            vector = self.pooled_dropout(pooled, training=training)
        elif self.pooling == "cls":
            vector = features[:, 0, :]
        else:
            weights = ops.cast(mask, features.dtype)[:, :, None]
            vector = ops.sum(features * weights, axis=1) / ops.maximum(ops.sum(weights, axis=1), 1.0)
        return ops.cast(self.output_dense(vector), "float32")

    def compute_output_spec(self, inputs, training=None):
        batch = inputs["token_ids"].shape[0] if isinstance(inputs, dict) else inputs.shape[0]
        return keras.KerasTensor((batch, self.num_classes), dtype="float32")

    def get_config(self):
        return {**super().get_config(), "num_classes": self.num_classes, "pooling": self.pooling}
