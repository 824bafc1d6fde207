import collections
import math

import numpy as np
import pytest

from word2bert import datasets
from word2bert.models.lm import NGramLM, ngram_statistics

from backends import once_on_tensorflow

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it


def test_mle_bigram_sentence_probability_by_hand(toy_corpus):
    lm = NGramLM(2, "mle").fit(toy_corpus)
    # P(the|<s>) P(cat|the) P(sat|cat) P(</s>|sat) = 1 * 2/3 * 1/2 * 1
    assert math.exp(lm.sentence_logprob("the cat sat".split())) == pytest.approx(1 / 3)
    assert lm.prob("ran", ["dog"]) == 0.0
    assert lm.perplexity([["the", "dog", "ran"]]) == math.inf
    # perplexity = P^(-1/4) over 4 predicted tokens
    assert lm.perplexity([["the", "cat", "sat"]]) == pytest.approx(3 ** 0.25)


def test_add_k_by_hand(toy_corpus):
    lm = NGramLM(2, "add_k", k=1).fit(toy_corpus)
    assert lm.V == 6  # the cat dog sat ran </s>
    assert lm.prob("cat", ["the"]) == pytest.approx((2 + 1) / (3 + 6))
    assert lm.prob("ran", ["dog"]) == pytest.approx((0 + 1) / (1 + 6))
    assert lm.prob("cat", ["unseen-history"]) == pytest.approx(1 / 6)
    uni = NGramLM(1, "add_k", k=0.5).fit(toy_corpus)  # 12 tokens incl. </s>
    assert uni.prob("the") == pytest.approx((3 + 0.5) / (12 + 0.5 * 6))


def test_kneser_ney_bigram_by_hand(toy_corpus):
    """Interpolated KN with D = 0.5, worked by hand.

    Continuation counts N1+(. w): the 1, cat 1, dog 1, sat 2, ran 1, </s> 2 (8 distinct bigrams).
    P1(sat) = (2 - .5)/8 + .5 * 6/8 * 1/6 = 0.25;  P1(dog) = (1 - .5)/8 + .5/8 = 0.125.
    P(sat|cat) = (1 - .5)/2 + .5 * 2/2 * P1(sat) = 0.375;  P(dog|cat) = .5 * P1(dog) = 0.0625.
    """
    lm = NGramLM(2, "kneser_ney", discount=0.5).fit(toy_corpus)
    assert lm.prob("sat", ["cat"]) == pytest.approx(0.375)
    assert lm.prob("dog", ["cat"]) == pytest.approx(0.0625)
    assert lm.prob("sat", ["never-seen"]) == pytest.approx(0.25)  # unseen history -> lower order
    assert lm.prob("zebra", ["cat"]) == pytest.approx(0.5 * 0.5 * 6 / 8 / 6)  # OOV: the uniform share only


@pytest.mark.parametrize("discount", ["modified", "single", 0.8])
def test_kneser_ney_sums_to_one_over_the_vocabulary(discount):
    train = datasets.ptb("train")[:2000]
    lm = NGramLM(3, "kneser_ney", discount=discount, eos="<eos>").fit(train)
    vocab = sorted(lm.vocab)
    for history in [("<s>",), ("<s>", "the"), ("of", "the"), ("the", "company"), ("qqq", "zzz"), ("in", "qqq")]:
        assert sum(lm.prob(w, history) for w in vocab) == pytest.approx(1.0, abs=1e-9), history


def test_modified_discounts_follow_chen_goodman():
    train = datasets.ptb("train")[:3000]
    lm = NGramLM(2, "kneser_ney", eos="<eos>").fit(train)
    # recount the top-order count-of-counts independently
    from collections import Counter
    bigrams = Counter()
    for s in train:
        seq = ["<s>", *s, "<eos>"]
        bigrams.update(zip(seq, seq[1:]))
    n = Counter(bigrams.values())
    y = n[1] / (n[1] + 2 * n[2])
    expected = (1 - 2 * y * n[2] / n[1], 2 - 3 * y * n[3] / n[2], 3 - 4 * y * n[4] / n[3])
    np.testing.assert_allclose(lm.discounts[2], expected)


def test_perplexity_is_exp_mean_nll(toy_corpus):
    lm = NGramLM(3, "kneser_ney").fit(toy_corpus)
    test = [["the", "dog", "ran"], ["the", "cat", "sat"]]
    lp = lm.token_logprobs(test)
    assert lp.shape == (8,)
    by_sentence = sum(lm.sentence_logprob(s) for s in test)
    assert lm.perplexity(test) == pytest.approx(math.exp(-by_sentence / 8))


def test_trigram_ignores_words_beyond_its_window(toy_corpus):
    lm = NGramLM(3, "kneser_ney").fit(toy_corpus)
    assert lm.prob("sat", ["dog", "the", "cat"]) == lm.prob("sat", ["cat", "the", "cat"])


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=0), "positive integer"), (dict(n=2, smoothing="witten_bell"), "smoothing"),
    (dict(n=2, smoothing="add_k", k=0), "k must be"), (dict(n=2, discount=1.5), "discount"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        NGramLM(**kwargs)


def test_empty_corpus_and_unfitted_model():
    with pytest.raises(ValueError, match="empty corpus"):
        NGramLM(2).fit([[], []])
    with pytest.raises(ValueError, match="not fitted"):
        NGramLM(2).perplexity([["a"]])
    with pytest.raises(ValueError, match="empty corpus"):
        NGramLM(2).fit([["a"]]).perplexity([])


def test_ngram_statistics_by_hand(toy_corpus):
    rows = ngram_statistics(toy_corpus, [["the", "dog", "ran"]], orders=(1, 2))
    assert rows[1]["distinct"] == 8
    assert rows[1]["dense_cells"] == 6 ** 2
    # test bigrams: <s> the, the dog, dog ran (unseen), ran </s>
    assert rows[1]["unseen_share"] == pytest.approx(1 / 4)
    assert rows[0]["unseen_share"] == 0.0


def test_strings_instead_of_token_lists_are_rejected(toy_corpus):
    with pytest.raises(TypeError, match="sentences must be a list of sentences"):
        NGramLM(2).fit("the cat sat")
    with pytest.raises(TypeError, match=r"sentences\[0\] must be a list of tokens"):
        NGramLM(2).fit(["the cat sat"])
    lm = NGramLM(2).fit(toy_corpus)
    with pytest.raises(TypeError, match="split it first"):
        lm.perplexity(["the cat"])
    with pytest.raises(TypeError, match="sentence"):
        lm.sentence_logprob("the cat")
    with pytest.raises(ValueError, match="orders"):
        ngram_statistics(toy_corpus, toy_corpus, orders=(0,))


# ---------------------------------------------------------- KN against a second implementation
KN3_PTB_SLICE_PERPLEXITY = 387.26653007952933  # PTB train[:3000] -> valid[:500]


def _reference_kneser_ney(train, n, eos):
    """Interpolated modified Kneser-Ney written from Chen & Goodman (1998), section 3 / eq. 26,
    independently of the library: plain dicts, a recursion over orders, the counts recomputed."""
    raw = collections.Counter()
    vocab = set()
    for sentence in train:
        seq = ["<s>", *sentence, eos]
        vocab.update(seq[1:])
        for i in range(1, len(seq)):
            for m in range(1, n + 1):
                if i - m + 1 >= 0:
                    raw[tuple(seq[i - m + 1:i + 1])] += 1
    left = collections.defaultdict(set)  # distinct words seen before each gram
    for gram in raw:
        if len(gram) > 1:
            left[gram[1:]].add(gram[0])
    def count(gram):  # the count KN uses at this order
        if len(gram) == n or gram[0] == "<s>":
            return raw.get(gram, 0)
        return len(left.get(gram, ()))
    by_order = collections.defaultdict(dict)
    for gram in raw:
        by_order[len(gram)][gram] = count(gram)
    discounts = {}
    for m, grams in by_order.items():
        n_c = collections.Counter(c for c in grams.values() if c <= 4)
        y = n_c[1] / (n_c[1] + 2 * n_c[2])
        discounts[m] = (0.0, 1 - 2 * y * n_c[2] / n_c[1], 2 - 3 * y * n_c[3] / n_c[2], 3 - 4 * y * n_c[4] / n_c[3])
    followers = collections.defaultdict(list)  # history -> counts of the grams that extend it
    for m, grams in by_order.items():
        for gram, c in grams.items():
            followers[gram[:-1]].append(c)
    def disc(m, c):
        return discounts[m][min(c, 3)]
    def prob(word, history):
        if history is None:
            return 1.0 / len(vocab)
        lower = prob(word, history[1:] if history else None)
        after = followers.get(history)
        if not after:
            return lower
        total = sum(after)
        m = len(history) + 1
        c = count(history + (word,)) if history + (word,) in raw else 0
        gamma = sum(disc(m, x) for x in after) / total
        return max(c - disc(m, c), 0) / total + gamma * lower
    def perplexity(sentences):
        logs = []
        for sentence in sentences:
            seq = ["<s>", *sentence, eos]
            for i in range(1, len(seq)):
                logs.append(math.log(prob(seq[i], tuple(seq[max(0, i - n + 1):i]))))
        return math.exp(-sum(logs) / len(logs))
    return perplexity


@pytest.mark.slow
def test_kneser_ney_trigram_on_a_ptb_slice_equals_a_second_implementation_and_a_pinned_value():
    train, valid = datasets.ptb("train")[:3000], datasets.ptb("valid")[:500]
    ours = NGramLM(3, "kneser_ney", eos="<eos>").fit(train).perplexity(valid)
    reference = _reference_kneser_ney(train, 3, "<eos>")(valid)
    assert ours == pytest.approx(reference, rel=1e-9)
    # the same number, pinned: a change in counting, discounts or back-off moves it
    assert ours == pytest.approx(KN3_PTB_SLICE_PERPLEXITY, rel=1e-6)
