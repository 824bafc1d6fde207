"""The results contract: each chapter's last code cell prints one ``W2B_RESULTS {json}`` line.

The course runner collects these lines into its results table (``python -m word2bert table``, the website's
index and results pages).
"""
from __future__ import annotations

import json
import math
import platform
import time

_START = time.time()


def device_name() -> str:
    """A short description of the device the Keras backend computes on (``"cpu"`` or a GPU name)."""
    from word2bert.course.profiles import gpu_name

    return gpu_name() or "cpu"


def start_timer() -> float:
    """Restart the chapter clock (call in the set-up cell); returns the start time."""
    global _START
    _START = time.time()
    return _START


def report(chapter: str, profile: str, metrics: dict, seconds: float | None = None) -> dict:
    """Print the chapter's ``W2B_RESULTS {json}`` line and return the record.

    Args:
        chapter: e.g. ``"01_language_models"``.
        profile: the profile the chapter ran with.
        metrics: flat dict of str -> number (or str); floats are rounded to 4 significant
            decimals for readability.
        seconds: run time; default: since ``start_timer()`` (or since import).

    Returns:
        dict with keys ``chapter``, ``profile``, ``backend``, ``device``, ``cpu``,
        ``seconds``, ``metrics``; and ``smoke`` (True) in a smoke run (``W2B_SMOKE=1``).

    Raises:
        ValueError: unknown ``profile``; ``metrics`` is not flat (a value is a dict, list
            or array) or holds a value that is not a finite number or a string.
    """
    import keras

    from word2bert.course.profiles import PROFILES

    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")

    clean = {}
    for key, value in metrics.items():
        if hasattr(value, "item") and getattr(value, "size", 1) == 1:
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError(f"metric {key!r} must be a number or a string, got {type(value).__name__}")
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"metric {key!r} is {value}, not a finite number")
            value = float(f"{value:.6g}")
        clean[key] = value
    record = {
        "chapter": chapter,
        "profile": profile,
        "backend": keras.config.backend(),
        "device": device_name(),
        "cpu": platform.processor() or platform.machine(),
        "seconds": round(time.time() - _START if seconds is None else seconds, 1),
        "metrics": clean,
    }
    from word2bert.course.profiles import smoke

    if smoke():  # a smoke run's numbers come from a few steps: never to be read as the profile's results
        record["smoke"] = True
    print("W2B_RESULTS " + json.dumps(record))
    return record
