"""The library's one cache folder: where downloaded checkpoints and corpora are looked for and where built models
are cached.

``cache_dir()`` is ``$WORD2BERT_CACHE`` when that variable is set, else the user's cache folder
(``$XDG_CACHE_HOME/word2bert``, or ``~/.cache/word2bert``), following the XDG Base Directory specification
(freedesktop.org). It is never inside the installed package: an installed library must not write into its install
prefix (which may be read-only, and which ``pip uninstall`` would leave dirty). The course, run from a checkout, sets
``WORD2BERT_CACHE`` to the repository's ``data/cache`` (``word2bert.course``).
"""
from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "WORD2BERT_CACHE"


def cache_dir() -> Path:
    """The cache folder (not created here).

    Returns:
        ``pathlib.Path``: ``$WORD2BERT_CACHE`` (``~`` expanded) if set and not empty; else
        ``$XDG_CACHE_HOME/word2bert`` if ``XDG_CACHE_HOME`` is an absolute path (the specification says to ignore a
        relative one); else ``~/.cache/word2bert``.

    Example:
        >>> os.environ["WORD2BERT_CACHE"] = "/tmp/w2b"
        >>> cache_dir()
        PosixPath('/tmp/w2b')
    """
    value = os.environ.get(CACHE_ENV)
    if value:
        return Path(value).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "word2bert"
