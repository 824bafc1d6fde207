"""Subword translation data for the Transformer: WordPiece ids with start/end tokens, training with
``fit`` on length-grouped batches, and translation back to text in the form BLEU compares.

The start and end tokens of the target are WordPiece's ``[CLS]`` and ``[SEP]`` (the target
tokenizer's ``cls_token`` and ``sep_token``; ``word2bert.tokenizers.BERT_SPECIALS``); id 0 (``[PAD]``) is
padding on both sides. Pairs become arrays under the length policy of every translation model
(``word2bert.preprocessing.batching.teacher_forcing_arrays``).
"""
from __future__ import annotations


import keras
import numpy as np

from word2bert.preprocessing.batching import length_batches_by_epoch, pad_rows, teacher_forcing_arrays
from word2bert.preprocessing import LengthBatches
from word2bert.training.best import fit_keeping_best
from word2bert.metrics.token_accuracy import MaskedAccuracy
from word2bert.training.resumable import resumable_fit
from word2bert.tokenizers.wordpiece import BERT_SPECIALS
from word2bert.tokenizers.words import detokenize, tokenize
from word2bert.models.transformer.training import MaskedCrossEntropy, TransformerSchedule

START, END = BERT_SPECIALS[2], BERT_SPECIALS[3]   # "[CLS]", "[SEP]"


def _start_end(tokenizer) -> tuple[int, int]:
    """The target tokenizer's start and end ids: its ``cls_token`` and ``sep_token`` (default ``[CLS]``, ``[SEP]``)."""
    return (tokenizer.token_to_id(getattr(tokenizer, "cls_token", START)),
            tokenizer.token_to_id(getattr(tokenizer, "sep_token", END)))


def encode_sources(texts, tokenizer, sequence_length: int) -> np.ndarray:
    """Source texts as int32 ids ``(N, L)``, 0-padded, each cut to ``sequence_length`` pieces (L <= sequence_length).

    Raises:
        ValueError: ``sequence_length`` < 1 or no text.
    """
    if sequence_length < 1:
        raise ValueError(f"sequence_length must be >= 1, got {sequence_length}")
    if not texts:
        raise ValueError("encode_sources needs at least one text")
    unk = tokenizer.token_to_id(getattr(tokenizer, "unk_token", BERT_SPECIALS[1]))
    return pad_rows([tokenizer.encode(t)[:sequence_length] or [unk] for t in texts])


def encode_translation_pairs(pairs, source_tokenizer, target_tokenizer, sequence_length: int):
    """Teacher-forcing arrays of (source, target) text pairs in WordPiece ids.

    A pair is kept when its source has 1..``sequence_length`` pieces and its target 1..``sequence_length - 1``
    (room for the start or end token); the others are left out, never cut
    (``word2bert.preprocessing.batching.teacher_forcing_arrays``).

    Args:
        pairs: list of ``(source, target)`` strings.
        source_tokenizer, target_tokenizer: ``WordPieceTokenizer`` (target: with ``[CLS]`` and ``[SEP]``).
        sequence_length: the model's longest sequence.

    Returns:
        ``(source, decoder_input, decoder_target, kept)``: int32 arrays ``(n, sequence_length)``
        (``[CLS] y`` and ``y [SEP]``), and the indices of the kept pairs.

    Raises:
        ValueError: ``sequence_length`` < 2; no pair fits.
    """
    if sequence_length < 2:
        raise ValueError(f"sequence_length must be >= 2, got {sequence_length}")
    start, end = _start_end(target_tokenizer)
    sources = [source_tokenizer.encode(src) for src, _ in pairs]
    targets = [target_tokenizer.encode(tgt) for _, tgt in pairs]
    # the decoder rows hold the start or end token too: sequence_length - 1 target pieces fill the model's sequence_length positions
    return teacher_forcing_arrays(sources, targets, start, end, sequence_length, sequence_length - 1, width=sequence_length)


def train_transformer(model, train, valid, epochs: int, batch_size: int, warmup_steps: int,
                      label_smoothing: float = 0.1, lr_scale: float = 1.0, clipnorm: float | None = 1.0,
                      seed: int = 0, verbose: int = 2, jit_compile: bool = False,
                      callbacks=(), learning_rate=None, checkpoint_dir=None) -> tuple[dict, float]:
    """Compile and ``fit`` a ``Transformer`` the paper's way; keep the weights of the best validation epoch.

    Adam (beta_2 = 0.98, epsilon = 1e-9, as the paper) with ``TransformerSchedule(hidden_dim,
    warmup_steps, lr_scale)``; ``MaskedCrossEntropy(label_smoothing)``; ``MaskedAccuracy`` (right
    tokens / real tokens of the epoch, as ``masked_accuracy``); training batches of similar length
    (``LengthBatches``); validation on the padded arrays (a few batches of widths Keras could take as
    fixed). Every epoch runs (unless a callback stops training); at the end the weights of the epoch
    with the lowest ``val_loss`` are restored (``keras.callbacks.EarlyStopping(restore_best_weights=True)``
    with a patience that never stops, as ``train_seq2seq`` keeps its best epoch).

    Args:
        model: a ``Transformer``.
        train, valid: ``(source, decoder_input, decoder_target)`` arrays (``encode_translation_pairs``).
        epochs: epochs to train; batch_size: pairs per batch; warmup_steps, lr_scale: of the schedule.
        label_smoothing: eps_ls (0.1 in the paper); clipnorm: gradient clipping (None: off).
        seed: batch order; verbose: ``fit``'s verbosity; jit_compile: ``compile``'s (False: on CPU XLA was
            about 3x slower in ``benchmarks/transformer.py``); callbacks: more ``fit`` callbacks.
        learning_rate: a float or a ``keras.optimizers.schedules.LearningRateSchedule`` used instead of
            ``TransformerSchedule`` (then ``warmup_steps`` and ``lr_scale`` are not used), e.g.
            ``warmup_inverse_sqrt(peak, warmup_steps)``.
        checkpoint_dir: a folder for the training's state after every epoch (``word2bert.training.resumable.resumable_fit``,
            its batches from ``length_batches_by_epoch``): a run that was killed, called again with the same folder,
            carries on from its last finished epoch with the same batches, keeps the best epoch's weights, and gives
            the callbacks that have ``get_state`` (``BleuCurve``) their state back; the folder is deleted at the end.
            None: a plain ``fit``.

    Returns:
        ``(history, seconds)``: per-epoch lists (``loss``, ``val_loss``, ``masked_accuracy``, ...) and
        the wall seconds of ``fit`` (with ``checkpoint_dir``: over every epoch, those before a resume included).

    Raises:
        ValueError: ``epochs`` or ``batch_size`` < 1; a model whose vocabularies are smaller than the ids.
    """
    if epochs < 1 or batch_size < 1:
        raise ValueError(f"epochs and batch_size must be >= 1, got {epochs}, {batch_size}")
    for side, size, ids in (("source", model.source_vocabulary_size, train[0]),
                            ("target", model.target_vocabulary_size, train[2])):
        if int(np.max(ids)) >= size:
            raise ValueError(f"the model's {side}_vocabulary_size is {size} but the data holds id {int(np.max(ids))}")
    if not model.built:
        model.build()                 # its weights now, as fit would make them at its first batch
    if learning_rate is None:
        learning_rate = TransformerSchedule(model.hidden_dim, warmup_steps, lr_scale)
    optimizer = keras.optimizers.Adam(learning_rate, beta_1=0.9,
                                      beta_2=0.98, epsilon=1e-9, clipnorm=clipnorm)
    # jit_compile=False: on CPU, XLA made the train step about 3x slower here (benchmarks/transformer.py)
    model.compile(optimizer=optimizer, loss=MaskedCrossEntropy(label_smoothing),
                  metrics=[MaskedAccuracy(name="masked_accuracy")], jit_compile=jit_compile)
    validation = ((valid[0], valid[1]), valid[2])
    if checkpoint_dir is not None:
        # patience=epochs: never stops early, but ends on the weights of the epoch with the lowest val_loss
        run = resumable_fit(model, length_batches_by_epoch(*train, batch_size, seed=seed), epochs=epochs,
                            checkpoint_dir=checkpoint_dir, validation_data=validation, patience=epochs,
                            callbacks=callbacks, verbose=verbose, keep=False)
        return run["history"], run["seconds"]
    run = fit_keeping_best(model, LengthBatches(tuple(train[:2]), train[2], batch_size, seed=seed), epochs=epochs,
                           validation_data=validation, patience=epochs, callbacks=callbacks, verbose=verbose)
    return run["history"], run["seconds"]


def translate_texts(model, texts, source_tokenizer, target_tokenizer, max_length: int, beam_width: int = 1,
                    alpha: float = 0.6, batch_size: int = 128, use_cache: bool = True,
                    length_limit: tuple | None = (1.5, 10)) -> list[str]:
    """Translate source texts; return outputs in the form of ``group_references``'s references.

    Sentences are decoded in batches of similar length (then put back in order). Each output is
    detokenized WordPiece text put through ``detokenize(tokenize(...))`` (lowercase words,
    punctuation attached), exactly as the references are, so BLEU compares like with like.

    Args:
        model: a ``Transformer``; texts: list of source strings.
        source_tokenizer, target_tokenizer: the two ``WordPieceTokenizer``.
        max_length: the longest source (in pieces) and output; beam_width, alpha, batch_size, use_cache,
            length_limit: as ``Transformer.translate`` (by default a batch stops after 1.5 times its longest
            source + 10 pieces: English verses here have about 1.06 pieces per Spanish piece).

    Returns:
        list of strings, one per text.
    """
    source = encode_sources(list(texts), source_tokenizer, max_length)
    order = np.argsort((source > 0).sum(axis=1), kind="stable")
    ids = model.translate(source[order], *_start_end(target_tokenizer),
                          max_length, beam_width=beam_width, alpha=alpha, batch_size=batch_size, use_cache=use_cache,
                          length_limit=length_limit)
    out = [""] * len(texts)
    for row, seq in zip(order, ids):
        out[row] = detokenize(tokenize(target_tokenizer.detokenize(seq)))
    return out
