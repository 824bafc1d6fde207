"""Byte-pair encoding for words (Sennrich, Haddow & Birch 2016, "Neural Machine Translation of Rare
Words with Subword Units"), written here: the merge-learning loop and the tokenizer that replays it.

Every word starts as its characters followed by the end-of-word symbol ``</w>``. Learning repeats: count
every pair of adjacent symbols over the corpus (a word counts as often as it occurs), merge the most
frequent pair everywhere into one new symbol, until the vocabulary has the size asked for. A tie
between pairs of equal count goes to the pair that sorts first (``("e", "s")`` before ``("s", "t")``),
so the result does not depend on the order of the corpus. Tokenizing a word replays the merges in the
order they were learned (the lowest-ranked pair present first), as Sennrich's ``apply_bpe.py``.

The paper's toy corpus ``{low: 5, lower: 2, newest: 6, widest: 3}`` gives the merges
``es, est, est</w>, lo, low, ew, ewest</w>, newest</w>, low</w>, dest</w>``. The paper's Figure 1 code breaks
ties by the order pairs were first counted and gives ``ne, new`` and ``wi`` where this rule gives ``ew,
ewest</w>`` and ``dest</w>`` (so "widest" ends as ``wi d est</w>`` there and ``w i dest</w>`` here).
"""
from __future__ import annotations

import heapq
import json
import os
import re

from word2bert.utils.io import atomic_write
from word2bert.tokenizers.normalize import word_counts
from word2bert.tokenizers.specials import BOS, EOS, PAD, UNK
from word2bert.tokenizers.subword import SubwordTokenizer

END_OF_WORD = "</w>"
_HEADER = "#word2bert-bpe"


def learn_bpe(word_counts, num_merges: int, min_count: int = 2) -> list[tuple[str, str]]:
    """The merges of byte-pair encoding, most frequent pair first.

    Counts of adjacent pairs are kept up to date word by word after each merge (only the words holding
    the merged pair are touched), and the best pair is taken from a heap. ``tests/tokenizers/test_subwords.py`` checks
    it against the paper's loop, which recounts every pair at every step.

    Args:
        word_counts: mapping word -> count (``word2bert.tokenizers.word_counts`` gives one).
        num_merges: most merges to learn.
        min_count: stop when the best pair occurs fewer times than this.

    Returns:
        list of ``(left, right)`` symbol pairs in the order learned (may be shorter than ``num_merges``).

    Raises:
        ValueError: ``num_merges`` < 0, ``min_count`` < 1, empty ``word_counts``, a word holding whitespace
            or a non-positive count.
    """
    if num_merges < 0 or min_count < 1:
        raise ValueError(f"num_merges must be >= 0 and min_count >= 1, got {num_merges}, {min_count}")
    items = _check_counts(word_counts)
    words = [list(w) + [END_OF_WORD] for w, _ in items]
    counts = [c for _, c in items]
    pair_counts: dict[tuple[str, str], int] = {}
    where: dict[tuple[str, str], set[int]] = {}
    for i, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            pair_counts[pair] = pair_counts.get(pair, 0) + counts[i]
            where.setdefault(pair, set()).add(i)
    heap = [(-c, p) for p, c in pair_counts.items()]
    heapq.heapify(heap)
    merges: list[tuple[str, str]] = []
    while len(merges) < num_merges and heap:
        negative, pair = heapq.heappop(heap)
        if pair_counts.get(pair, 0) != -negative:
            continue  # stale entry: the pair's count changed since it was pushed
        if -negative < min_count:
            break
        merges.append(pair)
        merged = pair[0] + pair[1]
        changed: set[tuple[str, str]] = set()
        for i in sorted(where.pop(pair, ())):
            old = words[i]
            new = _merge(old, pair, merged)
            if new == old:
                continue
            for p in zip(old, old[1:]):
                pair_counts[p] -= counts[i]
                changed.add(p)
            for p in zip(new, new[1:]):
                pair_counts[p] = pair_counts.get(p, 0) + counts[i]
                where.setdefault(p, set()).add(i)
                changed.add(p)
            words[i] = new
        pair_counts.pop(pair, None)
        for p in changed:
            c = pair_counts.get(p, 0)
            if c > 0:
                heapq.heappush(heap, (-c, p))
            else:
                pair_counts.pop(p, None)
    return merges


def _check_counts(word_counts) -> list[tuple[str, int]]:
    items = sorted(dict(word_counts).items())
    if not items:
        raise ValueError("word_counts is empty")
    for word, count in items:
        if not word or len(word.split()) != 1 or word != word.strip():
            raise ValueError(f"word {word!r} is empty or holds whitespace: split texts into words first")
        if int(count) < 1:
            raise ValueError(f"word {word!r} has count {count}: counts must be >= 1")
    return [(w, int(c)) for w, c in items]


def _merge(symbols: list[str], pair: tuple[str, str], merged: str) -> list[str]:
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(merged)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


class BPETokenizer(SubwordTokenizer):
    """Text -> byte-pair-encoded tokens (pieces of the last one end in ``</w>``) and ids.

    Args:
        merges: list of ``(left, right)`` pairs, in the order learned.
        alphabet: the characters of the training words; a character outside it becomes ``unk_token``
            (the rest of the word keeps its pieces).
        reserved_tokens: the first ids, ``<pad>`` first (as every word2bert vocabulary).
        lowercase, strip_accents, form: normalisation (``word2bert.tokenizers.normalize``).

    The vocabulary is ``reserved_tokens``, the alphabet (sorted), ``</w>``, then one symbol per merge.

    Raises:
        ValueError: a merge whose halves are not symbols by then, a repeated merge, reserved tokens
            without ``<pad>`` first or without ``<unk>``. (Two different merges may make the same symbol:
            it gets one id.)

    Source: Sennrich et al. 2016, section 3.2 and Figure 1.
    """

    def __init__(self, merges, alphabet, reserved_tokens=(PAD, UNK, BOS, EOS), lowercase: bool = True,
                 strip_accents: bool | None = False, form: str = "NFC"):
        reserved = list(reserved_tokens)
        if not reserved or reserved[0] != PAD or UNK not in reserved:
            raise ValueError(f"reserved_tokens must start with {PAD!r} and hold {UNK!r}, got {reserved}")
        chars = sorted(set(alphabet))
        if any(len(c) != 1 or c.isspace() for c in chars):
            raise ValueError("alphabet must be single non-space characters")
        symbols = set(chars) | {END_OF_WORD}
        rank: dict[tuple[str, str], int] = {}  # merge -> its place in the order learned
        for i, (left, right) in enumerate(merges):
            if left not in symbols or right not in symbols:
                raise ValueError(f"merge {i} ({left!r}, {right!r}) joins a symbol that no earlier merge made")
            if (left, right) in rank:
                raise ValueError(f"merge {i} ({left!r}, {right!r}) repeats merge {rank[left, right]}")
            rank[left, right] = i
            symbols.add(left + right)
        vocabulary = reserved + [c for c in chars if c not in reserved] + [END_OF_WORD] + \
            [m for m in dict.fromkeys(a + b for a, b in rank) if m not in chars]
        super().__init__(vocabulary, UNK, PAD, lowercase, strip_accents, form, [t for t in reserved if t != PAD])
        self.merges = list(rank)
        self.alphabet = chars
        self.reserved_tokens = reserved
        self._rank = rank

    def split_word(self, word: str) -> list[str]:
        symbols = [c if c in self._ids else self.unk_token for c in word] + [END_OF_WORD]
        while len(symbols) > 1:
            ranked = [(self._rank.get(p, len(self._rank)), i) for i, p in enumerate(zip(symbols, symbols[1:]))]
            rank, i = min(ranked)
            if rank == len(self._rank):
                break
            symbols = symbols[:i] + [symbols[i] + symbols[i + 1]] + symbols[i + 2:]
        return symbols

    def detokenize(self, tokens_or_ids) -> str:
        """Text of tokens (or ids): pieces are concatenated and ``</w>`` becomes a space; padding is dropped.

        ``detokenize(tokenize(x)) == " ".join(words(x))`` when every character is in the alphabet and the text
        holds no written ``<unk>`` (an ``<unk>`` piece is taken for an unknown character inside a word).
        """
        pieces = [t for t in self._as_tokens(tokens_or_ids) if t != self.pad_token]
        text = "".join(f"{p}{END_OF_WORD}" if p in self.special_tokens and p != self.unk_token else p
                       for p in pieces)
        return " ".join(w for w in text.split(END_OF_WORD) if w)

    def save(self, path: str | os.PathLike) -> None:
        """Write the merges file atomically: a JSON header line (options, reserved tokens, alphabet), then
        one merge a line, ``left right``."""
        header = {"lowercase": self.lowercase, "strip_accents": self.strip_accents, "form": self.form,
                  "reserved_tokens": self.reserved_tokens, "alphabet": "".join(self.alphabet)}
        body = "".join(f"{a} {b}\n" for a, b in self.merges)
        atomic_write(path, f"{_HEADER} {json.dumps(header, ensure_ascii=False)}\n{body}")

    @classmethod
    def load(cls, path: str | os.PathLike) -> "BPETokenizer":
        """Read a file written by ``save``.

        Raises:
            FileNotFoundError: no such file.
            ValueError: not a word2bert BPE file, or a line that is not two symbols (the message names it).
        """
        try:
            with open(path, encoding="utf-8") as f:
                first, *lines = f.read().rstrip("\n").split("\n")
        except UnicodeDecodeError as e:
            raise ValueError(f"{path} is not a UTF-8 BPE file ({e.reason} at byte {e.start})") from None
        if not first.startswith(_HEADER + " "):
            raise ValueError(f"{path} is not a word2bert BPE merges file (bad header)")
        try:
            header = json.loads(first[len(_HEADER) + 1:])
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}, line 1: bad header ({e.msg})") from None
        keys = {"lowercase": bool, "strip_accents": (bool, type(None)), "form": (str, type(None)),
                "reserved_tokens": list, "alphabet": str}
        bad = [k for k, t in keys.items() if not isinstance(header, dict) or k not in header
               or not isinstance(header[k], t)]
        if bad:
            raise ValueError(f"{path}, line 1: the header lacks or mistypes {bad}")
        merges = []
        for n, line in enumerate(lines, start=2):
            parts = line.split(" ")
            if len(parts) != 2 or not all(parts):
                raise ValueError(f"{path}, line {n}: expected 'left right', got {line!r}")
            merges.append(tuple(parts))
        try:
            return cls(merges, header["alphabet"], header["reserved_tokens"], header["lowercase"],
                       header["strip_accents"], header["form"])
        except ValueError as e:  # name the line: merge i is on line i + 2
            message = re.sub(r"merge (\d+)", lambda m: f"line {int(m.group(1)) + 2}", str(e))
            raise ValueError(f"{path}: {message}") from None

    def __repr__(self) -> str:
        return f"BPETokenizer(vocabulary_size={self.vocabulary_size}, merges={len(self.merges)}, lowercase={self.lowercase})"


def train_bpe(texts, vocabulary_size: int, lowercase: bool = True, strip_accents: bool | None = False, form: str = "NFC",
              reserved_tokens=(PAD, UNK, BOS, EOS), min_count: int = 2) -> BPETokenizer:
    """Learn byte-pair encoding from texts until the vocabulary holds ``vocabulary_size`` tokens, or until no pair
    occurs ``min_count`` times (then the vocabulary is smaller: check ``vocabulary_size`` of the result).

    Words come from ``pretokenize`` (the same cut as WordPiece's, so the two compare on equal words);
    the vocabulary counts the reserved tokens, the alphabet, ``</w>`` and one symbol per merge.

    Raises:
        ValueError: ``vocabulary_size`` smaller than reserved tokens + alphabet + 1, no words in ``texts``.
    """
    counts = word_counts(texts, lowercase, strip_accents, form, [t for t in reserved_tokens if t != PAD])
    counts = {w: c for w, c in counts.items() if w not in reserved_tokens}  # written specials are not spelled
    alphabet = sorted({c for w in counts for c in w})
    base = len(reserved_tokens) + len(alphabet) + 1
    if vocabulary_size < base:
        raise ValueError(f"vocabulary_size {vocabulary_size} is smaller than the {base} base symbols "
                         f"({len(reserved_tokens)} reserved, {len(alphabet)} characters, {END_OF_WORD})")
    merges = learn_bpe(counts, vocabulary_size - base, min_count)
    return BPETokenizer(merges, alphabet, reserved_tokens, lowercase, strip_accents, form)
