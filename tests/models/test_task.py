"""``word2bert.models.task.Task``: the one base of the BERT, GPT and ELMo heads (one size rule, one argument name,
the frozen backbone kept out of training, the backbone saved inside the config)."""
import keras
import numpy as np
import pytest

from word2bert.models.bert import BertBackbone, BertClassifier, BertTokenTagger
from word2bert.models.lm import BidirectionalLM, ElmoClassifier, ElmoTokenTagger
from word2bert.models.task import Task
from word2bert.models.transformer import DecoderOnlyTransformer, GPTClassifier, GPTTokenTagger

VOCAB = 30


def _backbones():
    keras.utils.set_random_seed(0)
    bert = BertBackbone(VOCAB, 1, 2, 8, 16, dropout=0.0, max_sequence_length=12)
    gpt = DecoderOnlyTransformer(VOCAB, num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16,
                                 max_sequence_length=12, dropout=0.0)
    gpt.build()
    bilm = BidirectionalLM(VOCAB, hidden_dim=4, num_layers=1, dropout=0.0)
    bilm.build()
    return {"bert": bert, "gpt": gpt, "elmo": bilm}


HEADS = [("bert", BertClassifier, "num_classes"), ("bert", BertTokenTagger, "num_tags"),
         ("gpt", GPTClassifier, "num_classes"), ("gpt", GPTTokenTagger, "num_tags"),
         ("elmo", ElmoClassifier, "num_classes"), ("elmo", ElmoTokenTagger, "num_tags")]
ROWS = {"token_ids": np.array([[2, 7, 9, 3, 0], [2, 5, 3, 0, 0]], np.int32),
        "segment_ids": np.zeros((2, 5), np.int32),
        "padding_mask": np.array([[1, 1, 1, 1, 0], [1, 1, 1, 0, 0]], bool)}


@pytest.mark.parametrize("family, head, size", HEADS, ids=[h.__name__ for _, h, _ in HEADS])
def test_every_head_is_a_task_with_one_size_rule_and_one_backbone_argument(family, head, size):
    backbone = _backbones()[family]
    assert issubclass(head, Task)
    with pytest.raises(ValueError, match=f"{size} must be >= 2"):
        head(backbone=backbone, **{size: 1})
    model = head(backbone=backbone, **{size: 2})
    assert model.backbone is backbone and getattr(model, size) == 2
    other = [b for name, b in _backbones().items() if name != family][0]
    with pytest.raises(ValueError, match="backbone must be a"):
        head(backbone=other, **{size: 2})


@pytest.mark.parametrize("family, head, size", HEADS, ids=[h.__name__ for _, h, _ in HEADS])
def test_a_frozen_backbone_is_left_out_of_training_and_the_config_round_trips(family, head, size):
    backbone = _backbones()[family]
    model = head(backbone=backbone, freeze_backbone=True, **{size: 3})
    out = keras.ops.convert_to_numpy(model(ROWS))
    backbone_ids = {id(v) for v in backbone.weights}
    trained = model.trainable_weights
    assert trained and not any(id(v) in backbone_ids for v in trained)
    assert all(v.trainable for v in backbone.weights)                     # no flag was set on the backbone
    config = model.get_config()
    assert config["freeze_backbone"] is True and config[size] == 3
    assert config["backbone"]["class_name"] == type(backbone).__name__
    again = head.from_config(config)
    again(ROWS)
    again.set_weights(model.get_weights())
    np.testing.assert_allclose(keras.ops.convert_to_numpy(again(ROWS)), out, atol=1e-5)
    assert len(again.trainable_weights) == len(trained)


def test_unfrozen_heads_train_their_backbone_elmo_by_default_does_not():
    b = _backbones()
    bert = BertClassifier(b["bert"], 2)
    bert(ROWS)
    assert any(id(v) in {id(w) for w in b["bert"].weights} for v in bert.trainable_weights)
    gpt = GPTClassifier(b["gpt"], 2)
    gpt(ROWS)
    assert any(id(v) in {id(w) for w in b["gpt"].weights} for v in gpt.trainable_weights)
    elmo = ElmoClassifier(b["elmo"], 2)
    elmo(ROWS)
    assert not any(id(v) in {id(w) for w in b["elmo"].weights} for v in elmo.trainable_weights)
    assert ElmoClassifier(b["elmo"], 2, freeze_backbone=False).freeze_backbone is False
