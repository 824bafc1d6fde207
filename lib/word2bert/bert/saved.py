"""Where chapter 09 leaves its pretrained BERT, and how later chapters load it."""
from __future__ import annotations

import os
from pathlib import Path

import keras

from word2bert.bert.pretrainer import BertPretrainer  # noqa: F401  (registers what the .keras file names)
from word2bert.text import WordPieceTokenizer

MODEL_FILE = "09_bert_pretrainer.keras"
VOCAB_FILE = "09_bert_vocab.txt"


def load_pretrained(model_dir: str | os.PathLike, profile: str | None = None):
    """Load the pretrained ``BertPretrainer`` and its WordPiece tokenizer that chapter 09 saved.

    Args:
        model_dir: the folder holding ``09_bert_pretrainer.keras`` and ``09_bert_vocab.txt``
            (chapter 09 writes them to ``models/<profile>/``).
        profile: the profile named in the error message (default: the folder's name).

    Returns:
        ``(pretrainer, tokenizer)``: a ``BertPretrainer`` (``pretrainer.backbone`` is the encoder, its
        MLM head still tied to the token embedding) and a lowercasing ``WordPieceTokenizer``.

    Raises:
        FileNotFoundError: either file is missing; the message names the command that makes them
            (``python -m word2bert run --profile <profile> 09``).
        ValueError: the vocabulary and the model disagree on the number of pieces.
    """
    model_dir = Path(model_dir)
    profile = profile or model_dir.name
    missing = [name for name in (MODEL_FILE, VOCAB_FILE) if not (model_dir / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{', '.join(missing)} not found in {model_dir}: pretrain BERT first with "
                                f"`python -m word2bert run --profile {profile} 09` (chapter 09 saves them there)")
    tokenizer = WordPieceTokenizer.load(model_dir / VOCAB_FILE, lowercase=True)
    model = keras.saving.load_model(model_dir / MODEL_FILE)
    if model.backbone.vocab_size != tokenizer.vocab_size:
        raise ValueError(f"{VOCAB_FILE} has {tokenizer.vocab_size} pieces but the model was trained with "
                         f"{model.backbone.vocab_size}: the two files come from different runs")
    return model, tokenizer
