"""word2vec's data side: subsampling, training pairs, the unigram^0.75 sampler, Huffman codes.

Everything here is numpy, vectorised over the whole token stream (no Python loop per
token), and feeds the Keras models of ``word2bert.word2vec``.

- ``subsample_keep_prob`` -- Mikolov et al. (2013b), "Distributed Representations of Words
  and Phrases and their Compositionality", section 2.3 (and word2vec.c's variant).
- ``encode_sentences`` / ``skipgram_pairs`` / ``cbow_examples`` -- the (centre, context)
  examples of Mikolov et al. (2013a), "Efficient Estimation of Word Representations in
  Vector Space", section 3, with word2vec.c's *dynamic window*: for each centre word a
  reduced window ``b`` is drawn uniformly from ``1..window_size``, so a context word at
  distance ``d`` is used with probability ``(window_size - d + 1) / window_size``.
  Windows never cross sentence boundaries (as in gensim).
- ``unigram_probs`` / ``sample_negatives`` -- the noise distribution ``P(w) ~ count^0.75``
  of 2013b, section 2.2, drawn with Walker's alias method (``alias_table``).
- ``build_huffman_tree`` -- the binary Huffman tree of hierarchical softmax (2013a,
  section 3; Morin & Bengio 2005).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

SUBSAMPLE_FORMULAS = ("word2vec.c", "paper")


def _counts_array(counts) -> np.ndarray:
    """Word counts as float64; ValueError unless every count is finite and >= 0."""
    counts = np.asarray(counts, dtype=np.float64)
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise ValueError("counts must be finite and >= 0")
    return counts


def subsample_keep_prob(counts, sample: float = 1e-3, total: float | None = None,
                        formula: str = "word2vec.c") -> np.ndarray:
    """Probability of keeping each occurrence of a word when subsampling frequent words.

    With ``f = count / total`` (the word's share of all tokens) and threshold ``t = sample``:

    - ``"word2vec.c"`` (default, also gensim's): keep with ``(sqrt(f / t) + 1) * t / f``;
    - ``"paper"`` (2013b, eq. 5 discards with ``1 - sqrt(t / f)``): keep with ``sqrt(t / f)``.

    Both are clipped to ``[0, 1]``; words with count 0 get 1.0. ``sample=0`` disables
    subsampling (all ones).

    Args:
        counts: 1-D array-like of non-negative word counts (index = word id).
        sample: the threshold ``t`` (>= 0), e.g. 1e-3 (word2vec.c's default) or 1e-5.
        total: the number of tokens ``f`` is relative to; default ``sum(counts)``.
        formula: ``"word2vec.c"`` or ``"paper"``.

    Returns:
        float64 array of the shape of ``counts``, values in ``[0, 1]``.

    Raises:
        ValueError: negative or non-finite counts, negative or NaN sample, total <= 0,
            unknown formula.

    Example: total 1e6, count 5e4, t=1e-3 -> 0.1614 (word2vec.c) or 0.1414 (paper).
    """
    counts = _counts_array(counts)
    if formula not in SUBSAMPLE_FORMULAS:
        raise ValueError(f"formula must be one of {SUBSAMPLE_FORMULAS}, got {formula!r}")
    if not sample >= 0:
        raise ValueError(f"sample must be >= 0, got {sample}")
    total = counts.sum() if total is None else float(total)
    if total <= 0:
        raise ValueError(f"total must be > 0, got {total}")
    if sample == 0:
        return np.ones_like(counts)
    f = counts / total
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = (np.sqrt(f / sample) + 1) * sample / f if formula == "word2vec.c" else np.sqrt(sample / f)
    keep = np.where(counts > 0, keep, 1.0)
    return np.clip(keep, 0.0, 1.0)


def encode_sentences(sentences, vocab) -> tuple[np.ndarray, np.ndarray]:
    """Encode sentences to one id stream, dropping out-of-vocabulary words (gensim's rule).

    Args:
        sentences: list of token lists.
        vocab: ``word2bert.vocab.Vocabulary``; tokens absent from ``vocab.stoi`` are
            dropped (not mapped to ``<unk>``), so rare words do not occupy window slots.

    Returns:
        ``(ids, sentence_ids)``: two 1-D int32 arrays of equal length; ``sentence_ids[i]``
        is the index of the sentence token ``i`` came from.
    """
    stoi = vocab.stoi
    ids, sent = [], []
    for s, sentence in enumerate(sentences):
        row = [stoi[t] for t in sentence if t in stoi]
        ids.extend(row)
        sent.extend([s] * len(row))
    return np.asarray(ids, dtype=np.int32), np.asarray(sent, dtype=np.int32)


def _subsample(ids, sentence_ids, keep_prob, rng):
    if keep_prob is None:
        return ids, sentence_ids
    keep = rng.random(len(ids)) < np.asarray(keep_prob)[ids]
    return ids[keep], sentence_ids[keep]


def _check_window(window_size):
    if int(window_size) < 1:
        raise ValueError(f"window_size must be >= 1, got {window_size}")
    return int(window_size)


def _epoch_tokens(ids, sentence_ids, window_size, rng, keep_prob, dynamic_window):
    """One epoch's tokens after subsampling, with each token's window reach (dynamic or full)."""
    ids, sentence_ids = np.asarray(ids), np.asarray(sentence_ids)
    if ids.shape != sentence_ids.shape:
        raise ValueError(f"ids and sentence_ids differ in shape: {ids.shape} vs {sentence_ids.shape}")
    ids, sent = _subsample(ids, sentence_ids, keep_prob, rng)
    reach = rng.integers(1, window_size + 1, len(ids)) if dynamic_window else np.full(len(ids), window_size)
    return ids, sent, reach


def skipgram_pairs(ids, sentence_ids, window_size: int = 5, rng=None, keep_prob=None,
                   dynamic_window: bool = True, shuffle: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """All (centre, context) skip-gram pairs of one epoch, vectorised.

    Steps: subsample (each token kept with ``keep_prob[id]``), draw each centre's reduced
    window ``b`` uniformly in ``1..window_size`` (``b = window_size`` when
    ``dynamic_window=False``), then pair each centre with the words at distance
    ``1..b`` on both sides inside its sentence.

    Args:
        ids, sentence_ids: 1-D int arrays from ``encode_sentences``.
        window_size: maximum distance (>= 1).
        rng: ``numpy.random.Generator`` (default: a fresh unseeded one).
        keep_prob: per-id keep probability from ``subsample_keep_prob``; None keeps all.
        dynamic_window: sample the reduced window (word2vec.c) or use the full one.
        shuffle: shuffle the pairs (SGD wants no order).

    Returns:
        ``(centres, contexts)``: int32 arrays of shape ``(num_pairs,)``.

    Raises:
        ValueError: ``window_size`` < 1 or arrays of different lengths.
    """
    window_size = _check_window(window_size)
    rng = np.random.default_rng() if rng is None else rng
    ids, sent, reach = _epoch_tokens(ids, sentence_ids, window_size, rng, keep_prob, dynamic_window)
    n = len(ids)
    centres, contexts = [], []
    for d in range(1, window_size + 1):
        same = sent[:-d] == sent[d:] if d < n else np.zeros(0, dtype=bool)
        left = same & (reach[:-d] >= d)   # centre i, context i + d
        right = same & (reach[d:] >= d)   # centre i + d, context i
        centres += [ids[:-d][left], ids[d:][right]]
        contexts += [ids[d:][left], ids[:-d][right]]
    centres = np.concatenate(centres).astype(np.int32)
    contexts = np.concatenate(contexts).astype(np.int32)
    if shuffle:
        order = rng.permutation(len(centres))
        centres, contexts = centres[order], contexts[order]
    return centres, contexts


def cbow_examples(ids, sentence_ids, window_size: int = 5, rng=None, keep_prob=None,
                  dynamic_window: bool = True, shuffle: bool = True, pad_id: int = 0):
    """CBOW examples of one epoch: each centre word with its (padded) context words.

    Same subsampling and dynamic window as ``skipgram_pairs``; centres with no context
    word in their sentence are dropped.

    Args:
        as ``skipgram_pairs``; ``pad_id``: the id that fills empty context slots (the
        models treat id 0, ``<pad>``, as padding).

    Returns:
        ``(contexts, centres)``: int32 arrays of shapes ``(n, 2 * window_size)`` and ``(n,)``.

    Raises:
        ValueError: ``window_size`` < 1 or arrays of different lengths.
    """
    window_size = _check_window(window_size)
    rng = np.random.default_rng() if rng is None else rng
    ids, sent, reach = _epoch_tokens(ids, sentence_ids, window_size, rng, keep_prob, dynamic_window)
    n = len(ids)
    contexts = np.full((n, 2 * window_size), pad_id, dtype=np.int32)
    pos = np.arange(n)
    for slot, d in enumerate([-w for w in range(window_size, 0, -1)] + list(range(1, window_size + 1))):
        j = pos + d
        ok = (j >= 0) & (j < n) & (reach >= abs(d))
        ok[ok] &= sent[j[ok]] == sent[ok]
        contexts[ok, slot] = ids[j[ok]]
    has_context = (contexts != pad_id).any(axis=1)
    contexts, centres = contexts[has_context], ids[has_context].astype(np.int32)
    if shuffle:
        order = rng.permutation(len(centres))
        contexts, centres = contexts[order], centres[order]
    return contexts, centres


def unigram_probs(counts, power: float = 0.75) -> np.ndarray:
    """The negative-sampling noise distribution ``P(w) = count^power / sum(count^power)``.

    Args:
        counts: 1-D non-negative counts (index = id); words with count 0 get probability 0.
        power: 0.75 in word2vec (2013b, section 2.2).

    Returns:
        float64 array summing to 1.

    Raises:
        ValueError: negative, NaN or infinite counts, or all zero.

    Example: counts [100, 10, 1] -> [0.827, 0.147, 0.026].
    """
    counts = _counts_array(counts)
    if counts.sum() <= 0:
        raise ValueError("counts must be finite and >= 0 with a positive sum")
    weights = counts ** power
    return weights / weights.sum()


def alias_table(probs) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table of a discrete distribution, for O(1) draws (``sample_negatives``).

    Splits ``probs`` into ``V`` equal columns of height ``1 / V``: column ``i`` holds
    word ``i`` with probability ``accept[i]`` and word ``alias[i]`` otherwise (Vose's
    construction, exact up to float rounding).

    Args:
        probs: 1-D non-negative probabilities summing to 1 (``unigram_probs``).

    Returns:
        ``(accept, alias)``: float64 ``(V,)`` in [0, 1] and int32 ``(V,)``.

    Raises:
        ValueError: not 1-D, negative, NaN, or not summing to 1 (within 1e-6).

    Reference: Walker (1977); Vose (1991), "A linear algorithm for generating random
    numbers with a given distribution".
    """
    probs = np.asarray(probs, dtype=np.float64)
    if probs.ndim != 1 or len(probs) == 0 or not np.all(np.isfinite(probs)) or np.any(probs < 0) \
            or abs(probs.sum() - 1.0) > 1e-6:
        raise ValueError("probs must be a 1-D array of finite non-negative probabilities summing to 1")
    v = len(probs)
    scaled = probs * v
    accept, alias = np.ones(v), np.arange(v, dtype=np.int32)
    small = [i for i in range(v) if scaled[i] < 1.0]
    large = [i for i in range(v) if scaled[i] >= 1.0]
    while small and large:
        s_, l_ = small.pop(), large[-1]
        accept[s_], alias[s_] = scaled[s_], l_
        scaled[l_] -= 1.0 - scaled[s_]
        if scaled[l_] < 1.0:
            small.append(large.pop())
    return accept, alias  # leftovers (rounding) keep accept 1


def sample_negatives(probs, shape, rng=None, table=None) -> np.ndarray:
    """Draw word ids from ``probs``: int32 array of ``shape``, O(1) per draw.

    Uses an alias table (``alias_table``): pick a column uniformly, keep it with
    probability ``accept``, else take its alias -- 10x faster than inverse-CDF search
    for the ~10^7 negatives of a word2vec epoch.

    Args:
        probs: 1-D probabilities summing to 1 (``unigram_probs``).
        shape: output shape, e.g. ``(num_pairs, num_negatives)``.
        rng: ``numpy.random.Generator`` (default: a fresh unseeded one).
        table: ``alias_table(probs)`` computed once, to reuse across calls.

    Returns:
        int32 array of ``shape`` with values in ``[0, len(probs))``.

    Raises:
        ValueError: as ``alias_table`` (``probs`` is not checked when ``table`` is given).
    """
    rng = np.random.default_rng() if rng is None else rng
    accept, alias = alias_table(probs) if table is None else table
    column = rng.integers(0, len(accept), size=shape, dtype=np.int32)
    return np.where(rng.random(shape, dtype=np.float32) < accept[column], column, alias[column])


@dataclass
class HuffmanTree:
    """A binary Huffman tree over a vocabulary, as hierarchical softmax uses it.

    Attributes:
        codes: list (one per word id) of int8 arrays of 0/1 branch choices, root first.
        points: list (one per word id) of int32 arrays: the inner nodes on the path from
            the root, ``points[w][j]`` being the node whose branch ``codes[w][j]`` is taken.
            Inner nodes are numbered ``0 .. vocab_size - 2``; the root is ``vocab_size - 2``.
        path_nodes, path_codes: ``(vocab_size, max_depth)`` int32 arrays, zero-padded.
        path_mask: ``(vocab_size, max_depth)`` bool, True on real path steps.
    """

    codes: list
    points: list
    path_nodes: np.ndarray
    path_codes: np.ndarray
    path_mask: np.ndarray

    @property
    def code_lengths(self) -> np.ndarray:
        """int array: the depth of each word's leaf (its code length)."""
        return self.path_mask.sum(axis=1)


def build_huffman_tree(counts) -> HuffmanTree:
    """Build the Huffman tree of word counts: frequent words get short codes.

    Repeatedly merge the two least frequent nodes (ties: the node created first, leaves
    before inner nodes, then lower id) into a new inner node; the first of the two gets
    code 0, the second code 1. The result is an optimal prefix-free code: its expected
    length lies within 1 bit of the entropy of ``counts / sum(counts)``.

    Args:
        counts: 1-D array of non-negative counts, length >= 2 (words with count 0 get the
            longest codes but still a leaf, so every id has a probability).

    Returns:
        ``HuffmanTree``.

    Raises:
        ValueError: fewer than 2 words, or negative, NaN or infinite counts.

    Reference: Huffman (1952); Mikolov et al. (2013a), section 3.
    """
    counts = np.asarray(counts, dtype=np.float64)
    v = len(counts)
    if counts.ndim != 1 or v < 2:
        raise ValueError(f"counts must be 1-D with at least 2 words, got shape {counts.shape}")
    counts = _counts_array(counts)
    # heap items: (count, order, node); leaves are 0..v-1, inner nodes v..2v-2
    heap = [(c, i, i) for i, c in enumerate(counts)]
    heapq.heapify(heap)
    parent = np.zeros(2 * v - 1, dtype=np.int64)
    branch = np.zeros(2 * v - 1, dtype=np.int8)
    order = v
    for node in range(v, 2 * v - 1):
        c0, _, n0 = heapq.heappop(heap)
        c1, _, n1 = heapq.heappop(heap)
        parent[n0], branch[n0] = node, 0
        parent[n1], branch[n1] = node, 1
        heapq.heappush(heap, (c0 + c1, order, node))
        order += 1
    root = 2 * v - 2
    codes, points = [], []
    for w in range(v):
        code, path, node = [], [], w
        while node != root:
            code.append(branch[node])
            path.append(parent[node] - v)  # inner node index 0..v-2
            node = parent[node]
        codes.append(np.array(code[::-1], dtype=np.int8))
        points.append(np.array(path[::-1], dtype=np.int32))
    depth = max(len(c) for c in codes)
    path_nodes = np.zeros((v, depth), dtype=np.int32)
    path_codes = np.zeros((v, depth), dtype=np.int32)
    path_mask = np.zeros((v, depth), dtype=bool)
    for w in range(v):
        k = len(codes[w])
        path_nodes[w, :k], path_codes[w, :k], path_mask[w, :k] = points[w], codes[w], True
    return HuffmanTree(codes, points, path_nodes, path_codes, path_mask)
