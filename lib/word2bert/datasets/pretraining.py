"""Documents for BERT pretraining, with their ids and their sentences in order (what next-sentence
prediction needs): the Wikipedia sample and the World English Bible, one chapter a document.

The Bible books that the translation chapters hold out (``BIBLE_SPLITS``: their validation and
test books) are left out entirely, so that no evaluation verse is ever pretrained on. Of what is
left, whole documents are held out for validation: in each source the 10% of documents whose id has
the smallest CRC-32, a rule that does not depend on the order or the number of documents.
"""
from __future__ import annotations

import functools
import zlib
from typing import NamedTuple

from word2bert.datasets.bible import bible, split_of_book
from word2bert.datasets.paths import split_and_sources
from word2bert.datasets.wikipedia import wikipedia_texts

PRETRAINING_SPLITS = ("train", "valid")
PRETRAINING_SOURCES = ("wikipedia", "bible")
VALID_SHARE = 0.1


class Document(NamedTuple):
    """One document: a stable id (``"wikipedia/Anarchism"``, ``"bible/Genesis 1"``), its source and its sentences."""

    id: str
    source: str
    sentences: list


@functools.lru_cache(maxsize=1)
def _documents() -> dict:
    wiki = tuple(Document(f"wikipedia/{a.title}", "wikipedia", tuple(a.sentences)) for a in wikipedia_texts())
    chapters: dict[tuple[str, int], list[str]] = {}
    for (book, chapter, _verse), text in bible("eng_web").items():
        if split_of_book(book) == "train":
            chapters.setdefault((book, chapter), []).append(text)
    web = tuple(Document(f"bible/{book} {chapter}", "bible", tuple(verses))
                for (book, chapter), verses in chapters.items())
    return {"wikipedia": wiki, "bible": web}


def _held_out(docs) -> set:
    n = max(1, round(VALID_SHARE * len(docs)))
    return set(sorted((zlib.crc32(d.id.encode("utf-8")), d.id) for d in docs)[:n])


def pretraining_documents(split: str = "train", sources=PRETRAINING_SOURCES) -> list[Document]:
    """Documents for BERT pretraining, whole documents held out for validation.

    Args:
        split: ``"train"`` or ``"valid"`` (10% of each source's documents, chosen by the CRC-32 of their ids).
        sources: any of ``"wikipedia"`` (the 106 articles of ``wikipedia_texts``: plain-text sentences, case
            and punctuation kept, sentence boundaries from ``split_sentences``) and ``"bible"`` (the World
            English Bible, 2015 edition: a chapter is a document, a verse a sentence; only books of the
            translation chapters' training split: their validation and test books are never included).

    Returns:
        list of ``Document(id, source, sentences)`` in source order (Wikipedia, then canonical Bible order),
        ``sentences`` a list of strings. Sizes (counted): Wikipedia 95 train / 11 valid articles (23,170 /
        1,168 sentences), Bible 1,111 train / 124 valid chapters (30,889 / 3,662 verses; the WEB's
        deuterocanonical books included); 1,186,544 / 102,101 words split on spaces.

    Raises:
        ValueError: unknown split or source.
        CorpusNotFoundError: gensim, pysword or the ``sword-text-web`` package is missing (the message says
            what to install).

    Source and license: Wikipedia (CC BY-SA 3.0) via gensim's test data; the World English Bible (public
    domain) as Debian's ``sword-text-web``.
    """
    sources = split_and_sources(split, PRETRAINING_SPLITS, sources, PRETRAINING_SOURCES)
    out = []
    for source in PRETRAINING_SOURCES:
        if source not in sources:
            continue
        docs = _documents()[source]
        held = {doc_id for _, doc_id in _held_out(docs)}
        out += [Document(d.id, d.source, list(d.sentences)) for d in docs if (d.id in held) == (split == "valid")]
    return out
