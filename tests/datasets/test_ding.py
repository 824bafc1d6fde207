"""Tests for the translation corpora in word2bert.datasets: the dictd entry parser on a
hand-made dictionary, the cleaning rules, the real Ding split, and the Tatoeba reader."""
import gzip
import os
from pathlib import Path

import pytest

from word2bert import datasets
from word2bert.datasets import translation
from word2bert.datasets import CorpusNotFoundError, SentencePair, ding_de_en, tatoeba_pairs

from backends import once_on_tensorflow

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _b64(n):
    digits = ""
    while True:
        digits = B64[n % 64] + digits
        n //= 64
        if n == 0:
            return digits


def test_dictd_number_by_hand():
    # "BOQXT": B=1, O=14, Q=16, X=23, T=19 in base 64
    assert translation._dictd_number("BOQXT") == (((1 * 64 + 14) * 64 + 16) * 64 + 23) * 64 + 19
    assert translation._dictd_number("A") == 0 and translation._dictd_number("/") == 63


def _write_dict(tmp_path, entries):
    data, index = b"", []
    for key, text in entries:
        raw = text.encode("utf-8")
        index.append(f"{key}\t{_b64(len(data))}\t{_b64(len(raw))}\n")
        data += raw
    dict_path, index_path = tmp_path / "t.dict.dz", tmp_path / "t.index"
    with gzip.open(dict_path, "wb") as f:
        f.write(data)
    index_path.write_text("".join(sorted(index)), encoding="utf-8")
    return str(dict_path), str(index_path)


ENTRIES = [
    ("00databaseshort", "00-database-short\n     test dictionary\n"),
    ("hund", "Hund\n {m}\n   dog\n"),
    # a wrapped headword and a wrapped translation: both continue at column 0
    ("bitte nehmen sie ihren abfall mit", "Bitte nehmen Sie Ihren Abfall mit und\nverschmutzen Sie nichts!\n\n"
     "   Take your rubbish home and never\nlitter, please!\n"),
    ("es ist den aufwand nicht wert", "Es ist den Aufwand nicht wert.\n\n   It’s not worth the effort.; "
     "It’s not worth the trouble. [coll.]\n"),
    ("er hat es jdm gesagt", "Er hat es jdm. gesagt etw.\n\n   He told sb. sth.\n"),
    ("vergiss nicht zu blinken", "Vergiss nicht zu blinken.\n\n   Don’t forget to indicate [Br.] / signal [Am.].\n"),
    ("er sie kommt morgen", "Er/Sie kommt morgen.\n (Notiz)\n   He/She is coming tomorrow. (note)\n"),
]


def test_entries_are_delimited_by_the_index(tmp_path):
    entries = translation._ding_entries(*_write_dict(tmp_path, ENTRIES))
    assert ("Hund", "dog") in entries
    assert ("Bitte nehmen Sie Ihren Abfall mit und verschmutzen Sie nichts!",
            "Take your rubbish home and never litter, please!") in entries
    assert all(not head.startswith("00-database") for head, _ in entries)


def test_pairs_keep_sentences_and_clean_them(tmp_path):
    pairs = translation._ding_pairs_from(translation._ding_entries(*_write_dict(tmp_path, ENTRIES)))
    assert pairs == [
        SentencePair("Bitte nehmen Sie Ihren Abfall mit und verschmutzen Sie nichts!",
                     "Take your rubbish home and never litter, please!"),
        SentencePair("Es ist den Aufwand nicht wert.", "It's not worth the effort."),
        SentencePair("Es ist den Aufwand nicht wert.", "It's not worth the trouble."),
        # "Hund" is a word; "... etw." ends in an abbreviation; " / " alternatives are dropped
        SentencePair("Er kommt morgen.", "He is coming tomorrow."),
    ]


def test_missing_package_message(tmp_path):
    with pytest.raises(CorpusNotFoundError, match="apt-get install dict-de-en"):
        ding_de_en("train", dict_path=str(tmp_path / "no.dict.dz"), index_path=str(tmp_path / "no.index"))
    with pytest.raises(ValueError, match="split"):
        ding_de_en("dev")


@pytest.fixture(scope="module")
def ding():
    if not os.path.exists(datasets.DING_DICT):
        pytest.skip("Debian package dict-de-en not installed (apt-get install dict-de-en)")
    return {split: ding_de_en(split) for split in datasets.DING_SPLITS}


def test_real_split_is_fixed_disjoint_and_large_enough(ding):
    sources = {split: {p.source for p in pairs} for split, pairs in ding.items()}
    assert not (sources["train"] & sources["valid"] or sources["train"] & sources["test"]
                or sources["valid"] & sources["test"])
    assert len(ding["test"]) >= 1000 and len(ding["train"]) >= 10000
    everything = [p for pairs in ding.values() for p in pairs]
    assert len(set(everything)) == len(everything)  # deduplicated
    for p in everything[::50]:
        assert p.source[-1] in ".!?" and p.target[-1] in ".!?" and len(p.source.split()) >= 3
        assert not any(c in p.source + p.target for c in "[]{}<>/’")
        assert translation._ding_split_of(p.source) in ("train", "valid", "test")
    assert SentencePair("Ist noch Tee übrig?", "Is there any tea left?") in everything


def test_tatoeba_fixture():
    pairs = tatoeba_pairs(FIXTURES / "tatoeba_deu_sample.txt")
    assert pairs == [
        SentencePair("Hallo!", "Hi."),
        SentencePair("Lauf!", "Run!"),
        SentencePair("Mir ist kalt.", "I am cold."),
        SentencePair("Mir ist kalt.", "I'm cold."),
        SentencePair("Tom ist hier.", "Tom is here."),
    ]
    assert tatoeba_pairs(FIXTURES / "tatoeba_deu_sample.txt", max_pairs=2) == pairs[:2]


def test_tatoeba_errors(tmp_path):
    with pytest.raises(CorpusNotFoundError, match="manythings"):
        tatoeba_pairs(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("Hi.\tHallo!\nno tab here\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        tatoeba_pairs(bad)
    with pytest.raises(ValueError, match="max_pairs"):
        tatoeba_pairs(FIXTURES / "tatoeba_deu_sample.txt", max_pairs=0)
