"""Tests for word2bert.metrics: BLEU edge values, agreement with sacrebleu's own API and
with a hand computation, and multi-reference handling."""
import math

import numpy as np
import pytest
import sacrebleu

from word2bert.metrics import bleu_by_bucket, corpus_bleu


def test_identical_is_100():
    refs = ["the cat sat on the mat.", "I am cold!"]
    assert corpus_bleu(refs, refs) == pytest.approx(100.0)


def test_hand_computed_bleu():
    # hyp "a b c d e f" vs ref "a b c d e g": precisions 5/6, 4/5, 3/4, 2/3; same length -> BP = 1
    expected = 100 * math.exp(np.mean(np.log([5 / 6, 4 / 5, 3 / 4, 2 / 3])))
    assert corpus_bleu(["a b c d e f"], ["a b c d e g"]) == pytest.approx(expected, rel=1e-9)


def test_no_shared_four_gram_is_zero():
    assert corpus_bleu(["a b c d"], ["e f g h"]) == 0.0


def test_multiple_references_of_varying_number():
    hyps = ["the cat is on the mat.", "he left early."]
    refs = [["there is a cat on the mat.", "the cat is on the mat."], ["he went away early."]]
    expected = sacrebleu.corpus_bleu(hyps, [["there is a cat on the mat.", "he went away early."],
                                            ["the cat is on the mat.", None]]).score
    assert corpus_bleu(hyps, refs) == pytest.approx(expected)
    assert corpus_bleu(hyps, refs) > corpus_bleu(hyps, [r[0] for r in refs])


def test_bleu_by_bucket_splits_by_length():
    hyps, refs = ["a b c d", "x y z w v", "p q r s"], ["a b c d", "x y z w v", "p q r t"]
    out = bleu_by_bucket([3, 7, 12], hyps, refs, edges=(5, 10))
    assert set(out) == {"1-5", "6-10", ">10"}
    assert out["1-5"] == (pytest.approx(100.0), 1) and out["6-10"][1] == 1
    # "p q r s" vs "p q r t": precisions 3/4, 2/3, 1/2 and 0/1, which sacrebleu's default
    # exponential smoothing turns into 1/2 (1 / 2^k for the k-th zero precision)
    assert out[">10"] == (pytest.approx(100 * (3 / 4 * 2 / 3 * 1 / 2 * 1 / 2) ** 0.25), 1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="one entry per hypothesis"):
        corpus_bleu(["a"], ["a", "b"])
    with pytest.raises(ValueError, match="at least one"):
        corpus_bleu([], [])
    with pytest.raises(ValueError, match="increasing"):
        bleu_by_bucket([1], ["a"], ["a"], edges=(5, 3))


def test_single_strings_are_rejected_not_split_into_characters():
    from word2bert.metrics import corpus_bleu
    with pytest.raises(TypeError, match="hypotheses must be"):
        corpus_bleu("the cat", ["the cat"])
    with pytest.raises(TypeError, match="references must be"):
        corpus_bleu(["the cat"], "the cat")


def test_lowercase_is_passed_to_sacrebleu():
    hyp, ref = ["The Cat sat on the Mat today ."], [["the cat sat on the mat today ."]]
    assert corpus_bleu(hyp, ref, lowercase=True) == pytest.approx(100.0)
    assert corpus_bleu(hyp, ref) < 60.0


def test_chrf_by_hand_and_by_bucket():
    from word2bert.metrics import corpus_chrf

    assert corpus_chrf(["the cat sat."], [["the cat sat."]]) == pytest.approx(100.0)
    # against sacrebleu's own API, with a varying number of references per line
    hyps, refs = ["the cat sat on the mat.", "a dog ran"], [["the cat sat on a mat.", "a cat sat."], ["the dog ran"]]
    expected = sacrebleu.corpus_chrf(hyps, [["the cat sat on a mat.", "the dog ran"], ["a cat sat.", None]]).score
    assert corpus_chrf(hyps, refs) == pytest.approx(expected)
    # chrF gives partial credit where BLEU gives none: a right stem with a wrong ending
    assert corpus_chrf(["they walked home"], [["they walk home"]]) > 50 > corpus_bleu(["they walked home"],
                                                                                    [["they walk home"]])
    buckets = bleu_by_bucket([1, 9], ["a b", "c d e"], ["a b", "x y z"], edges=(5,), metric=corpus_chrf)
    assert buckets["1-5"] == (pytest.approx(100.0), 1) and buckets[">5"][0] < 10
    assert corpus_chrf(["the lord said"], ["The LORD said"]) < 50
    assert corpus_chrf(["the lord said"], ["The LORD said"], lowercase=True) == pytest.approx(100.0)
    with pytest.raises(TypeError, match="hypotheses"):
        bleu_by_bucket([3, 4], "ab", ["a", "b"])
    with pytest.raises(ValueError, match=">= 1"):
        bleu_by_bucket([0, 4], ["a", "b"], ["a", "b"])
    with pytest.raises(ValueError, match="at least one"):
        bleu_by_bucket([], [], [])
