"""Where the corpora live: the one error a missing corpus raises, and gensim's data folder.
"""
from __future__ import annotations

import os

from word2bert.utils.imports import require


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
    datapath = require("gensim.test.utils", extra="data", purpose=f"corpus {name!r} (it comes with gensim)",
                       error=CorpusNotFoundError).datapath
    path = datapath(_GENSIM_FILES.get(name, name))
    if not os.path.exists(path):
        raise CorpusNotFoundError(
            f"gensim's data file {path} is missing; reinstall it: pip install --force-reinstall gensim==4.4.0"
        )
    return path


def split_and_sources(split: str, splits, sources, known) -> tuple:
    """Check a loader's ``split`` and ``sources`` arguments; return ``sources`` as a tuple.

    Raises:
        ValueError: ``split`` not in ``splits``, or a source not in ``known``, or no source.
    """
    if split not in splits:
        raise ValueError(f"unknown split {split!r}: use one of {tuple(splits)}")
    sources = (sources,) if isinstance(sources, str) else tuple(sources)
    unknown = [s for s in sources if s not in known]
    if unknown or not sources:
        raise ValueError(f"unknown sources {unknown or sources!r}: use some of {tuple(known)}")
    return sources
