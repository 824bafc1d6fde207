"""Grammar without labels (chapter 11): minimal pairs built by rule, sentences scored by pseudo-log-likelihood,
and how spread out each attention head is."""
import keras
import numpy as np
import pytest

from backends import once_on_tensorflow
from word2bert.models.bert import BertBackbone, BertPretrainer
from word2bert.analysis import attention_entropy, pseudo_log_likelihood
from word2bert.datasets import PHENOMENA, minimal_pairs
from word2bert.tokenizers import WordPieceTokenizer

SENTENCES = [
    "He is the king, and they were his servants.",       # agreement: "is" -> "are" (the first pronoun + auxiliary)
    "After these things, Saul had a son.",                # determiner: "these things" comes before "a son"
    "It rained.",                                         # nothing for any rule
    "We do what the Lord says.",                          # agreement after "we": "do" -> "does"
    "Then an angel spoke to many peoples.",               # determiner: "an angel" -> "many angel" (the first)
    "Those words were hard.",                             # determiner at the start, case kept
    "The glass of the king.",                             # word order: the lower-case "the" inside, not "The"
]


@once_on_tensorflow
def test_each_rule_makes_the_expected_edit_and_keeps_the_original_as_the_good_sentence():
    agreement = minimal_pairs(SENTENCES, "agreement")
    assert [(p.index, p.bad) for p in agreement] == [
        (0, "He are the king, and they were his servants."), (3, "We does what the Lord says.")]
    determiner = minimal_pairs(SENTENCES, "determiner_noun")
    assert [(p.index, p.bad) for p in determiner] == [
        (1, "After this things, Saul had a son."), (4, "Then many angel spoke to many peoples."),
        (5, "That words were hard.")]
    order = minimal_pairs(SENTENCES, "word_order")
    assert (0, "He is king the, and they were his servants.") in [(p.index, p.bad) for p in order]
    assert (6, "The glass of king the.") in [(p.index, p.bad) for p in order]
    for pairs in (agreement, determiner, order):
        for p in pairs:
            assert p.good == SENTENCES[p.index]
            assert len(p.bad.split()) == len(p.good.split())       # one edit, never a change of length
            assert p.good != p.bad


@once_on_tensorflow
def test_plural_words_ending_in_ss_and_singular_nouns_after_plural_determiners_are_left_alone():
    assert minimal_pairs(["These glass cups.", "those who came.", "A grass grew.", "an ass ran."],
                         "determiner_noun") == []


@once_on_tensorflow
def test_sampling_keeps_sentence_order_and_depends_on_the_seed_only():
    many = [f"He is number {i}." for i in range(50)]
    a, b = minimal_pairs(many, "agreement", max_pairs=10, seed=1), minimal_pairs(many, "agreement", max_pairs=10, seed=1)
    assert a == b and len(a) == 10
    assert [p.index for p in a] == sorted(p.index for p in a)
    assert [p.index for p in minimal_pairs(many, "agreement", max_pairs=10, seed=2)] != [p.index for p in a]
    with pytest.raises(ValueError, match="unknown phenomenon 'tense'"):
        minimal_pairs(many, "tense")
    assert set(PHENOMENA) == {"agreement", "determiner_noun", "word_order"}


VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "##s", "sat", "dog", "ran", "a"]


def _pretrainer():
    keras.utils.set_random_seed(3)
    model = BertPretrainer(BertBackbone(len(VOCAB), num_layers=1, hidden_dim=16, num_heads=2, intermediate_dim=32,
                                        max_sequence_length=16, dropout=0.1))
    model.build()
    return model


def _by_hand(model, tokenizer, sentence):
    """The PLL the slow way: one forward pass per masked position, NumPy's log-softmax."""
    ids = [2, *tokenizer.encode(sentence), 3]
    total = 0.0
    for i in range(1, len(ids) - 1):
        row = np.array([ids], np.int32)
        row[0, i] = 4
        logits = keras.ops.convert_to_numpy(model({"token_ids": row, "segment_ids": row * 0,
                                                   "mask_positions": np.array([[i]], np.int32)})["mlm"])[0, 0]
        logits = logits.astype(np.float64)
        total += logits[ids[i]] - (np.log(np.exp(logits - logits.max()).sum()) + logits.max())
    return total


def test_pseudo_log_likelihood_equals_one_masked_pass_per_piece_whatever_the_batching():
    model, tokenizer = _pretrainer(), WordPieceTokenizer(VOCAB)
    sentences = ["the cats sat", "a dog ran", "cat", "the dog sat the cats ran"]   # 4, 3, 1 and 7 pieces
    expected = [_by_hand(model, tokenizer, s) for s in sentences]
    for batch_size in (1, 5, 64):                 # rows of different sentences and lengths share a batch
        got = pseudo_log_likelihood(model, tokenizer, sentences, batch_size=batch_size)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    assert (np.asarray(expected) < 0).all()


def test_pseudo_log_likelihood_refuses_what_it_cannot_score():
    model, tokenizer = _pretrainer(), WordPieceTokenizer(VOCAB)
    with pytest.raises(ValueError, match="non-empty list of strings"):
        pseudo_log_likelihood(model, tokenizer, "the cat")
    with pytest.raises(ValueError, match="sentence 1 has 0 pieces"):
        pseudo_log_likelihood(model, tokenizer, ["the cat", ""])
    with pytest.raises(ValueError, match="sentence 0 has 7 pieces; it needs 1 to sequence_length - 2 = 6"):
        pseudo_log_likelihood(model, tokenizer, ["the dog sat the cats ran"], sequence_length=8)
    with pytest.raises(ValueError, match="lacks"):
        pseudo_log_likelihood(model, _no_mask_tokenizer(), ["the cat"])


def _no_mask_tokenizer():
    class NoMask:
        vocabulary = [t for t in VOCAB if t != "[MASK]"]
    return NoMask()


@once_on_tensorflow
def test_attention_entropy_is_zero_for_one_key_and_log_k_for_k_even_keys_over_real_queries_only():
    # one layer, batch 2, 2 heads, length 4; row 1 has 3 real tokens, its last query is padding
    weights = np.zeros((1, 2, 2, 4, 4), np.float32)
    weights[0, :, 0, :, 0] = 1.0                          # head 0: every query on the first key
    weights[0, 0, 1, :, :] = 0.25                         # head 1, row 0: even over 4 keys
    weights[0, 1, 1, :, :3] = 1 / 3                       # head 1, row 1: even over its 3 real keys
    weights[0, 1, 1, 3, :] = [0.97, 0.01, 0.01, 0.01]     # the padding query: left out
    mask = np.array([[1, 1, 1, 1], [1, 1, 1, 0]])
    out = attention_entropy([weights[0]], mask)
    np.testing.assert_allclose(out["entropy"][0], [0.0, (4 * np.log(4) + 3 * np.log(3)) / 7], rtol=1e-6)
    np.testing.assert_allclose(out["effective_keys"][0], [1.0, (4 * 4 + 3 * 3) / 7], rtol=1e-6)
    assert out["max_entropy"] == pytest.approx((4 * np.log(4) + 3 * np.log(3)) / 7)
    with pytest.raises(ValueError, match="sum to 1"):
        attention_entropy(weights * 2, mask)
    with pytest.raises(ValueError, match="padding_mask must be"):
        attention_entropy(weights, mask[:, :3])
