"""The course's machinery, on top of the library: size profiles, the results contract, a chapter's set-up, the
runner, the tests and the website, chapter 09's saved snapshots.

The library (every other ``word2bert`` package) never imports this package. Importing it sets the default of
``TF_CPP_MIN_LOG_LEVEL`` to 3 (TensorFlow's C++ start-up logs, shown in every notebook otherwise) for the course's
own process, and points the library's cache folder at the repository's ``data/cache`` when the course runs from a
checkout (``word2bert.utils.paths``); set either variable yourself to override it. It imports no deep-learning
package (Keras, TensorFlow, JAX, PyTorch): the runner and the profiles work without a backend; ``device_name`` and
``report`` ask the backend lazily, and ``setup`` (which imports Keras) is loaded on first use.
"""
import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

# lib/word2bert/course/__init__.py -> the checkout's root, when this runs from one (not from an installed wheel)
REPOSITORY = Path(__file__).resolve().parents[3]
if (REPOSITORY / "chapters").is_dir() and (REPOSITORY / "data").is_dir():
    os.environ.setdefault("WORD2BERT_CACHE", str(REPOSITORY / "data" / "cache"))

from word2bert.course.profiles import PROFILES, by_profile, gpu_name, pick, profile  # noqa: E402
from word2bert.course.results import (committed_record, device_name, read_result, report, saved_files,  # noqa: E402
                                      start_timer)
from word2bert.utils.io import atomic_save, atomic_write  # noqa: E402

__all__ = ["PROFILES", "atomic_save", "by_profile", "atomic_write", "committed_record", "device_name", "gpu_name", "pick", "profile",
           "read_result", "report", "saved_files", "setup",
           "start_timer"]


def __getattr__(name):
    if name == "setup":  # imported on first use: it loads Keras
        from word2bert.course.chapter import setup

        return setup
    raise AttributeError(f"module 'word2bert.course' has no attribute {name!r}")
