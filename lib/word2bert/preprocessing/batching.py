"""Batches of rows of similar length (``LengthBatches``, ``row_extents``, ``bucket_widths``), and translation data
for teacher forcing: sentence pairs as id arrays (``teacher_forcing_arrays``, the one length policy of every
translation model).

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


def row_extents(mask) -> np.ndarray:
    """Per row of an ``(n, L)`` array: the index of its last non-zero entry + 1 (1 for a row with none), the columns
    a batch must keep so that no real position is cut (a hole, a zero between non-zeros, does not shorten a row).

    Args:
        mask: ``(n, L)`` bool or int array (a padding mask, or ids with 0 = padding).

    Returns:
        int ``(n,)`` array, each in ``1 .. L``.

    Raises:
        ValueError: ``mask`` not two-dimensional.
    """
    mask = np.asarray(mask) != 0
    if mask.ndim != 2:
        raise ValueError(f"mask must be (n, L), got shape {mask.shape}")
    return np.where(mask.any(1), mask.shape[1] - np.argmax(mask[:, ::-1], axis=1), 1)


def bucket_widths(extents, lengths, full: int) -> np.ndarray:
    """The shortest of ``lengths`` (plus ``full``) that holds each row's extent: the width its batch is cut to.

    Args:
        extents: int ``(n,)`` row extents (``row_extents``), each <= ``full``.
        lengths: allowed widths, ascending and distinct; those >= ``full`` are dropped and ``full`` is added.
        full: the arrays' column count.

    Returns:
        int ``(n,)`` array of widths.

    Raises:
        ValueError: ``lengths`` not ascending and distinct.
    """
    allowed = [int(x) for x in lengths if x < full] + [int(full)]
    if allowed != sorted(set(allowed)):
        raise ValueError(f"lengths must be ascending and distinct, got {list(lengths)}")
    return np.asarray(allowed)[np.searchsorted(allowed, np.asarray(extents))]


def rounded_width(extent: int, round_to: int, limit: int) -> int:
    """``extent`` rounded up to a multiple of ``round_to`` (at least ``round_to``), at most ``limit``."""
    return int(min(limit, max(round_to, -(-int(extent) // round_to) * round_to)))


class LengthBatches(keras.utils.PyDataset):
    """Batches of rows of similar length, each cut to the columns its longest row needs: far less padding than one
    fixed width, for ``fit`` (``model.fit(LengthBatches(x, y, 32))``).

    Padding every batch to the longest row of a corpus wastes most of the work when lengths vary (Bible verses,
    sentences). Rows are grouped by length in one of two ways, and only padding columns are ever dropped:

    - ``lengths=None`` (sorted, for translation pairs): rows are sorted by the length of ``y`` (ties broken at
      random; by the first array of ``x`` when ``y`` has no position axis), cut into consecutive batches, and each
      array of the batch keeps as many columns as its own longest row needs (every array as many as the
      ``padding_mask`` needs when ``x`` is a dict that has one), rounded up to a multiple of ``round_to`` (so few
      distinct shapes are traced). One generator seeded with ``seed`` redraws the batches after every epoch.
    - ``lengths=(16, 32, ...)`` (bucketed, for BERT's inputs): each row goes to the shortest allowed length that
      holds it (its ``padding_mask`` when ``x`` is a dict that has one, else every array's non-zero entries), the
      rows of a length are shuffled and cut into batches, and every array of the batch is cut to that length. Epoch
      ``e`` draws its order from ``seed + e``.

    Either way, every row is in exactly one batch per epoch, the batch order is shuffled, and the first two batches
    of an epoch have different shapes where the rows allow it (Keras's TensorFlow adapter infers the input
    signature from the first two batches: a width they share would be taken as fixed). A batch's loss is the same
    as with all its padding when padding is masked and ignored by the loss, but batches hold different numbers of
    real tokens, so an epoch's token accuracy must be summed over tokens (``word2bert.metrics.MaskedAccuracy``).

    Args:
        x: an ``(n, L)`` array, a tuple of them, or a dict of them (``token_ids``, ``segment_ids``,
            ``padding_mask``); 0 = padding. Arrays may have different widths ``L``.
        y: ``(n,)`` labels (kept whole), an ``(n, L)`` array (cut like the inputs), or None.
        batch_size: rows per batch (>= 1).
        lengths: None (sorted) or the allowed widths, ascending (each is one traced shape).
        round_to: the column granularity of the sorted mode (>= 1).
        seed: the shuffling seed.
        **kwargs: ``keras.utils.PyDataset`` arguments.

    Yields:
        ``(x, y)`` batches of the same structure, NumPy arrays (``x`` alone when ``y`` is None).

    Raises:
        ValueError: no rows; arrays with different row counts; an array that is not ``(n, L)``; ``batch_size`` or
            ``round_to`` < 1; ``lengths`` not ascending.

    Source: bucketing by length as in Sutskever et al. (2014) and tensorflow's ``bucket_by_sequence_length``.
    """

    def __init__(self, x, y=None, batch_size: int = 32, lengths=None, round_to: int = 8, seed: int = 0, **kwargs):
        super().__init__(**kwargs)
        for name, value in (("batch_size", batch_size), ("round_to", round_to)):
            if value < 1:
                raise ValueError(f"LengthBatches needs {name} >= 1 (got {value})")
        self.x_structure = "dict" if isinstance(x, dict) else "tuple" if isinstance(x, (tuple, list)) else "array"
        names = list(x) if isinstance(x, dict) else list(range(len(x))) if self.x_structure == "tuple" else [0]
        values = list(x.values()) if isinstance(x, dict) else list(x) if self.x_structure == "tuple" else [x]
        self.x_keys = names
        self.x = [np.asarray(v) for v in values]
        self.y = None if y is None else np.asarray(y)
        arrays = self.x + ([] if self.y is None else [self.y])
        counts = {len(a) for a in arrays}
        if len(counts) != 1:
            raise ValueError(f"every array of x and y must have as many rows, got {[len(a) for a in arrays]}")
        n = counts.pop()
        if n == 0:
            raise ValueError("LengthBatches needs at least one row (is the split empty at this length cap?)")
        for key, a in zip(names, self.x):
            if a.ndim != 2:
                raise ValueError(f"x[{key!r}] must be (n, L), got shape {a.shape}")
        self.y_positional = self.y is not None and self.y.ndim >= 2
        self.batch_size, self.round_to, self.seed, self.epoch = int(batch_size), int(round_to), int(seed), 0
        self.lengths = None if lengths is None else tuple(int(v) for v in lengths)
        positional = self.x + ([self.y] if self.y_positional else [])
        if self.lengths is None:
            # each array is cut to its own rows' extents; arrays whose extents are the same on every row (a decoder's
            # input and target) are one group, so the second batch is one that differs in the most groups
            if self.x_structure == "dict" and "padding_mask" in x:
                # BERT's inputs: every array (segment ids of zeros included) is as long as its padding mask says
                self.extents = [row_extents(x["padding_mask"])] * len(positional)
            else:
                self.extents = [row_extents(a.reshape(len(a), a.shape[1], -1).any(-1)) for a in positional]
            self.group = []
            for e in self.extents:
                same = next((g for g, f in enumerate(self.extents[:len(self.group)]) if np.array_equal(e, f)), None)
                self.group.append(len(self.group) if same is None else self.group[same])
            self.sort_key = self.extents[-1] if self.y_positional else self.extents[0]
            self.rng = np.random.default_rng(seed)
        else:
            if self.x_structure == "dict" and "padding_mask" in x:
                needed = row_extents(x["padding_mask"])
            else:
                needed = np.max([row_extents(a.reshape(len(a), a.shape[1], -1).any(-1)) for a in positional], axis=0)
            full = min(a.shape[1] for a in positional)
            self.row_length = bucket_widths(needed, self.lengths, full)
        self._plan()

    def _plan(self):
        if self.lengths is None:
            order = np.lexsort((self.rng.random(len(self.sort_key)), self.sort_key))
            batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
            batches = [batches[i] for i in self.rng.permutation(len(batches))]
            planned = [(self._widths(rows), rows) for rows in batches]
        else:
            rng = np.random.default_rng(self.seed + self.epoch)
            planned = []
            for length in np.unique(self.row_length):
                rows = rng.permutation(np.flatnonzero(self.row_length == length))
                widths = (int(length),) * (len(self.x) + self.y_positional)
                planned += [(widths, rows[i:i + self.batch_size]) for i in range(0, len(rows), self.batch_size)]
            planned = [planned[i] for i in rng.permutation(len(planned))]
        # the second batch: the first of the batches that differ from the first batch in the most width groups
        groups = self.group if self.lengths is None else [0] * len(planned[0][0])
        first = dict(zip(groups, planned[0][0]))
        differing = [len({g for g, w in zip(groups, widths) if w != first[g]}) for widths, _ in planned]
        other = int(np.argmax(differing))
        if len(planned) > 1 and differing[other] > 0:
            planned[1], planned[other] = planned[other], planned[1]
        self.widths = [widths for widths, _ in planned]     # each batch's width, one per array of x (and of y)
        self.batches = [rows for _, rows in planned]         # each batch's row indices

    def _widths(self, rows):
        arrays = self.x + ([self.y] if self.y_positional else [])
        return tuple(rounded_width(e[rows].max(), self.round_to, a.shape[1]) for e, a in zip(self.extents, arrays))

    def __len__(self):
        return len(self.batches)

    def __getitem__(self, index):
        widths, rows = self.widths[index], self.batches[index]
        xs = [a[rows, :w] for a, w in zip(self.x, widths)]
        x = dict(zip(self.x_keys, xs)) if self.x_structure == "dict" else tuple(xs) if self.x_structure == "tuple" \
            else xs[0]
        if self.y is None:
            return x
        return x, (self.y[rows, :widths[-1]] if self.y_positional else self.y[rows])

    def on_epoch_end(self):
        self.epoch += 1
        self._plan()


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
    LengthBatches((source, decoder_input), decoder_target, batch_size, seed=seed, round_to=round_to)   # checks now

    def epoch_batches(epoch: int):
        if epoch < 0:
            raise ValueError(f"epoch must be >= 0, got {epoch}")
        batches = LengthBatches((source, decoder_input), decoder_target, batch_size, seed=seed, round_to=round_to)
        for _ in range(epoch):
            batches.on_epoch_end()
        return batches, None

    return epoch_batches
