"""Labelled data in the shapes BERT's task heads read (Devlin et al. 2019, section 4 and figure 4):

- ``encode_texts``: single texts or pairs, ``[CLS] a [SEP] (b [SEP])``, for ``BertClassifier``;
- ``align_first_pieces``: words with one label each; the **first** WordPiece of a word carries the
  word's label, the other pieces ``IGNORE_LABEL`` (section 5.3), for ``BertTokenTagger``;
- ``qa_windows``: a question and a context longer than the model reads, cut into overlapping windows
  ``[CLS] question [SEP] window [SEP]`` a **document stride** apart (google-research/bert's
  ``run_squad.py``), with each context piece's character span in the text, for ``BertQuestionAnswerer``;
- ``best_spans`` / ``decode_answers``: the best valid span of start and end logits (start <= end, at
  most ``max_answer_len`` pieces, inside the context), over all windows of a question, as text;

NumPy in, NumPy out: these run once, before ``fit``.
"""
from __future__ import annotations

from typing import NamedTuple

import keras
import numpy as np

from word2bert.datasets.squad import answer_spans
from word2bert.preprocessing.batching import bucket_widths, row_extents
from word2bert.tokenizers.words import word_spans

IGNORE_LABEL = -1            # a piece whose prediction counts nowhere (loss or accuracy)


def encode_texts(tokenizer, texts, pairs=None, sequence_length: int = 128) -> dict[str, np.ndarray]:
    """``tokenizer.encode_pair`` over a batch: ``[CLS] a [SEP]`` or ``[CLS] a [SEP] b [SEP]``, padded.

    Args:
        tokenizer: a ``WordPieceTokenizer``.
        texts: list of strings (the ``a`` side).
        pairs: None, or a list of strings of the same length (the ``b`` side).
        sequence_length: the length of every row (long pairs are truncated as ``encode_pair`` does).

    Returns:
        dict of ``token_ids`` int32, ``segment_ids`` int32, ``padding_mask`` bool, each ``(len(texts), sequence_length)``.

    Raises:
        ValueError: ``texts`` is a string or empty, ``pairs`` of another length; what ``encode_pair`` raises.
    """
    if isinstance(texts, str) or len(texts) == 0:
        raise ValueError(f"texts must be a non-empty list of strings, got {texts!r:.60}")
    if pairs is not None and (isinstance(pairs, str) or len(pairs) != len(texts)):
        raise ValueError(f"pairs must be a list as long as texts ({len(texts)}), got "
                         f"{'a string' if isinstance(pairs, str) else len(pairs)}")
    rows = [tokenizer.encode_pair(a, None if pairs is None else pairs[i], sequence_length=sequence_length)
            for i, a in enumerate(texts)]
    return {key: np.stack([row[key] for row in rows]) for key in ("token_ids", "segment_ids", "padding_mask")}


def _raw_word_pieces(tokenizer, word: str) -> list[str]:
    """The pieces of one raw word as the tokenizer splits it inside a text (normalised first, unlike
    ``SubwordTokenizer.word_pieces``, which takes a normalised word); ``[UNK]`` when nothing is left (a word
    that normalises away, such as a lone accent), so that every word has a first piece."""
    return tokenizer.tokenize(word) or [tokenizer.unk_token]


class AlignedTags(NamedTuple):
    """Tagged sentences as model inputs: ``inputs`` (dict of ``(n, sequence_length)`` arrays), ``labels`` int32
    ``(n, sequence_length)`` (the tag id on each word's first piece, ``IGNORE_LABEL`` elsewhere), ``word_index`` int32
    ``(n, sequence_length)`` (which word a labelled piece starts, -1 elsewhere) and ``words_cut``: the number of words
    that did not fit in ``sequence_length`` (they have no prediction; count them as errors)."""

    inputs: dict
    labels: np.ndarray
    word_index: np.ndarray
    words_cut: int


def align_first_pieces(tokenizer, sentences, tags, sequence_length: int = 128) -> AlignedTags:
    """Label the first WordPiece of every word with the word's tag, ignore the other pieces.

    Args:
        tokenizer: a ``WordPieceTokenizer``.
        sentences: list of word lists (``["The", "unaffable", "dog"]``).
        tags: list of int tag-id lists, one per word (``[3, 7, 1]``).
        sequence_length: row length; ``[CLS]`` and ``[SEP]`` take two positions, words past the end are cut.

    Returns:
        ``AlignedTags``. For "the unaffable dog" split ``[CLS] the un ##aff ##able dog [SEP]``: labels
        ``[-1, 3, 7, -1, -1, 1, -1]``, word_index ``[-1, 0, 1, -1, -1, 2, -1]``.

    Raises:
        ValueError: a sentence and its tags of different lengths (naming the sentence), a negative tag,
            a string where a word list belongs, ``sequence_length`` < 3.

    Reference: Devlin et al. (2019), section 5.3 ("the representation of the first sub-token").
    """
    if sequence_length < 3:
        raise ValueError(f"sequence_length must hold [CLS], one piece and [SEP]: >= 3, got {sequence_length}")
    if isinstance(sentences, str) or len(sentences) != len(tags):
        raise ValueError(f"sentences (word lists) and tags must be lists of the same length, got "
                         f"{'a string' if isinstance(sentences, str) else len(sentences)} and {len(tags)}")
    cls_id, sep_id = tokenizer.token_to_id(tokenizer.cls_token), tokenizer.token_to_id(tokenizer.sep_token)
    n = len(sentences)
    token_ids = np.zeros((n, sequence_length), np.int32)
    labels = np.full((n, sequence_length), IGNORE_LABEL, np.int32)
    word_index = np.full((n, sequence_length), -1, np.int32)
    lengths = np.zeros(n, np.int32)
    cut = 0
    for row, (words, word_tags) in enumerate(zip(sentences, tags)):
        if isinstance(words, str):
            raise ValueError(f"sentence {row} is a string; give a list of words")
        if len(words) != len(word_tags):
            raise ValueError(f"sentence {row} has {len(words)} words but {len(word_tags)} tags: {words[:8]}")
        ids, position = [cls_id], 1
        for w, (word, tag) in enumerate(zip(words, word_tags)):
            if isinstance(tag, bool) or not isinstance(tag, (int, np.integer)) or tag < 0:
                raise ValueError(f"sentence {row}, word {word!r}: tags must be int ids >= 0 (map tag names to ids "
                                 f"first), got {tag!r}")
            pieces = [tokenizer.token_to_id(p) for p in _raw_word_pieces(tokenizer, word)]
            if position + len(pieces) > sequence_length - 1:
                cut += len(words) - w
                break
            labels[row, position], word_index[row, position] = tag, w
            ids += pieces
            position += len(pieces)
        ids.append(sep_id)
        token_ids[row, :len(ids)] = ids
        lengths[row] = len(ids)
    padding_mask = np.arange(sequence_length)[None, :] < lengths[:, None]
    inputs = {"token_ids": token_ids, "segment_ids": np.zeros_like(token_ids), "padding_mask": padding_mask}
    return AlignedTags(inputs, labels, word_index, cut)


def word_hits(logits, aligned: AlignedTags) -> np.ndarray:
    """One entry per word of the tagged sentences: 1.0 where the word's first piece's arg-max is its tag, 0.0
    where it is not, and 0.0 for each of the ``words_cut`` that did not fit (appended at the end).

    Args:
        logits: float ``(n, sequence_length, num_tags)``, ``BertTokenTagger``'s output (or predicted tag ids, ints
            ``(n, sequence_length)``).
        aligned: the ``AlignedTags`` the logits were computed on.

    Returns:
        float64 ``(words,)`` with ``words`` = the labelled first pieces + ``aligned.words_cut``: the per-example
        scores for a bootstrap interval of word accuracy (chapters 10-12 score part of speech this way).

    Raises:
        ValueError: logits whose first two dimensions are not those of ``aligned.labels``.
    """
    logits = np.asarray(logits)
    predicted = logits.argmax(-1) if logits.ndim == 3 else logits
    if predicted.shape != aligned.labels.shape:
        raise ValueError(f"logits cover {predicted.shape} positions but the aligned labels {aligned.labels.shape}: "
                         "score the tagger's output on the same AlignedTags")
    scored = aligned.labels != IGNORE_LABEL
    hits = (predicted[scored] == aligned.labels[scored]).astype(np.float64)
    return np.concatenate([hits, np.zeros(int(aligned.words_cut))])


def word_accuracy(logits, aligned: AlignedTags) -> float:
    """Word-level tag accuracy: the first piece's arg-max against the word's tag, over every word; the
    ``words_cut`` that did not fit count as wrong (the mean of ``word_hits``).

    Args:
        logits: float ``(n, sequence_length, num_tags)``, ``BertTokenTagger``'s output (or a prediction array of ints
            ``(n, sequence_length)``).
        aligned: the ``AlignedTags`` the logits were computed on.

    Returns:
        float in [0, 1].

    Raises:
        ValueError: as ``word_hits``; no word at all (sentences without words: the accuracy 0/0 is undefined).
    """
    hits = word_hits(logits, aligned)
    if not hits.size:
        raise ValueError("word_accuracy over no words is 0/0, undefined: the aligned sentences hold no word "
                         "(give at least one sentence with a word)")
    return float(hits.mean())


def context_words(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the words of a text: runs of letters/digits, and each other
    non-space character alone (the split BERT's basic tokenizer makes before WordPiece)."""
    return word_spans(text)


class QAWindows(NamedTuple):
    """Questions with their contexts cut into windows. ``inputs``: dict of ``(n_windows, sequence_length)`` arrays;
    ``positions`` int32 ``(n_windows, 2)``: the answer's first and last piece in the window, ``(0, 0)`` (the
    ``[CLS]`` position) when the answer is not wholly inside it; ``example_index`` int32 ``(n_windows,)``: the
    question each window belongs to; ``char_spans`` int32 ``(n_windows, sequence_length, 2)``: the characters of the
    context that a context piece covers (its whole word), ``-1`` on the question and special tokens;
    ``answer_inside`` bool ``(n_windows,)``."""

    inputs: dict
    positions: np.ndarray
    example_index: np.ndarray
    char_spans: np.ndarray
    answer_inside: np.ndarray


def qa_windows(tokenizer, examples, sequence_length: int = 128, doc_stride: int = 64, max_query_len: int = 32) -> QAWindows:
    """``[CLS] question [SEP] window of the context [SEP]`` for every window a ``doc_stride`` apart.

    Args:
        tokenizer: a ``WordPieceTokenizer``.
        examples: objects with ``context``, ``question`` and ``answers`` (a list of ``(text, answer_start)`` as
            ``squad_v1`` returns them, a list of SQuAD dicts ``{"text", "answer_start"}``, or a Hugging Face dict
            ``{"text": [...], "answer_start": [...]}``: ``word2bert.datasets.answer_spans``; the first answer is
            the training target; no answer, or None: the target is ``(0, 0)`` in every window).
        sequence_length: the window's full length, specials and question included.
        doc_stride: how many context pieces one window starts after the previous one; the last window
            reaches the end of the context. A stride longer than a window's room for context pieces
            (``m = sequence_length - len(question pieces) - 3``) is clamped to ``m``: consecutive windows then touch,
            so every context piece is in at least one window and no window is empty (a longer stride would skip
            the pieces between two windows).
        max_query_len: longer questions are cut to this many pieces.

    Returns:
        ``QAWindows``. A context of ``n`` pieces with room for ``m`` per window gives
        ``1 + ceil(max(0, n - m) / min(doc_stride, m))`` windows; every window holds at least one context
        piece (a context without any word gives one window without context pieces).

    Raises:
        ValueError: no examples; ``doc_stride`` or ``max_query_len`` < 1; no room for context pieces
            (``sequence_length - max_query_len - 3 < 1``); an answer span outside its context, not matching its text,
            holding no word, or without ``answer_start`` (naming the question); answers of another layout (ValueError
            or TypeError, from ``answer_spans``).

    Reference: google-research/bert ``run_squad.py`` (``convert_examples_to_features``), for the windows.
    """
    room = sequence_length - max_query_len - 3
    if isinstance(examples, str) or len(examples) == 0:
        raise ValueError("examples must be a non-empty list of questions with context, question and answers")
    if doc_stride < 1 or room < 1 or max_query_len < 1:
        raise ValueError(f"need doc_stride >= 1, max_query_len >= 1 and sequence_length - max_query_len - 3 >= 1, got "
                         f"doc_stride={doc_stride}, "
                         f"sequence_length={sequence_length}, max_query_len={max_query_len}")
    cls_id, sep_id = tokenizer.token_to_id(tokenizer.cls_token), tokenizer.token_to_id(tokenizer.sep_token)
    rows, positions, owners, spans, inside = [], [], [], [], []
    for e, example in enumerate(examples):
        context = example.context
        pieces, piece_spans = [], []
        for start, end in context_words(context):
            for piece in _raw_word_pieces(tokenizer, context[start:end]):
                pieces.append(tokenizer.token_to_id(piece))
                piece_spans.append((start, end))
        piece_spans = np.asarray(piece_spans, np.int32).reshape(-1, 2)
        first, last = -1, -1
        where = f"question {getattr(example, 'id', e)!r}"
        answers = answer_spans(example.answers, where) if example.answers is not None else []
        if answers:
            text, answer_start = answers[0]
            if answer_start is None:
                raise ValueError(f"{where}: the answer {text!r} has no answer_start: training targets need the "
                                 f"character offset of the answer in the context")
            answer_end = answer_start + len(text)
            if answer_start < 0 or context[answer_start:answer_end] != text:
                raise ValueError(f"question {getattr(example, 'id', e)!r}: the answer {text!r} is not at character "
                                 f"{answer_start} of its context")
            covering = np.flatnonzero((piece_spans[:, 1] > answer_start) & (piece_spans[:, 0] < answer_end))
            if not len(covering):
                raise ValueError(f"question {getattr(example, 'id', e)!r}: the answer {text!r} holds no word of the "
                                 f"context (empty or only spaces)")
            first, last = int(covering[0]), int(covering[-1])
        query = [tokenizer.token_to_id(p) for p in tokenizer.tokenize(example.question)][:max_query_len]
        window_room = sequence_length - len(query) - 3
        stride = min(doc_stride, window_room)        # a longer stride would leave pieces between two windows
        # the last start is >= len(pieces) - window_room, so the last window reaches the context's end; it is
        # < len(pieces) since stride <= window_room, so no window is empty
        starts = list(range(0, max(1, len(pieces) - window_room + stride), stride))
        for begin in starts:
            chunk = pieces[begin:begin + window_room]
            offset = len(query) + 2
            ids = [cls_id] + query + [sep_id] + chunk + [sep_id]
            row = np.zeros((3, sequence_length), np.int32)
            row[0, :len(ids)] = ids
            row[1, offset:len(ids)] = 1
            row[2, :len(ids)] = 1
            span = np.full((sequence_length, 2), -1, np.int32)
            span[offset:offset + len(chunk)] = piece_spans[begin:begin + len(chunk)]
            whole = first >= begin and last < begin + len(chunk) and first >= 0
            positions.append((first - begin + offset, last - begin + offset) if whole else (0, 0))
            rows.append(row), owners.append(e), spans.append(span), inside.append(whole)
    rows = np.stack(rows)
    inputs = {"token_ids": rows[:, 0], "segment_ids": rows[:, 1], "padding_mask": rows[:, 2].astype(bool)}
    positions = np.asarray(positions, np.int32)
    check_span_targets(inputs, positions)
    return QAWindows(inputs, positions, np.asarray(owners, np.int32), np.stack(spans), np.asarray(inside, bool))


def check_span_targets(inputs, positions) -> None:
    """Check the training targets of ``SpanLoss`` against their windows, where the targets are made.

    ``SpanLoss`` runs inside a traced function where it cannot raise; a target on a padding position (whose logit
    ``BertQuestionAnswerer`` sets to the float32 minimum) there costs about 1e9 instead of an error. This check is
    the error: ``qa_windows`` runs it on its own windows, ``fine_tune`` on array data trained with ``SpanLoss``.

    Args:
        inputs: the windows, a dict with int ``"token_ids"`` ``(n, L)`` and optionally ``"padding_mask"`` (bool
            ``(n, L)``; default ``token_ids != 0``), as ``qa_windows`` makes them.
        positions: int ``(n, 2)``: each window's start and end position.

    Raises:
        ValueError: ``positions`` not ``(n, 2)`` integers for the ``n`` windows; a position outside ``0 .. L - 1``;
            an end before its start; a start or end on a padding position (naming the window, the positions and
            ``padding_mask``).
    """
    from word2bert.utils.inputs import model_inputs

    parts = model_inputs(inputs)
    mask = np.asarray(parts["padding_mask"]).astype(bool)
    positions = np.asarray(positions)
    if positions.shape != (len(mask), 2) or positions.dtype.kind not in "iu":
        raise ValueError(f"positions must be int (windows, 2) = ({len(mask)}, 2) start and end positions, got "
                         f"{positions.dtype} {positions.shape}")
    length = mask.shape[1]
    outside = np.flatnonzero(((positions < 0) | (positions >= length)).any(axis=1))
    if len(outside):
        row = int(outside[0])
        raise ValueError(f"positions of window {row} are {positions[row].tolist()}, outside 0 .. {length - 1}")
    backwards = np.flatnonzero(positions[:, 1] < positions[:, 0])
    if len(backwards):
        row = int(backwards[0])
        raise ValueError(f"positions of window {row} end before they start: {positions[row].tolist()}")
    rows = np.arange(len(mask))[:, None]
    on_padding = np.flatnonzero(~mask[rows, positions].all(axis=1))
    if len(on_padding):
        row = int(on_padding[0])
        raise ValueError(f"positions of window {row} are {positions[row].tolist()}, on a padding position "
                         f"(padding_mask is False there; {len(on_padding)} such windows): a span target must be on "
                         f"a real token, (0, 0) ([CLS]) when the answer is not in the window")


def best_spans(start_logits, end_logits, allowed, max_answer_len: int = 30, n_best: int = 20):
    """The ``n_best`` valid spans of one window, best first: ``(score, start, end)`` with
    ``score = start_logits[start] + end_logits[end]``, ``start <= end < start + max_answer_len`` and both
    positions ``allowed`` (context pieces).

    Args:
        start_logits, end_logits: float ``(L,)``.
        allowed: bool ``(L,)``, True where a span may start or end.
        max_answer_len: the longest span in pieces.
        n_best: how many candidates to return.

    Raises:
        ValueError: ``max_answer_len`` or ``n_best`` < 1; inputs not 1-D of one length; a NaN logit at an
            ``allowed`` position (a broken model output: no span can be ranked; NaN elsewhere is never read).

    Returns:
        list of ``(float, int, int)``, at most ``n_best``; every span in it satisfies the rules above and has a
        score above ``-inf``. Empty ("no answer") when nothing is allowed or every valid span scores ``-inf``
        (e.g. all allowed logits ``-inf``). The best start alone need not be in the best span: when it lies
        after the best end, the best valid pair is found instead.
    """
    if max_answer_len < 1 or n_best < 1:
        raise ValueError(f"max_answer_len and n_best must be >= 1, got {max_answer_len}, {n_best}")
    start_logits, end_logits = np.asarray(start_logits, np.float64), np.asarray(end_logits, np.float64)
    allowed = np.asarray(allowed, bool)
    if not start_logits.shape == end_logits.shape == allowed.shape or start_logits.ndim != 1:
        raise ValueError(f"start_logits, end_logits and allowed must be 1-D of one length, got {start_logits.shape}, "
                         f"{end_logits.shape}, {allowed.shape}")
    for name, logits in (("start_logits", start_logits), ("end_logits", end_logits)):
        nan = np.flatnonzero(np.isnan(logits) & allowed)
        if len(nan):
            raise ValueError(f"{name} is NaN at allowed position {int(nan[0])} ({len(nan)} NaN positions): the model's "
                             f"output is broken (a diverged training?); find the NaN's cause before decoding")
    length = len(start_logits)
    with np.errstate(invalid="ignore"):              # +inf + -inf: NaN, left out just below
        scores = start_logits[:, None] + end_logits[None, :]
    i, j = np.meshgrid(np.arange(length), np.arange(length), indexing="ij")
    # a -inf score (an end at -inf, or +inf + -inf = NaN) is an impossible span, not a candidate
    valid = (j >= i) & (j - i < max_answer_len) & allowed[:, None] & allowed[None, :] & (scores > -np.inf)
    if not valid.any():
        return []
    flat = np.where(valid, scores, -np.inf).ravel()
    k = min(n_best, int(valid.sum()))
    top = np.argpartition(-flat, k - 1)[:k]
    top = top[np.argsort(-flat[top], kind="stable")]
    return [(float(flat[t]), int(t // length), int(t % length)) for t in top]


def decode_answers(logits, windows: QAWindows, contexts, max_answer_len: int = 30, n_best: int = 20) -> dict:
    """Every question's answer text: the best valid span over all of its windows.

    Args:
        logits: float ``(n_windows, sequence_length, 2)``, ``BertQuestionAnswerer``'s output on ``windows``.
        windows: the ``QAWindows`` the logits belong to.
        contexts: the context string of each question (``[ex.context for ex in examples]``).
        max_answer_len, n_best: as ``best_spans``.

    Raises:
        ValueError: ``logits`` not ``(n_windows, sequence_length, 2)`` for these windows; a NaN logit at a context position
            (naming the window, the position and start or end); what ``best_spans`` raises.

    Returns:
        dict question index -> ``(text, char_start, score)``, the text cut from the context from the first
        character of the start piece's word to the last of the end piece's word. A span seen in two
        windows keeps its higher score. A question with no valid span in any window (every valid span scores
        ``-inf``, e.g. all its context logits ``-inf``) gets the "no answer" value ``("", -1, -inf)``.
    """
    logits = np.asarray(logits)
    n_windows, sequence_length = windows.char_spans.shape[:2]
    if logits.ndim != 3 or logits.shape != (n_windows, sequence_length, 2):
        raise ValueError(f"logits must be (n_windows={n_windows}, sequence_length={sequence_length}, 2) for these windows, got "
                         f"{logits.shape}")
    nan = np.argwhere(np.isnan(logits) & (windows.char_spans[..., :1] >= 0))
    if len(nan):
        w, p, c = (int(v) for v in nan[0])
        raise ValueError(f"logits is NaN at window {w}, position {p} ({('start', 'end')[c]} logit; {len(nan)} NaN at "
                         f"context positions): the model's output is broken; find the NaN's cause before decoding")
    best: dict[int, tuple] = {}
    for w in range(len(logits)):
        e = int(windows.example_index[w])
        spans = windows.char_spans[w]
        for score, s, t in best_spans(logits[w, :, 0], logits[w, :, 1], spans[:, 0] >= 0, max_answer_len, n_best):
            begin, end = int(spans[s, 0]), int(spans[t, 1])
            if e not in best or score > best[e][2]:
                best[e] = (contexts[e][begin:end], begin, score)
    return {e: best.get(e, ("", -1, float("-inf"))) for e in range(len(contexts))}


def predict_by_length(model, inputs: dict, per_token: bool, batch_size: int = 64,
                      lengths=(16, 32, 48, 64, 96, 128)) -> np.ndarray:
    """``model``'s output on padded rows, computed in batches of rows of similar length, each batch cut to the
    shortest of ``lengths`` that holds its longest row: the same numbers as one pass over the full width (padding
    never changes a real position's output), with far less padding computed.

    Args:
        model: a task model that takes a dict of ``(b, L)`` int arrays (``BertClassifier``, ``BertTokenTagger``,
            ``BertQuestionAnswerer``, ...) and returns one array.
        inputs: dict of ``(n, L)`` arrays with a ``"padding_mask"`` (``encode_texts``, ``align_first_pieces``).
        per_token: True when the output has a position axis (``(n, L, ...)``: tags, span logits), False for one
            output per row (``(n, classes)``).
        batch_size: rows per forward pass (>= 1).
        lengths: the widths a batch may be cut to, ascending (``L`` is added).

    The model is called directly (eagerly), not through ``predict``: ``predict`` compiles one XLA program per input
    shape on TensorFlow, which costs more than it saves over a few hundred rows of a dozen shapes.

    Returns:
        NumPy array, rows in the order of ``inputs``: ``(n, ...)``, or ``(n, L, ...)`` with ``per_token``, the
        positions past a batch's width filled with the dtype's lowest value (as ``BertQuestionAnswerer`` fills
        padding; they are padding, never read by ``word_hits`` or span decoding).

    Raises:
        ValueError: no ``padding_mask``; arrays of different shapes; ``batch_size`` < 1; ``lengths`` not ascending.
    """
    if not isinstance(inputs, dict) or "padding_mask" not in inputs:
        raise ValueError("inputs must be a dict of (n, L) arrays with a 'padding_mask' (to know each row's length)")
    arrays = {k: np.asarray(v) for k, v in inputs.items()}
    mask = arrays["padding_mask"] != 0
    if mask.ndim != 2 or any(v.shape != mask.shape for v in arrays.values()):
        raise ValueError(f"every input must have the padding mask's shape (n, L) = {mask.shape}, got "
                         f"{ {k: v.shape for k, v in arrays.items()} }")
    if int(batch_size) < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    n, full = mask.shape
    width = bucket_widths(row_extents(mask), lengths, full)      # the shortest allowed width past the last real position
    order = np.lexsort((np.arange(n), width))
    result = None
    for start in range(0, n, int(batch_size)):
        rows = order[start:start + int(batch_size)]
        w = int(width[rows].max())
        # a plain call, not predict_on_batch: Keras compiles predict_on_batch with XLA on TensorFlow, once per
        # input shape, and the many (rows, width) shapes here would each pay a compilation
        out = keras.ops.convert_to_numpy(model({k: v[rows, :w] for k, v in arrays.items()}, training=False))
        if result is None:
            shape = (n, full, *out.shape[2:]) if per_token else (n, *out.shape[1:])
            fill = np.finfo(out.dtype).min if np.issubdtype(out.dtype, np.floating) else 0
            result = np.full(shape, fill, out.dtype)
        if per_token:
            result[rows, :w] = out
        else:
            result[rows] = out
    if result is None:
        raise ValueError("inputs hold no rows")
    return result
