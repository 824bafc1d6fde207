"""The translation chapters' pipeline: prepare the data, train with early stopping, translate and score.

Three steps that chapters 05 and 06 (and later the Transformer's) share:

- ``prepare_translation``: tokenize the pairs, keep those within a length cap, build the two
  vocabularies on the training side, encode teacher-forcing arrays, group test references.
- ``train_seq2seq``: Adam with gradient clipping, masked cross-entropy, early stopping on the
  validation loss (the best epoch's weights kept), one ``fit``.
- ``evaluate_translation``: translate the test sources (greedy or beam search), detokenize,
  corpus BLEU (sacrebleu) overall and by source-length bucket.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import keras
import numpy as np

from word2bert.preprocessing.batching import length_batches_by_epoch, pad_rows
from word2bert.preprocessing import LengthBatches
from word2bert.training.best import fit_keeping_best
from word2bert.metrics.bleu import bleu_by_bucket, corpus_bleu, corpus_chrf
from word2bert.training.resumable import resumable_fit
from word2bert.models.seq2seq.data import encode_pairs, group_references
from word2bert.tokenizers.specials import BOS, EOS, SPECIALS
from word2bert.tokenizers.vocab import Vocabulary
from word2bert.tokenizers.words import detokenize, tokenize


@dataclass
class TranslationData:
    """Everything a translation chapter trains and tests on (see ``prepare_translation``).

    Attributes:
        sequence_length: the length cap (tokens per side).
        train_pairs, valid_pairs: tokenized ``(source, target)`` pairs within the cap.
        src_vocab, tgt_vocab: ``Vocabulary`` of each side, built on ``train_pairs``.
        x_train, din_train, dout_train, x_valid, din_valid, dout_valid: int32 teacher-forcing
            arrays (``encode_pairs``).
        test_sources: distinct test source strings; test_refs: their reference lists;
            x_test: int32 ``(N, S)`` encoded sources.
        valid_sources, valid_refs, x_valid_sources: the same for the validation split, on which
            decoding settings are chosen (``evaluate_translation(..., split="valid")``).
        bos_id, eos_id: the target vocabulary's ``<s>`` and ``</s>``.
    """

    sequence_length: int
    train_pairs: list
    valid_pairs: list
    src_vocab: Vocabulary
    tgt_vocab: Vocabulary
    x_train: np.ndarray
    din_train: np.ndarray
    dout_train: np.ndarray
    x_valid: np.ndarray
    din_valid: np.ndarray
    dout_valid: np.ndarray
    test_sources: list
    test_refs: list
    x_test: np.ndarray
    bos_id: int = field(default=0)
    eos_id: int = field(default=0)
    valid_sources: list = field(default_factory=list)
    valid_refs: list = field(default_factory=list)
    x_valid_sources: np.ndarray = field(default_factory=lambda: np.zeros((0, 1), np.int32))

    @property
    def train(self):
        """``((source, decoder_input), decoder_target)`` for ``fit``."""
        return (self.x_train, self.din_train), self.dout_train

    @property
    def valid(self):
        """``((source, decoder_input), decoder_target)`` for ``validation_data``."""
        return (self.x_valid, self.din_valid), self.dout_valid

    def split(self, name: str = "test"):
        """``(sources, references, encoded sources)`` of ``"test"`` or ``"valid"``.

        Raises:
            ValueError: another split name.
        """
        if name == "test":
            return self.test_sources, self.test_refs, self.x_test
        if name == "valid":
            return self.valid_sources, self.valid_refs, self.x_valid_sources
        raise ValueError(f"split must be 'test' or 'valid', got {name!r}")

    def source_lengths(self, split: str = "test") -> list[int]:
        """Tokens per source sentence of a split (``tokenize``), for BLEU by length."""
        return [len(tokenize(s)) for s in self.split(split)[0]]

    def summary(self) -> str:
        """Split sizes, vocabulary sizes and the unknown-token rate of the test sources."""
        known = self.x_test[self.x_test > 0]
        return (f"sentences of at most {self.sequence_length} tokens: train {len(self.train_pairs):,} pairs, valid "
                f"{len(self.valid_pairs):,} pairs, test {len(self.test_sources):,} source sentences "
                f"({sum(map(len, self.test_refs)):,} references)\n"
                f"vocabularies: source {len(self.src_vocab):,}, target {len(self.tgt_vocab):,} (incl. specials); "
                f"unknown source test tokens: {np.mean(known == self.src_vocab.unk_id):.1%}")


def _tokenized(pairs, sequence_length):
    out = [(tokenize(p[0]), tokenize(p[1])) for p in pairs]
    return [(s, t) for s, t in out if 0 < len(s) <= sequence_length and 0 < len(t) <= sequence_length]


def prepare_translation(splits: dict, sequence_length: int, source_vocabulary_size: int, target_vocabulary_size: int,
                        train_pairs: int | None = None, test_sources: int | None = None, min_count: int = 2,
                        rng=None) -> TranslationData:
    """Tokenize, cap, build vocabularies and encode a translation corpus.

    Args:
        splits: ``{"train": pairs, "valid": pairs, "test": pairs}``, each a list of ``(source,
            target)`` strings (e.g. ``datasets.ding_de_en(split)``).
        sequence_length: keep pairs whose two sides have 1..sequence_length tokens (``tokenize``); test sources
            with more tokens are left out.
        source_vocabulary_size, target_vocabulary_size: vocabulary caps, specials included (``<pad>``, ``<unk>`` on the
            source side, also ``<s>``, ``</s>`` on the target side), so each must exceed their number.
        train_pairs: keep a random subset of this many training pairs (None: all), drawn with ``rng``.
        test_sources: keep the first this many distinct test sources (None: all).
        min_count: words seen fewer times in training become ``<unk>``.
        rng: a ``numpy.random.Generator`` (needed with ``train_pairs``).

    Returns:
        ``TranslationData``.

    Raises:
        ValueError: a split is missing, ``sequence_length`` < 1, a vocabulary cap with no room for words,
            ``train_pairs`` without ``rng``, or no pair fits the cap.
    """
    missing = [s for s in ("train", "valid", "test") if s not in splits]
    if missing:
        raise ValueError(f"splits lacks {missing}: pass train, valid and test pairs")
    if sequence_length < 1:
        raise ValueError(f"sequence_length must be >= 1, got {sequence_length}")
    if source_vocabulary_size <= 2 or target_vocabulary_size <= len(SPECIALS):
        raise ValueError(f"the vocabulary caps include the special tokens (2 on the source side, {len(SPECIALS)} on the "
                         f"target side) and must leave room for words: got source_vocabulary_size={source_vocabulary_size}, "
                         f"target_vocabulary_size={target_vocabulary_size}")
    train = _tokenized(splits["train"], sequence_length)
    if not train:
        raise ValueError(f"no training pair has both sides within {sequence_length} tokens")
    if train_pairs:
        if rng is None:
            raise ValueError("train_pairs needs an rng (numpy.random.Generator) to draw the subset")
        train = [train[i] for i in sorted(rng.choice(len(train), min(train_pairs, len(train)), replace=False))]
    valid = _tokenized(splits["valid"], sequence_length)
    src_vocab = Vocabulary([s for s, _ in train], min_count=min_count, max_size=source_vocabulary_size)
    tgt_vocab = Vocabulary([t for _, t in train], min_count=min_count, max_size=target_vocabulary_size, specials=SPECIALS)
    x_train, din_train, dout_train = encode_pairs(train, src_vocab, tgt_vocab, sequence_length)
    x_valid, din_valid, dout_valid = encode_pairs(valid, src_vocab, tgt_vocab, sequence_length)
    sources, refs = group_references(splits["test"], sequence_length=sequence_length)
    if test_sources:
        sources, refs = sources[:test_sources], refs[:test_sources]
    if not sources:
        raise ValueError(f"no test source has at most {sequence_length} tokens")
    x_test = _encode_sources(sources, src_vocab, sequence_length)
    valid_sources, valid_refs = group_references(splits["valid"], sequence_length=sequence_length)
    x_valid_sources = _encode_sources(valid_sources, src_vocab, sequence_length)
    return TranslationData(sequence_length, train, valid, src_vocab, tgt_vocab, x_train, din_train, dout_train, x_valid,
                           din_valid, dout_valid, sources, refs, x_test, tgt_vocab.token_to_id(BOS),
                           tgt_vocab.token_to_id(EOS), valid_sources, valid_refs, x_valid_sources)


def _encode_sources(sources, src_vocab, sequence_length):
    """Sentences to translate: int32 ``(N, S)``, each cut to ``sequence_length`` tokens (``(0, 1)`` for none)."""
    if not sources:
        return np.zeros((0, 1), np.int32)
    return pad_rows([src_vocab.encode(tokenize(s)[:sequence_length]) for s in sources])


def train_seq2seq(model, data: TranslationData, epochs: int, patience: int, learning_rate: float,
                  batch_size: int, clipnorm: float = 1.0, verbose: int = 2, seed: int = 0,
                  callbacks=(), checkpoint_dir=None) -> tuple[dict, float]:
    """Compile and ``fit`` a translation model with early stopping on the validation loss.

    Adam(``learning_rate``, ``clipnorm``) on ``SparseCategoricalCrossentropy(from_logits=True,
    ignore_class=0)`` (padding ignored), on ``LengthBatches`` (pairs of similar length together);
    training stops when the validation loss has not improved for ``patience`` epochs, and the
    weights of the best epoch are restored.

    Args:
        model: a ``keras.Model`` taking ``(source, decoder_input)`` (e.g. ``Seq2Seq``).
        data: ``TranslationData``.
        epochs: the most epochs; patience: epochs without improvement before stopping.
        learning_rate, batch_size, clipnorm: optimiser settings.
        verbose: ``fit``'s verbosity (2: one line per epoch).
        seed: the seed of the batch order.
        callbacks: more ``fit`` callbacks (after early stopping).
        checkpoint_dir: a folder for the training's state after every epoch (``word2bert.training.resumable.resumable_fit``):
            a run that was killed, called again with the same folder, carries on from its last finished epoch with
            the same batches and the same early stopping; the folder is deleted at the end. None: a plain ``fit``.

    Returns:
        ``(history, seconds)``: ``History.history`` (dict of per-epoch lists) and the wall
        seconds of ``fit``.

    Raises:
        ValueError: ``epochs`` or ``patience`` < 1, no validation pair, or a model whose vocabulary sizes are smaller than
            the data's (its embeddings could not look up every id).
    """
    if epochs < 1 or patience < 1:
        raise ValueError(f"epochs and patience must be >= 1, got {epochs}, {patience}")
    if len(data.x_valid) == 0:
        raise ValueError(f"no validation pair has both sides within {data.sequence_length} tokens: early stopping needs some")
    for side, short, vocab in (("source", "src", data.src_vocab), ("target", "tgt", data.tgt_vocab)):
        size = getattr(model, f"{side}_vocabulary_size", None)
        if size is not None and size < len(vocab):
            raise ValueError(f"the model's {side}_vocabulary_size is {size} but the data's {side} vocabulary has "
                             f"{len(vocab)} ids: build it with {side}_vocabulary_size=len(data.{short}_vocab)")
    model.compile(optimizer=keras.optimizers.Adam(learning_rate, clipnorm=clipnorm),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0))
    valid = LengthBatches((data.x_valid, data.din_valid), data.dout_valid, 256, seed=seed)
    if checkpoint_dir is not None:
        epoch_batches = length_batches_by_epoch(data.x_train, data.din_train, data.dout_train, batch_size, seed=seed)
        run = resumable_fit(model, epoch_batches, epochs=epochs, checkpoint_dir=checkpoint_dir, validation_data=valid,
                            patience=patience, callbacks=callbacks, verbose=verbose, keep=False)
        return run["history"], run["seconds"]
    batches = LengthBatches((data.x_train, data.din_train), data.dout_train, batch_size, seed=seed)
    run = fit_keeping_best(model, batches, epochs=epochs, validation_data=valid, patience=patience,
                           callbacks=callbacks, verbose=verbose)
    return run["history"], run["seconds"]


def length_edges(sequence_length: int) -> tuple:
    """Source-length bucket bounds for BLEU by length at a given length cap."""
    if sequence_length in (8, 10):
        return {8: (5, 6, 7), 10: (5, 7, 9)}[sequence_length]
    if sequence_length > 20:  # four buckets of about 6 tokens, the last ending at the cap
        step = sequence_length // 5
        return (sequence_length - 3 * step, sequence_length - 2 * step, sequence_length - step)
    return (5, 8, 11, 14)


def evaluate_translation(model, data: TranslationData, beam_width: int = 1, alpha: float = 0.6,
                         batch_size: int = 512, max_extra_tokens: int = 5, edges=None, split: str = "test",
                         log_probs: bool = False) -> dict:
    """Translate every source of a split; score with corpus BLEU and chrF, overall and by length.

    Args:
        model: has ``translate(source, bos_id, eos_id, sequence_length, beam_width, alpha, batch_size)``
            and, for ``log_probs``, ``score(source, targets, bos_id, eos_id)`` (``Seq2Seq`` has both).
        data: ``TranslationData``.
        beam_width: 1 for greedy search, more for beam search; alpha: beam search's length penalty.
        batch_size: sentences decoded together.
        max_extra_tokens: outputs may be this many tokens longer than the length cap.
        edges: source-length bucket bounds (default ``length_edges(data.sequence_length)``).
        split: ``"test"`` or ``"valid"`` (choose decoding settings on ``"valid"``).
        log_probs: also score the outputs with the model (one more teacher-forced pass).

    Returns:
        dict: ``hypotheses`` (detokenized strings; ``<unk>`` kept), ``ids`` (lists of target ids),
        ``bleu`` and ``chrf`` (floats), ``buckets`` (``{label: (bleu, sentences)}``),
        ``chrf_buckets`` (the same for chrF), ``log_probs`` (float64 ``(N,)``: the model's
        log-probability of each output, ``</s>`` included; None unless asked for or if the model has
        no ``score``),
        ``seconds`` (decoding time).

    Raises:
        ValueError: unknown split, or a split with no source sentence.
    """
    sources, refs, x = data.split(split)
    if not sources:
        raise ValueError(f"the {split} split has no source sentence within the length cap")
    started = time.time()
    ids = model.translate(x, data.bos_id, data.eos_id, data.sequence_length + max_extra_tokens,
                          beam_width=beam_width, alpha=alpha, batch_size=batch_size)
    seconds = time.time() - started
    hypotheses = [detokenize(data.tgt_vocab.decode(h)) for h in ids]
    edges = length_edges(data.sequence_length) if edges is None else edges
    lengths = data.source_lengths(split)
    score = getattr(model, "score", None) if log_probs else None
    return {"hypotheses": hypotheses, "ids": ids, "bleu": corpus_bleu(hypotheses, refs),
            "chrf": corpus_chrf(hypotheses, refs),
            "buckets": bleu_by_bucket(lengths, hypotheses, refs, edges=edges),
            "chrf_buckets": bleu_by_bucket(lengths, hypotheses, refs, edges=edges, metric=corpus_chrf),
            "log_probs": None if score is None else score(x, ids, data.bos_id, data.eos_id),
            "seconds": seconds}
