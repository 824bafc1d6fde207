"""Chapter 09's pretraining schedule as one call: rounds of ``fit`` on fresh sentence pairs and masks, in phases of
growing sequence length, with a checkpoint after every round (a rerun resumes), snapshots for chapter 10's curve of
accuracy against pretraining tokens, and one printed line per round.

The algorithm is the library's: ``BertPretrainer`` trained by ``fit`` on ``PretrainingBatches`` (masked LM and
next-sentence prediction), scored after every round on held-out pairs drawn once. What this module adds is the
course's bookkeeping around it: where the state is kept, what each snapshot records, what is printed::

    run = pretrain_in_phases(model, tokenizer, documents, phases=((64, 16, 16000), (128, 2, 4096)), batch_size=32,
                             mask_rate=0.15, packed=True, valid_pairs=768, seed=0, model_dir="../models/cpu")
    run.history["val_mlm_accuracy"], run.seconds, run.real_tokens
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import NamedTuple

import keras
import numpy as np

from word2bert.course.snapshots import SnapshotCallback
from word2bert.models.bert import NextSentencePairs, PretrainingBatches, pack_documents
from word2bert.training.resumable import EpochCheckpoint

STATE_FOLDER = "09_bert_training_state"


def segments(documents, tokenizer, max_len: int, packed: bool = True):
    """The documents as training reads them for pairs of ``max_len`` tokens: each document's consecutive sentences
    packed into spans of at most ``(max_len - 3) // 2`` pieces (``pack_documents``), or left as sentences.

    Raises:
        ValueError: ``max_len`` below 5 (no room for ``[CLS] A [SEP] B [SEP]``).
    """
    if max_len < 5:
        raise ValueError(f"max_len must be at least 5 ([CLS] A [SEP] B [SEP]), got {max_len}")
    return pack_documents(documents, tokenizer, (max_len - 3) // 2) if packed else documents


def held_out(documents, tokenizer, max_len: int, pairs: int, batch_size: int, seed: int) -> PretrainingBatches:
    """Pairs of ``documents`` with same-source negatives and one fixed draw of masks at 15% (``remask=False``): every
    evaluation of it scores the same pairs and positions. At most ``pairs`` pairs (fewer when the documents make
    fewer)."""
    available = len(NextSentencePairs(documents, negatives="same_source"))
    return PretrainingBatches(documents, tokenizer, batch_size=batch_size, sequence_length=max_len, seed=seed,
                              remask=False, negatives="same_source", pairs_per_epoch=min(pairs, available))


class _RoundLine(keras.callbacks.Callback):
    """One printed line per round: its length, seconds, and training / held-out accuracies."""

    def __init__(self, total: int, length: int):
        super().__init__()
        self.total, self.length = total, length

    def on_epoch_begin(self, epoch, logs=None):
        self.started = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        print(f"round {epoch + 1:2d}/{self.total} ({self.length} tokens, {time.perf_counter() - self.started:3.0f} s): "
              f"masked LM accuracy {logs.get('mlm_accuracy', float('nan')):.3f} training, "
              f"{logs.get('val_mlm_accuracy', float('nan')):.3f} held-out; next sentence "
              f"{logs.get('nsp_accuracy', float('nan')):.3f}, {logs.get('val_nsp_accuracy', float('nan')):.3f}")


class PretrainingRun(NamedTuple):
    history: dict          # every round's logs (training running means and held-out scores), plus "phase"
    seconds: float         # training seconds, rounds before a resume included
    tokens: int            # positions read, padding included
    real_tokens: float     # positions read that hold a real piece


def snapshot_rounds(rounds, batch_size: int, shares=(1 / 8, 1 / 4, 1 / 2)) -> list[int]:
    """The rounds (1-based) after which to keep a snapshot: those whose tokens read come closest to each share of
    the run's tokens, and the last. ``rounds``: ``(length, pairs)`` per round."""
    round_tokens = np.cumsum([pairs // batch_size * batch_size * length for length, pairs in rounds])
    return sorted({int(np.abs(round_tokens - share * round_tokens[-1]).argmin()) + 1 for share in shares}
                  | {len(rounds)})


def pretrain_in_phases(model, tokenizer, documents: dict, phases, batch_size: int, mask_rate: float, packed: bool,
                       valid_pairs: int, seed: int, model_dir: str | os.PathLike, profile: str = "",
                       verbose: bool = True) -> PretrainingRun:
    """Pretrain a compiled ``BertPretrainer`` in phases, a round (one Keras epoch) at a time.

    Args:
        model: a compiled ``BertPretrainer``.
        tokenizer: its WordPiece tokenizer. documents: ``{"train": [...], "valid": [...]}`` (``Document`` lists).
        phases: ``(max_len, rounds, pairs_per_round)`` each; each round draws fresh pairs and masks
            (``PretrainingBatches`` seeded ``seed + 100 * phase``).
        batch_size, mask_rate, packed: as ``PretrainingBatches`` and ``segments`` take them.
        valid_pairs: held-out pairs scored after every round (``held_out``, seed ``seed + 1000``).
        model_dir: the state after every round goes to ``model_dir/09_bert_training_state`` (a rerun resumes after
            the last finished round, with the next round's pairs and masks; Keras orders a round's batches afresh in
            a new ``fit``, so the losses after a resume are close to an uninterrupted run's, not equal; the folder
            is deleted at the end); snapshots
            (``09_bert_snapshot_NNN.keras`` with a record: tokens, real tokens, minutes, held-out scores and the
            length of the held-out pairs they were scored on) after the rounds of ``snapshot_rounds``.
        profile: written into each snapshot's record. verbose: one line per round and per phase.

    Returns:
        a ``PretrainingRun``.

    Raises:
        ValueError: no phases, or a phase with a length below 5 or no rounds.
    """
    if not phases or any(length < 5 or n < 1 for length, n, _ in phases):
        raise ValueError(f"phases must be (max_len >= 5, rounds >= 1, pairs) each, got {phases!r}")
    model_dir = Path(model_dir)
    rounds = [(length, pairs) for length, n, pairs in phases for _ in range(n)]
    keep = snapshot_rounds(rounds, batch_size)
    if not model.built:
        model.build()                                   # a saved state is matched against the built weights
    checkpoint = EpochCheckpoint(model_dir / STATE_FOLDER)
    done = checkpoint.restore(model)
    if done and verbose:
        print(f"resuming after round {done} of {len(rounds)}")
    phase_of_round, tokens_seen, real_tokens_seen, epoch = [], 0, 0, 0
    for phase, (max_len, n_rounds, pairs_per_round) in enumerate(phases, 1):
        train = PretrainingBatches(segments(documents["train"], tokenizer, max_len, packed), tokenizer,
                                   batch_size=batch_size, sequence_length=max_len, seed=seed + 100 * phase,
                                   pairs_per_epoch=pairs_per_round, rate=mask_rate, negatives="same_source")
        valid = held_out(segments(documents["valid"], tokenizer, max_len, packed), tokenizer, max_len, valid_pairs,
                         batch_size, seed + 1000)
        real_share = float(np.mean([train[i][0]["padding_mask"].mean() for i in range(min(len(train), 20))]))
        train.set_epoch(0)                   # those reads were a look, not the start of round 1
        if verbose:
            print(f"phase {phase}: sequences of {max_len} tokens, {n_rounds} rounds of {len(train)} steps")

        def record(rounds_done, logs, first=epoch, before=(tokens_seen, real_tokens_seen), steps=len(train),
                   length=max_len, share=real_share):
            tokens = (rounds_done - first) * steps * batch_size * length
            return {"tokens": int(before[0] + tokens), "real_tokens": int(before[1] + share * tokens),
                    "minutes": round(checkpoint.seconds / 60, 2), "profile": profile, "rounds": rounds_done,
                    "of_rounds": len(rounds), "valid_length": length,
                    **{k: round(float(v), 4) for k, v in logs.items() if k.startswith("val_")}}

        snapshots = SnapshotCallback(model_dir, record=record,
                                     at_epochs=[r for r in keep if max(epoch, done) < r <= epoch + n_rounds])
        if done < epoch + n_rounds:
            if done > epoch:                # resumed within this phase: the rounds already read are not drawn again
                train.set_epoch(done - epoch)
            lines = [_RoundLine(len(rounds), max_len)] if verbose else []
            model.fit(train, validation_data=valid, epochs=epoch + n_rounds, initial_epoch=max(epoch, done),
                      verbose=0, callbacks=[checkpoint, snapshots, *lines])
        epoch += n_rounds
        phase_of_round += [phase] * n_rounds
        steps = n_rounds * len(train)
        tokens_seen += steps * batch_size * max_len
        real_tokens_seen += real_share * steps * batch_size * max_len
    history, seconds = {**checkpoint.history, "phase": phase_of_round}, checkpoint.seconds
    checkpoint.clear()
    return PretrainingRun(history, seconds, tokens_seen, real_tokens_seen)
