"""Chapter 10's fine-tuning runs behind one call: a labelled task encoded once per tokenizer (``LabelledTask``), and
``FineTuner``, which trains a fresh copy of an encoder with a new head on the first ``n`` training examples of a
task, scores every test example, and keeps each finished run on disk so that a rerun after an interruption skips
it.

The recipe is the library's (``word2bert.models.bert``): ``copy_backbone``, a task head (``BertClassifier``,
``BertTokenTagger``, ``BertQuestionAnswerer``), AdamW with warm-up and decay to zero, the epoch with the lowest
validation loss kept (``fine_tune``; ``Refitter`` reuses one compiled model per encoder shape and task, so each is
traced once). What this module adds is course bookkeeping: the records, the epoch rule for small training sets and
the per-example scores the chapter's intervals are computed from.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import time
from pathlib import Path
from typing import NamedTuple

import keras
import numpy as np

from word2bert.metrics import Interval, MaskedAccuracy, bootstrap_interval, f1
from word2bert.models.bert import (IGNORE_LABEL, BertBackbone, BertClassifier, BertQuestionAnswerer, BertTokenTagger, Refitter,
                                   SpanLoss, align_first_pieces, copy_backbone, decode_answers, encode_texts,
                                   predict_by_length, qa_windows, word_hits)
from word2bert.preprocessing import LengthBatches
from word2bert.training.resumable import RunRecords

KINDS = ("classify", "tag", "qa")


def question_f1(predicted, questions) -> np.ndarray:
    """SQuAD's F1 of each predicted answer string against its question's gold answers (``metrics.f1``), in order."""
    return np.array([f1(text, [a for a, _ in q.answers]) for text, q in zip(predicted, questions, strict=True)])


class LabelledTask:
    """One labelled task's train, valid and test splits, encoded for one tokenizer.

    Build one with ``sentences`` (one text or a pair -> a label), ``tags`` (a tag per word) or ``questions`` (SQuAD
    v1.1 examples -> an answer span). ``rows(n)`` gives the model inputs of the first ``n`` training examples (for QA,
    every window of the first ``n`` questions), ``scores(model, split)`` one score per example of a split: 1/0 per
    sentence or pair, per word (words cut at the row length count as errors), SQuAD's F1 per question.

    Attributes: ``name``, ``kind`` ("classify", "tag" or "qa"), ``num_classes`` (labels or tags; 2 for QA's start and
    end), ``data`` (``{split: (inputs, targets)}``), ``examples`` (``{split: number of examples}``).
    """

    def __init__(self, name: str, kind: str, data: dict, num_classes: int, aligned=None, windows=None, questions=None):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        missing = {"train", "valid", "test"} - set(data)
        if missing:
            raise ValueError(f"task {name!r} lacks the splits {sorted(missing)}")
        self.name, self.kind, self.data, self.num_classes = name, kind, data, num_classes
        self.aligned, self.windows, self.questions = aligned, windows, questions
        self.examples = {s: len(questions[s]) if kind == "qa" else len(data[s][1]) for s in data}

    @classmethod
    def sentences(cls, name: str, tokenizer, splits: dict, sequence_length: int) -> "LabelledTask":
        """``splits``: ``{split: [(text, label)] or [(text_a, text_b, label)]}``, labels ints from 0."""
        data = {}
        for split, rows in splits.items():
            texts = [r[0] for r in rows]
            pairs = [r[1] for r in rows] if len(rows[0]) == 3 else None
            data[split] = (encode_texts(tokenizer, texts, pairs, sequence_length=sequence_length),
                           np.array([r[-1] for r in rows], np.int32))
        return cls(name, "classify", data, int(max(data["train"][1].max(), 1)) + 1)

    @classmethod
    def tags(cls, name: str, tokenizer, splits: dict, tag_names, sequence_length: int) -> "LabelledTask":
        """``splits``: ``{split: [(words, tags)]}``, each tag one of ``tag_names``; the label of a word goes to its
        first piece (``align_first_pieces``)."""
        index = {t: i for i, t in enumerate(tag_names)}
        unknown = {t for rows in splits.values() for _, ts in rows for t in ts} - set(index)
        if unknown:
            raise ValueError(f"task {name!r} has tags outside tag_names: {sorted(unknown)[:5]}")
        aligned = {s: align_first_pieces(tokenizer, [w for w, _ in rows], [[index[t] for t in ts] for _, ts in rows],
                                         sequence_length=sequence_length) for s, rows in splits.items()}
        return cls(name, "tag", {s: (a.inputs, a.labels) for s, a in aligned.items()}, len(tag_names), aligned=aligned)

    @classmethod
    def questions(cls, name: str, tokenizer, splits: dict, sequence_length: int, doc_stride: int,
                  max_query_len: int = 32) -> "LabelledTask":
        """``splits``: ``{split: [SQuAD v1.1 examples]}`` (``squad_v1``); contexts cut into windows ``doc_stride``
        pieces apart, questions cut to ``max_query_len`` pieces (``qa_windows``)."""
        windows = {s: qa_windows(tokenizer, rows, sequence_length=sequence_length, doc_stride=doc_stride,
                                 max_query_len=max_query_len)
                   for s, rows in splits.items()}
        return cls(name, "qa", {s: (w.inputs, w.positions) for s, w in windows.items()}, 2, windows=windows,
                   questions=splits)

    def rows(self, n: int | None = None, split: str = "train"):
        """``(inputs, targets)`` of the first ``n`` examples of ``split`` (None: all); for QA every window of the
        first ``n`` questions. Raises ``ValueError`` when ``n`` is not in ``[1, examples]``."""
        x, y = self.data[split]
        n = self.examples[split] if n is None else int(n)
        if not 1 <= n <= self.examples[split]:
            raise ValueError(f"task {self.name!r} has {self.examples[split]} {split} examples, asked for {n}")
        keep = self.windows[split].example_index < n if self.kind == "qa" else slice(0, n)
        return {k: v[keep] for k, v in x.items()}, y[keep]

    def head(self, backbone, pooling: str = "pooled") -> keras.Model:
        """The task's model on ``backbone``: ``BertClassifier`` (reading ``pooling``), ``BertTokenTagger`` or
        ``BertQuestionAnswerer``."""
        if self.kind == "classify":
            return BertClassifier(backbone, num_classes=self.num_classes, pooling=pooling)
        if self.kind == "tag":
            return BertTokenTagger(backbone, num_tags=self.num_classes)
        return BertQuestionAnswerer(backbone)

    def loss(self):
        if self.kind == "qa":
            return SpanLoss()
        return keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=IGNORE_LABEL
                                                          if self.kind == "tag" else None)

    def metrics(self) -> list:
        if self.kind == "classify":
            return ["accuracy"]
        return [MaskedAccuracy(ignore_class=IGNORE_LABEL, name="accuracy")] if self.kind == "tag" else []

    def majority_share(self, n: int | None = None) -> float:
        """The share of the commonest label (or tag) among the first ``n`` training examples; 0 for QA."""
        if self.kind == "qa":
            return 0.0
        y = self.rows(n)[1]
        y = y[y != IGNORE_LABEL]
        return float(np.bincount(y).max() / len(y))

    def scores_from_outputs(self, outputs: np.ndarray, split: str) -> np.ndarray:
        """Per-example scores of a split from the model's outputs on all of its rows (``predict_by_length``)."""
        if self.kind == "classify":
            return (outputs.argmax(-1) == self.data[split][1]) * 1.0
        if self.kind == "tag":
            return word_hits(outputs, self.aligned[split])
        questions = self.questions[split]
        answers = decode_answers(outputs, self.windows[split], [q.context for q in questions], max_answer_len=16)
        return question_f1([answers[i][0] for i in range(len(questions))], questions)

    def scores(self, model: keras.Model, split: str = "test") -> np.ndarray:
        """One score per example of ``split``: ``model``'s predictions scored as ``scores_from_outputs``."""
        outputs = predict_by_length(model, self.data[split][0], per_token=self.kind != "classify")
        return self.scores_from_outputs(outputs, split)


class Point(NamedTuple):
    """One point of a label-efficiency curve: ``mean`` of the seeds' test scores, ``interval`` (95% bootstrap over
    test examples of the seed-averaged per-example scores), ``spread`` (max - min over seeds), ``seeds``,
    ``epochs`` (run per seed), ``train_accuracy`` (best over the epochs, per seed; None for QA), ``seconds``."""

    mean: float
    interval: Interval
    spread: float
    seeds: tuple
    epochs: tuple
    train_accuracy: tuple
    seconds: float

    @classmethod
    def from_scores(cls, per_seed, seeds, epochs=(), train_accuracy=(), seconds: float = 0.0) -> "Point":
        """A point from each seed's per-example test scores (1-D arrays of one length)."""
        per_seed = [np.asarray(s, np.float64) for s in per_seed]
        if not per_seed or len({s.shape for s in per_seed}) != 1:
            raise ValueError("need at least one seed's scores, every seed scoring the same examples")
        means = [float(s.mean()) for s in per_seed]
        return cls(float(np.mean(means)), bootstrap_interval(np.mean(per_seed, axis=0)), max(means) - min(means),
                   tuple(seeds), tuple(epochs), tuple(train_accuracy), float(seconds))

    def metrics(self, key: str, digits: int = 4) -> dict:
        """``{key: mean, key_low: interval low, key_high: interval high}``, rounded: a chapter's results keys."""
        return {key: round(self.mean, digits), f"{key}_low": round(self.interval.low, digits),
                f"{key}_high": round(self.interval.high, digits)}


BASELINES = {"polarity": "bag of words", "pos": "most frequent tag", "pair": "word overlap", "qa": "sliding window"}


def baseline_scores(task: str, train, valid, test) -> np.ndarray:
    """Per-example test scores of chapter 10's baseline without a network for ``task``, trained on ``train``.

    ``polarity`` (rows ``(text, label)``): logistic regression on counts of words and word pairs, its penalty chosen
    on ``valid`` (``bag_of_words_classifier``); ``pos`` (rows ``(words, tags)``): each word's most frequent tag
    (``MostFrequentTag``), scored per word; ``pair`` (rows with ``a``, ``b``, ``label``): "1 when the two texts share
    enough words", the threshold fitted on ``train`` (``overlap_classifier``); ``qa`` (SQuAD examples): the sliding
    window of Richardson et al. (2013), which learns nothing from ``train``, scored by SQuAD's F1.

    Raises:
        ValueError: an unknown ``task`` (the message lists ``BASELINES``).
    """
    from word2bert.baselines import (MostFrequentTag, bag_of_words_classifier, overlap_classifier,
                                     sliding_window_predictions)

    if task == "polarity":
        model, _ = bag_of_words_classifier([t for t, _ in train], [l for _, l in train], [t for t, _ in valid],
                                           [l for _, l in valid])
        return (model.predict([t for t, _ in test]) == np.array([l for _, l in test])) * 1.0
    if task == "pos":
        guesses = MostFrequentTag().fit([w for w, _ in train], [t for _, t in train]).predict([w for w, _ in test])
        return np.array([g == t for gs, (_, ts) in zip(guesses, test) for g, t in zip(gs, ts)], float)
    if task == "pair":
        rule = overlap_classifier([(p.a, p.b) for p in train], [p.label for p in train])[0]
        return (rule([(p.a, p.b) for p in test]) == np.array([p.label for p in test])) * 1.0
    if task == "qa":
        answers = sliding_window_predictions(test)
        return question_f1([answers[e.id] for e in test], test)
    raise ValueError(f"no baseline for task {task!r}; the baselines are {BASELINES}")


def first_blocks(backbone: BertBackbone, num_layers: int) -> BertBackbone:
    """A ``BertBackbone`` holding ``backbone``'s embeddings, its first ``num_layers`` blocks and its pooler, with
    their weights (the ci profile runs the reference encoder with one block, to stay quick); ``backbone`` itself
    when it has no more blocks than that.

    Raises:
        ValueError: ``num_layers`` < 1.
    """
    if num_layers < 1:
        raise ValueError(f"num_layers must be >= 1, got {num_layers}")
    if num_layers >= backbone.num_layers:
        return backbone
    first = BertBackbone.from_config({**backbone.get_config(), "num_layers": num_layers,
                                      "name": f"{backbone.name}_first_{num_layers}"})
    first.build()
    stored = {v.path.split("/", 1)[1]: v for v in backbone.weights}
    for v in first.weights:
        v.assign(stored[v.path.split("/", 1)[1]])
    return first


def fingerprint(backbone: keras.Model) -> str:
    """The first 12 hex digits of the SHA-256 of a model's weights: which encoder a record was made from."""
    digest = hashlib.sha256()
    for w in backbone.weights:
        digest.update(np.asarray(keras.ops.convert_to_numpy(w)).tobytes())
    return digest.hexdigest()[:12]


class FineTuner:
    """Fine-tunes fresh copies of encoders on ``LabelledTask`` training subsets, each run once.

    ``point(encoder, backbone, task, n, rate, max_epochs, seeds)`` trains, per seed, ``task.head`` on a copy of
    ``backbone`` (or, with ``pretrained=False``, the same architecture from random weights) on the first ``n``
    training examples, with the library's recipe (``Refitter``: AdamW, warm-up then decay to zero, the epoch of lowest
    validation loss kept), and scores the test split. A small training set gets more epochs: at least ``min_steps``
    optimiser steps (never more than ``epoch_cap`` epochs). Every finished run is recorded under ``folder``
    (``RunRecords``, keyed by the encoder's weight fingerprint, the task, ``n``, the settings and the seed), so that
    running the chapter again after an interruption reads it back instead of training it again. Runs under other
    ``settings`` go to another sub-folder (named by the settings' digest), so a changed setting never reads old runs.

    Args:
        folder: the records' folder; ``settings``: a JSON-able dict of everything else the runs depend on (sizes).
        batch_size: rows per step; ``buckets``: row widths the length-sorted batches are cut to (not QA).
        min_steps, epoch_cap: the epoch rule above.

    Raises:
        ValueError: from ``point``: no seeds, repeated seeds, ``n`` outside the task's training examples.
    """

    def __init__(self, folder: str | os.PathLike, settings: dict, batch_size: int = 16, buckets=(16, 32, 48, 64),
                 min_steps: int = 40, epoch_cap: int = 20):
        digest = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:10]
        self.records = RunRecords(Path(folder) / digest, settings)     # other settings: another folder, never mixed
        self.batch_size, self.buckets, self.min_steps, self.epoch_cap = batch_size, tuple(buckets), min_steps, epoch_cap
        self._refits, self._fingerprints = {}, {}
        self.model = None       # the last trained model (its kept epoch's weights), when the last run trained

    def epochs_for(self, task: LabelledTask, n: int, max_epochs: int) -> int:
        """``max_epochs``, raised so that the run makes at least ``min_steps`` steps, at most ``epoch_cap``."""
        batches = math.ceil(len(task.rows(n)[1]) / self.batch_size)
        return int(min(max(max_epochs, math.ceil(self.min_steps / batches)), max(self.epoch_cap, max_epochs)))

    def _fingerprint(self, backbone):
        if id(backbone) not in self._fingerprints:
            self._fingerprints[id(backbone)] = (backbone, fingerprint(backbone))
        return self._fingerprints[id(backbone)][1]

    def _train(self, encoder, backbone, task, n, rate, epochs, seed, pretrained, pooling, patience):
        keras.utils.set_random_seed(seed)
        x, y = task.rows(n)
        fresh = task.head(copy_backbone(backbone, pretrained=pretrained, seed=seed), pooling=pooling)
        fresh({k: v[:1] for k, v in x.items()})
        shape = (encoder if pretrained else encoder + "/random", task.name, pooling)
        if shape not in self._refits:
            self._refits[shape] = Refitter(fresh, task.loss(), task.metrics())
        refit = self._refits[shape]
        if task.kind == "qa":     # windows are full rows: nothing to cut
            train, valid = (x, y), task.data["valid"]
        else:
            train = LengthBatches(x, y, self.batch_size, lengths=self.buckets, seed=seed)
            valid = LengthBatches(*task.data["valid"], self.batch_size, lengths=self.buckets)
        t0 = time.time()
        info = refit.run(fresh, train, valid, rate, epochs, self.batch_size, patience=patience)
        self.model = refit.model
        accuracy = max(info["history"]["accuracy"]) if "accuracy" in info["history"] else None
        return {"test": task.scores(refit.model, "test"), "epochs": info["best_epoch"], "train_accuracy": accuracy,
                "seconds": time.time() - t0}

    def point(self, encoder: str, backbone, task: LabelledTask, n: int, rate: float, max_epochs: int, seeds,
              pretrained: bool = True, pooling: str = "pooled", patience: int = 1) -> Point:
        """Fine-tune once per seed on the first ``n`` training examples of ``task``; return the test ``Point``.

        Args:
            encoder: a name for the encoder (one per architecture and vocabulary: runs of one name share a compiled
                model); ``backbone``: its ``BertBackbone``; ``pretrained``: False for the random-weight control.
            rate: the peak learning rate; ``max_epochs``: epochs before the ``min_steps`` rule; ``patience``: epochs
                without a lower validation loss before a run stops.
            pooling: what a classifier reads ("pooled" [CLS] or "mean").
        """
        seeds = tuple(seeds)
        if not seeds or len(set(seeds)) != len(seeds):
            raise ValueError(f"seeds must be distinct and at least one, got {seeds!r}")
        epochs = self.epochs_for(task, n, max_epochs)
        runs = []
        for seed in seeds:
            key = (encoder, self._fingerprint(backbone), bool(pretrained), task.name, int(n), float(rate), epochs,
                   pooling, int(patience), int(seed))
            runs.append(self.records.run(key, lambda seed=seed: self._train(encoder, backbone, task, n, rate, epochs,
                                                                            seed, pretrained, pooling, patience)))
        return Point.from_scores([r["test"] for r in runs], seeds, [r["epochs"] for r in runs],
                                 [r["train_accuracy"] for r in runs], sum(r["seconds"] for r in runs))
