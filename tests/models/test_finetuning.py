"""Chapter 10's fine-tuning heads and their data: first-piece labels, document-stride windows, span
decoding, frozen backbones, the baselines. Right answers are worked by hand on tiny inputs."""
from collections import namedtuple

import keras
import numpy as np
import pytest

from layer_checks import run_layer_test
from word2bert.models.bert import (IGNORE_LABEL, BertBackbone, BertClassifier, BertQuestionAnswerer, BertTokenTagger,
                                   SpanLoss, align_first_pieces, best_spans, copy_backbone, decode_answers,
                                   encode_texts, finetuning_optimizer, qa_windows, word_accuracy)
from word2bert.preprocessing import LengthBatches
from word2bert.baselines import MostFrequentTag, bag_of_words_classifier, overlap_classifier, word_overlap
from word2bert.tokenizers import WordPieceTokenizer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "un", "##aff", "##able", "dog", "adam", "lived",
         "930", "years", ".", "seth", "912", "how", "many", "did", "live", "?", "cat", "sat"]
Example = namedtuple("Example", "id context question answers")


@pytest.fixture(scope="module")
def tokenizer():
    return WordPieceTokenizer(VOCAB)


def _backbone(layers=2, seed=0):
    keras.utils.set_random_seed(seed)
    backbone = BertBackbone(vocabulary_size=len(VOCAB), num_layers=layers, hidden_dim=8, num_heads=2, intermediate_dim=16,
                            max_sequence_length=64, dropout=0.0)
    backbone.build()
    return backbone


# ------------------------------------------------------------------ first-piece labels
def test_first_piece_alignment_by_hand(tokenizer):
    aligned = align_first_pieces(tokenizer, [["The", "unaffable", "dog"]], [[3, 7, 1]], sequence_length=9)
    # [CLS] the un ##aff ##able dog [SEP] [PAD] [PAD]
    assert aligned.inputs["token_ids"][0].tolist() == [2, 5, 6, 7, 8, 9, 3, 0, 0]
    assert aligned.labels[0].tolist() == [-1, 3, 7, -1, -1, 1, -1, -1, -1]
    assert aligned.word_index[0].tolist() == [-1, 0, 1, -1, -1, 2, -1, -1, -1]
    assert aligned.inputs["padding_mask"][0].tolist() == [True] * 7 + [False] * 2
    assert aligned.words_cut == 0


def test_words_that_do_not_fit_are_cut_and_count_as_wrong(tokenizer):
    aligned = align_first_pieces(tokenizer, [["the", "unaffable", "dog"]], [[3, 7, 1]], sequence_length=5)
    assert aligned.labels[0].tolist() == [-1, 3, -1, -1, -1]      # "unaffable" needs 3 pieces: no room
    assert aligned.words_cut == 2
    perfect = np.where(aligned.labels < 0, 0, aligned.labels)       # right on every word that fitted
    assert word_accuracy(perfect, aligned) == pytest.approx(1 / 3)


def test_alignment_refuses_bad_input(tokenizer):
    with pytest.raises(ValueError, match="3 words but 2 tags"):
        align_first_pieces(tokenizer, [["the", "cat", "sat"]], [[1, 2]])
    with pytest.raises(ValueError, match="is a string"):
        align_first_pieces(tokenizer, ["the cat"], [[1]])
    with pytest.raises(ValueError, match=">= 0"):
        align_first_pieces(tokenizer, [["the"]], [[-2]])


# ------------------------------------------------------------------ span decoding
def test_best_span_when_the_best_start_comes_after_the_best_end():
    start = np.array([0.0, 1.0, 0.0, 5.0, 0.0])
    end = np.array([0.0, 0.0, 4.0, 0.0, 1.0])
    allowed = np.array([False, True, True, True, True])
    spans = best_spans(start, end, allowed, max_answer_len=5, n_best=3)
    # argmax start = 3 > argmax end = 2; valid pairs: (3,3)=5, (3,4)=6, (1,2)=5, (2,2)=4, ...
    assert spans[0] == (6.0, 3, 4)
    assert {(s, e) for _, s, e in spans[1:]} == {(3, 3), (1, 2)}


def test_best_span_respects_the_length_cap_and_the_context():
    start = np.array([9.0, 3.0, 0.0, 0.0])
    end = np.array([9.0, 0.0, 0.0, 3.0])
    allowed = np.array([False, True, True, True])
    assert best_spans(start, end, allowed, max_answer_len=3, n_best=1) == [(6.0, 1, 3)]   # not (0, 0): [CLS]
    score, first, last = best_spans(start, end, allowed, max_answer_len=2, n_best=1)[0]
    assert score == 3.0 and 0 <= last - first <= 1
    assert best_spans(start, end, np.zeros(4, bool)) == []


def test_windows_a_stride_apart_and_answer_positions(tokenizer):
    context = "Adam lived 930 years . Seth lived 912 years ."
    example = Example("q0", context, "how many years did seth live ?", [("912", context.index("912"))])
    windows = qa_windows(tokenizer, [example], sequence_length=14, doc_stride=2, max_query_len=4)
    # question cut to 4 pieces; room = 14 - 4 - 3 = 7 context pieces; the context has 10 -> starts 0, 2, 4 (as run_squad.py:
    # a new window while the last one ends before the context does)
    assert windows.inputs["token_ids"].shape == (3, 14)
    ids = windows.inputs["token_ids"]
    assert ids[0].tolist() == [2, 17, 18, 13, 19, 3, 10, 11, 12, 13, 14, 15, 11, 3]
    assert windows.inputs["segment_ids"][0].tolist() == [0] * 6 + [1] * 8
    # "912" is context piece 7: outside window 0 (pieces 0-6), at 7 - 2 + 6 = 11 in window 1, 7 - 4 + 6 = 9 in 2
    assert windows.positions.tolist() == [[0, 0], [11, 11], [9, 9]]
    assert windows.answer_inside.tolist() == [False, True, True]
    begin, end = windows.char_spans[1, 11]
    assert context[begin:end] == "912"
    assert (windows.char_spans[:, :6] == -1).all()                  # question and [CLS]/[SEP]: no characters


def test_decoding_across_two_stride_windows(tokenizer):
    context = "Adam lived 930 years . Seth lived 912 years ."
    example = Example("q0", context, "how many years did seth live ?", [("912", context.index("912"))])
    windows = qa_windows(tokenizer, [example], sequence_length=14, doc_stride=2, max_query_len=4)
    logits = np.full((3, 14, 2), -5.0)
    logits[0, 8, :] = 2.0          # window 0: "930" scores 4
    logits[1, 11, 0], logits[1, 12, 1] = 3.0, 3.0    # window 1: "912 years" scores 6, the best of all
    logits[2, 9, :] = 2.5          # window 2: "912" alone scores 5
    text, char_start, score = decode_answers(logits, windows, [context], max_answer_len=5)[0]
    assert (text, char_start, score) == ("912 years", context.index("912"), 6.0)
    logits[1] = -5.0               # without window 1, window 2's "912" wins over window 0's "930"
    assert decode_answers(logits, windows, [context])[0][:2] == ("912", context.index("912"))


def test_windows_refuse_a_misplaced_answer(tokenizer):
    bad = Example("q9", "Adam lived 930 years .", "how many years ?", [("930", 0)])
    with pytest.raises(ValueError, match="q9"):
        qa_windows(tokenizer, [bad], sequence_length=16, max_query_len=4)
    with pytest.raises(ValueError, match="doc_stride"):
        qa_windows(tokenizer, [bad._replace(answers=[("930", 11)])], sequence_length=16, doc_stride=0, max_query_len=4)
    with pytest.raises(ValueError, match="holds no word"):
        qa_windows(tokenizer, [bad._replace(answers=[(" ", 4)])], sequence_length=16, max_query_len=4)
    with pytest.raises(ValueError, match="non-empty"):
        qa_windows(tokenizer, [], sequence_length=16, max_query_len=4)


# ------------------------------------------------------------------ heads
@pytest.mark.slow
def test_classifier_through_harness(tmp_path):
    backbone = _backbone(layers=1)
    x = {"token_ids": np.array([[2, 5, 9, 3, 0], [2, 22, 23, 14, 3]], np.int32),
         "segment_ids": np.zeros((2, 5), np.int32), "padding_mask": np.array([[1, 1, 1, 1, 0], [1] * 5], bool)}
    run_layer_test(BertClassifier, {"backbone": backbone, "num_classes": 3, "pooling": "pooled", "dropout": 0.1,
                                    "feature_layers": 1, "freeze_backbone": False},
                   [x], tmp_path, expected_output_shape=(2, 3), expected_num_trainable_weights=5 + 16 + 2 + 2,
                   float32_outputs=True, atol=1e-5)


@pytest.mark.slow
def test_tagger_through_harness(tmp_path):
    backbone = _backbone(layers=1)
    x = {"token_ids": np.array([[2, 5, 9, 3, 0]], np.int32), "segment_ids": np.zeros((1, 5), np.int32),
         "padding_mask": np.array([[1, 1, 1, 1, 0]], bool)}
    # the pooler is not trained by a tagger: 5 + 16 trainable in the backbone, 2 in the head, pooler's 2 frozen
    run_layer_test(BertTokenTagger, {"backbone": backbone, "num_tags": 4, "dropout": 0.0, "feature_layers": 2,
                                     "freeze_backbone": False},
                   [x], tmp_path, expected_output_shape=(1, 5, 4), expected_num_trainable_weights=5 + 16 + 2,
                   expected_num_non_trainable_weights=2, float32_outputs=True, atol=1e-5)


def test_feature_layers_concatenate_the_last_hidden_states():
    backbone = _backbone(layers=2)
    x = encode_texts(WordPieceTokenizer(VOCAB), ["the dog", "the cat sat"], sequence_length=6)
    states = [np.asarray(s) for s in backbone.hidden_states(x)]
    assert len(states) == 3
    np.testing.assert_allclose(states[-1], np.asarray(backbone(x)["sequence_output"]), atol=1e-6)
    tagger = BertTokenTagger(backbone, num_tags=3, dropout=0.0, feature_layers=2)
    features, _, _ = tagger.backbone_outputs(x)
    np.testing.assert_allclose(np.asarray(features), np.concatenate(states[1:], -1), atol=1e-6)
    with pytest.raises(ValueError, match="feature_layers must be in 1..3"):
        BertTokenTagger(backbone, num_tags=3, feature_layers=4)
    with pytest.raises(ValueError, match="needs feature_layers=1"):
        BertClassifier(backbone, feature_layers=2, pooling="pooled")


def test_a_frozen_backbone_is_unchanged_by_fit_and_the_head_learns(tokenizer):
    model = BertClassifier(copy_backbone(_backbone()), num_classes=2, pooling="mean", feature_layers=3,
                           freeze_backbone=True)
    x = encode_texts(tokenizer, ["the dog", "the cat sat", "adam lived", "seth lived 912 years"], sequence_length=8)
    model(x)
    before = [np.array(w) for w in model.backbone.weights]
    head_before = np.array(model.output_dense.kernel)
    model.compile(optimizer=keras.optimizers.Adam(0.05),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, np.array([0, 0, 1, 1]), epochs=3, verbose=0)
    assert all(np.array_equal(b, np.array(w)) for b, w in zip(before, model.backbone.weights))
    assert not np.allclose(head_before, np.array(model.output_dense.kernel))
    assert len(model.trainable_weights) == 2


def test_heads_on_a_shared_backbone_do_not_change_what_the_others_train(tokenizer):
    backbone = _backbone()
    x = encode_texts(tokenizer, ["the dog", "the cat sat", "adam lived", "seth lived 912 years"], sequence_length=8)
    first = BertClassifier(backbone, num_classes=2, pooling="pooled", dropout=0.0)     # reads the pooler
    first(x)
    n_first = len(first.trainable_weights)
    pooler = {id(v) for v in backbone.pooler.weights}
    assert n_first == len(backbone.weights) + 2 and pooler <= {id(v) for v in first.trainable_weights}
    # a second head on the same backbone: a tagger (no pooler) and a feature-based classifier (nothing of it)
    tagger = BertTokenTagger(backbone, num_tags=3, dropout=0.0)
    tagger(x)
    frozen = BertClassifier(backbone, num_classes=2, pooling="mean", freeze_backbone=True)
    frozen(x)
    assert len(tagger.trainable_weights) == len(backbone.weights) - 2 + 2 and len(frozen.trainable_weights) == 2
    assert len(first.trainable_weights) == n_first and backbone.trainable   # the first head trains as before
    assert all(v.trainable for v in backbone.weights)                        # no flag was changed
    before = [np.array(w) for w in backbone.pooler.weights]
    first.compile(optimizer=keras.optimizers.Adam(0.05),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    first.fit(x, np.array([0, 0, 1, 1]), epochs=2, verbose=0)
    assert all(not np.allclose(b, np.array(w)) for b, w in zip(before, backbone.pooler.weights))   # pooler learned
    # the tagger, fitted, leaves the pooler it does not read as it is
    before = [np.array(w) for w in backbone.pooler.weights]
    tagger.compile(optimizer=keras.optimizers.Adam(0.05),
                   loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    tagger.fit(x, np.ones((4, 8), np.int32), epochs=1, verbose=0)
    assert all(np.array_equal(b, np.array(w)) for b, w in zip(before, backbone.pooler.weights))


def test_fine_tuning_changes_the_backbone_and_copies_are_independent(tokenizer):
    pretrained = _backbone()
    model = BertClassifier(copy_backbone(pretrained), num_classes=2)
    x = encode_texts(tokenizer, ["the dog", "the cat sat"], sequence_length=6)
    model.compile(optimizer=keras.optimizers.Adam(0.05),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, np.array([0, 1]), epochs=2, verbose=0)
    moved = [not np.allclose(a, np.array(b)) for a, b in zip(pretrained.get_weights(), model.backbone.weights)]
    assert sum(moved) > 10                                            # the encoder learned too ...
    fresh = copy_backbone(pretrained)
    assert all(np.array_equal(a, b) for a, b in zip(pretrained.get_weights(), fresh.get_weights()))  # ... on a copy
    scratch = copy_backbone(pretrained, pretrained=False, seed=1)
    assert not np.allclose(pretrained.get_weights()[0], scratch.get_weights()[0])


def test_question_answerer_learns_a_span(tokenizer):
    context = "adam lived 930 years . seth lived 912 years ."
    example = Example("q", context, "how many years did seth live ?", [("912", context.index("912"))])
    windows = qa_windows(tokenizer, [example] * 8, sequence_length=24, doc_stride=8, max_query_len=8)
    model = BertQuestionAnswerer(copy_backbone(_backbone(), seed=0), dropout=0.0)
    logits = np.asarray(model(windows.inputs))
    assert logits.shape == (8, 24, 2)
    assert (logits[~windows.inputs["padding_mask"]] == np.finfo(np.float32).min).all()
    model.compile(optimizer=finetuning_optimizer(3e-2, 40, warmup_share=0.1), loss=SpanLoss())
    model.fit(windows.inputs, windows.positions, epochs=40, batch_size=8, verbose=0)
    assert decode_answers(model.predict(windows.inputs, verbose=0), windows, [context] * 8)[0][0] == "912"


def test_span_loss_by_hand():
    logits = np.zeros((1, 3, 2), np.float32)
    logits[0, :, 0] = [0.0, np.log(3.0), 0.0]       # start: p(1) = 3/5
    logits[0, :, 1] = [0.0, 0.0, np.log(2.0)]       # end: p(2) = 2/4
    loss = float(SpanLoss()(np.array([[1, 2]]), logits))
    assert loss == pytest.approx((-np.log(3 / 5) - np.log(2 / 4)) / 2, rel=1e-5)


# ------------------------------------------------------------------ baselines
def test_most_frequent_tag_by_hand():
    tagger = MostFrequentTag().fit([["the", "can", "can"], ["a", "can"]], [["DT", "MD", "NN"], ["DT", "NN"]])
    assert tagger.predict([["can", "the", "zebra"]]) == [["NN", "DT", "DT"]]   # unknown -> most frequent (DT, NN tie: first seen)
    assert tagger.accuracy([["can", "the"]], [["MD", "DT"]]) == 0.5
    with pytest.raises(ValueError, match="before fit"):
        MostFrequentTag().predict([["x"]])


def test_word_overlap_and_its_threshold():
    assert word_overlap("The cat sat.", "the cat ran") == pytest.approx(2 / 4)
    assert word_overlap("", "...") == 0.0
    predict, threshold = overlap_classifier([("a b c", "a b c"), ("a b c", "x y z"), ("a b", "a b d")], [1, 0, 1])
    assert threshold == pytest.approx(2 / 3)
    assert predict([("a b", "a b"), ("a", "b")]).tolist() == [1, 0]


def test_bag_of_words_picks_c_on_validation_and_learns_words():
    train = ["good film", "great film", "bad film", "awful film"] * 5
    labels = [1, 1, 0, 0] * 5
    model, choice = bag_of_words_classifier(train, labels, ["good", "awful"], [1, 0], c_values=(0.01, 10.0))
    assert model.predict(["great", "bad"]).tolist() == [1, 0]
    assert set(choice["valid_accuracy"]) == {0.01, 10.0} and choice["C"] in (0.01, 10.0)
    with pytest.raises(ValueError, match="3 texts but 2 labels"):
        bag_of_words_classifier(["a", "b", "c"], [0, 1], ["a"], [0])


@pytest.mark.slow
def test_question_answerer_through_harness(tmp_path):
    backbone = _backbone(layers=1)
    x = {"token_ids": np.array([[2, 17, 3, 10, 11, 12, 3], [2, 18, 3, 15, 11, 16, 3]], np.int32),
         "segment_ids": np.array([[0, 0, 0, 1, 1, 1, 1]] * 2, np.int32), "padding_mask": np.ones((2, 7), bool)}
    run_layer_test(BertQuestionAnswerer, {"backbone": backbone, "dropout": 0.0, "feature_layers": 1,
                                          "freeze_backbone": False},
                   [x], tmp_path, expected_output_shape=(2, 7, 2), expected_num_trainable_weights=5 + 16 + 2,
                   expected_num_non_trainable_weights=2, float32_outputs=True, atol=1e-5)


def test_a_frozen_model_stays_frozen_after_saving_and_a_copy_of_it_trains(tmp_path, tokenizer):
    keras.utils.set_random_seed(0)
    backbone = BertBackbone(vocabulary_size=len(VOCAB), num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16,
                            max_sequence_length=16, dropout=0.5)
    model = BertClassifier(backbone, pooling="mean", dropout=0.0, feature_layers=2, freeze_backbone=True)
    x = encode_texts(tokenizer, ["the dog", "the cat sat"], sequence_length=6)
    first, second = np.asarray(model(x, training=True)), np.asarray(model(x, training=True))
    np.testing.assert_array_equal(first, second)          # a frozen encoder runs without its dropout
    model.save(tmp_path / "frozen.keras")
    loaded = keras.saving.load_model(tmp_path / "frozen.keras")
    assert loaded.freeze_backbone and len(loaded.trainable_weights) == 2   # frozen by the model, not by flags
    np.testing.assert_allclose(np.asarray(loaded(x)), np.asarray(model(x)), atol=1e-6)
    tuned = BertClassifier(copy_backbone(loaded.backbone), num_classes=2)   # a copy of a frozen encoder trains
    assert tuned.backbone.trainable and len(tuned.trainable_weights) > 2
    assert not np.array_equal(np.asarray(tuned.backbone(x, training=True)["sequence_output"]),
                              np.asarray(tuned.backbone(x, training=True)["sequence_output"]))   # dropout on


def test_span_decoding_refuses_bad_arguments():
    with pytest.raises(ValueError, match="max_answer_len and n_best"):
        best_spans(np.zeros(3), np.zeros(3), np.ones(3, bool), max_answer_len=0)
    with pytest.raises(ValueError, match="one length"):
        best_spans(np.zeros(3), np.zeros(4), np.ones(3, bool))


def test_length_batches_cut_only_padding_and_cover_every_row_once(tokenizer):
    texts = ["the dog", "the cat sat", "adam lived 930 years .", "seth", "the unaffable dog sat", "how many"] * 3
    x = encode_texts(tokenizer, texts, sequence_length=10)
    labels = np.arange(len(texts))
    batches = LengthBatches(x, labels, batch_size=4, lengths=(4, 6), seed=0)
    seen = []
    for i in range(len(batches)):
        bx, by = batches[i]
        length = bx["token_ids"].shape[1]
        assert length in (4, 6, 10) and len(by) <= 4
        for row, label in zip(bx["token_ids"], by):       # the row is the original one, padding cut
            np.testing.assert_array_equal(row, x["token_ids"][label][:length])
            assert x["padding_mask"][label][length:].sum() == 0
        seen += by.tolist()
    assert sorted(seen) == labels.tolist()
    first = [batches[i][1].tolist() for i in range(len(batches))]
    batches.on_epoch_end()
    assert [batches[i][1].tolist() for i in range(len(batches))] != first        # a new order each epoch
    tags = np.tile(np.arange(10), (len(texts), 1))
    bx, by = LengthBatches(x, tags, batch_size=4, lengths=(4, 6))[0]
    assert by.shape == bx["token_ids"].shape                                      # per-token labels cut too
    # without a padding mask, a row's length is its last non-zero id: the same batches as with the mask here
    no_mask = LengthBatches({"token_ids": x["token_ids"]}, labels, batch_size=4, lengths=(4, 6))
    assert [w for w in no_mask.widths] == [w[:1] for w in LengthBatches(x, labels, batch_size=4, lengths=(4, 6)).widths]
    with pytest.raises(ValueError, match="as many rows"):
        LengthBatches(x, labels[:-1], batch_size=4, lengths=(4, 6))


def test_weight_decay_leaves_layer_norm_and_biases_alone():
    model = BertClassifier(copy_backbone(_backbone(layers=1)), num_classes=2)
    optimizer = finetuning_optimizer(1e-3, 10)
    optimizer.build(model.trainable_variables)
    decayed = {v.name for v in model.trainable_variables if optimizer._use_weight_decay(v)}
    assert "kernel" in decayed and not decayed & {"gamma", "beta", "bias"}


@pytest.mark.slow
def test_length_batches_train_with_fit_across_lengths(tokenizer):
    texts = ["the dog", "the cat sat", "adam lived 930 years .", "seth", "the unaffable dog sat", "how many"] * 4
    x = encode_texts(tokenizer, texts, sequence_length=10)
    batches = LengthBatches(x, np.arange(len(texts)) % 2, batch_size=4, lengths=(4, 6))
    assert batches[0][0]["token_ids"].shape[1] != batches[1][0]["token_ids"].shape[1]
    model = BertClassifier(copy_backbone(_backbone()), num_classes=2)
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(batches, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


def test_a_sentence_that_fills_max_len_exactly_is_not_cut(tokenizer):
    # [CLS] the un ##aff ##able dog [SEP]: 7 positions, max_len 7; one position less cuts "dog"
    aligned = align_first_pieces(tokenizer, [["The", "unaffable", "dog"]], [[3, 7, 1]], sequence_length=7)
    assert aligned.labels[0].tolist() == [-1, 3, 7, -1, -1, 1, -1] and aligned.words_cut == 0
    assert aligned.inputs["padding_mask"][0].all()
    shorter = align_first_pieces(tokenizer, [["The", "unaffable", "dog"]], [[3, 7, 1]], sequence_length=6)
    assert shorter.labels[0].tolist() == [-1, 3, 7, -1, -1, -1] and shorter.words_cut == 1
    assert shorter.inputs["token_ids"][0].tolist() == [2, 5, 6, 7, 8, 3]


def test_length_batches_give_a_row_of_exactly_an_allowed_length_that_length():
    # real lengths 4 (an allowed length), 8 (= L, the whole row) and 5 (between 4 and 6)
    mask = np.zeros((3, 8), bool)
    mask[0, :4], mask[1, :], mask[2, :5] = True, True, True
    x = {"token_ids": mask.astype(np.int32) * 5, "segment_ids": np.zeros((3, 8), np.int32), "padding_mask": mask}
    batches = LengthBatches(x, np.arange(3), batch_size=1, lengths=(4, 6))
    widths = {int(by[0]): bx["token_ids"].shape[1] for bx, by in (batches[i] for i in range(len(batches)))}
    assert widths == {0: 4, 1: 8, 2: 6}


def test_length_batches_never_cut_a_real_position_after_a_hole_in_the_mask():
    # row 0: 3 real positions, but the last at index 6 (a hole at 2-5): its width must hold index 6, so 8, not 4
    mask = np.zeros((2, 8), bool)
    mask[0, [0, 1, 6]], mask[1, :3] = True, True
    x = {"token_ids": mask.astype(np.int32) * 5, "segment_ids": np.zeros((2, 8), np.int32), "padding_mask": mask}
    batches = LengthBatches(x, np.arange(2), batch_size=1, lengths=(4, 6))
    widths = {int(by[0]): bx["token_ids"].shape[1] for bx, by in (batches[i] for i in range(len(batches)))}
    assert widths == {0: 8, 1: 4}
