"""Tests for word2bert.seq2seq: tokenizer round trip, teacher-forcing arrays by hand, and
the decoding step function agreeing with the teacher-forced training model."""
import numpy as np
import pytest
from keras import ops

from word2bert.seq2seq import SPECIALS, Seq2Seq, detokenize, encode_pairs, group_references, tokenize
from word2bert.vocab import Vocabulary


def test_tokenize_and_detokenize():
    assert tokenize("Don’t forget the e-mail, Tom!") == ["don't", "forget", "the", "e-mail", ",", "tom", "!"]
    assert detokenize(["hello", ",", "world", "!", "</s>"]) == "hello, world!"
    text = "it's not worth the effort, is it?"
    assert detokenize(tokenize(text)) == text


def test_encode_pairs_by_hand():
    src = Vocabulary([["ich", "bin", "müde"]])
    tgt = Vocabulary([["i", "am", "tired"]], specials=SPECIALS)
    x, d_in, d_out = encode_pairs([(["ich", "bin"], ["i", "am", "tired"])], src, tgt, max_len=5)
    s, e = tgt.token_to_id("<s>"), tgt.token_to_id("</s>")
    ids = [tgt.token_to_id(w) for w in ["i", "am", "tired"]]
    assert x.tolist() == [[src.token_to_id("ich"), src.token_to_id("bin")]]
    assert d_in.tolist() == [[s, *ids]] and d_out.tolist() == [[*ids, e]]
    with pytest.raises(ValueError, match="tgt_vocab"):
        encode_pairs([(["ich"], ["i"])], src, src, max_len=5)


def test_group_references():
    sources, refs = group_references([("A b c.", "X y."), ("A b c.", "Z!"), ("D e f g.", "W.")], max_len=4)
    assert sources == ["A b c."] and refs == [["x y.", "z!"]]


@pytest.mark.parametrize("attention, scale", [(None, False), ("additive", False), ("dot", True)])
def test_step_function_matches_teacher_forced_model(attention, scale):
    rng = np.random.default_rng(0)
    m = Seq2Seq(20, 15, embedding_dim=8, units=12, attention=attention, attention_scale=scale)
    if attention:
        assert m.attn.scale is scale
    src = rng.integers(1, 20, size=(3, 6)).astype("int32")
    src[0, 4:] = 0  # padding
    dec_in = rng.integers(1, 15, size=(3, 4)).astype("int32")
    logits = ops.convert_to_numpy(m.model([src, dec_in]))
    expected = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    state = m.encode(src)
    for t in range(dec_in.shape[1]):
        log_probs, state = m.step(state, dec_in[:, t])
        np.testing.assert_allclose(log_probs, expected[:, t], rtol=1e-4, atol=1e-4)
    # extra padding columns change nothing (the encoder and the attention both mask them)
    src2 = np.concatenate([src, np.zeros((3, 3), "int32")], axis=1)
    np.testing.assert_allclose(ops.convert_to_numpy(m.model([src2, dec_in])), logits, rtol=1e-5, atol=1e-5)
