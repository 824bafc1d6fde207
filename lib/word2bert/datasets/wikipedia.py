"""A sample of English Wikipedia that gensim ships as test data (CC BY-SA 3.0).

106 articles (1.7 MB bz2), 24,340 sentences, 457,062 alphabetic tokens; document and sentence
boundaries are kept.
"""
from __future__ import annotations

import bz2
import functools
import re
from typing import NamedTuple

from word2bert.datasets.paths import CorpusNotFoundError, gensim_data_path
from word2bert.utils.imports import require


class Article(NamedTuple):
    """One Wikipedia article: its title and its sentences (token lists, or strings from ``wikipedia_texts``)."""

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


def _raw_sentences(wikitext: str) -> list[str]:
    """Sentences of an article as plain text (markup removed; case, digits and punctuation kept)."""
    filter_wiki = require("gensim.corpora.wikicorpus", extra="data", purpose="the Wikipedia sample",
                          error=CorpusNotFoundError).filter_wiki

    text = _MARKUP.sub("", filter_wiki(wikitext))
    sentences = []
    for line in text.split("\n"):
        line = line.strip().lstrip("*#:;| ").strip()
        if not line or line.startswith("=") or line.startswith("{") or line.startswith("!"):
            continue
        sentences.extend(split_sentences(line))
    return sentences


@functools.lru_cache(maxsize=1)
def _pages() -> tuple:
    path = gensim_data_path("wikipedia")  # first: a missing gensim is a CorpusNotFoundError, not an ImportError
    extract_pages = require("gensim.corpora.wikicorpus", extra="data", purpose="the Wikipedia sample",
                            error=CorpusNotFoundError).extract_pages

    with bz2.open(path) as f:
        return tuple((title, text) for title, text, _pageid in extract_pages(f, filter_namespaces=("0",))
                     if text and not text.lstrip().lower().startswith("#redirect"))


@functools.lru_cache(maxsize=2)
def _articles(lowercase: bool) -> tuple:
    """(title, [(sentence text, its tokens)]) of every article; sentences of fewer than 3 tokens dropped."""
    pages = _pages()  # first: a missing gensim is a CorpusNotFoundError, not an ImportError
    tokenize = require("gensim.utils", extra="data", purpose="the Wikipedia sample",
                       error=CorpusNotFoundError).tokenize

    articles = []
    for title, text in pages:
        sentences = [(s, list(tokenize(s, lower=lowercase))) for s in _raw_sentences(text)]
        sentences = [(s, tokens) for s, tokens in sentences if len(tokens) >= 3]
        if sentences:
            articles.append((title, sentences))
    return tuple(articles)


def wikipedia_texts() -> list[Article]:
    """The articles of ``wikipedia_sample`` as plain-text sentences, as written: case, digits and
    punctuation kept (what a subword tokenizer or BERT reads).

    Returns:
        list of ``Article(title, sentences)`` in the order of ``wikipedia_sample``; ``sentences`` is a
        list of strings (sentences of fewer than 3 alphabetic tokens are dropped, as there).

    Raises:
        CorpusNotFoundError: gensim is not installed.

    Source: as ``wikipedia_sample`` (Wikipedia, CC BY-SA 3.0, via gensim's test data).
    """
    return [Article(title, [s for s, _ in sentences]) for title, sentences in _articles(False)]


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
    return [Article(title, [tokens for _, tokens in sentences]) for title, sentences in _articles(bool(lowercase))]


def wikipedia_sentences(lowercase: bool = True) -> list[list[str]]:
    """All sentences of ``wikipedia_sample`` in order, as one list of token lists."""
    return [s for article in wikipedia_sample(lowercase) for s in article.sentences]
