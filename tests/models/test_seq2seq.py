"""Tests for word2bert.models.seq2seq: tokenizer round trip, teacher-forcing arrays by hand, and
the decoding step function agreeing with the teacher-forced training model."""
import keras
import numpy as np
import pytest
from keras import ops

from layer_checks import run_layer_test
from interrupts import RaiseAt
from word2bert.models.seq2seq import (Seq2Seq, encode_pairs, evaluate_translation, group_references,
                                      prepare_translation, train_seq2seq)
from word2bert.tokenizers.specials import SPECIALS
from word2bert.tokenizers.words import detokenize, tokenize
from word2bert.preprocessing import LengthBatches
from word2bert.preprocessing.batching import length_batches_by_epoch
from word2bert.training.resumable import last_finished_epoch
from word2bert.tokenizers import Vocabulary


def test_tokenize_and_detokenize():
    assert tokenize("Don’t forget the e-mail, Tom!") == ["don't", "forget", "the", "e-mail", ",", "tom", "!"]
    assert detokenize(["hello", ",", "world", "!", "</s>"]) == "hello, world!"
    # <unk> stays visible (and costs BLEU); only <pad>, <s>, </s> are dropped
    assert detokenize(["<s>", "the", "<unk>", "came", "<pad>", "</s>"]) == "the <unk> came"
    text = "it's not worth the effort, is it?"
    assert detokenize(tokenize(text)) == text


def test_encode_pairs_by_hand():
    src = Vocabulary([["ich", "bin", "müde"]])
    tgt = Vocabulary([["i", "am", "tired"]], specials=SPECIALS)
    x, d_in, d_out = encode_pairs([(["ich", "bin"], ["i", "am", "tired"])], src, tgt, sequence_length=5)
    s, e = tgt.token_to_id("<s>"), tgt.token_to_id("</s>")
    ids = [tgt.token_to_id(w) for w in ["i", "am", "tired"]]
    assert x.tolist() == [[src.token_to_id("ich"), src.token_to_id("bin")]]
    assert d_in.tolist() == [[s, *ids]] and d_out.tolist() == [[*ids, e]]
    with pytest.raises(ValueError, match="tgt_vocab"):
        encode_pairs([(["ich"], ["i"])], src, src, sequence_length=5)


def test_group_references():
    sources, refs = group_references([("A b c.", "X y."), ("A b c.", "Z!"), ("D e f g.", "W.")], sequence_length=4)
    assert sources == ["A b c."] and refs == [["x y.", "z!"]]


@pytest.mark.parametrize("attention, scale, bidirectional", [(None, False, False), ("additive", False, False),
                                                           ("dot", True, True), (None, False, True)])
@pytest.mark.slow
def test_step_function_matches_teacher_forced_model(attention, scale, bidirectional):
    rng = np.random.default_rng(0)
    m = Seq2Seq(20, 15, embedding_dim=8, hidden_dim=12, attention=attention, attention_scale=scale,
                bidirectional=bidirectional)
    if attention:
        assert m.attn.scale is scale
    src = rng.integers(1, 20, size=(3, 6)).astype("int32")
    src[0, 4:] = 0  # padding
    dec_in = rng.integers(1, 15, size=(3, 4)).astype("int32")
    logits = ops.convert_to_numpy(m((src, dec_in)))
    expected = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    state = m.encode(src)
    for t in range(dec_in.shape[1]):
        log_probs, state = m.step(state, dec_in[:, t])
        np.testing.assert_allclose(log_probs, expected[:, t], rtol=1e-4, atol=1e-4)
    # extra padding columns change nothing (the encoder and the attention both mask them)
    src2 = np.concatenate([src, np.zeros((3, 3), "int32")], axis=1)
    np.testing.assert_allclose(ops.convert_to_numpy(m((src2, dec_in))), logits, rtol=1e-5, atol=1e-5)
    # score() is the sum of the step log-probabilities of the given tokens, </s> included
    targets = [[3, 4], [5], [6, 7, 8]]
    bos, eos = 1, 2
    expected_scores = []
    for i, t in enumerate(targets):
        state, total = m.encode(src[i:i + 1]), 0.0
        for prev, nxt in zip([bos] + t, t + [eos]):
            log_probs, state = m.step(state, np.array([prev], np.int32))
            total += log_probs[0, nxt]
        expected_scores.append(total)
    np.testing.assert_allclose(m.score(src, targets, bos, eos, batch_size=2), expected_scores, rtol=1e-4, atol=1e-4)


def test_without_attention_the_source_summary_enters_every_decoder_step():
    """Cho et al. (2014): c is an input of every step, not only the initial state."""
    m = Seq2Seq(20, 15, embedding_dim=8, hidden_dim=12, attention=None)
    assert m.decoder_gru.cell.kernel.shape == (8 + 12, 3 * 12)
    dec_in = ops.convert_to_tensor(np.array([[1, 2, 3, 4, 5, 6]], "int32"))
    zero = ops.zeros((1, 12))
    c1, c2 = ops.ones((1, 12)), -ops.ones((1, 12))
    # same initial state, different context: every step's output differs
    out1 = ops.convert_to_numpy(m._decode(dec_in, zero, None, None, context=c1)[0])
    out2 = ops.convert_to_numpy(m._decode(dec_in, zero, None, None, context=c2)[0])
    assert np.all(np.abs(out1 - out2).max(axis=-1) > 1e-4)


def test_bidirectional_encoder_reads_both_ways():
    m = Seq2Seq(20, 15, embedding_dim=8, hidden_dim=12, attention="general", bidirectional=True)
    src = np.array([[3, 4, 5, 6, 0]], "int32")
    state = m.encode(src)
    assert state["memory"].shape == (1, 5, 12) and state["h"].shape == (1, 12)
    # the backward half of the first position depends on the last word; a unidirectional encoder's could not
    changed = src.copy()
    changed[0, 3] = 9
    first = m.encode(changed)["memory"][0, 0]
    assert np.abs(first[6:] - state["memory"][0, 0, 6:]).max() > 1e-5
    np.testing.assert_allclose(first[:6], state["memory"][0, 0, :6], atol=1e-6)
    with pytest.raises(ValueError, match="hidden_dim must be even"):
        Seq2Seq(20, 15, hidden_dim=11, bidirectional=True)


def test_length_batches_cover_every_pair_once_and_trim_padding():
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 30, size=101)
    x = np.zeros((101, 30), np.int32)
    din = np.zeros((101, 31), np.int32)
    for i, n in enumerate(lengths):
        x[i, :n] = rng.integers(1, 9, n)
        din[i, :n + 1] = rng.integers(1, 9, n + 1)
    dout = din.copy()
    batches = LengthBatches((x, din), dout, batch_size=16, seed=0, round_to=8)
    assert len(batches) == 7
    for epoch in range(2):
        seen = []
        for b in range(len(batches)):
            (bx, bdin), bdout = batches[b]
            rows = batches.batches[b]
            assert bx.shape[1] % 8 == 0 or bx.shape[1] == 30
            # nothing but padding was cut
            np.testing.assert_array_equal(bx, x[rows, :bx.shape[1]])
            assert not x[rows, bx.shape[1]:].any() and not din[rows, bdin.shape[1]:].any()
            np.testing.assert_array_equal(bdout, dout[rows, :bdout.shape[1]])
            seen += list(rows)
        assert sorted(seen) == list(range(101))
        batches.on_epoch_end()
    spread = [np.ptp(lengths[rows]) for rows in batches.batches]
    assert np.mean(spread) < 0.5 * np.ptp(lengths)  # similar lengths together
    with pytest.raises(ValueError, match="as many rows"):
        LengthBatches((x, din[:5]), dout, 4)
    with pytest.raises(ValueError, match="at least one row"):
        LengthBatches((x[:0], din[:0]), dout[:0], 4)


@pytest.mark.slow
@pytest.mark.parametrize("attention", [None, "general"])
def test_seq2seq_passes_the_shared_layer_test(attention, tmp_path):
    rng = np.random.default_rng(1)
    src = rng.integers(1, 20, size=(3, 6)).astype("int32")
    src[0, 4:] = 0
    dec_in = rng.integers(1, 15, size=(3, 4)).astype("int32")
    target = rng.integers(1, 15, size=(3, 4)).astype("int32")
    # embeddings 2 + GRUs (2 or 3) x 3 + combine 2 + logits 2 (+ general's W_a)
    run_layer_test(Seq2Seq, {"source_vocabulary_size": 20, "target_vocabulary_size": 15, "embedding_dim": 8, "hidden_dim": 12,
                             "attention": attention, "dropout": 0.1, "attention_scale": True,
                             "bidirectional": attention is not None, "combine_activation": "tanh" if attention else None},
                   [(src, dec_in)], tmp_path, expected_output_shape=(3, 4, 15),
                   expected_num_trainable_weights=12 + 4 * (attention == "general"),
                   fit_data=((src, dec_in), target),
                   compile_kwargs={"optimizer": keras.optimizers.SGD(0.5),
                                   "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True)})


def test_seq2seq_fits_directly_and_attention_weights_need_attention():
    m = Seq2Seq(10, 9, embedding_dim=4, hidden_dim=6, attention=None)
    with pytest.raises(ValueError, match="no attention"):
        m.attention_weights(np.ones((1, 3), "int32"), np.ones((1, 2), "int32"))
    a = Seq2Seq(10, 9, embedding_dim=4, hidden_dim=6, attention="dot")
    w = a.attention_weights(np.array([[3, 4, 0]], "int32"), np.array([[1, 2]], "int32"))
    assert w.shape == (1, 2, 3) and np.all(w[..., 2] == 0) and np.allclose(w.sum(-1), 1.0, atol=1e-6)


def _toy_splits():
    train = [("ich bin müde.", "i am tired."), ("du bist müde.", "you are tired."), ("ich bin hier.", "i am here."),
             ("du bist hier.", "you are here."), ("das ist ein sehr langer satz mit vielen worten.", "too long.")] * 4
    test = [("ich bin müde.", "i am tired."), ("ich bin müde.", "I'm tired."), ("du bist hier.", "you are here.")]
    return {"train": train, "valid": train[:4], "test": test}


def test_prepare_translation_caps_lengths_groups_references_and_encodes():
    data = prepare_translation(_toy_splits(), sequence_length=5, source_vocabulary_size=50, target_vocabulary_size=50)
    assert len(data.train_pairs) == 16 and all(len(s) <= 5 for s, _ in data.train_pairs)  # the long pair is cut
    assert data.test_sources == ["ich bin müde.", "du bist hier."]
    assert data.test_refs == [["i am tired.", "i'm tired."], ["you are here."]]
    assert data.x_train.dtype == np.int32 and data.x_train.shape[0] == 16
    (x, din), dout = data.train
    assert din[0, 0] == data.bos_id and data.eos_id in dout[0] and data.tgt_vocab.itos[data.bos_id] == "<s>"
    assert data.source_lengths() == [4, 4] and "train 16 pairs" in data.summary()
    sub = prepare_translation(_toy_splits(), 5, 50, 50, train_pairs=3, rng=np.random.default_rng(0))
    assert len(sub.train_pairs) == 3
    with pytest.raises(ValueError, match="rng"):
        prepare_translation(_toy_splits(), 5, 50, 50, train_pairs=3)
    with pytest.raises(ValueError, match="lacks"):
        prepare_translation({"train": []}, 5, 50, 50)


@pytest.mark.slow
def test_train_and_evaluate_translation_pipeline():
    data = prepare_translation(_toy_splits(), sequence_length=5, source_vocabulary_size=50, target_vocabulary_size=50, min_count=1)
    keras.utils.set_random_seed(0)
    model = Seq2Seq(len(data.src_vocab), len(data.tgt_vocab), embedding_dim=8, hidden_dim=16, attention="dot")
    history, seconds = train_seq2seq(model, data, epochs=40, patience=40, learning_rate=0.02, batch_size=8, verbose=0)
    assert history["loss"][-1] < 0.5 * history["loss"][0] and seconds > 0
    result = evaluate_translation(model, data)
    assert result["hypotheses"][1] == "you are here." and result["bleu"] > 50 and result["chrf"] > 50
    assert sum(n for _, n in result["buckets"].values()) == 2 and set(result["chrf_buckets"]) == set(result["buckets"])
    assert result["log_probs"] is None
    scored = evaluate_translation(model, data, log_probs=True)["log_probs"]
    assert scored.shape == (2,) and np.all(scored < 0)
    on_valid = evaluate_translation(model, data, split="valid")
    assert len(on_valid["hypotheses"]) == len(data.valid_sources) == 4
    with pytest.raises(ValueError, match="split must be"):
        evaluate_translation(model, data, split="train")
    with pytest.raises(ValueError, match="patience"):
        train_seq2seq(model, data, epochs=1, patience=0, learning_rate=0.01, batch_size=8)


def test_pipeline_mistakes_are_clear_errors():
    with pytest.raises(ValueError, match="attention must be None or one of"):
        Seq2Seq(20, 20, attention="bahdanau")
    with pytest.raises(ValueError, match="room for words"):
        prepare_translation(_toy_splits(), 5, 2, 20, min_count=1)
    data = prepare_translation(_toy_splits(), 5, 50, 50, min_count=1)
    with pytest.raises(ValueError, match="source_vocabulary_size is 5"):
        train_seq2seq(Seq2Seq(5, 5, 8, 8), data, epochs=1, patience=1, learning_rate=0.01, batch_size=8)


def test_length_batches_fit_when_the_first_batches_share_a_width():
    """Keras infers the input signature from the first two batches; they must differ in width."""
    rng = np.random.default_rng(3)
    n = 96
    x = np.zeros((n, 20), np.int32)
    din = np.zeros((n, 21), np.int32)
    for i in range(n):
        k = 3 if i < 64 else 17          # most pairs short, a few long
        x[i, :k] = rng.integers(1, 9, k)
        din[i, :k + 1] = rng.integers(1, 9, k + 1)
    for seed in range(10):  # without the swap, about 4 seeds in 10 would start with two short batches
        batches = LengthBatches((x, din), din, batch_size=16, seed=seed)
        for epoch in range(2):
            assert batches[0][0][0].shape[1] != batches[1][0][0].shape[1], (seed, epoch)
            assert batches[0][0][1].shape[1] != batches[1][0][1].shape[1], (seed, epoch)
            batches.on_epoch_end()
    model = Seq2Seq(10, 10, embedding_dim=4, hidden_dim=6)
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0))
    model.fit(batches, epochs=2, verbose=0)


@pytest.mark.slow
def test_a_checkpointed_training_learns_and_resumes_after_an_interruption_to_the_same_weights(tmp_path):
    data = prepare_translation(_toy_splits(), sequence_length=5, source_vocabulary_size=50, target_vocabulary_size=50, min_count=1)
    weights, histories = [], []
    for folder, stop_at in ((None, None), (tmp_path / "whole", None), (tmp_path / "cut", 3)):
        keras.utils.set_random_seed(0)
        model = Seq2Seq(len(data.src_vocab), len(data.tgt_vocab), embedding_dim=8, hidden_dim=16, attention="dot",
                        dropout=0.2)
        args = dict(epochs=6, patience=2, learning_rate=0.02, batch_size=8, verbose=0, seed=4, checkpoint_dir=folder)
        if stop_at is not None:
            with pytest.raises(KeyboardInterrupt):
                train_seq2seq(model, data, callbacks=[RaiseAt(stop_at)], **args)
            assert last_finished_epoch(folder) == 3                  # three epochs saved, the fourth never began
            keras.utils.set_random_seed(0)
            model = Seq2Seq(len(data.src_vocab), len(data.tgt_vocab), embedding_dim=8, hidden_dim=16, attention="dot",
                            dropout=0.2)
        history, seconds = train_seq2seq(model, data, **args)
        assert seconds > 0 and len(history["loss"]) == 6
        histories.append(history)
        weights.append([np.asarray(v) for v in model.weights])
    assert not (tmp_path / "whole").exists() and not (tmp_path / "cut").exists()   # deleted once done
    # both paths learn; the resumed run equals the uninterrupted one (the batches of the two paths differ: a plain
    # fit's TensorFlow adapter reshuffles in the middle of the first epoch, see test_resumable)
    assert histories[0]["val_loss"][-1] < 0.6 * histories[0]["val_loss"][0]
    assert histories[1]["val_loss"][-1] < 0.6 * histories[1]["val_loss"][0]
    np.testing.assert_allclose(histories[2]["val_loss"], histories[1]["val_loss"], rtol=1e-5)
    for a, b in zip(weights[2], weights[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_length_batches_by_epoch_gives_each_epoch_every_pair_once_and_the_same_batches_on_every_call():
    rng = np.random.default_rng(0)
    n = 37
    lengths = rng.integers(1, 9, n)
    source = np.array([[i + 1] + [0] * 9 for i in range(n)], np.int32)   # row i holds id i + 1: rows can be told apart
    target = np.array([[3] * k + [0] * (10 - k) for k in lengths], np.int32)
    by_epoch = length_batches_by_epoch(source, target, target, batch_size=8, seed=5)
    orders = []
    for epoch in range(3):
        batches, targets = by_epoch(epoch)
        assert targets is None and len(batches) == 5
        rows = [int(r) - 1 for i in range(len(batches)) for r in batches[i][0][0][:, 0]]
        assert sorted(rows) == list(range(n))                            # every pair once
        again = by_epoch(epoch)[0]
        assert all(np.array_equal(batches[i][0][0], again[i][0][0]) for i in range(len(batches)))
        orders.append(rows)
    assert orders[0] != orders[1] != orders[2]                           # a new draw each epoch
    plain = LengthBatches((source, target), target, 8, seed=5)
    plain.on_epoch_end()
    plain.on_epoch_end()
    assert [int(r) - 1 for i in range(len(plain)) for r in plain[i][0][0][:, 0]] == orders[2]
    with pytest.raises(ValueError, match="epoch must be >= 0"):
        by_epoch(-1)
    with pytest.raises(ValueError, match="batch_size >= 1"):
        length_batches_by_epoch(source, target, target, batch_size=0)


def test_length_batches_of_bert_inputs_cut_every_array_to_the_padding_mask_in_the_sorted_mode_too():
    # segment ids of zeros must not be cut to their own (empty) extent: the padding mask says how long a row is
    mask = np.zeros((6, 20), np.int32)
    for i, n in enumerate([3, 17, 9, 12, 5, 20]):
        mask[i, :n] = 1
    x = {"token_ids": mask * 7, "segment_ids": np.zeros_like(mask), "padding_mask": mask}
    batches = LengthBatches(x, np.arange(6), batch_size=2, seed=0)
    for b in range(len(batches)):
        bx, _ = batches[b]
        widths = {key: value.shape[1] for key, value in bx.items()}
        assert len(set(widths.values())) == 1, widths
        assert widths["token_ids"] >= mask[batches.batches[b]].sum(1).max()
