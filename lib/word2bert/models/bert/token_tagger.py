"""Token tagging with BERT (part of speech, named entities): every token's final vector, dropout,
one dense layer over the tags (Devlin et al. 2019, section 5.3: "we use the representation of the
first sub-token as the input to the token-level classifier over the NER label set"). Which pieces
carry a label is the data's business: ``align_first_pieces`` labels the first piece of each word and
gives the others the ignored label, so loss and accuracy see one prediction per word.
"""
from __future__ import annotations

import keras
from keras import ops

from word2bert.models.bert.embedding import bert_initializer
from word2bert.models.bert.head import BertHead


@keras.saving.register_keras_serializable(package="word2bert")
class BertTokenTagger(BertHead):
    """A tag distribution for every token: ``logits_i = W dropout(h_i) + b``.

    Args:
        backbone, dropout, feature_layers, freeze_backbone: as ``BertHead`` (``feature_layers=4`` with
            ``freeze_backbone=True`` is the paper's best feature-based variant, table 7).
        num_tags: the size of the tag set.
        **kwargs: the usual ``keras.Model`` arguments.

    Call arguments:
        inputs: a dict with int ``"token_ids"``, ``"segment_ids"`` and bool ``"padding_mask"``, each ``(batch, L)``.
        training: dropout on or off.

    Returns:
        float32 logits ``(batch, L, num_tags)`` (every position; the labels say which ones count).

    Raises:
        ValueError: ``num_tags`` < 2, and what ``BertHead`` raises.

    Example:
        >>> tagger = BertTokenTagger(backbone, num_tags=45)
        >>> tagger.compile(optimizer="adamw", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True,
        ...                ignore_class=IGNORE_LABEL))
        >>> tagger.fit(aligned.inputs, aligned.labels, epochs=3)

    Reference: Devlin et al. (2019), section 5.3 and figure 4 (d).
    """

    def __init__(self, backbone, num_tags: int, dropout: float = 0.1, feature_layers: int = 1,
                 freeze_backbone: bool = False, **kwargs):
        super().__init__(backbone, dropout=dropout, feature_layers=feature_layers,
                         freeze_backbone=freeze_backbone, **kwargs)
        num_tags = self.check_outputs("num_tags", num_tags)
        self.num_tags = int(num_tags)
        self.output_dense = keras.layers.Dense(self.num_tags, kernel_initializer=bert_initializer(),
                                               dtype=self.dtype_policy, name="logits")

    def call(self, inputs, training=None):
        features, _, _ = self.backbone_outputs(inputs, training=training)
        return ops.cast(self.output_dense(features), "float32")

    def compute_output_spec(self, inputs, training=None):
        shape = inputs["token_ids"].shape if isinstance(inputs, dict) else inputs.shape
        return keras.KerasTensor((*shape[:2], self.num_tags), dtype="float32")

    def get_config(self):
        return {**super().get_config(), "num_tags": self.num_tags}
