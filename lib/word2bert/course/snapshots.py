"""Where chapter 09 leaves its pretrained BERT, and how later chapters load it: the final model, and snapshots of
it taken during pretraining (each with a record of how many tokens it had read), for a curve of downstream accuracy
against pretraining tokens."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Callable

import keras

from word2bert.utils.io import atomic_save, atomic_write
from word2bert.course.profiles import PROFILES

from word2bert.models.bert.pretrainer import BertPretrainer  # noqa: F401  (registers what the .keras file names)
from word2bert.tokenizers import WordPieceTokenizer

MODEL_FILE = "09_bert_pretrainer.keras"
VOCAB_FILE = "09_bert_vocab.txt"


SNAPSHOT_PREFIX = "09_bert_snapshot_"
_SNAPSHOT = re.compile(re.escape(SNAPSHOT_PREFIX) + r"(\d+)\.json$")


def _profile_hint(model_dir) -> str:
    """The profile a models/<profile>/ folder belongs to, or the choice of profiles when its name is none."""
    name = Path(model_dir).name
    return name if name in PROFILES else "|".join(PROFILES)


def load_pretrained(model_dir: str | os.PathLike, profile: str | None = None, snapshot: dict | None = None):
    """Load the pretrained ``BertPretrainer`` and its WordPiece tokenizer that chapter 09 saved.

    Args:
        model_dir: the folder holding ``09_bert_pretrainer.keras`` and ``09_bert_vocab.txt``
            (chapter 09 writes them to ``models/<profile>/``).
        profile: the profile named in the error message (default: the folder's name).
        snapshot: one record from ``pretraining_snapshots(model_dir)``: load that snapshot instead of the final
            model (the same vocabulary).

    Returns:
        ``(pretrainer, tokenizer)``: a ``BertPretrainer`` (``pretrainer.backbone`` is the encoder, its
        MLM head still tied to the token embedding) and a lowercasing ``WordPieceTokenizer``.

    Raises:
        FileNotFoundError: either file is missing; the message names the command that makes them
            (``python -m word2bert run --profile <profile> 09``).
        ValueError: the vocabulary and the model disagree on the number of pieces.
    """
    model_dir = Path(model_dir)
    profile = profile or _profile_hint(model_dir)
    model_name = snapshot["file"] if snapshot is not None else MODEL_FILE
    missing = [name for name in (model_name, VOCAB_FILE) if not (model_dir / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{', '.join(missing)} not found in {model_dir}: chapter 09 saves them there. From the "
                                f"course's root folder, `python -m word2bert run --profile {profile} 09` pretrains BERT; "
                                f"`python -m word2bert run --profile {profile} NN` runs chapter NN after 09 when 09's "
                                f"files are missing")
    tokenizer = WordPieceTokenizer.load(model_dir / VOCAB_FILE, lowercase=True)
    model = keras.saving.load_model(model_dir / model_name)
    if model.backbone.vocabulary_size != tokenizer.vocabulary_size:
        raise ValueError(f"{VOCAB_FILE} has {tokenizer.vocabulary_size} pieces but the model was trained with "
                         f"{model.backbone.vocabulary_size}: the two files come from different runs")
    return model, tokenizer


def save_snapshot(model: keras.Model, model_dir: str | os.PathLike, epochs: int, record: dict) -> Path:
    """Save a snapshot of a pretraining model and its record, each file atomically.

    Args:
        model: the ``BertPretrainer`` being trained.
        model_dir: the folder (``models/<profile>/``); created if missing.
        epochs: Keras epochs (chapter 09's rounds) completed; names the files ``09_bert_snapshot_<epochs>.keras``
            and ``.json``.
        record: JSON-able facts about the snapshot; it should hold ``tokens`` (pretraining tokens read so far, an
            int >= 0); ``epochs`` and ``file`` are added.

    Returns:
        the ``Path`` of the ``.json`` record (written after the model, so a record always has its model).

    Raises:
        ValueError: ``epochs`` < 1, or ``record`` lacks a non-negative int ``tokens``.
    """
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise ValueError(f"epochs must be an int >= 1, got {epochs!r}")
    tokens = record.get("tokens")
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise ValueError(f"record['tokens'] must be an int >= 0 (pretraining tokens read), got {tokens!r}")
    model_dir = Path(model_dir)
    name = f"{SNAPSHOT_PREFIX}{epochs:03d}"
    atomic_save(model.save, model_dir / f"{name}.keras")
    return atomic_write(model_dir / f"{name}.json",
                        json.dumps({**record, "epochs": epochs, "file": f"{name}.keras"}, indent=1))


def pretraining_snapshots(model_dir: str | os.PathLike) -> list[dict]:
    """The snapshot records in ``model_dir``, fewest tokens first (each with ``file``, ``epochs``, ``tokens`` and
    whatever else chapter 09 recorded: minutes, profile, held-out scores). Empty if the folder holds none.

    Raises:
        FileNotFoundError: ``model_dir`` is not a folder (the message names the command that makes it).
        ValueError: a record is not valid JSON or lacks ``tokens`` / ``file`` (the message names the file).
    """
    if not Path(model_dir).is_dir():
        raise FileNotFoundError(f"{model_dir} is not a folder: chapter 09 writes its snapshots to models/<profile>/; "
                                f"run it first with `python -m word2bert run --profile {_profile_hint(model_dir)} 09`")
    records = []
    for path in sorted(Path(model_dir).glob(f"{SNAPSHOT_PREFIX}*.json")):
        if not _SNAPSHOT.search(path.name):
            continue
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} is not valid JSON ({e}); delete it and rerun chapter 09") from None
        if not isinstance(record, dict) or not {"tokens", "file"} <= set(record):
            raise ValueError(f"{path} lacks 'tokens' or 'file': not a snapshot record chapter 09 wrote")
        records.append(record)
    return sorted(records, key=lambda r: (r["tokens"], r.get("epochs", 0)))


class SnapshotCallback(keras.callbacks.Callback):
    """Save the model after chosen epochs of ``fit`` (``save_snapshot``), with a record the caller supplies.

    Args:
        model_dir: where the snapshots go.
        at_epochs: epoch counts (1-based: epochs completed, counted as Keras counts them, so with ``initial_epoch``
            across several ``fit`` calls) after which to save.
        record: ``record(epochs_completed, logs) -> dict`` with at least ``tokens``, called at save time
            (``logs``: the epoch's metrics as Keras passes them, ``val_*`` included when ``fit`` validates).

    Raises:
        ValueError: an entry of ``at_epochs`` is not an int >= 1.
    """

    def __init__(self, model_dir: str | os.PathLike, at_epochs, record: Callable[[int, dict], dict]):
        super().__init__()
        at_epochs = sorted(set(at_epochs))
        if any(isinstance(e, bool) or not isinstance(e, int) or e < 1 for e in at_epochs):
            raise ValueError(f"at_epochs must be ints >= 1, got {at_epochs!r}")
        self.model_dir, self.at_epochs, self.record, self.saved = Path(model_dir), at_epochs, record, []

    def on_epoch_end(self, epoch, logs=None):
        if epoch + 1 in self.at_epochs:
            self.saved.append(save_snapshot(self.model, self.model_dir, epoch + 1, self.record(epoch + 1, dict(logs or {}))))
