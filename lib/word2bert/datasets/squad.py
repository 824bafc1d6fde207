"""Extractive question answering in the SQuAD v1.1 format (Rajpurkar et al. 2016): read and write it.

A SQuAD v1.1 file is one JSON object::

    {"version": "1.1",
     "data": [{"title": ...,
               "paragraphs": [{"context": ...,
                               "qas": [{"id": ..., "question": ...,
                                        "answers": [{"text": ..., "answer_start": ...}]}]}]}]}

Every answer is a span of its paragraph's context: ``answer_start`` is the character offset of
``text`` in ``context``. ``squad_v1`` flattens a file into one ``QAExample`` per question and checks
every span; ``write_squad_v1`` writes examples back (grouped by title, then by context), atomically.

Source: the format of the Stanford Question Answering Dataset v1.1 (the dataset itself is CC BY-SA
4.0 and is not shipped here; ``word2bert.datasets.template_qa`` builds a set in this format from
the World English Bible and the Wikipedia sample).
"""
from __future__ import annotations

import json
import os
from typing import NamedTuple

from word2bert.utils.io import atomic_write


class QAExample(NamedTuple):
    """One question on one context; ``answers`` a tuple of ``(text, answer_start)`` character spans."""

    id: str
    title: str
    context: str
    question: str
    answers: tuple


def answer_spans(answers, name: str = "answers") -> list[tuple[str, int | None]]:
    """The gold answers of one question as ``(text, answer_start)`` pairs, from any of the usual layouts.

    Args:
        answers: one of
            - a list of ``(text, answer_start)`` pairs (``QAExample.answers``, as ``squad_v1`` gives them);
            - a list of SQuAD JSON dicts ``{"text": str, "answer_start": int}`` (as in the file), or one such dict;
            - a Hugging Face ``datasets`` dict of parallel lists ``{"text": [str, ...], "answer_start": [int, ...]}``;
            - a list of plain strings, or one plain string (one answer: ``"UK"`` is the answer "UK", not "U", "K").
        name: what the error messages start with (e.g. ``"question 'q7'"``).

    Returns:
        list of ``(text, answer_start)``, in the given order; ``answer_start`` is None where the layout has none
        (plain strings, a dict without ``"answer_start"``). An empty list for no answers.

    Raises:
        TypeError: ``answers`` is None or not one of the layouts (naming ``name``).
        ValueError: an answer that is not a string, a pair, or a dict with a string ``"text"`` (naming ``name`` and
            the index); an ``answer_start`` that is not an int; a Hugging Face dict whose ``"text"`` and
            ``"answer_start"`` lists differ in length.

    Source: the answer layouts of SQuAD v1.1's JSON files and of the Hugging Face ``squad`` data set.
    """
    if isinstance(answers, str):
        return [(answers, None)]
    if isinstance(answers, dict):
        texts, starts = answers.get("text"), answers.get("answer_start")
        if isinstance(texts, str):                                       # one SQuAD JSON answer
            return [(texts, _start(starts, name, 0))]
        if not isinstance(texts, (list, tuple)):
            raise ValueError(f"{name}: the answers are a dict but its 'text' is {texts!r:.60}: give a SQuAD answer "
                             f"{{'text': str, 'answer_start': int}} or Hugging Face lists {{'text': [...], "
                             f"'answer_start': [...]}}")
        starts = [None] * len(texts) if starts is None else list(starts)
        if len(starts) != len(texts):
            raise ValueError(f"{name}: 'text' has {len(texts)} answers but 'answer_start' {len(starts)}")
        return [(_text(text, name, i), _start(start, name, i)) for i, (text, start) in enumerate(zip(texts, starts))]
    if answers is None or not isinstance(answers, (list, tuple)):
        raise TypeError(f"{name}: the answers must be a list (strings, (text, answer_start) pairs or SQuAD dicts) or a "
                        f"Hugging Face dict {{'text': [...], 'answer_start': [...]}}, got {type(answers).__name__}")
    spans = []
    for i, answer in enumerate(answers):
        if isinstance(answer, str):
            spans.append((answer, None))
        elif isinstance(answer, dict) and isinstance(answer.get("text"), str):
            spans.append((answer["text"], _start(answer.get("answer_start"), name, i)))
        elif isinstance(answer, (tuple, list)) and len(answer) == 2 and isinstance(answer[0], str):
            spans.append((answer[0], _start(answer[1], name, i)))
        else:
            raise ValueError(f"{name}: a gold answer must be a string or a (text, answer_start) pair (or a dict "
                             f"with a string 'text'), got {answer!r:.60} at index {i}")
    return spans


def _text(text, name: str, index: int) -> str:
    if not isinstance(text, str):
        raise ValueError(f"{name}: answer {index}'s text must be a string, got {text!r:.60}")
    return text


def _start(start, name: str, index: int) -> int | None:
    if start is None:
        return None
    if isinstance(start, bool) or not hasattr(start, "__index__"):
        raise ValueError(f"{name}: answer {index}'s answer_start must be an int character offset, got {start!r:.60}")
    return int(start)


def _get(obj, key: str, where: str, kind):
    if not isinstance(obj, dict):
        raise ValueError(f"{where} must be a JSON object, got {type(obj).__name__}")
    if key not in obj:
        raise ValueError(f"missing key {key!r} in {where}")
    value = obj[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise ValueError(f"key {key!r} in {where} must be {names}, got {type(value).__name__}")
    return value


def squad_v1(path: str | os.PathLike) -> list[QAExample]:
    """Read a SQuAD v1.1 JSON file into one ``QAExample`` per question.

    Args:
        path: the JSON file (the official ``train-v1.1.json`` / ``dev-v1.1.json`` layout).

    Returns:
        list of ``QAExample(id, title, context, question, answers)`` in file order; ``answers`` a tuple
        of ``(text, answer_start)`` pairs in file order (the dev set has up to 3 answers a question,
        duplicates kept, as the official evaluation keeps them).

    Raises:
        FileNotFoundError: ``path`` does not exist (the message names it).
        ValueError: the file is not JSON; a key is missing or of the wrong type (the message names the
            file, the key and where: ``data[0].paragraphs[2].qas[1]``); an answer's ``text`` is not the context's
            substring at ``answer_start`` (names the question id); a question id occurs twice.

    Source: the SQuAD v1.1 format (Rajpurkar et al. 2016, https://rajpurkar.github.io/SQuAD-explorer/).
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no SQuAD file at {path}")
    try:
        with open(path, encoding="utf-8") as f:
            root = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path} is not a JSON file: {e}") from None
    try:
        return _examples(root)
    except ValueError as e:
        raise ValueError(f"{path} is not a SQuAD v1.1 file: {e} (the layout is {{'data': [{{'title', 'paragraphs': "
                         f"[{{'context', 'qas': [{{'id', 'question', 'answers'}}]}}]}}]}})") from None


def _examples(root) -> list[QAExample]:
    """The ``QAExample`` records of a parsed SQuAD v1.1 JSON object; a ValueError naming the key and where it is wrong."""
    data = _get(root, "data", "the top-level object", list)
    examples, seen = [], set()
    for i, article in enumerate(data):
        where = f"data[{i}]"
        title = _get(article, "title", where, str)
        for j, paragraph in enumerate(_get(article, "paragraphs", where, list)):
            where_p = f"{where}.paragraphs[{j}]"
            context = _get(paragraph, "context", where_p, str)
            for k, qa in enumerate(_get(paragraph, "qas", where_p, list)):
                where_q = f"{where_p}.qas[{k}]"
                qid = _get(qa, "id", where_q, str)
                question = _get(qa, "question", where_q, str)
                answers = []
                for m, answer in enumerate(_get(qa, "answers", where_q, list)):
                    where_a = f"{where_q}.answers[{m}]"
                    text = _get(answer, "text", where_a, str)
                    start = _get(answer, "answer_start", where_a, int)
                    if isinstance(start, bool) or start < 0 or context[start:start + len(text)] != text:
                        raise ValueError(f"question {qid!r} ({where_a}): answer {text!r} is not the context's text at "
                                         f"answer_start={start} (found {context[start:start + len(text)]!r})")
                    answers.append((text, start))
                if qid in seen:
                    raise ValueError(f"duplicate question id {qid!r} ({where_q})")
                seen.add(qid)
                examples.append(QAExample(qid, title, context, question, tuple(answers)))
    return examples


def write_squad_v1(examples, path: str | os.PathLike, version: str = "1.1"):
    """Write examples as a SQuAD v1.1 JSON file, atomically (``word2bert.utils.io.atomic_write``).

    Examples are grouped by title (articles in order of first appearance), then by context within
    a title (paragraphs in order of first appearance); ``squad_v1`` of the file gives the examples back
    in that grouped order (the same order when the input is already grouped).

    Args:
        examples: ``QAExample`` records (or 5-tuples in its field order) with unique ids.
        path: the file to write; its folder is created if missing.
        version: the ``"version"`` field.

    Returns:
        ``pathlib.Path`` of the written file.

    Raises:
        ValueError: a duplicate id, or an answer that is not the context's text at its ``answer_start``
            (names the question id).

    Source: the SQuAD v1.1 format (Rajpurkar et al. 2016).
    """
    articles: dict[str, dict[str, list]] = {}
    seen = set()
    for example in examples:
        qid, title, context, question, answers = QAExample(*example)
        if qid in seen:
            raise ValueError(f"duplicate question id {qid!r}")
        seen.add(qid)
        qa_answers = []
        for text, start in answers:
            if isinstance(start, bool) or not isinstance(start, int) or start < 0 or context[start:start + len(text)] != text:
                raise ValueError(f"question {qid!r}: answer {text!r} is not the context's text at answer_start={start}")
            qa_answers.append({"text": text, "answer_start": int(start)})
        articles.setdefault(title, {}).setdefault(context, []).append(
            {"id": qid, "question": question, "answers": qa_answers})
    root = {"version": version,
            "data": [{"title": title, "paragraphs": [{"context": context, "qas": qas} for context, qas in paragraphs.items()]}
                     for title, paragraphs in articles.items()]}
    return atomic_write(path, json.dumps(root, ensure_ascii=False))
