"""Tests for word2bert.evaluation: gensim's evaluate_word_pairs / evaluate_word_analogies
are the independent reference; hand-made vectors give exact expected answers."""
import numpy as np
import pytest

from word2bert import datasets
from word2bert.metrics import (
    analogy_accuracy,
    as_keyed_vectors,
    nearest_neighbours,
    random_baseline_vectors,
    similarity_spearman,
)
from word2bert.tokenizers import Vocabulary


def _pair_vectors(pairs, drop_every=7, dim=20, seed=1):
    """Random vectors for the pairs' words, dropping some words so coverage < 1."""
    words = sorted({w for a, b, _ in pairs for w in (a, b)})
    kept = [w for i, w in enumerate(words) if i % drop_every]
    return random_baseline_vectors(kept, dim=dim, seed=seed)


@pytest.mark.parametrize("name", ["wordsim353", "simlex999"])
def test_similarity_matches_gensim(name):
    pairs = getattr(datasets, name)()
    vectors = _pair_vectors(pairs)
    kv = as_keyed_vectors(vectors)
    _, (g_rho, g_p), g_oov = kv.evaluate_word_pairs(datasets.gensim_data_path(name))
    ours = similarity_spearman(vectors, pairs)
    assert ours["rho"] == pytest.approx(g_rho, abs=5e-4)
    assert ours["p_value"] == pytest.approx(g_p, rel=0.05)
    assert ours["coverage"] == pytest.approx(1 - g_oov / 100, abs=1e-9)
    assert ours["n_pairs"] == len(pairs) and 0 < ours["n_covered"] < len(pairs)


def test_similarity_hand_example():
    # cosines: (a,a)=1 > (a,b)=0.707 > (a,c)=0, the same order as the human scores -> rho = 1
    vectors = {"a": np.array([1.0, 0.0]), "b": np.array([1.0, 1.0]), "c": np.array([0.0, 1.0])}
    pairs = [("a", "b", 5.0), ("a", "c", 1.0), ("a", "a", 9.0), ("a", "zzz", 3.0)]
    out = similarity_spearman(vectors, pairs)
    assert out["rho"] == pytest.approx(1.0)
    assert out["coverage"] == pytest.approx(0.75) and out["n_covered"] == 3


def _analogy_world(seed=0, dim=30):
    """Cities and countries with country = city + shared offset + noise, plus distractors."""
    questions = datasets.google_analogies()["capital-common-countries"][:120]
    rng = np.random.default_rng(seed)
    offset = rng.standard_normal(dim)
    vectors = {}
    for a, b, _, _ in questions:
        if a not in vectors:
            vectors[a] = rng.standard_normal(dim)
        if b not in vectors:
            vectors[b] = vectors[a] + offset + 1.6 * rng.standard_normal(dim)
    for i in range(200):
        vectors[f"distractor{i}"] = rng.standard_normal(dim) * 1.5
    # shuffle the order so that restrict_vocab cuts through the question words
    keys = list(vectors)
    rng.shuffle(keys)
    return {k: vectors[k] for k in keys}, questions


@pytest.mark.parametrize("restrict", [None, 150])
def test_analogies_match_gensim(tmp_path, restrict):
    vectors, questions = _analogy_world()
    gram = [("boy", "boys", "girl", "girls")]
    for w in ("boy", "boys", "girl", "girls"):
        vectors[w] = np.random.default_rng(len(w)).standard_normal(30)
    path = tmp_path / "questions.txt"
    path.write_text(": capital-common-countries\n" + "".join(" ".join(q) + "\n" for q in questions)
                    + ": gram9-plural-nouns\n" + " ".join(gram[0]) + "\n")
    kv = as_keyed_vectors(vectors)
    g_acc, g_sections = kv.evaluate_word_analogies(str(path), restrict_vocab=restrict or 300000)
    total = g_sections[-1]
    ours = analogy_accuracy(vectors, {"capital-common-countries": questions, "gram9-plural-nouns": gram},
                            restrict_vocab=restrict)
    assert ours["correct"] == len(total["correct"])
    assert ours["total"] == len(total["correct"]) + len(total["incorrect"])
    assert ours["accuracy"] == pytest.approx(g_acc, abs=5e-4)
    assert 0.2 < ours["accuracy"] < 1.0  # a real mix of right and wrong answers
    assert ours["coverage"] == pytest.approx(ours["total"] / (len(questions) + 1))


def test_analogy_hand_example():
    # king - man + woman = [0, 1, 1] = queen exactly; "pear" has no vector (not covered)
    v = {"man": np.array([1.0, 0, 0]), "king": np.array([1.0, 1, 0]),
         "woman": np.array([0, 0, 1.0]), "queen": np.array([0, 1, 1.0]), "apple": np.array([1.0, 0, 1])}
    out = analogy_accuracy(v, {"family": [("man", "king", "woman", "queen"), ("man", "king", "woman", "pear")],
                               "gram1": [("king", "man", "queen", "woman")]})
    assert out["total"] == 2 and out["coverage"] == pytest.approx(2 / 3)
    assert out["semantic_accuracy"] == 1.0 and out["syntactic_accuracy"] == 1.0


def test_nearest_neighbours_and_adapters():
    vocab = Vocabulary(["a", "a", "a", "b", "b", "c"])  # ids: <pad>, <unk>, a, b, c
    matrix = np.array([[9, 9], [9, 9], [1, 0], [1, 0.1], [-1, 0]], dtype=np.float32)
    kv = as_keyed_vectors((vocab, matrix))
    assert kv.index_to_key == ["a", "b", "c"]  # zero-count specials dropped
    nn = nearest_neighbours((vocab, matrix), "a", topn=5)
    assert [w for w, _ in nn] == ["b", "c"]
    assert nn[0][1] == pytest.approx(1 / np.sqrt(1.01), abs=1e-6) and nn[1][1] == pytest.approx(-1.0)
    assert kv.most_similar("a", topn=2)[0][0] == "b"
    with pytest.raises(KeyError):
        nearest_neighbours(kv, "zzz")
    with pytest.raises(ValueError, match="matrix"):
        as_keyed_vectors((vocab, matrix[:3]))
    with pytest.raises(TypeError):
        as_keyed_vectors([1, 2])


def test_random_baseline_is_chance():
    pairs = datasets.wordsim353()
    vectors = random_baseline_vectors({w for a, b, _ in pairs for w in (a, b)}, dim=100, seed=0)
    out = similarity_spearman(vectors, pairs)
    assert out["coverage"] == 1.0 and abs(out["rho"]) < 0.15  # chance: |rho| ~ 1/sqrt(353) = 0.05
    assert len(vectors) == len(set(vectors)) and next(iter(vectors.values())).shape == (100,)


def test_malformed_inputs_get_clear_errors():
    good = {"a": np.ones(3), "b": np.arange(3.0)}
    with pytest.raises(ValueError, match="triples"):
        similarity_spearman(good, [("a", "b")])
    with pytest.raises(TypeError, match="sections must be a dict"):
        analogy_accuracy(good, [("a", "b", "a", "b")])
    with pytest.raises(ValueError, match="integer"):
        nearest_neighbours(good, "a", 2.5)
    with pytest.raises(ValueError, match="NaN or infinite"):
        similarity_spearman({"a": np.ones(3), "b": np.array([1.0, np.nan, 0.0])}, [("a", "b", 1.0)])
    with pytest.raises(ValueError, match="1-D"):
        similarity_spearman({"a": np.ones((1, 3)), "b": np.ones((1, 3))}, [("a", "b", 1.0)])
