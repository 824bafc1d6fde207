"""Bibles as parallel text: the Reina-Valera 1909 (Spanish), the World English Bible and the King James Version.

All three are public domain and packaged by Debian as SWORD modules (``sword-text-sparv``,
``sword-text-web``, ``sword-text-kjv``, installed under ``/usr/share/sword``). ``bible`` reads one
translation verse by verse; ``bible_pairs`` aligns two of them by (book, chapter, verse) and splits
the result by **whole books** into train / valid / test.

The modules are ``zText`` files: blocks of zlib-compressed OSIS XML (``*.bzz``), a block index
(``*.bzs``: offset, size, uncompressed size, three little-endian uint32 per block) and a verse index
(``*.bzv``: block number, start, length as uint32, uint32, uint16 per verse). The verse-index order
(which record is Genesis 1:1) comes from the module's versification, which PyPI's ``pysword`` knows
(``BibleStructure``); the records are read here, one decompression per block, because pysword's own
reader decompresses the whole book again for every verse.

Markup is removed here too, not with pysword's ``clean=True``: that cleaner deletes a footnote
(``God<note>...</note><w>created</w>``) without leaving a space, which glues the words around it
("Godcreated") in the World English Bible, and the Reina-Valera glues words at its ``transChange``
(words the translators added) the same way ("tambiénbdelio"). Here a footnote is removed with its
text, and any run of tags standing between two letters or digits becomes one space.
"""
from __future__ import annotations

import functools
import os
import re
import struct
import zlib
from typing import NamedTuple

from word2bert.datasets.paths import CorpusNotFoundError
from word2bert.datasets.translation import SentencePair
from word2bert.utils.imports import require

SWORD_PATH = "/usr/share/sword"


class _Translation(NamedTuple):
    module: str
    package: str
    versification: str
    title: str


BIBLES = {
    "spa_rv1909": _Translation("spaRV1909eb", "sword-text-sparv", "kjv", "Reina-Valera 1909 (Spanish)"),
    "eng_web": _Translation("engWEB2015eb", "sword-text-web", "nrsva", "World English Bible"),
    "eng_kjv": _Translation("engKJV2006eb", "sword-text-kjv", "kjv", "King James Version"),
}

# Held-out books. None of them has a parallel passage elsewhere in the Bible (unlike the Gospels,
# Samuel-Kings-Chronicles, Psalms 14/53 or 18 / 2 Samuel 22, Ephesians and Colossians, 2 Peter and
# Jude): a verse of a held-out book cannot be answered by looking up its twin in the training books.
BIBLE_SPLITS = {
    "test": ("Ruth", "Esther", "Ecclesiastes", "Song of Solomon", "Lamentations", "Daniel", "Hosea", "Joel",
             "Jonah", "Titus", "Philemon", "James", "I John", "Revelation of John"),
    "valid": ("Amos", "Micah", "Nahum", "Habakkuk", "Zephaniah", "Haggai", "Malachi", "Philippians",
              "I Thessalonians", "I Peter"),
}
# Chapters the Reina-Valera module numbers differently from the English ones. Where the Spanish tradition
# numbers a chapter differently, the module leaves some KJV verse numbers empty (Numbers 12:16, Jonah 1:17, ...)
# and the verses after them, to the end of that chapter and through the next, sit one or more numbers off: the
# chapter with the empty number and the chapter after it are dropped. The four found first by comparing verse
# lengths under shifts of -1, 0, +1 are kept in the list by name (they are also found by this rule).
MISNUMBERED_CHAPTERS = frozenset({("Numbers", 13), ("Numbers", 30), ("I Samuel", 24), ("Jonah", 2)})


@functools.lru_cache(maxsize=2)
def misnumbered_chapters(sword_path: str = SWORD_PATH) -> frozenset:
    """(book, chapter) pairs of the Reina-Valera that are not aligned verse by verse with the KJV/WEB.

    Every chapter holding a KJV verse number the Reina-Valera leaves empty, and the chapter after it,
    plus ``MISNUMBERED_CHAPTERS``.
    """
    rv, kjv = bible("spa_rv1909", sword_path), bible("eng_kjv", sword_path)
    chapters = set(MISNUMBERED_CHAPTERS)
    for book, chapter, _ in set(kjv) - set(rv):
        chapters |= {(book, chapter), (book, chapter + 1)}
    return frozenset(chapters)
SPLITS = ("train", "valid", "test")

_NOTE = re.compile(r"<note\b[^>]*>.*?</note>", re.S)
_TAGS_BETWEEN_WORDS = re.compile(r"(?<=\w)(?:\s*<[^<>]*>\s*)+(?=\w)")
_TAG = re.compile(r"<[^<>]*>")
_SPACE = re.compile(r"\s+")
_PILCROW = "\u00b6"  # the KJV's paragraph sign, layout rather than text
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?»”’)\]])")
_SPACE_AFTER_OPENING = re.compile(r"([¡¿«“‘(\[])\s+")


def clean_osis(text: str) -> str:
    """Plain text of one verse of OSIS markup.

    Footnotes (``<note>...</note>``) go with their text; a run of tags between two letters or digits
    becomes one space; every other tag is dropped; whitespace is collapsed, with no space before
    closing punctuation or after opening marks (``¡``, ``¿``, ``(``, quotes). The paragraph sign
    ``¶`` (the KJV opens 2,970 verses with it) is layout, not text, and goes too.

    >>> clean_osis('<w>God</w><note placement="foot">Elohim.</note><w>created</w> the earth.')
    'God created the earth.'
    """
    text = _NOTE.sub(" ", text)
    text = _TAGS_BETWEEN_WORDS.sub(" ", text)
    text = _TAG.sub("", text).replace(_PILCROW, " ")
    text = _SPACE.sub(" ", text).strip()
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return _SPACE_AFTER_OPENING.sub(r"\1", text)


def _check_translation(translation: str) -> _Translation:
    if translation not in BIBLES:
        raise ValueError(f"unknown translation {translation!r}: use one of {sorted(BIBLES)}")
    return BIBLES[translation]


def _read_testament(folder: str, testament: str):
    """(block index, verse index, compressed data) of one testament's zText files, or None if absent."""
    paths = [os.path.join(folder, f"{testament}.bz{ext}") for ext in "svz"]
    if not all(os.path.exists(p) for p in paths):
        return None
    blocks, verses, data = (open(p, "rb").read() for p in paths)
    return blocks, verses, data


@functools.lru_cache(maxsize=4)
def _bible(translation: str, sword_path: str) -> dict:
    spec = _check_translation(translation)
    folder = os.path.join(sword_path, "modules", "texts", "ztext", spec.module)
    if not os.path.isdir(folder):
        raise CorpusNotFoundError(
            f"the {spec.title} is Debian's package {spec.package}, missing {folder}: apt-get install {spec.package} "
            f"(elsewhere: the SWORD module {spec.module} from crosswire.org, unzipped into {sword_path})")
    BibleStructure = require("pysword.books", extra="data", purpose="reading the Bible modules",
                             error=CorpusNotFoundError).BibleStructure
    structure = BibleStructure(spec.versification)
    verses: dict[tuple[str, int, int], str] = {}
    for testament, books in structure.get_books().items():
        files = _read_testament(folder, testament)
        if files is None:
            continue
        block_index, verse_index, data = files
        cache: dict[int, bytes] = {}
        for book in books:
            indices = structure.ref_to_indicies(books=[book.name])[testament]
            refs = [(book.name, c + 1, v + 1) for c, n in enumerate(book.chapter_lengths) for v in range(n)]
            for ref, index in zip(refs, indices):
                if 10 * (index + 1) > len(verse_index):
                    continue
                block, start, length = struct.unpack_from("<IIH", verse_index, 10 * index)
                if length == 0 or 12 * (block + 1) > len(block_index):
                    continue
                if block not in cache:
                    offset, size, _ = struct.unpack_from("<III", block_index, 12 * block)
                    cache[block] = zlib.decompress(data[offset:offset + size])
                text = clean_osis(cache[block][start:start + length].decode("utf-8", errors="replace"))
                if text:
                    verses[ref] = text
    if not verses:
        raise CorpusNotFoundError(f"no verse could be read from {folder}: reinstall {spec.package}")
    return verses


def bible(translation: str, sword_path: str = SWORD_PATH) -> dict[tuple[str, int, int], str]:
    """One Bible translation, verse by verse.

    Args:
        translation: ``"spa_rv1909"`` (Reina-Valera 1909), ``"eng_web"`` (World English Bible,
            2015 edition) or ``"eng_kjv"`` (King James Version, 2006 SWORD edition).
        sword_path: the SWORD library folder (Debian's: ``/usr/share/sword``).

    Returns:
        dict ``{(book, chapter, verse): text}``, books named as pysword names them (``"Genesis"``,
        ``"I John"``, ``"Song of Solomon"``, ``"Revelation of John"``), in canonical order; empty verses
        are left out. Sizes: Reina-Valera 31,084 verses (18 verse numbers of the KJV scheme are empty in
        it, where it numbers a chapter differently), WEB 37,457 (its deuterocanonical books included),
        KJV 31,102. Text as printed, capitals included (the Reina-Valera opens chapters in capitals:
        "EN el principio"); the KJV's paragraph sign "¶" is removed.
        Read once per process in about a second and kept in memory; nothing is written to disk.

    Raises:
        ValueError: unknown translation.
        CorpusNotFoundError: the module or pysword is missing; the message names the package.

    Source and license: the Reina-Valera 1909, the World English Bible (eBible.org) and the King
    James Version, all public domain, as SWORD modules (crosswire.org) packaged by Debian
    (``sword-text-sparv`` 2.60, ``sword-text-web`` 426.0, ``sword-text-kjv`` 14.3; 3-4 MB each).
    """
    _check_translation(translation)
    return dict(_bible(translation, os.fspath(sword_path)))


@functools.lru_cache(maxsize=1)
def _book_names() -> frozenset:
    BibleStructure = require("pysword.books", extra="data", purpose="the Bible's book names",
                             error=CorpusNotFoundError).BibleStructure
    return frozenset(book.name for v in ("kjv", "nrsva") for books in BibleStructure(v).get_books().values()
                     for book in books)


def split_of_book(book: str) -> str:
    """``"test"``, ``"valid"`` or ``"train"``: the split a book belongs to (``BIBLE_SPLITS``).

    Raises:
        ValueError: ``book`` is not a book name of the KJV or NRSVA versification as pysword spells
            them (``"I John"``, not ``"1 John"``).
    """
    if book not in _book_names():
        raise ValueError(f"unknown book {book!r}: books are named as pysword names them, e.g. 'Genesis', 'I John', "
                         f"'Revelation of John'")
    for split, books in BIBLE_SPLITS.items():
        if book in books:
            return split
    return "train"


def _length_ratio_ok(source: str, target: str, max_ratio: float) -> bool:
    a, b = len(source.split()), len(target.split())
    return max(a, b) <= max_ratio * min(a, b)


def bible_pairs(source: str = "spa_rv1909", target: str = "eng_web", split: str = "train",
                max_ratio: float = 2.5, with_verses: bool = False, verses=None, sword_path: str = SWORD_PATH):
    """Verse-aligned translation pairs of two Bibles, split by whole books.

    A pair is one verse present and non-empty in both translations under the same (book, chapter,
    verse). Pairs whose word counts differ by more than ``max_ratio`` times are dropped: where two
    versifications number a verse differently (the WEB follows the NRSV's numbering, the Reina-Valera
    the KJV's), the texts under one number do not translate each other (about 0.3% of pairs).

    Books go to a split as a whole (``BIBLE_SPLITS``, pysword's names): test: Ruth, Esther,
    Ecclesiastes, Song of Solomon, Lamentations, Daniel, Hosea, Joel, Jonah, Titus, Philemon, James,
    I John, Revelation of John; valid: Amos, Micah, Nahum, Habakkuk, Zephaniah, Haggai, Malachi,
    Philippians, I Thessalonians, I Peter; train: the other 42 books. The held-out books have no parallel passage in the training
    books (fewer than 0.5% of their verses have a training verse with a tf-idf cosine above 0.8), so
    a lookup of the most similar training verse cannot find the answer (with Mark held out it would:
    its passages recur in Matthew and Luke). Chapters the Reina-Valera numbers differently
    (``misnumbered_chapters()``: 24 chapters) are left out. Spanish -> English with the WEB: train
    27,640, valid 798, test 2,052 pairs.

    Args:
        source, target: translations, as ``bible``.
        split: ``"train"``, ``"valid"`` or ``"test"``.
        max_ratio: the largest word-count ratio kept (>= 1).
        with_verses: also return each pair's reference.
        verses: keep only these ``(book, chapter, verse)`` references (None: all), e.g. the references
            of another ``bible_pairs(..., with_verses=True)`` call (``[ref for ref, _ in pairs]``), to
            add a second English reference for exactly those verses.
        sword_path: the SWORD library folder.

    Returns:
        list of ``SentencePair(source, target)`` in canonical order; with ``with_verses=True`` a
        list of ``((book, chapter, verse), SentencePair)``.

    Raises:
        ValueError: unknown translation or split, ``source == target``, ``max_ratio`` < 1, ``verses``
            not a collection of ``(book, chapter, verse)`` references, or no pair of the split among
            the ``verses`` given.
        CorpusNotFoundError: a module is missing (see ``bible``).
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: use one of {SPLITS}")
    if source == target:
        raise ValueError(f"source and target are the same translation ({source!r})")
    if not max_ratio >= 1:
        raise ValueError(f"max_ratio must be >= 1, got {max_ratio}")
    verses = None if verses is None else _check_verses(verses)
    src, tgt = bible(source, sword_path), bible(target, sword_path)
    misnumbered = misnumbered_chapters(os.fspath(sword_path)) if "spa_rv1909" in (source, target) else frozenset()
    out = []
    for ref, text in src.items():
        other = tgt.get(ref)
        if other is None or split_of_book(ref[0]) != split or not _length_ratio_ok(text, other, max_ratio):
            continue
        if ref[:2] in misnumbered:  # empty unless the Reina-Valera is one side
            continue
        if verses is not None and ref not in verses:
            continue
        pair = SentencePair(text, other)
        out.append((ref, pair) if with_verses else pair)
    if verses is not None and not out:
        raise ValueError(f"none of the {len(verses)} verses given is a {split} pair of {source} and {target}")
    return out


def _check_verses(verses) -> set:
    if isinstance(verses, (str, bytes)) or (isinstance(verses, tuple) and len(verses) == 3
                                            and isinstance(verses[0], str)):
        raise ValueError(f"verses must be a collection of (book, chapter, verse) references, got one item {verses!r}: "
                         f"wrap it in a list")
    out = set()
    for item in verses:
        if not (isinstance(item, (tuple, list)) and len(item) == 3 and isinstance(item[0], str)
                and all(isinstance(n, int) for n in item[1:])):
            raise ValueError(f"verses must hold (book, chapter, verse) references such as ('Ruth', 1, 1), got "
                             f"{item!r} (from with_verses=True output, take [ref for ref, _ in pairs])")
        out.add(tuple(item))
    return out
