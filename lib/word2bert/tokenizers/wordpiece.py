"""WordPiece: greedy longest-match-first subwords (Schuster & Nakajima 2012; Wu et al. 2016; BERT).

A word is spelled, left to right, by the longest vocabulary entry that matches at the current
position; pieces after the first carry the suffix indicator ``##`` ("playing" -> ``play ##ing``). If at
some position no entry matches, the whole word becomes ``[UNK]``. The vocabulary is learned with
tensorflow-text's WordPiece learner (``train_wordpiece``); the splitting itself is written here and
checked token for token against tensorflow-text's ``FastWordpieceTokenizer`` and ``BertTokenizer``.

The vocabulary file is BERT's ``vocab.txt``: one token a line, the line number (from 0) is the id. ``save`` writes
it with a small JSON of the tokenizer's settings beside it (``SETTINGS_FILE``: case, accents, specials...), so that
``load`` gives back the same tokenizer; a ``vocab.txt`` alone (another model's) loads with the defaults.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

from word2bert.utils.io import atomic_write
from word2bert.tokenizers.normalize import word_counts
from word2bert.tokenizers.specials import BERT_CLS, BERT_MASK, BERT_PAD, BERT_SEP, BERT_SPECIALS, BERT_UNK
from word2bert.tokenizers.subword import SubwordTokenizer, check_vocabulary
from word2bert.utils.imports import require

_BRACKETED = re.compile(r"^\[[A-Za-z0-9_]+\]$")
VOCAB_FILE = "vocab.txt"
SETTINGS_FILE = "word2bert_wordpiece.json"
# the constructor's arguments that ``save`` keeps, with the types ``load`` accepts
_SETTINGS = {"lowercase": (bool,), "strip_accents": (bool, type(None)), "form": (str, type(None)),
             "unk_token": (str,), "pad_token": (str,), "cls_token": (str,), "sep_token": (str,),
             "mask_token": (str, type(None)), "suffix_indicator": (str,), "max_bytes_per_word": (int,)}


def wordpiece_split(word: str, vocabulary, unk_token: str = BERT_UNK, suffix_indicator: str = "##",
                    max_bytes_per_word: int = 100) -> list[str]:
    """One word as WordPiece pieces, greedy longest match first (BERT's ``WordpieceTokenizer``).

    >>> wordpiece_split("unaffable", {"un", "##aff", "##able", "[UNK]"})
    ['un', '##aff', '##able']

    Args:
        word: one word, already normalised and split (no whitespace).
        vocabulary: anything supporting ``in`` (a set, a dict token -> id).
        unk_token: returned alone when the word cannot be spelled, or is longer than
            ``max_bytes_per_word`` bytes in UTF-8 (tensorflow-text's limit; BERT's code counts 100 characters).
        suffix_indicator: prefix of pieces that continue a word.

    Returns:
        list of pieces, or ``[unk_token]``.
    """
    if len(word.encode("utf-8")) > max_bytes_per_word:
        return [unk_token]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else suffix_indicator + word[start:end]
            if piece in vocabulary:
                break
            end -= 1
        else:
            return [unk_token]
        pieces.append(piece)
        start = end
    return pieces


class WordPieceTokenizer(SubwordTokenizer):
    """Text -> WordPiece tokens and ids, BERT's pair format, ``vocab.txt`` files.

    Args:
        vocabulary: list of tokens (``train_wordpiece`` makes one; ``load`` reads one).
        lowercase, strip_accents, form: normalisation (``word2bert.tokenizers.normalize``); BERT "uncased" is
            ``lowercase=True`` (accents stripped too), "cased" is ``lowercase=False``.
        unk_token, pad_token, cls_token, sep_token, mask_token: BERT's specials (``[PAD]`` must be id 0).
        suffix_indicator: ``"##"``.
        max_bytes_per_word: longer words (in UTF-8 bytes) become ``[UNK]``.

    Every vocabulary entry written like ``[CLS]`` or ``[unused0]`` is a special token: kept whole when
    it appears in a text, never lowercased or split (as BERT's ``never_split``); specials written otherwise
    (``<mask>``) are split like any text. tensorflow-text's pipeline (``to_tensorflow_text(False)``) keeps no
    special token whole.

    Raises:
        ValueError / TypeError: bad vocabulary (empty, repeated or blank tokens), a special token
            missing, ``[PAD]`` not id 0.

    Source: Devlin et al. 2019 (BERT), ``tokenization.py`` of google-research/bert, for the rules.
    """

    def __init__(self, vocabulary, lowercase: bool = True, strip_accents: bool | None = None, form: str = "NFC",
                 unk_token: str = BERT_UNK, pad_token: str = BERT_PAD, cls_token: str = BERT_CLS,
                 sep_token: str = BERT_SEP, mask_token: str | None = BERT_MASK, suffix_indicator: str = "##",
                 max_bytes_per_word: int = 100):
        vocabulary = check_vocabulary(vocabulary)
        specials = [t for t in vocabulary if _BRACKETED.match(t)]
        super().__init__(vocabulary, unk_token, pad_token, lowercase, strip_accents, form, specials)
        for name, token in (("cls_token", cls_token), ("sep_token", sep_token), ("mask_token", mask_token)):
            if token is not None and token not in self._ids:
                raise ValueError(f"{name} {token!r} is not in the vocabulary")
        if max_bytes_per_word < 1:
            raise ValueError(f"max_bytes_per_word must be >= 1, got {max_bytes_per_word}")
        self.cls_token, self.sep_token, self.mask_token = cls_token, sep_token, mask_token
        self.suffix_indicator, self.max_bytes_per_word = suffix_indicator, max_bytes_per_word

    def split_word(self, word: str) -> list[str]:
        return wordpiece_split(word, self._ids, self.unk_token, self.suffix_indicator, self.max_bytes_per_word)

    def detokenize(self, tokens_or_ids) -> str:
        """Text of tokens (or ids): ``##`` pieces join the piece before, words are joined by one space.

        ``detokenize(tokenize(x)) == " ".join(words(x))`` whenever no word became ``[UNK]`` and the text
        holds no ``[PAD]``: the text as normalised and split, with a space on both sides of punctuation.
        Padding is dropped.
        """
        words: list[str] = []
        for token in self._as_tokens(tokens_or_ids):
            if token == self.pad_token:
                continue
            if token.startswith(self.suffix_indicator) and words:
                words[-1] += token[len(self.suffix_indicator):]
            else:
                words.append(token)
        return " ".join(words)

    # ------------------------------------------------------------ pairs
    def encode_pair(self, a: str, b: str | None = None, sequence_length: int = 128) -> dict[str, np.ndarray]:
        """BERT's input: ``[CLS] a [SEP] b [SEP]``, segment ids, padding mask, all of length ``sequence_length``.

        When the pair is too long, tokens are removed one at a time from the end of the longer side
        (of ``b`` when both are equally long), as BERT's ``_truncate_seq_pair``; ``[CLS]`` and both
        ``[SEP]`` are always kept. With ``b=None`` the input is ``[CLS] a [SEP]``.

        Returns:
            dict with ``token_ids`` (int32 [sequence_length]), ``segment_ids`` (int32 [sequence_length]: 0 for ``[CLS]``,
            ``a`` and the first ``[SEP]``, 1 for ``b`` and its ``[SEP]``, 0 on padding) and
            ``padding_mask`` (bool [sequence_length], True on the tokens of the pair, False on the padding added
            after them).

        The padding mask is set by position, not by id, and it is THE mask: pass it to the model with the
        ids (``BertBackbone`` and ``BertPretrainer`` take a ``"padding_mask"`` input, as keras-hub's BERT does).
        A ``[PAD]`` written in the text is a special token, id 0, and a real token of the pair: the padding
        mask is True there, while a mask computed as ``token_ids != 0`` would hide it ("my [PAD] dog" with
        ``sequence_length=6``: ``[1 1 1 1 1 0]`` here, ``[1 1 0 1 1 0]`` by id).

        Raises:
            ValueError: ``sequence_length`` too small to hold the special tokens (3 for a pair, 2 for one text), or a
                tokenizer without a padding token.
        """
        if self.pad_token is None:
            raise ValueError("encode_pair pads with the padding token: this tokenizer has none (pad_token=None)")
        need = 3 if b is not None else 2
        if sequence_length < need:
            raise ValueError(f"sequence_length {sequence_length} cannot hold [CLS] and [SEP]: a {'pair' if b is not None else 'text'} "
                             f"needs at least {need}")
        first, second = self.encode(a), (self.encode(b) if b is not None else [])
        while len(first) + len(second) > sequence_length - need:
            if len(first) > len(second):
                first.pop()
            else:
                second.pop()
        cls_id, sep_id = self._ids[self.cls_token], self._ids[self.sep_token]
        ids = [cls_id] + first + [sep_id] + ((second + [sep_id]) if b is not None else [])
        segments = [0] * (len(first) + 2) + [1] * (len(ids) - len(first) - 2)
        token_ids = np.zeros(sequence_length, np.int32)
        segment_ids = np.zeros(sequence_length, np.int32)
        token_ids[:len(ids)], segment_ids[:len(ids)] = ids, segments
        padding_mask = np.arange(sequence_length) < len(ids)  # by position: a [PAD] written in the text is a real token
        return {"token_ids": token_ids, "segment_ids": segment_ids, "padding_mask": padding_mask}

    # ------------------------------------------------------------ tensorflow-text
    def to_tensorflow_text(self, pretokenized: bool = True):
        """The same vocabulary in tensorflow-text, for speed or for comparison.

        Args:
            pretokenized: True gives a ``FastWordpieceTokenizer`` over words you split yourself (with
                ``words``): ``tokenize(words)`` -> ragged ids ``[words, pieces]``. False gives a tokenizer
                that normalises and splits in TensorFlow too: ``tokenize(texts)`` -> ragged ids
                ``[texts, words, pieces]``; it is tensorflow-text's ``BertTokenizer`` (which strips accents
                exactly when it lowercases), preceded by ``case_fold_utf8`` and accent stripping in
                TensorFlow for the other combinations.

        Returns:
            an object with a ``tokenize`` method, as above (ids are int64 for the full pipeline, int32
            for the pretokenized one).
        """
        tf = require("tensorflow", purpose="WordPieceTokenizer.tf_tokenizer")
        tf_text = require("tensorflow_text", purpose="WordPieceTokenizer.tf_tokenizer")

        if pretokenized:
            return tf_text.FastWordpieceTokenizer(
                self.vocabulary, suffix_indicator=self.suffix_indicator, max_bytes_per_word=self.max_bytes_per_word,
                token_out_type=tf.int32, unknown_token=self.unk_token, no_pretokenization=True)
        strip = self.lowercase if self.strip_accents is None else self.strip_accents
        table = tf.lookup.StaticVocabularyTable(
            tf.lookup.KeyValueTensorInitializer(self.vocabulary, tf.range(len(self.vocabulary), dtype=tf.int64)), 1)
        bert_lowercases = self.lowercase and strip
        form = None if bert_lowercases else ("NFD" if strip else self.form)
        bert = tf_text.BertTokenizer(table, suffix_indicator=self.suffix_indicator, lower_case=bert_lowercases,
                                     normalization_form=form, unknown_token=self.unk_token, token_out_type=tf.int64,
                                     max_bytes_per_word=self.max_bytes_per_word)
        return bert if bert_lowercases else _TensorFlowPipeline(bert, self.lowercase, strip)

    # ------------------------------------------------------------ files
    def settings(self) -> dict:
        """The constructor's arguments other than the vocabulary (what ``save`` writes to ``SETTINGS_FILE``)."""
        return {name: getattr(self, name) for name in _SETTINGS}

    def save(self, path: str | os.PathLike) -> Path:
        """Write the vocabulary and the settings, each file atomically (a crash leaves the old file).

        Args:
            path: a folder (created if missing): ``<path>/vocab.txt`` and ``<path>/word2bert_wordpiece.json``;
                or a file ending in ``.txt``: the vocabulary there and the settings beside it, ``<stem>.json``.

        Returns:
            ``pathlib.Path`` of the vocabulary file.

        Example:
            >>> WordPieceTokenizer(vocabulary, lowercase=False).save("cased")      # cased/vocab.txt + settings
            >>> WordPieceTokenizer.load("cased").lowercase
            False
        """
        vocab, settings = _files(path)
        atomic_write(vocab, "".join(token + "\n" for token in self.vocabulary))
        atomic_write(settings, json.dumps({"tokenizer": "WordPieceTokenizer", **self.settings()}, indent=1,
                                          ensure_ascii=False) + "\n")
        return vocab

    @classmethod
    def load(cls, path: str | os.PathLike, **options) -> "WordPieceTokenizer":
        """Read a tokenizer written by ``save``, or any ``vocab.txt`` (BERT's).

        Args:
            path: a folder holding ``vocab.txt``, or the vocabulary file itself. The settings are read from the
                JSON ``save`` writes beside it when there is one; without it the constructor's defaults apply
                (BERT uncased: lowercase, accents stripped).
            options: the constructor's arguments (``lowercase``...); they override the saved settings.

        Raises:
            FileNotFoundError: no such file (or no ``vocab.txt`` in the folder).
            ValueError: the file is not a vocabulary: not UTF-8 text, a blank line, a line holding
                whitespace, a repeated token (the message names the line), or a special token missing; or the
                settings file is not a JSON object of the known settings with their types (the message names it).
        """
        path, settings = _files(path)
        if path.name == VOCAB_FILE and not settings.is_file():      # vocab.txt named inside a saved folder
            settings = path.parent / SETTINGS_FILE
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
        except UnicodeDecodeError as e:
            raise ValueError(f"{path} is not a UTF-8 vocabulary file ({e.reason} at byte {e.start})") from None
        if lines and lines[-1] == "":
            lines.pop()
        try:
            check_vocabulary(lines, where=str(path))
        except (TypeError, ValueError) as e:
            message = re.sub(r"entry (\d+)", lambda m: f"line {int(m.group(1)) + 1}", str(e))
            raise ValueError(message) from None
        return cls(lines, **{**_read_settings(settings), **options})

    def __repr__(self) -> str:
        return (f"WordPieceTokenizer(vocabulary_size={self.vocabulary_size}, lowercase={self.lowercase}, "
                f"strip_accents={self.strip_accents})")


def _files(path) -> tuple[Path, Path]:
    """(vocabulary file, settings file) of a folder or of a ``.txt`` vocabulary file."""
    path = Path(path)
    if path.suffix == ".txt" and not path.is_dir():
        return path, path.with_suffix(".json")
    return path / VOCAB_FILE, path / SETTINGS_FILE


def _read_settings(path: Path) -> dict:
    """The settings ``save`` wrote at ``path``; {} when there is no such file, or it is another program's JSON."""
    if not path.is_file():
        return {}
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: the tokenizer settings are not JSON ({e})") from None
    if not isinstance(settings, dict) or settings.get("tokenizer") != "WordPieceTokenizer":
        return {}
    settings.pop("tokenizer")
    bad = sorted(k for k, v in settings.items() if k not in _SETTINGS or not isinstance(v, _SETTINGS[k])
                 or (isinstance(v, bool) and bool not in _SETTINGS[k]))      # True is an int too
    if bad:
        raise ValueError(f"{path}: unknown or mistyped tokenizer settings {bad} (known: {', '.join(_SETTINGS)})")
    return settings


class _TensorFlowPipeline:
    """Case folding or accent stripping in TensorFlow before a ``BertTokenizer`` that does neither.

    Unicode spaces (category Zs, such as the no-break space) become plain spaces first: BERT splits words at
    them and so does ``pretokenize``, while tensorflow-text's splitting knows only ASCII whitespace. (Uncased,
    ``BertTokenizer`` is used alone: NFKC turns every Zs character but U+1680 into a plain space.)"""

    def __init__(self, bert, lowercase: bool, strip_accents: bool):
        self.bert, self.lowercase, self.strip_accents = bert, lowercase, strip_accents

    def tokenize(self, texts):
        import tensorflow as tf
        import tensorflow_text as tf_text

        if self.lowercase:
            texts = tf_text.case_fold_utf8(texts)
        if self.strip_accents:
            texts = tf.strings.regex_replace(tf_text.normalize_utf8(texts, "NFD"), r"\p{Mn}", "")
        return self.bert.tokenize(tf.strings.regex_replace(texts, r"\p{Zs}", " "))


def train_wordpiece(texts, vocabulary_size: int, lowercase: bool = True, strip_accents: bool | None = None,
                    form: str = "NFC", reserved_tokens=BERT_SPECIALS, **learn_params) -> WordPieceTokenizer:
    """Learn a WordPiece vocabulary from texts with tensorflow-text's learner.

    The texts are normalised and split into words here (``pretokenize``); the word counts go to
    ``tensorflow_text.tools.wordpiece_vocab.wordpiece_tokenizer_learner_lib.learn``, the learner behind
    ``bert_vocab_from_dataset`` and keras-hub's ``compute_word_piece_vocabulary`` (it searches for a
    count threshold that gives a vocabulary of ``vocabulary_size`` tokens, less at most 5%). A vocabulary
    longer than ``vocabulary_size`` is cut to it, as keras-hub does.

    Args:
        texts: list of strings.
        vocabulary_size: the largest vocabulary wanted, reserved tokens included.
        lowercase, strip_accents, form: normalisation, kept in the tokenizer.
        reserved_tokens: first ids; must start with ``[PAD]`` and hold ``[UNK]``, ``[CLS]``, ``[SEP]``.
        learn_params: passed to the learner (``lower_thresh``, ``max_token_length``, ...).

    Returns:
        ``WordPieceTokenizer``.

    Raises:
        ValueError: ``vocabulary_size`` not larger than the reserved tokens, no words in ``texts``.
    """
    learner = require("tensorflow_text.tools.wordpiece_vocab.wordpiece_tokenizer_learner_lib",
                      extra="tokenizers", purpose="train_wordpiece (tensorflow-text's learner)")

    reserved = list(reserved_tokens)
    if vocabulary_size <= len(reserved):
        raise ValueError(f"vocabulary_size {vocabulary_size} leaves no room after {len(reserved)} reserved tokens")
    counts = word_counts(texts, lowercase, strip_accents, form, [t for t in reserved if _BRACKETED.match(t)])
    vocab = learner.learn(sorted(counts.items()), vocabulary_size, reserved, **learn_params)
    return WordPieceTokenizer(vocab[:vocabulary_size], lowercase=lowercase, strip_accents=strip_accents, form=form)
