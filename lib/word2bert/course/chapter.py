"""A chapter's set-up in one call: the profile's sizes, every seed, quiet logging, a header line.

Every chapter starts the same way::

    import word2bert.course
    SIZES = {"ci": {...}, "cpu": {...}, "gpu": {...}}
    cfg = word2bert.course.setup(SIZES, seed=0)

``setup`` picks the profile (``W2B_PROFILE``, see ``word2bert.course.profiles``), seeds Python's,
NumPy's and the Keras backend's generators (``keras.utils.set_random_seed``), silences
TensorFlow's Python-side logging, registers every word2bert Keras class (so saved models load),
restarts the chapter clock of ``word2bert.course.report`` and prints one line: profile, backend,
device.

With ``W2B_SMOKE=1`` (``python -m word2bert smoke``) a chapter runs the gpu profile's model shapes, precision and
code paths with the ci profile's data slices, epochs and seeds (``word2bert.course.profiles.smoke_sizes``), on
whatever device is there: the gpu profile checked end to end without a GPU.
"""
from __future__ import annotations

import logging
import os

import numpy as np

from word2bert.course.profiles import SMOKE_ENV, pick, smoke, smoke_sizes
from word2bert.course.results import device_name, start_timer


class ChapterConfig(dict):
    """A profile's settings (a dict), with ``profile``, ``seed`` and ``rng`` as attributes too.

    ``rng`` is a ``numpy.random.Generator`` seeded with ``seed``: the chapter's one source of
    NumPy randomness.
    """

    @property
    def profile(self) -> str:
        return self["profile"]

    @property
    def seed(self) -> int:
        return self["seed"]


def setup(sizes: dict, seed: int = 0, profile: str | None = None, quiet: bool = True) -> ChapterConfig:
    """Pick a chapter's sizes, seed every generator, quiet the logs, print profile/backend/device.

    Args:
        sizes: ``{"ci": {...}, "cpu": {...}, "gpu": {...}}``, every size of the chapter.
        seed: int seed of Python's ``random``, NumPy's global state, the Keras backend and
            ``cfg.rng``.
        profile: force a profile (default: ``W2B_PROFILE``, else ``gpu`` when a GPU is seen, else
            ``cpu``).
        quiet: silence TensorFlow's and absl's Python loggers below ERROR.

    Returns:
        ``ChapterConfig``: the chosen profile's settings plus ``"profile"`` and ``"seed"``; its
        ``rng`` attribute is a seeded ``numpy.random.Generator``.

    Raises:
        ValueError: ``sizes`` lacks a profile, the profile is unknown, or ``seed`` is not a
            non-negative int; ``W2B_SMOKE`` set with a profile other than gpu, or a setting that
            ``smoke_sizes`` cannot classify.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    import keras  # word2bert's own import has already set TF_CPP_MIN_LOG_LEVEL's default

    import word2bert.register  # noqa: F401  (every serializable class, for load_model)

    if quiet:
        for name in ("tensorflow", "absl", "jax._src.xla_bridge"):
            logging.getLogger(name).setLevel(logging.ERROR)
    if smoke():
        chosen = profile or os.environ.get("W2B_PROFILE", "").strip().lower() or "gpu"
        if chosen != "gpu":
            raise ValueError(f"{SMOKE_ENV}=1 runs the gpu profile's shapes, but the profile asked for is {chosen!r}: "
                             f"unset W2B_PROFILE (or set it to gpu), or unset {SMOKE_ENV}")
        cfg = ChapterConfig(smoke_sizes(sizes))
    else:
        cfg = ChapterConfig(pick(sizes, profile))
    cfg["seed"] = int(seed)
    keras.utils.set_random_seed(int(seed))  # Python, NumPy and the backend
    cfg.rng = np.random.default_rng(int(seed))
    start_timer()
    shown = f"{cfg.profile} (smoke: ci amounts)" if cfg.get("smoke") else cfg.profile
    print(f"profile: {shown} | backend: {keras.config.backend()} | device: {device_name()} | seed: {seed}")
    return cfg
