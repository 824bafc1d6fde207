"""The one base of every task head on a pretrained encoder (BERT, GPT and ELMo): a ``backbone``, dropout on the
features it hands the head, which of its weights the head trains, and the configuration with the backbone saved
inside it.

A pretrained network is used two ways (Devlin et al. 2019, section 5.3; Peters et al. 2018, section 3.3):
**fine-tuning**, where every weight learns the task, and **feature-based**, where the backbone is frozen and its
vectors are read as features. ``Task`` decides which variables ``fit`` trains from ``freeze_backbone`` and from
``unused_backbone_variables`` (weights the head never reads, e.g. a language model's output layer), per model:
it never sets a variable's ``trainable`` flag, so a second head on the same backbone, or the backbone trained on
its own, is not affected by this one. keras-hub's ``keras_hub.models.Task`` is the model for the name; this base
adds the frozen-backbone handling and one rule for the head's size.
"""
from __future__ import annotations

import keras


class Task(keras.Model):
    """Base of ``BertClassifier``, ``BertTokenTagger``, ``BertQuestionAnswerer``, ``GPTClassifier``,
    ``GPTTokenTagger``, ``ElmoClassifier`` and ``ElmoTokenTagger`` (not used alone).

    Args:
        backbone: the pretrained encoder (a subclass names its type in ``backbone_class``); saved inside this
            model's config.
        dropout: rate on the features before the head's dense layer, in ``[0, 1)``.
        freeze_backbone: keep every backbone weight fixed (feature-based use); a frozen backbone runs without
            dropout (``backbone_training``).
        **kwargs: the usual ``keras.Model`` arguments.

    One rule for the head's size, every head: ``check_outputs`` wants >= 2 classes or tags (a softmax over one
    output says 1 whatever the input: nothing to learn).

    Raises:
        ValueError: ``backbone`` not a ``backbone_class``; ``dropout`` outside ``[0, 1)``; from ``check_outputs``,
            fewer than 2 classes or tags (the message names the argument).
    """

    backbone_class: type | tuple = ()          # set by each family's heads

    def __init__(self, backbone, dropout: float = 0.1, freeze_backbone: bool = False, **kwargs):
        super().__init__(**kwargs)
        if self.backbone_class and not isinstance(backbone, self.backbone_class):
            names = self.backbone_class if isinstance(self.backbone_class, tuple) else (self.backbone_class,)
            raise ValueError(f"backbone must be a {' or '.join(c.__name__ for c in names)}, "
                             f"got {type(backbone).__name__}")
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.backbone = backbone
        self.dropout, self.freeze_backbone = float(dropout), bool(freeze_backbone)
        self.feature_dropout = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy, name="feature_dropout")

    @staticmethod
    def check_outputs(name: str, value) -> int:
        """``int(value)`` when it is >= 2; else ``ValueError`` naming ``name`` (``num_classes``, ``num_tags``)."""
        if int(value) < 2:
            raise ValueError(f"{name} must be >= 2 (a softmax over one output has nothing to learn), got {value}")
        return int(value)

    def backbone_training(self, training):
        """The ``training`` flag to run the backbone with: False when it is frozen (here or by its own
        ``trainable``), so a frozen encoder runs without dropout; else ``training``."""
        return False if self.freeze_backbone or not self.backbone.trainable else training

    def unused_backbone_variables(self) -> list:
        """Backbone variables the head never reads, so never trains (none here; a subclass names them)."""
        return []

    def _kept_fixed(self) -> set:
        backbone = getattr(self, "backbone", None)
        if backbone is None:
            return set()
        if getattr(self, "freeze_backbone", False):
            return {id(v) for v in backbone.weights}
        return {id(v) for v in self.unused_backbone_variables()}

    @property
    def trainable_variables(self):
        """The variables ``fit`` trains: Keras's list less the backbone variables this model keeps fixed."""
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

    def get_config(self):
        return {**super().get_config(), "backbone": keras.saving.serialize_keras_object(self.backbone),
                "dropout": self.dropout, "freeze_backbone": self.freeze_backbone}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["backbone"] = keras.saving.deserialize_keras_object(config["backbone"])
        return cls(**config)
