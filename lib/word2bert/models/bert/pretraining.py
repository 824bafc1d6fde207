"""BERT's pretraining data: sentence pairs for next-sentence prediction, and the masked-LM corruption
(Devlin et al. 2019, section 3.1 and appendix A.1).

Masked LM: in each sequence 15% of the tokens that are not special (``[CLS]``, ``[SEP]``, ``[PAD]``,
...) are chosen as prediction targets, at least one; of the chosen, 80% are replaced by ``[MASK]``,
10% by a random non-special token and 10% are left as they are, so that the model cannot tell which
tokens it is asked about and must keep a representation of every token. The choice is made again
every epoch from a seed (``PretrainingBatches``), not once up front (the paper's code duplicates the
data 10 times with different masks for the same reason). With whole-word masking (BERT's 2019
release) the pieces of one word (``play ##ing``) are chosen together.

Next-sentence prediction: half of the pairs are a sentence and the one that follows it in its
document (IsNext), half a sentence and a random sentence of another document (NotNext). When the
documents come from several sources (Wikipedia articles and Bible chapters), a NotNext partner drawn
from any other document is often of the other source, and "same source, so IsNext" is a shortcut;
``negatives="same_source"`` draws it from another document of the same source, so that only the
content can tell the two labels apart.

The paper's "sentences" are spans of text, not linguistic sentences: each segment is filled with
consecutive sentences up to the sequence length. ``pack_documents`` makes such spans.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import keras
import numpy as np

from word2bert.models.bert.next_sentence_head import IS_NEXT, NOT_NEXT


def _as_rng(rng) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def mask_tokens(token_ids, rng, vocabulary_size: int, special_ids, mask_id: int, rate: float = 0.15,
                max_predictions: int | None = None, whole_word: bool = False, word_starts=None):
    """Choose prediction targets in each sequence and corrupt them 80/10/10.

    Args:
        token_ids: int ``(batch, L)`` (or ``(L,)``); 0 = padding. Padding and ``special_ids`` are never
            chosen, so masking a padded batch is masking before padding: the rate counts real tokens only.
        rng: a ``numpy.random.Generator`` or a seed.
        vocabulary_size: ids are ``0 .. vocabulary_size - 1``; random replacements are drawn uniformly from the
            ids that are not special.
        special_ids: ids never chosen and never drawn as replacements (``[PAD]`` = 0 and ``mask_id`` always are).
        mask_id: the ``[MASK]`` id.
        rate: share of the eligible tokens chosen per sequence: ``max(1, round(rate * eligible))``,
            at most ``max_predictions`` (BERT's ``create_masked_lm_predictions``).
        max_predictions: P, prediction slots per sequence (default ``ceil(rate * L)``).
        whole_word: choose whole words: a word is a token where ``word_starts`` is True and the
            tokens after it where it is False (``##`` pieces); words are taken in random order while the
            total fits the sequence's quota (when no word fits, the shortest word that fits in P).
        word_starts: bool like ``token_ids``, True where a word begins (required with ``whole_word``).

    Returns:
        ``(masked_ids, positions, labels, weights)``: int32 like ``token_ids``; int32 ``(batch, P)``
        positions of the chosen tokens in increasing order (0 on padded slots); int32 ``(batch, P)`` their
        original ids (0 on padded slots); float32 ``(batch, P)``, 1 on chosen slots and 0 on padded ones.
        1-D input gives 1-D ``masked_ids`` and ``(P,)`` arrays.

    Raises:
        ValueError: ``rate`` outside (0, 1]; ``max_predictions`` < 1; ``token_ids`` not integers, not of rank
            1 or 2 or with ids outside the vocabulary; ``mask_id`` or a ``special_ids`` entry outside the
            vocabulary; ``whole_word`` without
            ``word_starts`` of the same shape; no non-special id left to draw from.

    Example:
        >>> masked, positions, labels, weights = mask_tokens(ids, np.random.default_rng(0), vocabulary_size=8000,
        ...                                                  special_ids=[0, 1, 2, 3, 4], mask_id=4)

    Reference: Devlin et al. (2019), section 3.1 and appendix C.2 (the 80/10/10 ablation);
    google-research/bert ``create_pretraining_data.py``.
    """
    ids = np.asarray(token_ids)
    single = ids.ndim == 1
    ids = ids[None] if single else ids
    if ids.ndim != 2:
        raise ValueError(f"token_ids must have rank 1 or 2, got shape {np.shape(token_ids)}")
    if not 0 < rate <= 1:
        raise ValueError(f"rate must be in (0, 1], got {rate}")
    if ids.size and (ids.min() < 0 or ids.max() >= vocabulary_size):
        raise ValueError(f"token ids must be in 0 .. {vocabulary_size - 1}, got {ids.min()} .. {ids.max()}")
    max_predictions = math.ceil(rate * ids.shape[1]) if max_predictions is None else int(max_predictions)
    if max_predictions < 1:
        raise ValueError(f"max_predictions must be >= 1, got {max_predictions}")
    if "int" not in ids.dtype.name:
        raise ValueError(f"token_ids must be integers, got dtype {ids.dtype}")
    special_ids = np.asarray(list(special_ids), np.int64)
    if special_ids.size and (special_ids.min() < 0 or special_ids.max() >= vocabulary_size):
        raise ValueError(f"special_ids must be in 0 .. {vocabulary_size - 1}, got "
                         f"{special_ids.min()} .. {special_ids.max()}")
    special = np.zeros(vocabulary_size, bool)
    special[special_ids] = True
    if not 0 <= mask_id < vocabulary_size:
        raise ValueError(f"mask_id {mask_id} is outside the vocabulary (size {vocabulary_size})")
    special[[0, mask_id]] = True
    replacements = np.flatnonzero(~special)
    if not len(replacements):
        raise ValueError("every id is special: there is no token to draw a random replacement from")
    if whole_word:
        if word_starts is None or np.shape(word_starts) != np.shape(token_ids):
            raise ValueError(f"whole_word needs word_starts of the shape of token_ids {np.shape(token_ids)}, got "
                             f"{None if word_starts is None else np.shape(word_starts)}")
        word_starts = np.asarray(word_starts, bool).reshape(ids.shape)
    rng = _as_rng(rng)

    eligible = ~special[ids]
    quota = np.minimum(max_predictions, np.maximum(1, np.rint(rate * eligible.sum(1)).astype(np.int64)))
    quota[eligible.sum(1) == 0] = 0
    chosen = np.zeros(ids.shape, bool)
    if whole_word:
        for row in range(len(ids)):
            chosen[row] = _choose_words(eligible[row], word_starts[row], quota[row], max_predictions, rng)
    else:
        scores = np.where(eligible, rng.random(ids.shape), np.inf)
        order = np.argsort(scores, axis=1, kind="stable")
        rows = np.arange(len(ids))[:, None]
        take = np.arange(ids.shape[1])[None, :] < quota[:, None]
        chosen[np.broadcast_to(rows, order.shape)[take], order[take]] = True

    count = chosen.sum(1)
    slots = np.arange(max_predictions)[None, :] < count[:, None]
    positions = np.zeros((len(ids), max_predictions), np.int32)
    positions[slots] = np.nonzero(chosen)[1]          # row-major: positions in increasing order per row
    labels = np.where(slots, np.take_along_axis(ids, positions, 1), 0).astype(np.int32)
    weights = slots.astype(np.float32)

    masked = ids.astype(np.int32, copy=True)
    r, c = np.nonzero(chosen)
    action = rng.random(len(r))
    to_mask, to_random = action < 0.8, (action >= 0.8) & (action < 0.9)
    masked[r[to_mask], c[to_mask]] = mask_id
    masked[r[to_random], c[to_random]] = rng.choice(replacements, int(to_random.sum()))
    if single:
        return masked[0], positions[0], labels[0], weights[0]
    return masked, positions, labels, weights


def _choose_words(eligible, starts, quota, max_predictions, rng):
    """One row's chosen tokens with whole-word masking (BERT's ``do_whole_word_mask``)."""
    chosen = np.zeros(len(eligible), bool)
    words, current = [], None
    for t in np.flatnonzero(eligible):
        if current is not None and not starts[t] and current[-1] == t - 1:
            current.append(t)
        else:
            current = [t]
            words.append(current)
    total = 0
    for k in rng.permutation(len(words)):
        word = words[k]
        if total + len(word) > quota:
            continue
        chosen[word] = True
        total += len(word)
        if total >= quota:
            break
    if total == 0 and words:   # every word longer than the quota: at least one, the shortest that fits
        shortest = min(words, key=len)
        if len(shortest) <= max_predictions:
            chosen[shortest] = True
    return chosen


def pack_documents(documents, tokenizer, max_tokens: int):
    """Join each document's consecutive sentences into spans of at most ``max_tokens`` WordPiece tokens.

    BERT's segments are "an arbitrary span of contiguous text, rather than an actual linguistic
    sentence": a segment is filled with sentences while they fit, so that a pair wastes little of its
    length on padding. With ``max_tokens = (L - 3) // 2`` both spans of a pair fit ``[CLS] A [SEP] B [SEP]``
    of length L uncut.

    Args:
        documents: as ``NextSentencePairs`` (``Document``\\ s or lists of sentences, each a string).
        tokenizer: anything with ``encode(text) -> ids`` (a ``WordPieceTokenizer``); spans are counted
            with it.
        max_tokens: the most tokens of a span. A sentence longer than that on its own stays a span of its
            own (``encode_pair`` cuts it to the sequence).

    Returns:
        a list like ``documents``: a ``Document`` (any NamedTuple with ``sentences``) comes back with the
        same id and source and ``sentences`` replaced by its spans (a tuple of strings, each the span's
        sentences joined by one space, in order); a plain list comes back as a list of spans. Joining the
        spans with spaces gives the sentences joined with spaces: no text is lost or reordered.

    Raises:
        ValueError: ``max_tokens`` < 1.

    Example:
        >>> packed = pack_documents(pretraining_documents("train"), tokenizer, max_tokens=61)
        >>> PretrainingBatches(packed, tokenizer, sequence_length=125)

    Reference: Devlin et al. (2019), section 3 ("a 'sentence' can be an arbitrary span of contiguous
    text") and appendix A.2; google-research/bert ``create_instances_from_document``, which also fills
    each sequence up to its target length.
    """
    if int(max_tokens) < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    out = []
    for d in documents:
        spans, current, size = [], [], 0
        for sentence in getattr(d, "sentences", d):
            n = len(tokenizer.encode(sentence))
            if current and size + n > max_tokens:
                spans.append(" ".join(current))
                current, size = [], 0
            current.append(sentence)
            size += n
        if current:
            spans.append(" ".join(current))
        out.append(d._replace(sentences=tuple(spans)) if hasattr(d, "_replace") else spans)
    return out


class SentencePairSample(NamedTuple):
    """One next-sentence-prediction example: sentence A, sentence B, the label and both documents' indices."""

    a: object
    b: object
    label: int
    doc_a: int
    doc_b: int


class NextSentencePairs:
    """Sentence pairs for next-sentence prediction, 50% IsNext, 50% NotNext.

    Args:
        documents: documents with their sentences in order: ``word2bert.datasets.Document``\\ s (anything
            with a ``sentences`` attribute and an ``id``; a ``source`` attribute for
            ``negatives="same_source"``), or plain lists of sentences (the id is the index, the source None).
            A sentence is anything the tokenizer takes (a string).
        negatives: where a NotNext partner comes from: ``"any"`` (another document, the paper's rule) or
            ``"same_source"`` (another document of the same source).

    Every sentence that has a successor in its document opens one pair per draw: with probability
    1/2 B is that successor (label ``IS_NEXT`` = 0), otherwise B is a uniformly drawn sentence of a
    uniformly drawn *other* document (``NOT_NEXT`` = 1), of the same source with ``"same_source"``.

    Raises:
        ValueError: fewer than two documents with sentences (NotNext needs another document to draw
            from), or no document with two sentences (IsNext needs a successor); an unknown
            ``negatives``; with ``"same_source"``, a source that has a document with a successor but no
            other document with sentences.

    Example:
        >>> pairs = NextSentencePairs(pretraining_documents("train")).draw(np.random.default_rng(0))
        >>> pairs[0].a, pairs[0].b, pairs[0].label

    Reference: Devlin et al. (2019), section 3.1, task 2.
    """

    def __init__(self, documents, negatives: str = "any"):
        if negatives not in ("any", "same_source"):
            raise ValueError(f"negatives must be 'any' or 'same_source', got {negatives!r}")
        documents = list(documents)            # read once: a generator would be empty the second time
        docs = [list(getattr(d, "sentences", d)) for d in documents]
        self.ids = [getattr(d, "id", i) for i, d in enumerate(documents)]
        self.sources = [getattr(d, "source", None) for d in documents]
        self.negatives = negatives
        self.documents = docs
        nonempty = [i for i, d in enumerate(docs) if d]
        if len(nonempty) < 2:
            raise ValueError(f"next-sentence prediction needs at least 2 documents with sentences, got "
                             f"{len(nonempty)}: a NotNext partner must come from another document")
        self._nonempty = np.asarray(nonempty)
        self._openers = [(i, j) for i, d in enumerate(docs) for j in range(len(d) - 1)]
        if not self._openers:
            raise ValueError("no document has two sentences: IsNext needs a sentence and its successor")
        self._by_source = {}
        if negatives == "same_source":
            for i in nonempty:
                self._by_source.setdefault(self.sources[i], []).append(i)
            self._by_source = {k: np.asarray(v) for k, v in self._by_source.items()}
            lonely = sorted({str(self.sources[i]) for i, _ in self._openers if len(self._by_source[self.sources[i]]) < 2})
            if lonely:
                raise ValueError(f"negatives='same_source' needs at least 2 documents with sentences in every "
                                 f"source, and {lonely} has only one")

    def __len__(self) -> int:
        """Pairs per draw: the number of sentences that have a successor."""
        return len(self._openers)

    def _other_document(self, doc: int, rng) -> int:
        pool = self._by_source[self.sources[doc]] if self.negatives == "same_source" else self._nonempty
        others = pool[pool != doc]
        return int(others[rng.integers(len(others))])

    def draw(self, rng, shuffle: bool = True) -> list[SentencePairSample]:
        """One pair per sentence with a successor, labels drawn afresh; shuffled unless ``shuffle=False``."""
        rng = _as_rng(rng)
        out = []
        for doc, j in self._openers:
            a = self.documents[doc][j]
            if rng.random() < 0.5:
                out.append(SentencePairSample(a, self.documents[doc][j + 1], IS_NEXT, doc, doc))
            else:
                other = self._other_document(doc, rng)
                sentences = self.documents[other]
                out.append(SentencePairSample(a, sentences[rng.integers(len(sentences))], NOT_NEXT, doc, other))
        if shuffle:
            out = [out[k] for k in rng.permutation(len(out))]
        return out


class PretrainingBatches(keras.utils.PyDataset):
    """Batches for ``BertPretrainer.fit``: ``[CLS] A [SEP] B [SEP]`` pairs, masked again every epoch.

    Args:
        documents: as ``NextSentencePairs`` (``pack_documents`` first to fill each segment with a span).
        tokenizer: a ``word2bert.tokenizers.WordPieceTokenizer`` with ``[MASK]`` (pairs are encoded with its
            ``encode_pair(a, b, sequence_length)``; every bracketed token of its vocabulary is special).
        batch_size: pairs per batch (a global batch: with ``keras.distribution.DataParallel`` it is split
            across devices).
        sequence_length: L, tokens per pair, padding included.
        max_predictions: P, prediction slots per pair (default ``ceil(rate * sequence_length)``).
        seed: epoch e draws its pairs and masks from ``seed + e`` (epochs are counted by
            ``on_epoch_begin``, which ``fit`` calls: an epoch ends once all its batches were read); batch i
            of epoch e is the same whatever the order in
            which batches are asked for.
        rate, whole_word: as ``mask_tokens``.
        negatives: as ``NextSentencePairs`` (``"any"`` or ``"same_source"``).
        remask: draw new pairs and masks at every epoch; False keeps epoch 0's (use it for validation
            data, on which ``fit`` also begins an epoch each time, so that its curve compares like with like).
        pairs_per_epoch: use only this many of each epoch's pairs (default all; the last partial batch
            is dropped so that every batch has ``batch_size`` rows). Make an epoch as long as you want it with
            this, not with ``fit(steps_per_epoch=...)``: new masks come only once every batch has been read.
        **kwargs: ``workers``, ``use_multiprocessing``, ``max_queue_size`` of ``keras.utils.PyDataset``.

    Returns (``batches[i]``):
        ``(x, y, sample_weight)``: ``x = {"token_ids": int32 (B, L) masked, "segment_ids": int32 (B, L),
        "padding_mask": bool (B, L), "mask_positions": int32 (B, P)}``; ``y = {"mlm": int32 (B, P) original
        ids, "nsp": int32 (B,)}``; ``sample_weight = {"mlm": float32 (B, P), 1 on chosen slots, "nsp": float32
        (B,) ones}``. ``padding_mask`` is ``encode_pair``'s, by position: True on the pair's tokens (a ``[PAD]``
        written in a sentence included), False on the padding after them.

    Raises:
        ValueError: the tokenizer has no ``[MASK]``; fewer pairs than one batch; as ``NextSentencePairs``
            (``negatives`` included).

    Example:
        >>> train = PretrainingBatches(pretraining_documents("train"), tokenizer, batch_size=32, sequence_length=128)
        >>> model.fit(train, epochs=3)

    Reference: Devlin et al. (2019), section 3.1 and appendix A.2.
    """

    def __init__(self, documents, tokenizer, batch_size: int = 32, sequence_length: int = 128,
                 max_predictions: int | None = None, seed: int = 0, rate: float = 0.15, whole_word: bool = False,
                 remask: bool = True, pairs_per_epoch: int | None = None, negatives: str = "any", **kwargs):
        super().__init__(**kwargs)
        if getattr(tokenizer, "mask_token", None) is None:
            raise ValueError("the tokenizer has no [MASK] token (mask_token=None)")
        self.pairs = NextSentencePairs(documents, negatives=negatives)
        self.tokenizer, self.batch_size, self.sequence_length = tokenizer, int(batch_size), int(sequence_length)
        self.rate, self.whole_word, self.remask, self.seed = float(rate), bool(whole_word), bool(remask), int(seed)
        self.max_predictions = math.ceil(rate * sequence_length) if max_predictions is None else int(max_predictions)
        vocabulary = tokenizer.vocabulary
        self.vocabulary_size = len(vocabulary)
        self.special_ids = sorted({0, *(tokenizer.token_to_id(t) for t in tokenizer.special_tokens),
                                   *(tokenizer.token_to_id(t) for t in (tokenizer.unk_token, tokenizer.cls_token,
                                                                        tokenizer.sep_token, tokenizer.mask_token))})
        self.mask_id = tokenizer.token_to_id(tokenizer.mask_token)
        self._continues = np.array([t.startswith(tokenizer.suffix_indicator) for t in vocabulary], bool)
        self.pairs_per_epoch = len(self.pairs) if pairs_per_epoch is None else min(int(pairs_per_epoch),
                                                                                  len(self.pairs))
        if self.pairs_per_epoch < self.batch_size:
            raise ValueError(f"{self.pairs_per_epoch} pairs per epoch cannot fill one batch of {self.batch_size}")
        self.epoch, self._served = 0, set()
        self._draw()

    @property
    def _epoch_seed(self) -> int:
        return self.seed + (self.epoch if self.remask else 0)

    def _draw(self):
        self._epoch_pairs = self.pairs.draw(np.random.default_rng((self._epoch_seed, 0)))[:self.pairs_per_epoch]

    def __len__(self) -> int:
        return self.pairs_per_epoch // self.batch_size

    @property
    def epoch_pairs(self) -> list[SentencePairSample]:
        """The current epoch's pairs in batch order, ``len(self) * batch_size`` of them (the dropped remainder
        left out): ``batches[i]`` encodes ``epoch_pairs[i * batch_size:(i + 1) * batch_size]``."""
        return self._epoch_pairs[:len(self) * self.batch_size]

    def __getitem__(self, index: int):
        if not 0 <= index < len(self):
            raise IndexError(f"batch {index} of {len(self)}")
        self._served.add(index)
        pairs = self._epoch_pairs[index * self.batch_size:(index + 1) * self.batch_size]
        encoded = [self.tokenizer.encode_pair(p.a, p.b, self.sequence_length) for p in pairs]
        token_ids = np.stack([e["token_ids"] for e in encoded])
        segment_ids = np.stack([e["segment_ids"] for e in encoded])
        padding_mask = np.stack([e["padding_mask"] for e in encoded])
        masked, positions, labels, weights = mask_tokens(
            token_ids, np.random.default_rng((self._epoch_seed, 1, index)), self.vocabulary_size, self.special_ids,
            self.mask_id,
            rate=self.rate, max_predictions=self.max_predictions, whole_word=self.whole_word,
            word_starts=~self._continues[token_ids] if self.whole_word else None)
        nsp = np.array([p.label for p in pairs], np.int32)
        x = {"token_ids": masked, "segment_ids": segment_ids, "padding_mask": padding_mask, "mask_positions": positions}
        return x, {"mlm": labels, "nsp": nsp}, {"mlm": weights, "nsp": np.ones(len(pairs), np.float32)}

    def on_epoch_begin(self):
        """``fit`` calls this at the start of every epoch: once every batch of the current epoch has been
        served, the next epoch begins, with new pairs and masks from ``seed + epoch``.

        (An epoch ends when all its batches were read, not at every call: before the first epoch
        ``fit`` reads a batch or two to learn the shapes, and calls ``on_epoch_begin`` or ``on_epoch_end``
        around that read, differently on TensorFlow and on JAX. TensorFlow's read takes up to two batches,
        so an epoch needs at least three batches for that read not to count as one.)
        """
        if len(self._served) >= len(self):
            self.epoch += 1
            self._served = set()
            if self.remask:
                self._draw()

    def set_epoch(self, epoch: int) -> None:
        """Make ``epoch`` the current epoch, with none of its batches served yet."""
        self.epoch, self._served = int(epoch), set()
        self._draw()
