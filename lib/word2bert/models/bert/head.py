"""What every fine-tuning head shares: a ``BertBackbone``, the token vectors it hands the head, and
whether the backbone learns too.

Devlin et al. (2019) use BERT two ways (section 3.2 and section 5.3): **fine-tuning**, where a small
head is added and every weight is trained on the labelled task, and **feature-based**, where the
pretrained network is frozen and its vectors are read as features (as ELMo is used); their table 7
reads the concatenation of the last four layers. ``BertHead`` (on ``word2bert.models.task.Task``) does both: ``feature_layers=1``
hands the head the last layer, ``feature_layers=4`` the last four layers concatenated, and
``freeze_backbone=True`` keeps the backbone's weights as they are (it then also runs without dropout).
"""
from __future__ import annotations

import numpy as np
from keras import ops

from word2bert.models.bert.model import BertBackbone, split_inputs
from word2bert.models.task import Task
from word2bert.utils.inputs import model_inputs


class BertHead(Task):
    """What the BERT heads (``BertClassifier``, ``BertTokenTagger``, ``BertQuestionAnswerer``) add to ``Task``:
    the backbone's vectors, one layer or several concatenated, and the pooler (not used alone).

    Args:
        backbone: a ``BertBackbone`` with ``return_dict=True``; saved inside this model's config.
        dropout: rate on the features before the head's dense layer (0.1 as the paper).
        feature_layers: how many of the last hidden states (``backbone.hidden_states``: the embedding
            output, then one per block) are concatenated as the head's input; at most ``num_layers + 1``.
        freeze_backbone: keep the backbone's weights fixed (feature-based use); it runs with dropout off.
        **kwargs: the usual ``keras.Model`` arguments.

    Which weights a head trains is decided by ``Task`` (``trainable_weights``, ``trainable_variables``): the
    backbone's, unless ``freeze_backbone``; the pooler's only when the head reads it (``reads_pooler``); its own
    head's. The backbone's ``trainable`` flags are never changed. (A model that wraps a head reads the variables'
    flags instead: freeze there with ``backbone.trainable``.)

    Raises:
        ValueError: ``backbone`` is not such a ``BertBackbone``; ``feature_layers`` outside
            ``1..num_layers + 1``; ``dropout`` outside ``[0, 1)``; an input dict without ``"token_ids"``.
    """

    backbone_class = BertBackbone

    def __init__(self, backbone: BertBackbone, dropout: float = 0.1, feature_layers: int = 1,
                 freeze_backbone: bool = False, **kwargs):
        super().__init__(backbone, dropout=dropout, freeze_backbone=freeze_backbone, **kwargs)
        if not backbone.return_dict:
            raise ValueError(f"backbone must be a BertBackbone with return_dict=True, got {backbone!r}")
        if not 1 <= int(feature_layers) <= backbone.num_layers + 1:
            raise ValueError(f"feature_layers must be in 1..{backbone.num_layers + 1} (the backbone has "
                             f"{backbone.num_layers} blocks and an embedding output), got {feature_layers}")
        self.feature_layers = int(feature_layers)

    def build(self, input_shape=None):
        ids = np.ones((1, 2), np.int32)
        self.call({"token_ids": ids, "segment_ids": ids * 0, "padding_mask": ids > 0})
        self.built = True

    def unused_backbone_variables(self) -> list:
        """The pooler's variables when the head does not read it."""
        return [] if self.reads_pooler else list(self.backbone.pooler.weights)

    @property
    def reads_pooler(self) -> bool:
        """Whether the head reads the backbone's pooled ``[CLS]`` vector (only ``BertClassifier`` with
        ``pooling="pooled"``); when it does not, the pooler is not trained."""
        return False

    @property
    def feature_dim(self) -> int:
        """Width of the vectors the head reads: ``feature_layers * hidden_dim``."""
        return self.feature_layers * self.backbone.hidden_dim

    def backbone_outputs(self, inputs, training=None):
        """``(features, pooled, mask)``: the concatenated last ``feature_layers`` hidden states
        ``(batch, L, feature_dim)``, the backbone's pooled ``[CLS]`` vector ``(batch, hidden_dim)`` (None when
        ``feature_layers`` > 1: only a head reading the last layer alone reads the pooler) and the
        padding mask ``(batch, L)`` bool (the ``"padding_mask"`` input, or ``token_ids != 0``)."""
        token_ids, segment_ids, padding_mask = split_inputs(inputs)
        backbone_inputs = {"token_ids": token_ids}
        if segment_ids is not None:
            backbone_inputs["segment_ids"] = segment_ids
        if padding_mask is not None:
            backbone_inputs["padding_mask"] = padding_mask
        run_training = self.backbone_training(training)                   # a frozen encoder runs without dropout
        if self.feature_layers == 1:
            out = self.backbone(backbone_inputs, training=run_training)
            features, pooled = out["sequence_output"], out["pooled_output"]
        else:
            states = self.backbone.hidden_states(backbone_inputs, training=run_training)
            features, pooled = ops.concatenate(states[-self.feature_layers:], axis=-1), None
        if padding_mask is None:
            mask = ops.not_equal(ops.convert_to_tensor(token_ids), 0)
        else:
            mask = ops.cast(ops.convert_to_tensor(padding_mask), "bool")
        return self.feature_dropout(features, training=training), pooled, mask

    def get_config(self):
        return {**super().get_config(), "feature_layers": self.feature_layers}


def task_inputs(token_ids, segment_ids=None, padding_mask=None) -> dict:
    """The dict a task model takes, with segment ids 0 and the mask ``token_ids != 0`` where not given
    (NumPy in, NumPy out: for a hand-made example; ``word2bert.utils.inputs.model_inputs``).

    Raises:
        ValueError: a segment or mask of another shape than ``token_ids``.
    """
    parts = model_inputs({"token_ids": np.asarray(token_ids, np.int32), "segment_ids": segment_ids,
                          "padding_mask": padding_mask})
    return {"token_ids": parts["token_ids"], "segment_ids": np.asarray(parts["segment_ids"], np.int32),
            "padding_mask": np.asarray(parts["padding_mask"], bool)}
