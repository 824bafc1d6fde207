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
