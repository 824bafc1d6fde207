import numpy as np
import pytest

from word2bert.tokenizers import Vocabulary


def test_ids_specials_first_then_by_count_then_alphabetical():
    v = Vocabulary("b a c a b a d".split())
    assert v.itos == ["<pad>", "<unk>", "a", "b", "c", "d"]  # a:3, b:2, c/d:1 tie -> alphabetical
    assert v.counts.tolist() == [0, 0, 3, 2, 1, 1]
    assert v.encode(["a", "d", "zzz"]).tolist() == [2, 5, 1]
    assert v.encode([]).dtype == np.int32
    assert v.decode([2, 3, 1]) == ["a", "b", "<unk>"]


def test_min_count_and_max_size_and_sentences_input():
    v = Vocabulary([["a", "a", "b"], ["a", "c", "b"]], min_count=2)
    assert v.itos == ["<pad>", "<unk>", "a", "b"]
    v = Vocabulary("a a a b b c".split(), max_size=3)
    assert v.itos == ["<pad>", "<unk>", "a"]


def test_special_token_in_corpus_keeps_its_count():
    v = Vocabulary("x <unk> y <unk>".split(), specials=("<unk>",))
    assert v.itos[0] == "<unk>" and v.counts[0] == 2
    np.testing.assert_allclose(v.frequencies().sum(), 1.0)


def test_unknown_token_without_unk_raises_keyerror_naming_it():
    v = Vocabulary("a b".split(), specials=(), unk_token=None)
    with pytest.raises(KeyError, match="zzz"):
        v.encode(["a", "zzz"])
    with pytest.raises(IndexError, match="outside"):
        v.decode([7])


@pytest.mark.parametrize("kwargs, match", [
    (dict(tokens=[]), "empty corpus"),
    (dict(tokens=["a"], min_count=0), "min_count"),
    (dict(tokens=["a"], max_size=1), "max_size"),
    (dict(tokens=["a"], unk_token="<oov>"), "unk_token"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Vocabulary(**kwargs)


def test_save_load_round_trip(tmp_path):
    v = Vocabulary("the cat sat on the mat the end".split(), specials=("<pad>", "<unk>", "<eos>"))
    path = tmp_path / "sub" / "vocab.tsv"
    v.save(path)
    w = Vocabulary.load(path)
    assert w.itos == v.itos and w.counts.tolist() == v.counts.tolist()
    assert w.specials == v.specials and w.unk_token == "<unk>"
    assert w.encode(["the", "dog"]).tolist() == v.encode(["the", "dog"]).tolist()
    assert [p.name for p in path.parent.iterdir()] == ["vocab.tsv"]  # no temporary files left


def test_load_rejects_other_files(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("hello\t1\n")
    with pytest.raises(ValueError, match="not a word2bert vocabulary"):
        Vocabulary.load(path)


def test_string_lookup_gives_the_same_ids():
    pytest.importorskip("tensorflow")  # keras.layers.StringLookup needs TensorFlow on every backend
    v = Vocabulary("b a c a b a".split())
    layer = v.string_lookup()
    tokens = ["a", "b", "c", "unseen", "a"]
    assert np.asarray(layer(tokens)).tolist() == v.encode(tokens).tolist()


def test_a_string_is_not_silently_split_into_characters():
    with pytest.raises(TypeError, match="tokens must be .* got a string 'hello'"):
        Vocabulary("hello")
    v = Vocabulary("a b".split())
    with pytest.raises(TypeError, match="split it first"):
        v.encode("ab")


def test_save_refuses_what_load_could_not_read_back(tmp_path):
    with pytest.raises(ValueError, match="tabs or line breaks"):
        Vocabulary(["a\tb", "c"]).save(tmp_path / "v.tsv")
    with pytest.raises(ValueError, match="whitespace"):
        Vocabulary(["a"], specials=("<my unk>",), unk_token="<my unk>").save(tmp_path / "v.tsv")
    assert not (tmp_path / "v.tsv").exists()
    path = tmp_path / "broken.tsv"
    path.write_text("#word2bert-vocab\tspecials=<unk>\tunk=<unk>\n<unk>\t0\nword\n")
    with pytest.raises(ValueError, match="line 3: expected 'token<TAB>count'"):
        Vocabulary.load(path)


def test_decode_refuses_float_ids():
    v = Vocabulary(["a", "b", "a"])
    assert v.decode(np.array([2, 3])) == ["a", "b"] and v.decode([]) == []
    with pytest.raises(TypeError, match="integers"):
        v.decode(np.array([2.7, 3.0]))


def test_duplicated_specials_are_named():
    with pytest.raises(ValueError, match="distinct"):
        Vocabulary(["a"], specials=("<pad>", "<pad>"))
