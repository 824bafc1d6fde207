"""What WordPiece and byte-pair encoding share: words in, pieces out, ids, and a tf.data hook.

A ``SubwordTokenizer`` holds a vocabulary (a list: the id of a token is its index), the normalisation
options of ``word2bert.tokenizers.normalize`` and a set of special tokens that are kept whole. Subclasses say
how one word becomes pieces (``split_word``) and how pieces become text again (``detokenize``).
"""
from __future__ import annotations

import numpy as np

from word2bert.tokenizers.normalize import FORMS, pretokenize
from word2bert.utils.imports import require


def check_vocabulary(vocabulary, where: str = "vocabulary") -> list[str]:
    """The vocabulary as a list of str, after checks that name the first bad entry.

    Raises:
        TypeError: not a sequence of str.
        ValueError: empty, an empty token, a token holding whitespace, or a repeated token.
    """
    if isinstance(vocabulary, (str, bytes)):
        raise TypeError(f"{where} must be a list of tokens, got a single {type(vocabulary).__name__}")
    tokens = list(vocabulary)
    if not tokens:
        raise ValueError(f"{where} is empty")
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TypeError(f"{where}: entry {i} is {type(token).__name__}, not str")
        if not token or token != token.strip() or len(token.split()) != 1:
            raise ValueError(f"{where}: entry {i} ({token!r}) is empty or holds whitespace")
        if token in seen:
            raise ValueError(f"{where}: entry {i} repeats {token!r} (first at entry {seen[token]})")
        seen[token] = i
    return tokens


class SubwordTokenizer:
    """Base class: normalise, split into words, split words into vocabulary pieces, map to ids.

    Args:
        vocabulary: list of tokens; a token's id is its position.
        unk_token: the token for what cannot be spelled with the vocabulary (must be in it).
        pad_token: the padding token; if given it must be id 0 (models mask id 0).
        lowercase, strip_accents, form: normalisation, as ``word2bert.tokenizers.normalize``.
        special_tokens: tokens kept whole wherever they are written in a text (``[MASK]``), never
            normalised or split; each must be in the vocabulary.

    Raises:
        ValueError: a bad vocabulary (see ``check_vocabulary``), ``unk_token`` missing, ``pad_token``
            not at id 0, a special token not in the vocabulary, unknown ``form``.
    """

    def __init__(self, vocabulary, unk_token: str, pad_token: str | None, lowercase: bool = True,
                 strip_accents: bool | None = None, form: str = "NFC", special_tokens=()):
        self.vocabulary = check_vocabulary(vocabulary)
        self._ids = {token: i for i, token in enumerate(self.vocabulary)}
        if unk_token not in self._ids:
            raise ValueError(f"the unknown token {unk_token!r} is not in the vocabulary")
        if pad_token is not None and self._ids.get(pad_token) != 0:
            raise ValueError(f"the padding token {pad_token!r} must be id 0, got "
                             f"{self._ids.get(pad_token, 'absent')}")
        if form is not None and form not in FORMS:
            raise ValueError(f"unknown Unicode normal form {form!r}: use one of {FORMS} or None")
        missing = [t for t in special_tokens if t not in self._ids]
        if missing:
            raise ValueError(f"special tokens {missing} are not in the vocabulary")
        self.unk_token, self.pad_token = unk_token, pad_token
        self.lowercase, self.strip_accents, self.form = lowercase, strip_accents, form
        self.special_tokens = tuple(special_tokens)
        self._cache: dict[str, list[str]] = {}

    # --------------------------------------------------------------- pieces
    @property
    def vocabulary_size(self) -> int:
        return len(self.vocabulary)

    def token_to_id(self, token: str) -> int:
        """Id of ``token``; a token outside the vocabulary raises ``KeyError`` naming it."""
        try:
            return self._ids[token]
        except KeyError:
            raise KeyError(f"{token!r} is not in the vocabulary") from None

    def id_to_token(self, index: int) -> str:
        """Token of id ``index``; raises ``TypeError`` for a non-integer, ``IndexError`` outside 0..vocabulary_size-1."""
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"token ids are integers, got {index!r}")
        if not 0 <= int(index) < len(self.vocabulary):
            raise IndexError(f"id {index} is outside the vocabulary (size {len(self.vocabulary)})")
        return self.vocabulary[int(index)]

    def words(self, text: str) -> list[str]:
        """``text`` normalised and cut into words (``word2bert.tokenizers.pretokenize``), specials kept whole."""
        return pretokenize(text, self.lowercase, self.strip_accents, self.form, self.special_tokens)

    def split_word(self, word: str) -> list[str]:  # pragma: no cover - subclasses
        raise NotImplementedError

    def word_pieces(self, word: str) -> list[str]:
        """Pieces of one word (``split_word`` with a cache; a special token stays whole)."""
        if word in self.special_tokens:
            return [word]
        pieces = self._cache.get(word)
        if pieces is None:
            pieces = self._cache[word] = self.split_word(word)
        return list(pieces)

    def tokenize(self, text: str) -> list[str]:
        """Subword tokens of ``text`` (strings of the vocabulary, ``unk_token`` for what has no spelling)."""
        return [piece for word in self.words(text) for piece in self.word_pieces(word)]

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``: ``[token_to_id(t) for t in tokenize(text)]``."""
        return [self._ids[t] for t in self.tokenize(text)]

    def decode(self, ids) -> list[str]:
        """Tokens of a sequence of integer ids (padding included; see ``detokenize`` for text).

        Raises:
            TypeError: an id that is not an integer; IndexError: an id outside the vocabulary.
        """
        return [self.id_to_token(i) for i in np.asarray(ids).reshape(-1).tolist()]

    def _as_tokens(self, tokens_or_ids) -> list[str]:
        if isinstance(tokens_or_ids, str):
            raise TypeError("detokenize takes a list of tokens or ids, not a string")
        items = (list(tokens_or_ids) if isinstance(tokens_or_ids, (list, tuple))
                 else np.asarray(tokens_or_ids).reshape(-1).tolist())
        if len({isinstance(t, str) for t in items}) > 1:
            raise TypeError("detokenize takes tokens or ids, not a mix of both")
        return [t if isinstance(t, str) else self.id_to_token(t) for t in items]

    # --------------------------------------------------------------- tf.data
    def tf_encode(self, sequence_length: int, pad_to_sequence_length: bool = False):
        """A function for ``tf.data.Dataset.map``: a batch of strings -> padded int32 token ids.

        Each text is encoded with ``encode`` (in Python, through ``tf.py_function``), cut to ``sequence_length``
        ids, and the ragged batch is padded with id 0 to its longest row, at least 1 wide (or to
        ``sequence_length`` with ``pad_to_sequence_length``)::

            ds = tf.data.Dataset.from_tensor_slices(texts).batch(32).map(tokenizer.tf_encode(64))

        Returns:
            a function ``strings -> int32 tensor [batch, width]``.

        Raises:
            ValueError: ``sequence_length`` < 1, or the tokenizer has no padding token at id 0; when the dataset
                runs, a batch that is not rank 1 (an unbatched dataset).
        """
        tf = require("tensorflow", purpose="tf_encode")

        if sequence_length < 1:
            raise ValueError(f"sequence_length must be >= 1, got {sequence_length}")
        if self.pad_token is None:
            raise ValueError("tf_encode pads with id 0: the vocabulary needs a padding token at id 0")

        def encode_batch(strings):
            strings = strings.numpy()
            if np.ndim(strings) != 1:
                raise ValueError(f"tf_encode maps a batch of strings (rank 1), got rank {np.ndim(strings)}: "
                                 f"batch the dataset first (dataset.batch(n).map(...))")
            rows = [self.encode(s.decode("utf-8"))[:sequence_length] for s in strings]
            width = sequence_length if pad_to_sequence_length else max([len(r) for r in rows] + [1])
            ids = np.zeros((len(rows), width), np.int32)  # id 0 is padding
            for i, row in enumerate(rows):
                ids[i, :len(row)] = row
            return ids

        def encode(strings):
            ids = tf.py_function(encode_batch, [strings], tf.int32)
            ids.set_shape([None, sequence_length if pad_to_sequence_length else None])
            return ids

        return encode
