"""Chapter 10's fine-tuning call: the training subsets a label-efficiency point trains on (for QA, every window of the
first n questions and no other), the per-example scores its intervals come from, the epoch rule for small training
sets, that a point is the library's recipe (the same weights as ``fine_tune`` on a fresh model), and that finished
runs are read back, never mixed across settings."""
import keras
import numpy as np
import pytest

from backends import once_on_tensorflow
from word2bert.course.finetuning import FineTuner, LabelledTask, Point, baseline_scores, first_blocks
from word2bert.datasets.squad import QAExample
from word2bert.models.bert import BertBackbone, BertClassifier, copy_backbone, fine_tune
from word2bert.preprocessing import LengthBatches
from word2bert.tokenizers import WordPieceTokenizer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "dog", "cat", "sat", "ran", "good", "bad", "film", ".",
         "who", "?", "adam", "seth", "lived", "years", "930", "912", "how", "many", "did", "live", "un", "##aff", "##able"]
TOK = WordPieceTokenizer(VOCAB)


def _sentences(n, offset=0):
    words = ["good film", "bad film", "the dog sat", "the cat ran", "good dog", "bad cat"]
    return [(words[(i + offset) % 6] + " .", (i + offset) % 2) for i in range(n)]


def _polarity():
    return LabelledTask.sentences("polarity", TOK, {"train": _sentences(12), "valid": _sentences(6, 1),
                                                    "test": _sentences(7, 2)}, sequence_length=8)


@once_on_tensorflow
def test_rows_are_the_first_n_examples_and_for_qa_every_window_of_the_first_n_questions():
    task = _polarity()
    x, y = task.rows(5)
    assert y.tolist() == [0, 1, 0, 1, 0] and x["token_ids"].shape == (5, 8)
    assert task.rows()[1].shape == (12,) and task.examples == {"train": 12, "valid": 6, "test": 7}
    with pytest.raises(ValueError, match="has 12 train examples, asked for 13"):
        task.rows(13)
    context = "Adam lived 930 years . " * 4 + "Seth lived 912 years ."
    long_q = QAExample("q0", "t", context, "how many years did seth live ?", (("912", context.index("912")),))
    short = "the dog sat ."
    short_q = QAExample("q1", "t", short, "who sat ?", (("the dog", 0),))
    splits = {"train": [long_q, short_q, long_q], "valid": [short_q], "test": [long_q, short_q]}
    qa = LabelledTask.questions("qa", TOK, splits, sequence_length=20, doc_stride=4, max_query_len=8)
    per_question = np.bincount(qa.windows["train"].example_index)
    assert per_question[0] > 1 and per_question[1] == 1                 # the long context needs several windows
    x, positions = qa.rows(2)
    assert len(positions) == per_question[0] + per_question[1]         # every window of q0 and q1, none of q2
    assert qa.examples["train"] == 3 and qa.rows(1)[1].shape[0] == per_question[0]


@once_on_tensorflow
def test_scores_are_per_example_right_or_wrong_per_word_and_f1_per_question():
    task = _polarity()
    outputs = np.zeros((7, 2))
    outputs[[0, 2, 3], 1] = 1.0                                         # predicts 1 for rows 0, 2 and 3
    assert task.scores_from_outputs(outputs, "test").tolist() == [0, 0, 0, 1, 1, 0, 1]  # labels 0101010
    tags = LabelledTask.tags("pos", TOK, {s: [(["the", "unaffable", "dog"], ["DT", "JJ", "NN"])] for s in
                                          ("train", "valid", "test")}, ["DT", "JJ", "NN"], sequence_length=6)
    logits = np.zeros((1, 6, 3))
    logits[0, 1, 0] = logits[0, 2, 2] = logits[0, 3, 1] = 1.0            # "the" right, "un" wrong; "dog" cut
    assert tags.data["test"][0]["token_ids"][0].tolist() == [2, 5, 26, 27, 28, 3]
    assert tags.scores_from_outputs(logits, "test").tolist() == [1.0, 0.0, 0.0]
    assert tags.majority_share() == pytest.approx(1 / 2)               # DT and JJ fitted, one each
    q = QAExample("q1", "t", "the dog sat .", "who sat ?", (("the dog", 0),))
    qa = LabelledTask.questions("qa", TOK, {s: [q, q] for s in ("train", "valid", "test")}, 16, 4, max_query_len=8)
    assert qa.data["test"][0]["token_ids"][0, 5:8].tolist() == [5, 6, 8]    # [CLS] who sat ? [SEP] the dog sat
    logits = np.full((2, 16, 2), -9.0)
    logits[:, 5, 0] = 5.0
    logits[0, 6, 1] = logits[1, 7, 1] = 5.0                             # "the dog" (F1 1); "the dog sat": SQuAD drops "the", 2/3
    assert qa.scores_from_outputs(logits, "test") == pytest.approx([1.0, 2 / 3])


@once_on_tensorflow
def test_point_averages_seeds_per_example_and_reports_the_spread():
    a, b = np.array([1, 1, 0, 0]), np.array([1, 0, 0, 0])
    p = Point.from_scores([a, b], seeds=(0, 1), epochs=(2, 3))
    assert p.mean == pytest.approx(0.375) and p.spread == pytest.approx(0.25)
    assert p.interval.score == pytest.approx(0.375) and p.interval.n == 4
    with pytest.raises(ValueError, match="same examples"):
        Point.from_scores([a, b[:3]], seeds=(0, 1))


@once_on_tensorflow
def test_small_training_sets_get_epochs_enough_for_min_steps_capped(tmp_path):
    task = _polarity()
    tuner = FineTuner(tmp_path, {"a": 1}, batch_size=4, min_steps=10, epoch_cap=6)
    assert tuner.epochs_for(task, 12, max_epochs=2) == 4                # 3 batches: ceil(10 / 3) = 4
    assert tuner.epochs_for(task, 4, max_epochs=2) == 6                 # 1 batch would need 10: capped at 6
    assert tuner.epochs_for(task, 12, max_epochs=8) == 8                # max_epochs above the cap stays
    assert FineTuner(tmp_path, {"a": 1}, batch_size=4, min_steps=12).epochs_for(task, 12, 2) == 4


def _backbone():
    keras.utils.set_random_seed(7)
    backbone = BertBackbone(vocabulary_size=len(VOCAB), num_layers=1, hidden_dim=16, num_heads=2, intermediate_dim=32,
                            dropout=0.1, max_sequence_length=16)
    backbone.build()
    return backbone


def _by_hand(task, backbone, pretrained):
    """The run a point makes (seed 3, 8 examples, rate 1e-2, 2 epochs), with fine_tune on a fresh model."""
    keras.utils.set_random_seed(3)
    model = BertClassifier(copy_backbone(backbone, pretrained=pretrained, seed=3), num_classes=2)
    x, y = task.rows(8)
    model({k: v[:1] for k, v in x.items()})
    fine_tune(model, LengthBatches(x, y, 4, lengths=(8,), seed=3), LengthBatches(*task.data["valid"], 4, lengths=(8,)),
              keras.losses.SparseCategoricalCrossentropy(from_logits=True), 1e-2, max_epochs=2, batch_size=4, patience=2)
    return model


@once_on_tensorflow
def test_a_point_is_the_librarys_recipe_and_is_read_back_not_retrained(tmp_path, monkeypatch):
    task, backbone = _polarity(), _backbone()
    tuner = FineTuner(tmp_path, {"sizes": 1}, batch_size=4, buckets=(8,), min_steps=1)
    for pretrained in (True, False):                                    # the encoder's weights, then the control
        point = tuner.point("tiny", backbone, task, 8, rate=1e-2, max_epochs=2, seeds=(3,), patience=2,
                            pretrained=pretrained)
        model = _by_hand(task, backbone, pretrained)
        for mine, theirs in zip(tuner.model.get_weights(), model.get_weights()):
            np.testing.assert_allclose(mine, theirs, atol=1e-5)
        assert point.mean == pytest.approx(task.scores(model).mean())
    point = tuner.point("tiny", backbone, task, 8, rate=1e-2, max_epochs=2, seeds=(3,), patience=2)
    monkeypatch.setattr(FineTuner, "_train", lambda *a, **k: pytest.fail("a recorded run was trained again"))
    again = FineTuner(tmp_path, {"sizes": 1}, batch_size=4, buckets=(8,), min_steps=1)
    assert again.point("tiny", backbone, task, 8, rate=1e-2, max_epochs=2, seeds=(3,), patience=2) == point
    other = FineTuner(tmp_path, {"sizes": 2}, batch_size=4, buckets=(8,), min_steps=1)
    with pytest.raises(pytest.fail.Exception, match="trained again"):  # other settings: another folder, a new run
        other.point("tiny", backbone, task, 8, rate=1e-2, max_epochs=2, seeds=(3,), patience=2)
    with pytest.raises(ValueError, match="distinct"):
        again.point("tiny", backbone, task, 8, rate=1e-2, max_epochs=2, seeds=(1, 1))


@once_on_tensorflow
def test_first_blocks_compute_what_the_full_encoder_computes_after_that_many_blocks():
    keras.utils.set_random_seed(1)
    full = BertBackbone(vocabulary_size=len(VOCAB), num_layers=3, hidden_dim=16, num_heads=2, intermediate_dim=32,
                        dropout=0.0, max_sequence_length=16)
    full.build()
    one = first_blocks(full, 1)
    x = _polarity().rows(4)[0]
    got = keras.ops.convert_to_numpy(one(x)["sequence_output"])
    want = keras.ops.convert_to_numpy(full.hidden_states(x)[1])          # the embeddings are hidden state 0
    np.testing.assert_allclose(got, want, atol=1e-5)
    assert not np.allclose(got, keras.ops.convert_to_numpy(full.hidden_states(x)[2]), atol=1e-3)
    assert first_blocks(full, 3) is full
    with pytest.raises(ValueError, match=">= 1"):
        first_blocks(full, 0)


@once_on_tensorflow
def test_baselines_learn_from_the_training_rows_given_and_score_each_test_example():
    from collections import namedtuple
    Pair = namedtuple("Pair", "a b label")
    train = [(["the", "dog", "sat"], ["DT", "NN", "VBD"]), (["dog", "ran"], ["VB", "VBD"]), (["dog"], ["NN"])]
    test = [(["the", "dog", "flew"], ["DT", "NN", "VBD"])]
    assert baseline_scores("pos", train, None, test).tolist() == [1.0, 1.0, 0.0]      # dog: NN twice, VB once
    assert baseline_scores("pos", train[1:2], None, test).tolist() == [0.0, 0.0, 0.0]  # from one sentence: VB
    same = [Pair("the dog sat", "the dog sat down", 1), Pair("the dog sat", "a cat ran off", 0)] * 3
    assert baseline_scores("pair", same, None, [Pair("a b c", "a b c", 1), Pair("a b c", "x y z", 0)]).tolist() == [1, 1]
    with pytest.raises(ValueError, match="no baseline for task 'ner'"):
        baseline_scores("ner", train, None, test)
