"""Greedy search, beam search and sampling for any autoregressive model.

All three only see a *step function*::

    step_fn(state, last_tokens) -> (log_probs, new_state)

``last_tokens`` is an int32 array ``(batch,)`` (the previous output token of every row),
``log_probs`` a float array ``(batch, vocabulary_size)`` of log p(next token | prefix), and
``state`` any nest (dict / tuple / list) of arrays whose first axis is the batch. Beam
search reorders and repeats rows of the state, so every array in it must have that
leading batch axis (an RNN's hidden state, the encoder outputs and source mask, a
Transformer's prefix or key/value caches). NumPy arrays are reordered in NumPy and backend
tensors with ``keras.ops.take``, so a tensor stays a tensor on its device. The LSTM language
model, the seq2seq GRU and the Transformer use the same functions.

Length normalisation (beam search): hypotheses are ranked by
``log P(Y) / lp(Y)`` with GNMT's ``lp(Y) = ((5 + |Y|) / 6) ** alpha`` (Wu et al. 2016,
"Google's Neural Machine Translation System", section 7, eq. 14; without the coverage
penalty). ``alpha = 0`` ranks by the raw log-probability (which favours short outputs);
``alpha = 1`` roughly divides by the length. ``|Y|`` counts the end token.

``end_id=None`` means "no end token" in all three searches: every row decodes exactly ``max_length`` tokens
(beam search then ranks the hypotheses at the length cap).
"""
from __future__ import annotations

import numpy as np
from keras import ops


def _take(state, index):
    """Rows ``index`` (int ``(n,)``) of every array in the nest ``state`` (dicts, tuples and lists of arrays).

    A backend tensor is reordered with ``keras.ops.take`` (it stays a tensor, on its device); anything
    else (NumPy arrays) with ``numpy.take``.
    """
    if isinstance(state, dict):
        return {key: _take(value, index) for key, value in state.items()}
    if isinstance(state, (tuple, list)):
        return type(state)(_take(value, index) for value in state)
    if not isinstance(state, np.ndarray) and ops.is_tensor(state):
        return ops.take(state, ops.convert_to_tensor(np.asarray(index, np.int32)), axis=0)
    return np.take(np.asarray(state), index, axis=0)


def _check(batch_size: int, max_length: int):
    """ValueError naming ``batch_size`` or ``max_length`` when it is below 1."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if max_length < 1:
        raise ValueError(f"max_length must be >= 1, got {max_length}")


def _checked_log_probs(log_probs, rows: int, end_id: int | None) -> np.ndarray:
    """The step function's output as float64 ``(rows, V)``; a clear error when it is not (``end_id`` None: no
    end token to check)."""
    log_probs = np.asarray(log_probs, dtype=np.float64)
    if log_probs.ndim != 2 or log_probs.shape[0] != rows:
        raise ValueError(f"step_fn must return log_probs of shape ({rows}, vocabulary_size), got {log_probs.shape}")
    if end_id is not None and not 0 <= end_id < log_probs.shape[1]:
        raise ValueError(f"end_id {end_id} is outside the vocabulary of {log_probs.shape[1]} tokens")
    if np.isnan(log_probs).any():
        raise ValueError("step_fn returned NaN log-probabilities")
    return log_probs


def greedy_search(step_fn, state, batch_size: int, start_id: int, end_id: int | None,
                  max_length: int) -> list[list[int]]:
    """Decode by taking the most probable token at every step.

    Args:
        step_fn: ``(state, last_tokens) -> (log_probs, new_state)``, see the module docstring.
        state: the initial state nest (first axis ``batch_size``).
        batch_size: number of sequences decoded in parallel.
        start_id: token fed at the first step.
        end_id: the stop token; a row stops when it emits it. None: no end token, every row decodes
            ``max_length`` tokens.
        max_length: length cap: at most this many tokens per row (the end token included).

    Returns:
        list of ``batch_size`` lists of int token ids, without the start and end tokens.

    Raises:
        ValueError: ``batch_size`` or ``max_length`` < 1; ``step_fn`` returning log-probs
            that are not ``(batch_size, V)`` or contain NaN; ``end_id`` outside ``V``.
    """
    _check(batch_size, max_length)
    tokens = np.full((batch_size,), start_id, dtype=np.int32)
    done = np.zeros((batch_size,), dtype=bool)
    outputs: list[list[int]] = [[] for _ in range(batch_size)]
    for _ in range(max_length):
        log_probs, state = step_fn(state, tokens)
        tokens = _checked_log_probs(log_probs, batch_size, end_id).argmax(axis=-1).astype(np.int32)
        if _record(tokens, done, outputs, end_id):
            break
    return outputs


def _record(tokens, done, outputs, end_id) -> bool:
    """Append each live row's token to its output, or finish the row at ``end_id``; True when all are done."""
    for row in np.flatnonzero(~done):
        if end_id is not None and tokens[row] == end_id:
            done[row] = True
        else:
            outputs[row].append(int(tokens[row]))
    return bool(done.all())


def sample_search(step_fn, state, batch_size: int, start_id: int, end_id: int | None, max_length: int,
                  temperature: float = 1.0, seed: int = 0, top_k: int | None = None) -> list[list[int]]:
    """Decode by drawing every token from the model's distribution, sharpened by a temperature, cut to the top k.

    At each step a row draws token ``w`` with probability ``softmax(log_probs / temperature)[w]``
    (``temperature`` 1: the model's own distribution; below 1: greedier; 0: always the most probable token,
    which is ``greedy_search``). With ``top_k``, only the ``top_k`` most probable tokens of the row can be
    drawn (their probabilities renormalised; Fan et al. 2018, section 5.4); ties at the k-th place go to
    the lower token id, so exactly ``top_k`` tokens stay.

    Args:
        step_fn, state, batch_size, start_id: as ``greedy_search``.
        end_id: the stop token (a row stops when it draws it), or None to always draw
            ``max_length`` tokens.
        max_length: at most this many draws per row (the end token included).
        temperature: a finite number >= 0 (0: greedy).
        seed: seed of a ``numpy.random.Generator``; the same seed gives the same samples.
        top_k: None (the whole vocabulary) or an int between 1 and the vocabulary size (1: greedy).

    Returns:
        list of ``batch_size`` lists of int token ids, without the start and end tokens.

    Raises:
        ValueError: as ``greedy_search``; ``temperature`` < 0, infinite or NaN; a positive ``temperature`` so small
            (e.g. the denormal 1e-320) that ``log_probs / temperature`` overflows float64 (use 0 for greedy);
            ``top_k`` < 1 or above the vocabulary size.
    """
    _check(batch_size, max_length)
    if not 0 <= temperature < np.inf:
        raise ValueError(f"temperature must be a finite number >= 0 (0: greedy), got {temperature}")
    if top_k is not None and (int(top_k) != top_k or top_k < 1):
        raise ValueError(f"top_k must be None or an integer >= 1, got {top_k}")
    rng = np.random.default_rng(seed)
    tokens = np.full((batch_size,), start_id, dtype=np.int32)
    done = np.zeros((batch_size,), dtype=bool)
    outputs: list[list[int]] = [[] for _ in range(batch_size)]
    for _ in range(max_length):
        log_probs, state = step_fn(state, tokens)
        z = _checked_log_probs(log_probs, batch_size, end_id)
        if top_k is not None and top_k > z.shape[1]:
            raise ValueError(f"top_k={top_k} is larger than the vocabulary of {z.shape[1]} tokens")
        if temperature == 0 or top_k == 1:
            tokens = z.argmax(axis=-1).astype(np.int32)
        else:
            if top_k is not None:
                keep = np.zeros(z.shape, bool)
                np.put_along_axis(keep, _top_k(z, int(top_k)), True, axis=1)
                z = np.where(keep, z, -np.inf)
            with np.errstate(over="ignore"):
                scaled = z / temperature
            if np.isinf(scaled[np.isfinite(z)]).any():
                raise ValueError(f"temperature {temperature} is so small that log_probs / temperature overflows "
                                 f"float64; use temperature=0 for greedy decoding")
            z = scaled
            p = np.exp(z - z.max(axis=-1, keepdims=True))
            for row in np.flatnonzero(~done):
                tokens[row] = rng.choice(p.shape[1], p=p[row] / p[row].sum())
        if _record(tokens, done, outputs, end_id):
            break
    return outputs


def _top_k(scores, k: int):
    """Indices of the k largest scores of each row, best first (ties: lower index first)."""
    if k == 1:
        return scores.argmax(axis=1)[:, None]
    # np.argpartition alone keeps any k of the scores tied at the k-th place: keep every score above the k-th
    # largest, then the ties at it in index order until k are kept
    kth = -np.partition(-scores, k - 1, axis=1)[:, k - 1:k]
    above = scores > kth
    ties = (scores == kth) & (np.cumsum(scores == kth, axis=1) <= k - above.sum(axis=1, keepdims=True))
    cand = np.nonzero(above | ties)[1].reshape(len(scores), k)   # index order, so the stable sort below breaks ties by index
    order = np.argsort(-np.take_along_axis(scores, cand, axis=1), axis=1, kind="stable")
    return np.take_along_axis(cand, order, axis=1)


def length_penalty(length, alpha: float):
    """GNMT's length penalty ``((5 + length) / 6) ** alpha`` (Wu et al. 2016, eq. 14).

    Args: ``length`` int or array of lengths (>= 0); ``alpha`` >= 0. Returns float64 of
    ``length``'s shape. Raises ValueError for ``alpha`` < 0 or a negative length.
    """
    if not alpha >= 0 or np.any(np.asarray(length) < 0):
        raise ValueError(f"need alpha >= 0 and lengths >= 0, got alpha={alpha}")
    return ((5.0 + np.asarray(length, dtype=np.float64)) / 6.0) ** alpha


def beam_search(
    step_fn,
    state,
    batch_size: int,
    start_id: int,
    end_id: int | None,
    max_length: int,
    beam_width: int = 4,
    alpha: float = 0.6,
    return_scores: bool = False,
):
    """Beam search with GNMT length normalisation.

    Each row keeps ``beam_width`` hypotheses. At every step each live hypothesis is
    extended by every token; the ``beam_width`` best extensions by normalised score
    ``log P / lp`` (see ``length_penalty``) survive. A hypothesis that emits ``end_id`` is
    finished: it is recorded as a candidate and keeps its slot with its score frozen while
    it stays among the best. Decoding stops when every slot of every row is finished or
    after ``max_length`` steps; the answer is the best candidate by normalised score among
    the finished ones and the unfinished ones at the length cap. With ``beam_width=1``
    this is exactly greedy search.

    Args:
        step_fn, state, batch_size, start_id, end_id, max_length: as ``greedy_search`` (``end_id`` None: no
            hypothesis finishes; the best one at ``max_length`` tokens is returned).
        beam_width: k, hypotheses kept per row (>= 1).
        alpha: length-normalisation exponent (>= 0); 0 ranks by log-probability.
        return_scores: also return the best normalised scores.

    Returns:
        list of ``batch_size`` lists of int token ids (no start/end tokens); with
        ``return_scores``, ``(sequences, scores)`` where ``scores`` is a float64 array
        ``(batch_size,)``.

    Raises:
        ValueError: ``beam_width`` < 1, ``alpha`` < 0 or NaN, ``batch_size`` or ``max_length``
            < 1; ``step_fn`` returning log-probs that are not ``(batch_size * beam_width, V)``
            or contain NaN; ``end_id`` outside ``V``.

    Reference: Sutskever, Vinyals & Le (2014), section 3.2; Wu et al. (2016), section 7.
    """
    _check(batch_size, max_length)
    if beam_width < 1:
        raise ValueError(f"beam_width must be >= 1, got {beam_width}")
    if not alpha >= 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    k = beam_width
    # slot (row, j) lives at index row * k + j; only slot 0 is live at the start
    state = _take(state, np.repeat(np.arange(batch_size), k))
    tokens = np.full((batch_size * k,), start_id, dtype=np.int32)
    logp = np.zeros((batch_size, k))
    logp[:, 1:] = -np.inf
    lengths = np.zeros((batch_size, k), dtype=np.int64)
    finished = np.zeros((batch_size, k), dtype=bool)
    history = np.zeros((batch_size, k, 0), dtype=np.int32)
    best_score = np.full((batch_size,), -np.inf)
    best_seq: list[list[int]] = [[] for _ in range(batch_size)]
    for _ in range(max_length):
        log_probs, state = step_fn(state, tokens)
        log_probs = _checked_log_probs(log_probs, batch_size * k, end_id).reshape(batch_size, k, -1)
        vocab = log_probs.shape[-1]
        # finished slots have exactly one continuation (end again) at no cost
        frozen = np.full((vocab,), -np.inf)
        if end_id is not None:
            frozen[end_id] = 0.0
        log_probs = np.where(finished[:, :, None], frozen, log_probs)
        total = logp[:, :, None] + log_probs  # (b, k, V)
        new_len = np.where(finished, lengths, lengths + 1)
        normed = total / length_penalty(new_len, alpha)[:, :, None]
        top = _top_k(normed.reshape(batch_size, -1), k)  # (b, k) flat indices, best first
        parent, token = top // vocab, (top % vocab).astype(np.int32)
        rows = np.arange(batch_size)[:, None]
        was_finished = finished[rows, parent]
        logp = total.reshape(batch_size, -1)[rows, top]
        lengths = new_len[rows, parent]
        finished = was_finished | (token == end_id)   # all False when end_id is None
        history = np.concatenate([history[rows, parent], token[:, :, None]], axis=2)
        newly = finished & ~was_finished & np.isfinite(logp)
        for b, j in zip(*np.nonzero(newly)):
            score = logp[b, j] / length_penalty(lengths[b, j], alpha)
            if score > best_score[b]:
                best_score[b] = score
                best_seq[b] = [int(t) for t in history[b, j, : lengths[b, j] - 1]]
        state = _take(state, (rows * k + parent).reshape(-1))
        tokens = token.reshape(-1)
        if finished.all():
            break
    # unfinished hypotheses at the length cap are candidates too
    for b in range(batch_size):
        for j in range(k):
            if not finished[b, j] and np.isfinite(logp[b, j]):
                score = logp[b, j] / length_penalty(lengths[b, j], alpha)
                if score > best_score[b]:
                    best_score[b] = score
                    best_seq[b] = [int(t) for t in history[b, j, : lengths[b, j]]]
    return (best_seq, best_score) if return_scores else best_seq
