"""Translation data for teacher forcing, for every translation model: sentence pairs as id arrays
(``teacher_forcing_arrays``, the one length policy) and batches of pairs of similar length (``LengthBatches``).

Shared by the GRU encoder-decoder (``word2bert.models.seq2seq.encode_pairs``: words, ``<s>``/``</s>`` from
``word2bert.tokenizers.specials``) and the Transformer (``word2bert.models.transformer.encode_translation_pairs``:
WordPiece, ``[CLS]``/``[SEP]``). Teacher forcing (Williams & Zipser 1989): the decoder reads the
reference ``<s> y_1 .. y_n`` and is trained to predict ``y_1 .. y_n </s>``.
"""
from __future__ import annotations

import keras
import numpy as np


def pad_rows(rows, width: int | None = None) -> np.ndarray:
    """Id sequences as one int32 array ``(N, width)``, right-padded with 0 (the padding id everywhere).

    Args:
        rows: a list of int sequences.
        width: the columns (None: the longest row, at least 1).

    Raises:
        ValueError: a row longer than ``width``.
    """
    longest = max((len(r) for r in rows), default=0)
    width = max(longest, 1) if width is None else int(width)
    if longest > width:
        raise ValueError(f"width {width} cannot hold a row of {longest} ids")
    out = np.zeros((len(rows), width), np.int32)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def teacher_forcing_arrays(sources, targets, bos_id: int, eos_id: int, max_source_len: int, max_target_len: int,
                           width: int | None = None):
    """Teacher-forcing arrays of id pairs, under the one length policy of the translation models.

    The policy: a pair is kept when its source has 1..``max_source_len`` ids and its target
    1..``max_target_len`` ids (``<s>``/``</s>`` not counted); any other pair is left out, never cut
    (a cut target no longer translates its source), and ``kept`` says which pairs remain. The decoder
    rows are one longer than the target: ``decoder_input = <s> y``, ``decoder_target = y </s>``.

    Args:
        sources, targets: lists of int id sequences (no start or end id), as long as each other.
        bos_id, eos_id: the decoder's start and end ids.
        max_source_len, max_target_len: the caps (>= 1).
        width: the columns of all three arrays (None: the longest kept source, and the longest kept target + 1).

    Returns:
        ``(source, decoder_input, decoder_target, kept)``: int32 ``(n, S)``, ``(n, T + 1)``, ``(n, T + 1)``
        (or ``(n, width)`` each) right-padded with 0, and the int indices ``(n,)`` of the kept pairs.

    Raises:
        ValueError: ``sources`` and ``targets`` of different lengths, a cap < 1, no pair within the caps, or a
            ``width`` too narrow for the caps.
    """
    if len(sources) != len(targets):
        raise ValueError(f"sources and targets must be as many, got {len(sources)} and {len(targets)}")
    if max_source_len < 1 or max_target_len < 1:
        raise ValueError(f"max_source_len and max_target_len must be >= 1, got {max_source_len}, {max_target_len}")
    if width is not None and width < max(max_source_len, max_target_len + 1):
        raise ValueError(f"width {width} cannot hold a source of {max_source_len} ids and a decoder row of "
                         f"{max_target_len} + 1")
    kept = [i for i, (s, t) in enumerate(zip(sources, targets))
            if 0 < len(s) <= max_source_len and 0 < len(t) <= max_target_len]
    if not kept:
        raise ValueError(f"no pair has a source of 1..{max_source_len} and a target of 1..{max_target_len} tokens")
    source = pad_rows([sources[i] for i in kept], width)
    dec_in = pad_rows([[bos_id, *targets[i]] for i in kept], width)
    dec_out = pad_rows([[*targets[i], eos_id] for i in kept], width)
    return source, dec_in, dec_out, np.asarray(kept)


class LengthBatches(keras.utils.PyDataset):
    """Teacher-forcing batches of pairs of similar length, each cut to its own longest pair.

    Padding every batch to the longest sentence of the corpus wastes most of the work when lengths
    vary (Bible verses: from a few tokens to the 30-token cap). Here the pairs are sorted by target length (ties broken at
    random), cut into batches, and each batch keeps only as many columns as its longest source and
    target need, rounded up to a multiple of ``round_to`` (so few distinct shapes are traced); only
    padding columns are dropped. The batches are drawn afresh and shuffled every epoch. A batch's loss
    is the same as with all its padding, since padding is ignored (``ignore_class=0``) and masked in the
    encoder; but batches hold different numbers of real tokens, so an epoch's token accuracy must be
    accumulated over tokens (``word2bert.metrics.MaskedAccuracy``), not averaged over batches.

    Args:
        source, decoder_input, decoder_target: int32 arrays (``teacher_forcing_arrays``, ``encode_pairs``,
            ``encode_translation_pairs``), 0 = padding.
        batch_size: pairs per batch; seed: the shuffling seed; round_to: column granularity.
        **kwargs: ``keras.utils.PyDataset`` arguments.

    Yields:
        ``((source, decoder_input), decoder_target)`` int32 numpy batches.

    Raises:
        ValueError: no rows, arrays of different lengths, ``batch_size`` or ``round_to`` < 1.
    """

    def __init__(self, source, decoder_input, decoder_target, batch_size: int, seed: int = 0, round_to: int = 8,
                 **kwargs):
        super().__init__(**kwargs)
        if not len(source) == len(decoder_input) == len(decoder_target):
            raise ValueError(f"source, decoder_input, decoder_target must have as many rows, got {len(source)}, "
                             f"{len(decoder_input)}, {len(decoder_target)}")
        if len(source) == 0:
            raise ValueError("LengthBatches needs at least one pair (is the split empty at this length cap?)")
        if batch_size < 1 or round_to < 1:
            raise ValueError(f"batch_size and round_to must be >= 1, got {batch_size}, {round_to}")
        self.arrays = (np.asarray(source, np.int32), np.asarray(decoder_input, np.int32),
                       np.asarray(decoder_target, np.int32))
        self.src_len = (self.arrays[0] > 0).sum(axis=1)
        self.tgt_len = (self.arrays[2] > 0).sum(axis=1)
        self.batch_size, self.round_to = int(batch_size), int(round_to)
        self.rng = np.random.default_rng(seed)
        self._make_batches()

    def _make_batches(self):
        order = np.lexsort((self.rng.random(len(self.tgt_len)), self.tgt_len))
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        batches = [batches[i] for i in self.rng.permutation(len(batches))]
        # Keras fixes the input signature from the first two batches: a width they share would be taken as fixed
        # and the other batches rejected, so the second batch is one whose widths both differ from the first's
        shapes = [self._shape(rows) for rows in batches]
        differing = [sum(a != b for a, b in zip(shapes[i], shapes[0])) for i in range(len(batches))]
        other = int(np.argmax(differing)) if batches else 0
        if len(batches) > 1 and differing[other] > 0:
            batches[1], batches[other] = batches[other], batches[1]
        self.batches = batches

    def _shape(self, rows):
        return (self._width(self.src_len[rows], self.arrays[0].shape[1]),
                self._width(self.tgt_len[rows], self.arrays[1].shape[1]))

    def __len__(self):
        return len(self.batches)

    def _width(self, lengths, limit):
        return int(min(limit, max(self.round_to, -(-int(lengths.max()) // self.round_to) * self.round_to)))

    def __getitem__(self, index):
        rows = self.batches[index]
        x, din, dout = (a[rows] for a in self.arrays)
        s, t = self._shape(rows)
        return (x[:, :s], din[:, :t]), dout[:, :t]

    def on_epoch_end(self):
        self._make_batches()


def length_batches_by_epoch(source, decoder_input, decoder_target, batch_size: int, seed: int = 0,
                            round_to: int = 8):
    """Each epoch's ``LengthBatches`` of a seed, as a function of the epoch, for ``word2bert.training.resumable.resumable_fit``.

    A plain ``fit`` on one ``LengthBatches`` redraws its batches in ``on_epoch_end``, whenever Keras calls it; a
    resumable run needs epoch ``e``'s batches without having run epochs ``0 .. e - 1``. Here epoch ``e`` gets a
    new ``LengthBatches`` of ``seed`` redrawn ``e`` times, the same batches whether the run was interrupted or not.
    (Redrawing ``e`` times costs O(e) sorts of the rows: cheap for tens of epochs.)

    Args:
        source, decoder_input, decoder_target, batch_size, seed, round_to: as ``LengthBatches``'s.

    Returns:
        a function ``epoch -> (LengthBatches, None)`` (the form ``resumable_fit`` takes as ``x``); ``epoch`` counts
        from 0.

    Raises:
        ValueError: as ``LengthBatches`` (checked here, before any epoch); from the function, ``epoch`` < 0.
    """
    LengthBatches(source, decoder_input, decoder_target, batch_size, seed=seed, round_to=round_to)   # checks now

    def epoch_batches(epoch: int):
        if epoch < 0:
            raise ValueError(f"epoch must be >= 0, got {epoch}")
        batches = LengthBatches(source, decoder_input, decoder_target, batch_size, seed=seed, round_to=round_to)
        for _ in range(epoch):
            batches.on_epoch_end()
        return batches, None

    return epoch_batches
