"""Extractive question answering with BERT (SQuAD v1.1): a start vector S and an end vector E; the
probability that token i starts the answer is a softmax of ``S . T_i`` over the window, the end
likewise; the answer is the span (i, j), i <= j, of largest ``S . T_i + E . T_j`` (Devlin et al. 2019,
section 4.2). The two vectors are one dense layer with two outputs. Decoding the best valid span,
across the overlapping windows of a long context, is ``best_span`` in ``finetuning_data``.
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops

from word2bert.models.bert.embedding import bert_initializer
from word2bert.models.bert.head import BertHead


@keras.saving.register_keras_serializable(package="word2bert")
class BertQuestionAnswerer(BertHead):
    """Start and end logits for every token of ``[CLS] question [SEP] context window [SEP]``.

    Args:
        backbone, dropout, feature_layers, freeze_backbone: as ``BertHead``.
        **kwargs: the usual ``keras.Model`` arguments.

    Call arguments:
        inputs: a dict with int ``"token_ids"``, ``"segment_ids"`` (1 on the context) and bool ``"padding_mask"``,
            each ``(batch, L)``, as ``qa_windows`` makes them.
        training: dropout on or off.

    Returns:
        float32 ``(batch, L, 2)``: ``[..., 0]`` the start logits ``S . T_i``, ``[..., 1]`` the end logits
        ``E . T_i``. Padding positions get the float32 minimum (they can be neither).

    Raises:
        what ``BertHead`` raises.

    Example:
        >>> qa = BertQuestionAnswerer(backbone)
        >>> qa.compile(optimizer="adamw", loss=SpanLoss())
        >>> qa.fit(windows.inputs, windows.positions, epochs=2)     # positions: (batch, 2) start, end

    Reference: Devlin et al. (2019), section 4.2 and figure 4 (c).
    """

    def __init__(self, backbone, dropout: float = 0.1, feature_layers: int = 1, freeze_backbone: bool = False,
                 **kwargs):
        super().__init__(backbone, dropout=dropout, feature_layers=feature_layers,
                         freeze_backbone=freeze_backbone, **kwargs)
        self.output_dense = keras.layers.Dense(2, kernel_initializer=bert_initializer(), dtype=self.dtype_policy,
                                               name="span_logits")

    def call(self, inputs, training=None):
        features, _, mask = self.backbone_outputs(inputs, training=training)
        logits = ops.cast(self.output_dense(features), "float32")   # float32 before masking: no -1e9 in float16
        return ops.where(mask[:, :, None], logits, ops.full_like(logits, np.finfo(np.float32).min))

    def compute_output_spec(self, inputs, training=None):
        shape = inputs["token_ids"].shape if isinstance(inputs, dict) else inputs.shape
        return keras.KerasTensor((*shape[:2], 2), dtype="float32")


@keras.saving.register_keras_serializable(package="word2bert")
class SpanLoss(keras.losses.Loss):
    """The mean of the start and the end cross-entropies (Devlin et al. 2019, section 4.2: "the training
    objective is the sum of the log-likelihoods of the correct start and end positions"; run_squad.py
    averages the two).

    Call arguments:
        y_true: int ``(batch, 2)``: the start and end positions in the window (0, the ``[CLS]`` position, when
            the answer is not inside the window, as run_squad.py does).
        y_pred: float ``(batch, L, 2)`` logits, ``BertQuestionAnswerer``'s output.

    Returns:
        float32 ``(batch,)``, finite: the logits are floored at -1e9 before the cross-entropy, so a target on a
        padding position (whose logit ``BertQuestionAnswerer`` sets to the float32 minimum) costs about 1e9 rather
        than ``inf`` (a loss cannot raise inside ``fit``'s traced function; ``check_span_targets`` is the error,
        where the targets are made). Real logits above -1e9 give the same loss as without the floor.
    """

    FLOOR = -1e9

    def __init__(self, name: str = "span_loss", **kwargs):
        super().__init__(name=name, **kwargs)

    def call(self, y_true, y_pred):
        y_true = ops.cast(y_true, "int32")
        logits = ops.transpose(ops.cast(y_pred, "float32"), (0, 2, 1))           # (batch, 2, L)
        logits = ops.maximum(logits, self.FLOOR)          # a target on padding: about 1e9, not inf (see Returns)
        losses = keras.losses.sparse_categorical_crossentropy(y_true, logits, from_logits=True)   # (batch, 2)
        return ops.mean(losses, axis=-1)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}
