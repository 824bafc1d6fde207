"""Sentence pairs for translation: Ding's German-English dictionary sentences and Tatoeba files.

``ding_de_en`` reads the Debian package ``dict-de-en`` (GPL-2.0-or-later; 20,872 pairs);
``tatoeba_pairs`` a Tatoeba / ManyThings file the user supplies (CC BY 2.0 FR).
"""
from __future__ import annotations

import functools
import os
import re
from typing import NamedTuple

from word2bert.datasets.paths import CorpusNotFoundError


class SentencePair(NamedTuple):
    """One translation pair: a German (or other source) sentence and one English sentence."""

    source: str
    target: str


DING_DICT = "/usr/share/dictd/german-english.dict.dz"
DING_INDEX = "/usr/share/dictd/german-english.index"
DING_SPLITS = ("train", "valid", "test")
_DING_INSTALL = "apt-get install dict-de-en"

_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_TAGS = re.compile(r"\s*(\{[^{}]*\}|\[[^\[\]]*\]|<[^<>]*>)")
_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
_SLASH_ALTERNATIVES = re.compile(r"([^\W\d_]+)(?:/[^\W\d_]+)+")
_SENTENCE = re.compile(r"^[A-ZÄÖÜ\"„‚'].*[.!?]$")
_ABBREVIATIONS = frozenset(
    "etw. jdn. jdm. jds. sth. sb. sb.'s usw. etc. z.B. bzw. ca. u.a. o.ä. u.ä. vgl. Nr. s. d.h.".split()
)


def _dictd_number(text: str) -> int:
    """Decode one dictd index number (base64 digits, most significant first)."""
    value = 0
    for char in text:
        value = value * 64 + _B64[char]
    return value


def _ding_entries(dict_path: str, index_path: str, min_spaces: int = 0) -> list[tuple[str, str]]:
    """(headword, translation) of every dictd entry, each delimited by the index's offset/length.

    An entry is: headword lines (wrapped lines start at column 0), a line that is empty or
    starts with a space (word-class tags), then the translation (first line indented by
    three spaces, wrapped lines at column 0). Wrapped lines are joined with one space.
    """
    import gzip

    spans = set()
    with open(index_path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            # the key is the lowercased headword: fewer than 3 words cannot be a sentence entry
            if len(fields) >= 3 and fields[0].strip().count(" ") >= min_spaces:
                spans.add((fields[-2], fields[-1]))
    with gzip.open(dict_path) as f:
        data = f.read()
    entries = []
    for offset, length in sorted((_dictd_number(o), _dictd_number(n)) for o, n in spans):
        lines = data[offset : offset + length].decode("utf-8", errors="replace").rstrip("\n").split("\n")
        cut = 0
        while cut < len(lines) and lines[cut] and not lines[cut].startswith(" "):
            cut += 1
        if cut == 0 or cut >= len(lines) - 1:
            continue  # database headers and malformed entries
        entries.append((" ".join(lines[:cut]).strip(), " ".join(s.strip() for s in lines[cut + 1 :])))
    return entries


def _clean_sentence(text: str) -> str | None:
    """Strip usage tags and a trailing note, resolve ``x/y`` alternatives; None if unusable."""
    text = text.replace("’", "'").replace("‘", "'")
    text = _TAGS.sub("", text)
    text = _TRAILING_NOTE.sub("", text).strip()
    if " / " in text or "/ " in text or " /" in text:
        return None  # spaced alternatives: their scope (word or clause) is ambiguous
    text = _SLASH_ALTERNATIVES.sub(r"\1", text)  # "he/she" -> "he": keep the first alternative
    text = re.sub(r"\s+([.,!?;:])", r"\1", re.sub(r"\s+", " ", text)).strip()
    if "/" in text or not _SENTENCE.match(text) or text.endswith(".."):
        return None
    last = text.split()[-1]
    if last in _ABBREVIATIONS or last.rstrip(".!?") + "." in _ABBREVIATIONS:
        return None
    return text


def _ding_pairs_from(entries) -> list[SentencePair]:
    pairs = []
    for german, english in entries:
        if not german[:1].isupper():
            continue
        source = _clean_sentence(german)
        if source is None or len(source.split()) < 3:
            continue
        for alternative in english.split("; "):
            target = _clean_sentence(alternative)
            if target is not None:
                pairs.append(SentencePair(source, target))
    return list(dict.fromkeys(pairs))


def _ding_split_of(source: str) -> str:
    """Fixed split by a stable hash (CRC-32) of the German sentence: 80 / 5 / 15 per cent."""
    import zlib

    bucket = zlib.crc32(source.encode("utf-8")) % 100
    return "train" if bucket < 80 else ("valid" if bucket < 85 else "test")


@functools.lru_cache(maxsize=2)
def _ding(dict_path: str, index_path: str) -> dict:
    for path in (dict_path, index_path):
        if not os.path.exists(path):
            raise CorpusNotFoundError(
                f"the German-English sentence pairs come with Debian's dict-de-en, missing {path}: {_DING_INSTALL}"
            )
    splits: dict[str, list[SentencePair]] = {name: [] for name in DING_SPLITS}
    for pair in _ding_pairs_from(_ding_entries(dict_path, index_path, min_spaces=2)):
        splits[_ding_split_of(pair.source)].append(pair)
    return {name: tuple(pairs) for name, pairs in splits.items()}


def ding_de_en(split: str = "train", dict_path: str = DING_DICT, index_path: str = DING_INDEX) -> list[SentencePair]:
    """German -> English sentence pairs from the Ding dictionary, with a fixed split.

    Debian's ``dict-de-en`` ships the Ding dictionary (TU Chemnitz) in dictd format.
    Besides words and phrases it holds many full example sentences. Entries are delimited
    by the index file's offsets and lengths (wrapped lines also start at column 0). A pair
    is kept when, after cleaning, both sides are sentences: capitalised, ending in ``.``,
    ``!`` or ``?``, the German side at least 3 words, not ending in an abbreviation such as
    ``etw.``/``jdn.``. Cleaning: usage tags ``[Br.]``, ``[coll.]``, ``{..}``, ``<..>`` and a
    trailing ``(note)`` are removed; typographic apostrophes become ``'``; English
    alternatives joined by ``"; "`` become separate pairs. ``x/y`` alternatives: written
    without spaces (``he/she``) the first alternative is kept on that side; written with
    spaces (``beset / bedevil``, whose scope may be a word or a clause) the side is
    dropped. Pairs are deduplicated (order of first appearance kept).

    The split is fixed by a CRC-32 hash of the German sentence (80 / 5 / 15 per cent for
    train / valid / test), so no German sentence is in two splits and the split does not
    depend on the order or the number of the other pairs. With dict-de-en 1.9 (Ding
    2023-01-30): 20,872 pairs; train 16,615 / valid 1,113 / test 3,144 pairs (15,348 /
    1,021 / 2,913 distinct German sentences), about 8 tokens a side (median).

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"``.
        dict_path, index_path: the dictd files (default: where Debian installs them).

    Returns:
        list of ``SentencePair(source, target)`` (German, English) str pairs.
        Parsed once per process (a few seconds; only index keys of 3+ words are read)
        and cached in memory; nothing is written to disk.

    Raises:
        ValueError: unknown split.
        CorpusNotFoundError: the files are absent; the message says ``apt-get install dict-de-en``.

    Source: Frank Richter, "Ding" German-English dictionary, https://dict.tu-chemnitz.de/
    (GPL-2.0-or-later), Debian package ``dict-de-en``.
    """
    if split not in DING_SPLITS:
        raise ValueError(f"unknown split {split!r}: use one of {DING_SPLITS}")
    return list(_ding(str(dict_path), str(index_path))[split])


def tatoeba_pairs(path: str | os.PathLike, max_pairs: int | None = None) -> list[SentencePair]:
    """Read a Tatoeba / ManyThings file (``English<TAB>Other<TAB>attribution`` per line).

    The format of the widely used ``deu.txt``, ``fra.txt``, ... files from
    manythings.org/anki (sentences from tatoeba.org, CC BY 2.0 FR). Pairs are returned
    as ``(source=Other, target=English)`` so they can replace ``ding_de_en`` directly.
    Blank lines are skipped; the attribution column is optional; pairs are deduplicated.

    Args:
        path: the text file (UTF-8).
        max_pairs: stop after this many pairs (None: all).

    Returns:
        list of ``SentencePair(source, target)``.

    Raises:
        CorpusNotFoundError: ``path`` does not exist.
        ValueError: a non-blank line has fewer than two tab-separated fields or an empty
            side (the message names the file and the line number); ``max_pairs`` < 1.
    """
    if max_pairs is not None and max_pairs < 1:
        raise ValueError(f"max_pairs must be >= 1 or None, got {max_pairs}")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise CorpusNotFoundError(
            f"no Tatoeba file at {path}: get e.g. deu-eng.zip from https://www.manythings.org/anki/ and unzip it"
        )
    pairs: dict[SentencePair, None] = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) < 2 or not fields[0].strip() or not fields[1].strip():
                raise ValueError(
                    f"{path}, line {number}: expected 'English<TAB>Other[<TAB>attribution]', got {line.rstrip()!r}"
                )
            pairs[SentencePair(fields[1].strip(), fields[0].strip())] = None
            if max_pairs is not None and len(pairs) >= max_pairs:
                break
    return list(pairs)
