"""The results contract: each chapter's last code cell prints one ``W2B_RESULTS {json}`` line.

The course runner collects these lines into its results table (``python -m word2bert table``, the website's
index and results pages).
"""
from __future__ import annotations

import json
import math
import os
import platform
import time
from pathlib import Path

_START = time.time()
_INPUTS: list[dict] = []   # what this chapter read from other chapters' records (read_result), reported under "inputs"


def device_name() -> str:
    """A short description of the device the Keras backend computes on (``"cpu"`` or a GPU name)."""
    from word2bert.course.profiles import gpu_name

    return gpu_name() or "cpu"


def start_timer() -> float:
    """Restart the chapter clock (call in the set-up cell) and forget the inputs read so far; returns the start time."""
    global _START
    _START = time.time()
    _INPUTS.clear()
    return _START


def committed_record(chapter: str, chapters_dir: str | os.PathLike | None = None) -> dict:
    """The record a chapter's saved notebook holds: the last ``W2B_RESULTS`` line of ``chapters/<chapter>.ipynb``.

    A chapter's notebook is its saved record: the course runner writes it back after a run with ``--inplace``, and
    Jupyter saves it after a learner runs it.

    Args:
        chapter: the chapter's file name without ``.ipynb`` (``"01_language_models"``).
        chapters_dir: the folder of the chapters; default: the current folder when it holds the notebook (a chapter
            runs in ``chapters/``), else ``chapters/`` under the current folder (the course's root).

    Returns:
        the parsed record (``chapter``, ``profile``, ``seconds``, ``metrics``, ...).

    Raises:
        FileNotFoundError: no such notebook, or one whose only results lines are a smoke run's or that has none
            (never run and saved); the message gives the command that runs it.
    """
    folder = Path(chapters_dir) if chapters_dir is not None else (
        Path(".") if Path(f"{chapter}.ipynb").exists() else Path("chapters"))
    path = folder / f"{chapter}.ipynb"
    if not path.exists():
        raise FileNotFoundError(f"no chapter notebook {path.resolve()}")
    import nbformat

    from word2bert.course.runner import results_of

    found = [r for r in results_of(nbformat.read(path, as_version=4)) if not r.get("smoke")]
    if not found:
        raise FileNotFoundError(f"{path.name} holds no results line (it has not been run and saved): from the course's "
                                f"root, run `python -m word2bert run --profile cpu --inplace {chapter[:2]}`")
    return found[-1]


def read_result(chapter: str, key: str, chapters_dir: str | os.PathLike | None = None) -> float | int | str:
    """A number another chapter printed, read from its saved record and noted as one of this chapter's inputs.

    A chapter that quotes another chapter's result reads it here rather than typing it, so the two cannot drift
    apart; ``report`` then lists every value read under ``"inputs"`` in this chapter's ``W2B_RESULTS`` line
    (``chapter``, ``key``, ``value`` and the ``profile`` of the run it comes from), and the course's tests compare
    each one with the source chapter's committed line.

    Args:
        chapter: the source chapter's file name without ``.ipynb`` (``"01_language_models"``).
        key: a metric of its ``W2B_RESULTS`` line (``"ppl_test_nnlm"``).
        chapters_dir: as in ``committed_record``.

    Returns:
        the metric's value (a number or a string).

    Raises:
        FileNotFoundError: as ``committed_record``.
        KeyError: the record has no such metric (the message lists the ones it has).
    """
    record = committed_record(chapter, chapters_dir)
    if key not in record["metrics"]:
        raise KeyError(f"{chapter}'s results have no {key!r}; they have: {', '.join(sorted(record['metrics']))}")
    value = record["metrics"][key]
    entry = {"chapter": chapter, "key": key, "value": value, "profile": record["profile"]}
    if entry not in _INPUTS:
        _INPUTS.append(entry)
    return value


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
        ``seconds``, ``metrics``; ``inputs`` (the other chapters' results read with ``read_result`` since
        ``start_timer``), when there are any; and ``smoke`` (True) in a smoke run (``W2B_SMOKE=1``).

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
    if _INPUTS:
        record["inputs"] = [dict(entry) for entry in _INPUTS]
    from word2bert.course.profiles import smoke

    if smoke():  # a smoke run's numbers come from a few steps: never to be read as the profile's results
        record["smoke"] = True
    print("W2B_RESULTS " + json.dumps(record))
    return record


def saved_files(reader: str, names, profile: str, models_dir: str | os.PathLike | None = None) -> list[Path]:
    """The paths of files an earlier chapter saved, checked to be there before a chapter reads them.

    Args:
        reader: the chapter that reads them (``"06_attention"``), named in the command of the error message.
        names: file names in ``models/<profile>/``, each starting with the number of the chapter that saves it
            (``"05_seq2seq_none.keras"``).
        profile: the profile whose files are read.
        models_dir: default ``../models/<profile>`` (a chapter runs in ``chapters/``).

    Returns:
        the paths, in the order of ``names``.

    Raises:
        FileNotFoundError: a file is missing; the message names the chapter that saves it and the exact command that
            runs that chapter first and then this one.
    """
    folder = Path(models_dir) if models_dir is not None else Path("..") / "models" / profile
    paths = [folder / name for name in names]
    missing = [p.name for p in paths if not p.exists()]
    if missing:
        savers = sorted({name[:2] for name in missing})
        raise FileNotFoundError(
            f"{', '.join(missing)} not found in {folder.resolve()}: chapter{'s' if len(savers) > 1 else ''} "
            f"{', '.join(savers)} save{'' if len(savers) > 1 else 's'} {'them' if len(missing) > 1 else 'it'}. From "
            f"the course's root folder, `python -m word2bert run --profile {profile} {reader[:2]}` runs "
            f"{', '.join(savers)} first and then this chapter")
    return paths
