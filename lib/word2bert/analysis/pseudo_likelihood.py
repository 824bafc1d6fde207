"""Scoring whole sentences with a masked language model: the pseudo-log-likelihood.

A masked LM gives no probability to a sentence, only to a hidden piece given the rest. Salazar et al. (2020)
score a sentence by hiding each of its pieces in turn and adding the log-probabilities the model gives the true
piece: ``PLL(s) = sum_i log P(piece_i | s without piece_i)``. Of two sentences that differ only where one is
ungrammatical, a model that has learned the grammar gives the grammatical one the higher PLL; that is how chapter 11
tests grammar with minimal pairs and no labels.

Reference: Salazar, Liang, Nguyen & Kirchhoff (2020), "Masked Language Model Scoring", ACL, section 2.
"""
from __future__ import annotations

import numpy as np
from keras import ops


def pseudo_log_likelihood(pretrainer, tokenizer, sentences, sequence_length: int = 128, batch_size: int = 64) -> np.ndarray:
    """The pseudo-log-likelihood of each sentence under a ``BertPretrainer``'s masked LM (natural log).

    Each sentence is read as ``[CLS] pieces [SEP]`` (one segment); for each of its pieces, a copy of the row with
    that piece replaced by ``[MASK]`` goes through the model, and the log-softmax of the masked LM's logits at that
    position is read at the true piece. ``[CLS]`` and ``[SEP]`` are never masked or scored. The copies of all the
    sentences are batched together, ``batch_size`` rows at a time, each batch padded to its longest row.

    Args:
        pretrainer: a ``BertPretrainer`` (chapter 09's, from ``load_pretrained``).
        tokenizer: its ``WordPieceTokenizer`` (holding ``[CLS]``, ``[SEP]`` and ``[MASK]``).
        sentences: a non-empty list of strings, each with at least one piece.
        sequence_length: the most pieces a row holds, ``[CLS]`` and ``[SEP]`` included; longer sentences raise.
        batch_size: rows per forward pass (>= 1).

    Returns:
        float64 array ``(len(sentences),)``: each sentence's PLL (<= 0; higher is more probable).

    Raises:
        ValueError: ``sentences`` not a non-empty list of strings; a sentence with no piece or longer than
            ``sequence_length - 2`` pieces (the message names it); ``batch_size`` < 1; a tokenizer without ``[MASK]``.

    Reference: Salazar et al. (2020), "Masked Language Model Scoring", equation 2.
    """
    if isinstance(sentences, str) or not isinstance(sentences, (list, tuple)) or not sentences \
            or not all(isinstance(s, str) for s in sentences):
        raise ValueError(f"sentences must be a non-empty list of strings, got {sentences!r:.80}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    vocabulary = set(tokenizer.vocabulary)
    lacking = [t for t in ("[CLS]", "[SEP]", "[MASK]") if t not in vocabulary]
    if lacking:
        raise ValueError(f"the tokenizer lacks {lacking}: use the vocabulary the model was pretrained with")
    specials = {t: tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]", "[MASK]")}
    rows, owners, positions, targets = [], [], [], []
    for k, sentence in enumerate(sentences):
        pieces = tokenizer.encode(sentence)
        if not pieces or len(pieces) > sequence_length - 2:
            raise ValueError(f"sentence {k} has {len(pieces)} pieces; it needs 1 to sequence_length - 2 = {sequence_length - 2}: "
                             f"{sentence!r:.80}")
        ids = [specials["[CLS]"], *pieces, specials["[SEP]"]]
        for i in range(1, len(ids) - 1):
            masked = list(ids)
            masked[i] = specials["[MASK]"]
            rows.append(masked)
            owners.append(k)
            positions.append(i)
            targets.append(ids[i])
    scores = np.zeros(len(rows))
    for start in range(0, len(rows), batch_size):
        chunk = rows[start:start + batch_size]
        width = max(len(r) for r in chunk)
        token_ids = np.zeros((len(chunk), width), np.int32)
        for r, row in enumerate(chunk):
            token_ids[r, :len(row)] = row
        where = np.asarray(positions[start:start + batch_size], np.int32)[:, None]
        logits = pretrainer({"token_ids": token_ids, "segment_ids": np.zeros_like(token_ids),
                             "padding_mask": token_ids != 0, "mask_positions": where}, training=False)["mlm"]
        log_probs = ops.convert_to_numpy(ops.log_softmax(ops.cast(logits[:, 0, :], "float32"), axis=-1))
        scores[start:start + len(chunk)] = log_probs[np.arange(len(chunk)), targets[start:start + batch_size]]
    return np.bincount(np.asarray(owners), weights=scores, minlength=len(sentences))
