"""Vocabulary: the map between tokens and integer ids.

Our own small class rather than ``keras.layers.StringLookup``: the chapters need the
token counts (n-gram models, word2vec's unigram^0.75 sampler, subsampling, Huffman
trees), lookups in plain numpy outside a Keras graph, and a readable text file. For
lookups inside a Keras/tf.data graph use ``Vocabulary.string_lookup()``, which builds a
``StringLookup`` layer with the same ids.

Ids: special tokens first, in the order given (default ``<pad>`` = 0, ``<unk>`` = 1),
then words by decreasing count, ties broken alphabetically (so ids are deterministic).
"""
from __future__ import annotations

import os
from collections import Counter
from typing import Iterable

import numpy as np

from word2bert.utils.checks import not_a_string
from word2bert.utils.io import atomic_write
from word2bert.tokenizers.specials import PAD, UNK


class Vocabulary:
    """Token <-> id lookup with counts, ``min_count`` / ``max_size`` and ``<unk>`` handling.

    Args:
        tokens: iterable of str tokens, or of token lists (sentences); counted once.
        min_count: drop words seen fewer times (int >= 1).
        max_size: keep at most this many entries in total, specials included (None: all).
        specials: tokens given the first ids whatever their count. Special tokens that
            occur in the corpus keep their counts (PTB's ``<unk>``).
        unk_token: the token unknown words map to; must be in ``specials``. With
            ``unk_token=None``, encoding an unknown word raises ``KeyError``.

    Raises:
        TypeError: ``tokens`` is a string (split it first).
        ValueError: empty corpus, ``min_count`` < 1, ``max_size`` smaller than the
            specials, or ``unk_token`` not among the specials.

    Example:
        >>> v = Vocabulary(["a", "b", "a"])
        >>> v.encode(["a", "zzz"]).tolist()
        [2, 1]
    """

    def __init__(
        self,
        tokens: Iterable = (),
        min_count: int = 1,
        max_size: int | None = None,
        specials: Iterable[str] = (PAD, UNK),
        unk_token: str | None = UNK,
    ):
        specials = list(specials)
        if len(set(specials)) != len(specials):
            raise ValueError(f"specials must be distinct, got {specials}")
        if min_count < 1:
            raise ValueError(f"min_count must be >= 1, got {min_count}")
        if max_size is not None and max_size < len(specials):
            raise ValueError(f"max_size={max_size} is smaller than the {len(specials)} special tokens")
        if unk_token is not None and unk_token not in specials:
            raise ValueError(f"unk_token {unk_token!r} must be one of the specials {specials}")
        not_a_string(tokens, "tokens", "an iterable of tokens or of token lists")
        counts: Counter = Counter()
        for item in tokens:
            if isinstance(item, str):
                counts[item] += 1
            else:
                counts.update(item)
        if not counts:
            raise ValueError("cannot build a Vocabulary from an empty corpus (no tokens): pass a non-empty iterable of tokens or sentences")
        words = sorted(
            (w for w, c in counts.items() if c >= min_count and w not in specials),
            key=lambda w: (-counts[w], w),
        )
        itos = specials + words
        if max_size is not None:
            itos = itos[:max_size]
        self.itos: list[str] = itos
        self.stoi: dict[str, int] = {w: i for i, w in enumerate(itos)}
        self.counts = np.array([counts.get(w, 0) for w in itos], dtype=np.int64)
        self.specials = specials
        self.unk_token = unk_token
        self.min_count = min_count
        self.max_size = max_size

    # ----------------------------------------------------------------- lookups
    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    @property
    def unk_id(self) -> int | None:
        """Id of ``unk_token`` (None when there is none)."""
        return None if self.unk_token is None else self.stoi[self.unk_token]

    def token_to_id(self, token: str) -> int:
        """Id of one token; unknown tokens give ``unk_id``.

        Raises:
            KeyError: the token is unknown and the vocabulary has no ``unk_token``.
        """
        i = self.stoi.get(token)
        if i is None:
            if self.unk_token is None:
                raise KeyError(f"unknown token {token!r} and the vocabulary has no unk_token")
            return self.stoi[self.unk_token]
        return i

    def id_to_token(self, index: int) -> str:
        """Token of one id.

        Raises:
            IndexError: ``index`` outside ``[0, len(self))``.
        """
        if not 0 <= int(index) < len(self.itos):
            raise IndexError(f"id {index} outside the vocabulary [0, {len(self.itos)})")
        return self.itos[int(index)]

    def encode(self, tokens: Iterable[str]) -> np.ndarray:
        """Map tokens to ids: 1-D ``int32`` array of the same length.

        Raises:
            TypeError: ``tokens`` is a string (split it first).
            KeyError: an unknown token and no ``unk_token``.
        """
        not_a_string(tokens, "tokens")
        get, unk = self.stoi.get, self.unk_id
        if unk is None:
            return np.array([self.token_to_id(t) for t in tokens], dtype=np.int32)
        return np.fromiter((get(t, unk) for t in tokens), dtype=np.int32)

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Map ids back to tokens.

        Raises:
            TypeError: the ids are not integers (e.g. floats from a model's output: take the
                argmax or cast first); truncating them silently would give the wrong words.
            IndexError: an id outside the vocabulary.
        """
        ids = np.asarray(ids)
        if ids.size and not np.issubdtype(ids.dtype, np.integer):
            raise TypeError(f"ids must be integers, got dtype {ids.dtype}: cast them (ids.astype(int)) or take the "
                            "argmax of scores first")
        return [self.id_to_token(i) for i in ids.ravel()]

    def frequencies(self) -> np.ndarray:
        """Counts divided by their sum: 1-D ``float64`` array of shape ``(len(self),)``."""
        total = self.counts.sum()
        return self.counts / total if total else self.counts.astype(np.float64)

    def string_lookup(self):
        """A ``keras.layers.StringLookup`` giving the same ids (unknown -> ``unk_id``).

        Raises:
            ValueError: the vocabulary has no ``<unk>`` at id 1 after ``<pad>`` at id 0,
                the layout StringLookup needs.
        """
        import keras

        if self.itos[:2] != [PAD, self.unk_token]:
            raise ValueError("string_lookup needs specials ('<pad>', '<unk>') at ids 0 and 1")
        return keras.layers.StringLookup(
            vocabulary=self.itos[2:], mask_token=PAD, oov_token=self.unk_token, num_oov_indices=1
        )

    # ------------------------------------------------------------- save / load
    def save(self, path: str | os.PathLike) -> None:
        """Write ``token<TAB>count`` lines in id order, atomically.

        The first line is a header naming the specials and the ``unk_token``.

        Raises:
            ValueError: a token holds a tab or a line break, or a special token holds
                whitespace (the file format could not read it back).
        """
        bad = next((w for w in self.itos if "\t" in w or "\n" in w or "\r" in w), None)
        if bad is not None:
            raise ValueError(f"cannot save token {bad!r}: tokens in a vocabulary file must not hold tabs or line breaks")
        bad = next((w for w in self.specials if len(w.split()) != 1), None)
        if bad is not None:
            raise ValueError(f"cannot save special token {bad!r}: special tokens must not hold whitespace")
        header = "#word2bert-vocab\tspecials=" + " ".join(self.specials) + f"\tunk={self.unk_token or ''}\n"
        body = "".join(f"{w}\t{c}\n" for w, c in zip(self.itos, self.counts.tolist()))
        atomic_write(path, header + body)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Vocabulary":
        """Read a file written by ``save``; ids are exactly those that were saved.

        Raises:
            FileNotFoundError: no such file.
            ValueError: the file is not a word2bert vocabulary (each message names the file): not UTF-8 text, a
                first line that is not the ``#word2bert-vocab`` header, a header field other than ``specials=...``
                or ``unk=...``, a line that is not ``token<TAB>count`` (its line number), a token listed twice, or
                specials / an ``unk`` token the file does not list.
        """
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError as err:
            raise ValueError(f"{path} is not a UTF-8 vocabulary file ({err.reason} at byte {err.start}): give the "
                             f"file Vocabulary.save wrote") from None
        lines = text.split("\n")
        header = lines[0].rstrip("\r").split("\t")
        if header[0] != "#word2bert-vocab":
            raise ValueError(f"{path} is not a word2bert vocabulary file (bad header: the first line must start with "
                             f"'#word2bert-vocab', got {lines[0][:40]!r}): give the file Vocabulary.save wrote")
        fields = {}
        for field in header[1:]:
            key, eq, value = field.partition("=")
            if not eq or key not in ("specials", "unk") or key in fields:
                raise ValueError(f"{path}, line 1: bad header field {field!r}; the header holds "
                                 f"'specials=<tokens separated by spaces>' and 'unk=<token or nothing>', once each")
            fields[key] = value
        rows = [(i + 2, line.rstrip("\r").split("\t")) for i, line in enumerate(lines[1:]) if line.strip()]
        bad = next(((n, row) for n, row in rows if len(row) != 2 or not row[1].isdigit()), None)
        if bad is not None:
            raise ValueError(f"{path}, line {bad[0]}: expected 'token<TAB>count', got {bad[1]!r}")
        seen: dict[str, int] = {}
        for n, (word, _) in rows:
            if word in seen:
                raise ValueError(f"{path}, line {n}: token {word!r} is listed a second time (first on line "
                                 f"{seen[word]}); each token must have one id")
            seen[word] = n
        specials = fields.get("specials", "").split()
        unk = fields.get("unk") or None
        missing = [w for w in specials + ([unk] if unk else []) if w not in seen]
        if missing:
            raise ValueError(f"{path}: the header names the special token(s) {missing}, which the file does not list")
        vocab = cls.__new__(cls)
        vocab.itos = [w for _, (w, _) in rows]
        vocab.stoi = {w: i for i, w in enumerate(vocab.itos)}
        vocab.counts = np.array([int(c) for _, (_, c) in rows], dtype=np.int64)
        vocab.specials, vocab.unk_token = specials, unk
        vocab.min_count, vocab.max_size = 1, None
        return vocab

    def __repr__(self) -> str:
        return f"Vocabulary(size={len(self)}, specials={self.specials}, unk={self.unk_token!r})"
