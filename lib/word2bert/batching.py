"""Batches of sentence pairs of similar length, for teacher-forced training of any translation model.

Shared by the GRU encoder-decoder (``word2bert.seq2seq``) and the Transformer (``word2bert.transformer``).
"""
from __future__ import annotations

import keras
import numpy as np


class LengthBatches(keras.utils.PyDataset):
    """Teacher-forcing batches of pairs of similar length, each cut to its own longest pair.

    Padding every batch to the longest sentence of the corpus wastes most of the work when lengths
    vary (Bible verses: from a few tokens to the 30-token cap). Here the pairs are sorted by target length (ties broken at
    random), cut into batches, and each batch keeps only as many columns as its longest source and
    target need, rounded up to a multiple of ``round_to`` (so few distinct shapes are traced). The
    order of the batches is shuffled every epoch; the loss is the same as on the padded arrays,
    since padding is ignored (``ignore_class=0``) and masked in the encoder.

    Args:
        source, decoder_input, decoder_target: int32 arrays from ``encode_pairs``.
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
