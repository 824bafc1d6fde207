"""word2vec's training examples: (centre, context) pairs and CBOW windows, vectorised in numpy.

The examples of Mikolov et al. (2013a), "Efficient Estimation of Word Representations in Vector
Space", section 3, with word2vec.c's *dynamic window*: for each centre word a reduced window ``b``
is drawn uniformly from ``1..window_size``, so a context word at distance ``d`` is used with
probability ``(window_size - d + 1) / window_size``. Windows never cross sentence boundaries (as
in gensim).
"""
from __future__ import annotations

import numpy as np

from word2bert.utils.checks import token_lists


def encode_sentences(sentences, vocab) -> tuple[np.ndarray, np.ndarray]:
    """Encode sentences to one id stream, dropping out-of-vocabulary words (gensim's rule).

    Args:
        sentences: list of token lists (split strings first, e.g. ``text.split()``).
        vocab: ``word2bert.tokenizers.Vocabulary``; tokens absent from ``vocab.stoi`` are
            dropped (not mapped to ``<unk>``), so rare words do not occupy window slots.

    Returns:
        ``(ids, sentence_ids)``: two 1-D int32 arrays of equal length; ``sentence_ids[i]``
        is the index of the sentence token ``i`` came from.

    Raises:
        TypeError: ``sentences`` or one of its sentences is a string (its characters would be
            looked up as words and the stream would silently come out empty).
    """
    sentences = token_lists(sentences)
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
        as ``skipgram_pairs``; ``pad_id``: the id that fills empty context slots; the model
        must use the same one (``CBOW(pad_id=...)``, default 0, ``<pad>``).

    Returns:
        ``(contexts, centres)``: int32 arrays of shapes ``(n, 2 * window_size)`` and ``(n,)``.

    Raises:
        ValueError: ``window_size`` < 1, arrays of different lengths, or ``pad_id`` occurring
            in ``ids`` (a real word would be taken for padding and dropped from every context).
    """
    window_size = _check_window(window_size)
    if np.any(np.asarray(ids) == pad_id):
        raise ValueError(f"pad_id {pad_id} occurs in ids: it is a real word here, and CBOW would drop it from every "
                         "context; encode with a vocabulary whose id 0 is '<pad>' (specials=('<pad>',)) or pass a "
                         "pad_id no word uses")
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
