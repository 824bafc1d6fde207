"""Tests for the Bible corpus (word2bert.datasets.bible) and the translation baselines:
markup removal by hand and against pysword on real verses, the book split, and the lookup."""
import os

import numpy as np
import pytest

from word2bert.datasets import BIBLE_SPLITS, CorpusNotFoundError, bible, bible_pairs, clean_osis, split_of_book
from word2bert.datasets.bible import MISNUMBERED_CHAPTERS, SWORD_PATH
from word2bert.baselines import NearestSentenceLookup, copy_source

from backends import once_on_tensorflow

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it

needs_bibles = pytest.mark.skipif(
    not all(os.path.isdir(os.path.join(SWORD_PATH, "modules/texts/ztext", m))
            for m in ("spaRV1909eb", "engWEB2015eb", "engKJV2006eb")),
    reason="Debian's sword-text-sparv, sword-text-web and sword-text-kjv are not installed")


def test_clean_osis_by_hand():
    # a footnote between two words leaves a space, its text goes
    assert clean_osis('<w lemma="a">God</w><note placement="foot">Elohim.</note><w>created</w>') == "God created"
    # tags standing between two words (the Reina-Valera's added words) become one space
    assert clean_osis('hay <transChange type="added">también</transChange><w>bdelio</w>.') == "hay también bdelio."
    # tags inside punctuation leave no space; opening marks keep their word
    assert clean_osis('¡<w>OH</w> <w>Jehová</w>, <w>cuánto</w>! “<q>Go</q>”') == "¡OH Jehová, cuánto! “Go”"
    assert clean_osis('<l sID="1"/>first line<l eID="1"/><l sID="2"/>second') == "first line second"
    assert clean_osis("  ") == ""
    # the KJV's paragraph sign is layout: it goes, and leaves no double space
    assert clean_osis("\u00b6 And <w>God</w> said, \u00b6Let") == "And God said, Let"


@needs_bibles
def test_real_verses_are_read_and_cleaned():
    web, rv, kjv = bible("eng_web"), bible("spa_rv1909"), bible("eng_kjv")
    assert web[("Genesis", 1, 1)] == "In the beginning, God created the heavens and the earth."
    assert rv[("Genesis", 1, 1)] == "EN el principio crió Dios los cielos y la tierra."
    assert kjv[("Genesis", 1, 1)] == "In the beginning God created the heaven and the earth."
    assert "también bdelio" in rv[("Genesis", 2, 12)]
    assert web[("John", 11, 35)] == "Jesus wept."
    assert (len(rv), len(web), len(kjv)) == (31084, 37457, 31102)
    assert list(web)[0] == ("Genesis", 1, 1) and ("Tobit", 1, 1) in web and ("Tobit", 1, 1) not in rv
    assert not any("<" in t or ">" in t for t in list(web.values()) + list(rv.values()))
    assert kjv[("Genesis", 1, 6)].startswith("And God said, Let there be a firmament")  # "¶ And God said" in the module
    assert not any("\u00b6" in t for t in kjv.values())


@needs_bibles
def test_same_characters_as_pysword_but_no_glued_words():
    """pysword's cleaner is the reference for which characters a verse holds; it glues words at markup."""
    from pysword.modules import SwordModules

    modules = SwordModules(SWORD_PATH)
    modules.parse_modules()
    for name, module in (("eng_web", "engWEB2015eb"), ("spa_rv1909", "spaRV1909eb")):
        theirs_bible = modules.get_bible_from_module(module)
        ours = bible(name)
        glued = 0
        for ref in [r for r in ours if r[0] == "Genesis" and r[1] <= 10]:
            theirs = theirs_bible.get(books=[ref[0]], chapters=[ref[1]], verses=[ref[2]], clean=True)
            if name == "eng_web":  # pysword drops the footnote's text too, but keeps its reference label
                theirs = theirs.replace(f"{ref[1]}:{ref[2]} ", "")
            assert "".join(ours[ref].split()) == "".join(theirs.split()), ref
            glued += len(ours[ref].split()) > len(theirs.split())
        assert glued > 0, name  # the verses where pysword glued two words: ours keeps them apart


@needs_bibles
def test_book_split_is_fixed_disjoint_and_leaves_out_misnumbered_chapters():
    sizes = {s: len(bible_pairs("spa_rv1909", "eng_web", s)) for s in ("train", "valid", "test")}
    assert sizes == {"train": 27640, "valid": 798, "test": 2052}
    test = bible_pairs("spa_rv1909", "eng_web", "test", with_verses=True)
    assert {ref[0] for ref, _ in test} == set(BIBLE_SPLITS["test"])
    assert not set(BIBLE_SPLITS["test"]) & set(BIBLE_SPLITS["valid"])
    assert split_of_book("Genesis") == "train" and split_of_book("Ruth") == "test"
    assert all(ref[:2] not in MISNUMBERED_CHAPTERS for ref, _ in test)
    assert ("Jonah", 3, 1) in dict(test) and ("Jonah", 2, 1) not in dict(test) and ("Hosea", 12, 1) not in dict(test)
    # in the misnumbered chapter the Spanish verse n is the English verse n - 1: a shift, not a translation
    rv, web = bible("spa_rv1909"), bible("eng_web")
    assert "Jehová habló á Moisés" in rv[("Numbers", 13, 2)] and "Yahweh spoke to Moses" in web[("Numbers", 13, 1)]
    assert "Ephraim se apacienta" in rv[("Hosea", 12, 2)] and "Ephraim feeds on wind" in web[("Hosea", 12, 1)]
    kjv_test = bible_pairs("spa_rv1909", "eng_kjv", "test", verses=[ref for ref, _ in test])
    sources = {p.source for _, p in test}
    assert len(kjv_test) == 2052 and all(p.source in sources for p in kjv_test)


@needs_bibles
def test_held_out_books_have_no_parallel_passages_in_training():
    train = bible_pairs("spa_rv1909", "eng_web", "train")
    lookup = NearestSentenceLookup([p.target for p in train], [p.target for p in train])
    _, test_sim = lookup.nearest([p.target for p in bible_pairs("spa_rv1909", "eng_web", "test")])
    assert np.mean(test_sim > 0.8) < 0.005
    # Mark, a training book, does: its passages recur in Matthew and Luke
    others = [p for ref, p in bible_pairs("spa_rv1909", "eng_web", "train", with_verses=True) if ref[0] != "Mark"]
    mark = [p.target for ref, p in bible_pairs("spa_rv1909", "eng_web", "train", with_verses=True) if ref[0] == "Mark"]
    _, mark_sim = NearestSentenceLookup([p.target for p in others], [p.target for p in others]).nearest(mark)
    assert np.mean(mark_sim > 0.8) > 0.1


def test_bible_mistakes_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown translation 'web'"):
        bible("web")
    with pytest.raises(CorpusNotFoundError, match="apt-get install sword-text-web"):
        bible("eng_web", sword_path=tmp_path)
    with pytest.raises(ValueError, match="unknown split"):
        bible_pairs(split="dev")
    with pytest.raises(ValueError, match="same translation"):
        bible_pairs("eng_web", "eng_web")
    with pytest.raises(ValueError, match="max_ratio"):
        bible_pairs(max_ratio=0.5)
    with pytest.raises(ValueError, match="unknown book '1 John'"):
        split_of_book("1 John")


@needs_bibles
def test_verses_filter_rejects_what_would_silently_give_nothing():
    test = bible_pairs("spa_rv1909", "eng_web", "test", with_verses=True)
    refs = [ref for ref, _ in test]
    assert len(bible_pairs("spa_rv1909", "eng_kjv", "test", verses=[list(r) for r in refs[:5]])) == 5
    with pytest.raises(ValueError, match="wrap it in a list"):
        bible_pairs("spa_rv1909", "eng_kjv", "test", verses=("Ruth", 1, 1))
    with pytest.raises(ValueError, match="wrap it in a list"):
        bible_pairs("spa_rv1909", "eng_kjv", "test", verses="Ruth")
    with pytest.raises(ValueError, match=r"ref for ref, _ in pairs"):
        bible_pairs("spa_rv1909", "eng_kjv", "test", verses=test[:3])
    with pytest.raises(ValueError, match="none of the 1 verses"):
        bible_pairs("spa_rv1909", "eng_kjv", "train", verses=[("Ruth", 1, 1)])


def test_lookup_weights_rare_words_and_copy_keeps_the_source():
    sources = ["the king of the land went out", "moab came", "the king of the land went in"]
    targets = ["A.", "B.", "C."]
    lookup = NearestSentenceLookup(sources, targets)
    assert lookup.translate(["moab"]) == ["b."]
    # "moab" is in one sentence, "the king of the land" in two: the rare word decides
    assert lookup.translate(["the king of moab"]) == ["b."]
    assert lookup.translate(sources) == ["a.", "b.", "c."]
    index, sim = lookup.nearest(["nothing known here"])
    assert index.tolist() == [0] and sim.tolist() == [0.0]
    assert copy_source(["Y Dios dijo: Sea la luz."]) == ["y dios dijo: sea la luz."]
    with pytest.raises(ValueError, match="equally many"):
        NearestSentenceLookup(["a"], [])
    with pytest.raises(TypeError, match="sources"):
        copy_source("a sentence")
