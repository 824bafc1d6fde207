"""Size profiles: one switch that scales every chapter.

``W2B_PROFILE`` selects how big each chapter's corpora, models and epochs are:

=======  =====================================================================
``ci``   tiny; a chapter runs in about a minute on 2 CPU cores (the CI check)
``cpu``  a laptop; at most about 15 minutes a chapter on a few CPU cores
``gpu``  the full small models of the course, on one GPU
=======  =====================================================================

When ``W2B_PROFILE`` is unset the default is ``gpu`` if the active Keras backend sees
a GPU, else ``cpu``.
"""
from __future__ import annotations

import contextlib
import os
import sys

PROFILES = ("ci", "cpu", "gpu")


@contextlib.contextmanager
def quiet_native_stderr():
    """Send file descriptor 2 to /dev/null for the duration: silences C++ start-up logs.

    TensorFlow and XLA write their start-up lines (``cuInit`` failures on a machine without a
    GPU, oneDNN notes) straight to the process's stderr, below Python, when a backend is first
    imported; ``TF_CPP_MIN_LOG_LEVEL`` no longer covers all of them. Python's own ``sys.stderr``
    writes made inside the block are lost too, so keep the block to the import.
    """
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no real fd 2 (some notebook front-ends)
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def gpu_name() -> str | None:
    """A short name of the first GPU the active Keras backend sees, or None when it sees none.

    A missing Keras or a broken accelerator stack counts as no usable GPU.
    """
    try:
        with quiet_native_stderr():  # the backend's first import prints C++ start-up lines
            import keras

            backend = keras.config.backend()
            if backend == "tensorflow":
                import tensorflow as tf

                gpus = tf.config.list_physical_devices("GPU")
                return f"gpu:{gpus[0].name}" if gpus else None
            if backend == "jax":
                import jax

                gpus = [d for d in jax.devices() if d.platform == "gpu"]
                return f"gpu:{getattr(gpus[0], 'device_kind', '')}" if gpus else None
            if backend == "torch":
                import torch

                return f"cuda:{torch.cuda.get_device_name(0)}" if torch.cuda.is_available() else None
    except Exception:
        return None
    return None


def _gpu_visible() -> bool:
    """True when the active Keras backend can see at least one GPU."""
    return gpu_name() is not None


def profile(name: str | None = None) -> str:
    """Return the active size profile: ``"ci"``, ``"cpu"`` or ``"gpu"``.

    Args:
        name: an explicit profile; when None, the ``W2B_PROFILE`` environment variable is
            read, and when that is unset or empty, ``"gpu"`` if a GPU is visible to the
            Keras backend, else ``"cpu"``.

    Returns:
        str, one of ``PROFILES``.

    Raises:
        ValueError: the name (argument or ``W2B_PROFILE``) is not one of ``ci``, ``cpu``,
            ``gpu``; the message says how to set it.
    """
    source = "profile name"
    if name is None:
        name = os.environ.get("W2B_PROFILE", "").strip()
        source = "W2B_PROFILE"
    if not name:
        return "gpu" if _gpu_visible() else "cpu"
    name = name.lower()
    if name not in PROFILES:
        raise ValueError(
            f"unknown {source} {name!r}: use one of ci, cpu, gpu "
            f"(for example: export W2B_PROFILE=cpu)"
        )
    return name


def pick(table: dict, name: str | None = None) -> dict:
    """Select one profile's settings from a ``{profile: {setting: value}}`` table.

    Every chapter keeps all of its sizes in one such table at its top::

        SIZES = {"ci": {"epochs": 1}, "cpu": {"epochs": 4}, "gpu": {"epochs": 20}}
        cfg = pick(SIZES)          # -> {"epochs": 4} on a laptop

    Args:
        table: dict keyed by ``"ci"``, ``"cpu"`` and ``"gpu"``.
        name: profile to use; default ``profile()``.

    Returns:
        The selected inner dict (a shallow copy), with ``"profile"`` added.

    Raises:
        ValueError: the table lacks one of the three profiles, or the profile is unknown.
    """
    missing = [p for p in PROFILES if p not in table]
    if missing:
        raise ValueError(f"profile table lacks {missing}; it needs keys {list(PROFILES)}")
    chosen = profile(name)
    cfg = dict(table[chosen])
    cfg["profile"] = chosen
    return cfg


def by_profile(**settings) -> dict:
    """A profile table written one line per setting: each setting's values for ``ci``, ``cpu`` and ``gpu``.

    ::

        SIZES = by_profile(             #  ci    cpu    gpu
            epochs=(1, 4, 20),          # passes over the training data
            units=(64, 256, 512),       # GRU width
        )
        # == {"ci": {"epochs": 1, "units": 64}, "cpu": {"epochs": 4, "units": 256}, "gpu": {...}}

    Args:
        settings: each a tuple or list of exactly three values, in the order of ``PROFILES`` (ci, cpu, gpu); a
            setting whose value is itself a tuple is written as a tuple of three tuples.

    Returns:
        ``{profile: {setting: value}}``, the table ``pick`` and ``word2bert.course.setup`` read.

    Raises:
        ValueError: a setting that is not three values (the message names it).
    """
    table = {p: {} for p in PROFILES}
    for name, values in settings.items():
        if not isinstance(values, (tuple, list)) or len(values) != len(PROFILES):
            raise ValueError(f"setting {name!r} must give {len(PROFILES)} values, for {', '.join(PROFILES)}; "
                             f"got {values!r}")
        for p, value in zip(PROFILES, values):
            table[p][name] = value
    return table


# ---------------------------------------------------------------------------------------------------------------
# The gpu profile exercised without a GPU: W2B_SMOKE=1
# ---------------------------------------------------------------------------------------------------------------

SMOKE_ENV = "W2B_SMOKE"

# Settings that say *how much* a chapter does (data slices, epochs, steps, seeds, sweeps, learned-result
# thresholds, and the batch sizes those slices must fill): a smoke run takes them from the ci profile. Every other
# setting (model shapes, sequence lengths, precision policy, which code paths run) comes from the gpu profile. Every
# key of every chapter's table is named in exactly one of the sets below (tests/course/test_profiles.py checks the
# chapters), so a new setting has to be classified before a smoke run can use it.
SMOKE_AMOUNTS = frozenset({
    # data slices
    "train_sentences", "eval_sentences", "tokens", "wiki_sentences", "ptb_sentences", "train_pairs", "test_sources",
    "train_verses", "wiki_train_articles", "hub_verses", "documents", "sizes", "pos_train", "pos_eval",
    "polarity_train", "polarity_eval", "heads_pairs", "senses", "pairs", "ptb_train", "ptb_eval", "eval",
    "counts", "valid", "test", "curve_count",
    "valid_pairs", "bleu_subset", "blanks", "fill_in", "speed_rows", "speed_tokens", "bert_snapshot",
    # vocabularies learned from those slices
    "vocabulary_size", "translation_sizes", "keep_size", "step_vocab",
    # epochs, steps, budgets, patience, schedules tied to them
    "nnlm_epochs", "lstm_epochs", "lstm_decay_after", "epochs", "cbow_epochs", "glove_epochs", "w2v_epochs",
    "max_epochs", "min_steps", "epoch_cap", "patience", "train_minutes", "warmup_steps", "probe_epochs", "probe_steps",
    "static_epochs", "mix_epochs", "tune_epochs", "ptb_epochs", "budget", "chapter06_epochs",
    # batch sizes: a data slice must fill them (chapter 09's 24 documents give 122 held-out pairs, not 128)
    "batch_size", "batch", "nnlm_batch", "glove_batch", "ptb_batch", "pre_batch", "speed_batch",
    # repeats and sweeps
    "seeds", "noise_seeds", "beam_settings", "rates", "frozen", "l2_values",
    # what a learned result must reach (a few steps learn little), and the comparisons that need full data
    "strict", "compare", "compare_with_ngrams", "compare_with_copy", "compare_scores", "compare_with_words", "min_gain",
    "min_rho_gain", "cbow_tolerance", "mlm_factor", "nsp_floor", "nsp_margin",
})
SMOKE_SHAPES = frozenset({
    "kn_orders", "nnlm_hidden", "seq_len", "hidden_dim", "dropout",
    "wikipedia", "max_vocab", "dim", "window", "max_p", "min_count", "negatives", "sample", "lr", "adam_lr",
    "window_size", "glove_lr", "max_len", "src_vocab", "tgt_vocab", "embedding_dim",
    "units", "learning_rate", "scores", "pieces", "gru",
    "model", "peak_learning_rate", "label_smoothing", "precision", "recipe", "packed", "mask_rate",
    "warmup_share", "checkpoint", "lengths", "stride", "doc_stride", "buckets", "curve", "reference_blocks", "ptb_model",
    "ptb_len", "ptb_rate", "ptb_dropout", "eval_stride", "size", "pre_len", "pre_rate",
    "task_len", "pll_len",
})

# Settings that hold both: chapter 09's phases are (max_len, rounds, pairs per round); the encoder it saves is as
# long as its last phase, and chapters 10-11 read it at the gpu profile's lengths, so a smoke run keeps the gpu
# lengths and takes the rounds and pairs from ci.
SMOKE_MIXED = {
    "phases": lambda ci, gpu: tuple((g[0], *c[1:]) for c, g in zip(ci, gpu, strict=True)),
}


def smoke() -> bool:
    """True when ``W2B_SMOKE`` asks for a smoke run (``1``, ``true`` or ``yes``); False when unset, empty or
    ``0``/``false``/``no``.

    Raises:
        ValueError: any other value (the message says what to write).
    """
    value = os.environ.get(SMOKE_ENV, "").strip().lower()
    if value in ("", "0", "false", "no"):
        return False
    if value in ("1", "true", "yes"):
        return True
    raise ValueError(f"{SMOKE_ENV}={value!r} is not understood: set it to 1 for a smoke run, or unset it")


def smoke_sizes(table: dict) -> dict:
    """A chapter's settings for a smoke run: the gpu profile's shapes with the ci profile's amounts.

    Args:
        table: ``{"ci": {...}, "cpu": {...}, "gpu": {...}}`` as ``pick`` takes it.

    Returns:
        dict: every gpu setting, those named in ``SMOKE_AMOUNTS`` replaced by their ci value and those in
        ``SMOKE_MIXED`` merged from both; ``"profile"`` is ``"gpu"`` and ``"smoke"`` is True.

    Raises:
        ValueError: the table lacks a profile; a setting named in none of ``SMOKE_AMOUNTS``, ``SMOKE_SHAPES`` and
            ``SMOKE_MIXED`` (classify it there first); an amount the ci profile does not set; mixed settings that
            do not pair up (two phases against three).
    """
    missing = [p for p in PROFILES if p not in table]
    if missing:
        raise ValueError(f"profile table lacks {missing}; it needs keys {list(PROFILES)}")
    gpu, ci = table["gpu"], table["ci"]
    unknown = sorted(k for k in gpu if k not in SMOKE_AMOUNTS and k not in SMOKE_SHAPES and k not in SMOKE_MIXED)
    if unknown:
        raise ValueError(f"settings {unknown} are neither amounts nor shapes for a smoke run: add each to "
                         "SMOKE_AMOUNTS or SMOKE_SHAPES in word2bert.course.profiles")
    no_ci = sorted(k for k in gpu if (k in SMOKE_AMOUNTS or k in SMOKE_MIXED) and k not in ci)
    if no_ci:
        raise ValueError(f"amounts {no_ci} have no ci value to run a smoke run with")
    cfg = {k: (SMOKE_MIXED[k](ci[k], v) if k in SMOKE_MIXED else ci[k] if k in SMOKE_AMOUNTS else v)
           for k, v in gpu.items()}
    cfg["profile"], cfg["smoke"] = "gpu", True
    return cfg
