"""``python -m word2bert test``: the project's tests, as CI runs them (README command (b) ends with it).

Two passes over the same unit tests, one per Keras backend, and the chapters under nbval at the ``ci`` profile:

- TensorFlow: ``pytest tests chapters --nbval-lax --nbval-current-env -n 2 --dist loadgroup`` with
  ``W2B_PROFILE=ci`` (two xdist workers; ``chapters/conftest.py`` keeps each chain of chapters on one worker);
- JAX: ``pytest tests -m "not once_on_tensorflow and (not slow or jax_too)"`` with ``KERAS_BACKEND=jax`` (the
  tests that touch the backend, less the slow ones that the TensorFlow pass covers unless they are marked
  ``jax_too``: see ``tests/backends.py``; one process beside the TensorFlow pass, two xdist workers when it runs
  alone).

By default the two passes run at the same time: neither keeps both cores busy on its own (notebook kernels and
small models wait on Python), so together they finish sooner than one after the other. The TensorFlow pass prints
as it goes; the JAX pass writes to ``runs/tests-jax.log``, printed when it ends. ``--one-after-the-other`` runs
them in turn (both printed live); ``--fast`` runs the developer's loop instead (``pytest tests -m "not slow" -n 2``,
TensorFlow). Imports no ML code: everything runs in subprocesses.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

TF_PASS = ["tests", "chapters", "--nbval-lax", "--nbval-current-env", "-n", "2", "--dist", "loadgroup",
           "--durations=25"]
JAX_MARKERS = "not once_on_tensorflow and (not slow or jax_too)"
JAX_PASS = ["tests", "-m", JAX_MARKERS, "--durations=25"]   # + "-n 2" when it runs alone
FAST = ["tests", "-m", "not slow", "-n", "2"]


def _pytest(args):
    return [sys.executable, "-m", "pytest", *args]


def _env(**extra):
    return {**os.environ, **extra}


def run_tests(mode: str = "together", root: str | os.PathLike = ".", log_dir: str | os.PathLike = "runs") -> int:
    """Run the tests; return 0 if every pass passed, else the first non-zero pytest exit code.

    Args:
        mode: ``"together"`` (both passes at once), ``"one-after-the-other"``, or ``"fast"``.
        root: the repository root (where ``tests/`` and ``chapters/`` are).
        log_dir: where the JAX pass's log goes in ``"together"`` mode (created if missing).

    Raises:
        ValueError: an unknown ``mode``.
        FileNotFoundError: ``root`` has no ``tests`` folder.
    """
    if mode not in ("together", "one-after-the-other", "fast"):
        raise ValueError(f"mode must be 'together', 'one-after-the-other' or 'fast', got {mode!r}")
    root = Path(root)
    if not (root / "tests").is_dir():
        raise FileNotFoundError(f"no tests folder in {root.resolve()}: run from the repository root")
    tf_env = _env(W2B_PROFILE="ci", KERAS_BACKEND="tensorflow")
    jax_env = _env(KERAS_BACKEND="jax")
    started = time.perf_counter()

    def minutes():
        return f"{(time.perf_counter() - started) / 60:.1f} min"

    if mode == "fast":
        return subprocess.call(_pytest(FAST), cwd=root, env=tf_env)
    if mode == "one-after-the-other":
        tf = subprocess.call(_pytest(TF_PASS), cwd=root, env=tf_env)
        print(f"word2bert test: TensorFlow pass ended after {minutes()} (exit code {tf})", flush=True)
        jax = subprocess.call(_pytest(JAX_PASS + ["-n", "2"]), cwd=root, env=jax_env)
        print(f"word2bert test: JAX pass ended after {minutes()} (exit code {jax})", flush=True)
        return tf or jax
    log_path = Path(log_dir) if Path(log_dir).is_absolute() else root / log_dir
    log_path.mkdir(parents=True, exist_ok=True)
    log_path = log_path / "tests-jax.log"
    with open(log_path, "w", encoding="utf-8") as log:
        jax_proc = subprocess.Popen(_pytest(JAX_PASS), cwd=root, env=jax_env, stdout=log, stderr=subprocess.STDOUT)
        print(f"word2bert test: JAX pass started in the background, log in {log_path}", flush=True)
        try:
            tf = subprocess.call(_pytest(TF_PASS), cwd=root, env=tf_env)
            print(f"word2bert test: TensorFlow pass ended after {minutes()} (exit code {tf})", flush=True)
            jax = jax_proc.wait()
        except BaseException:
            jax_proc.kill()
            raise
    print(f"word2bert test: JAX pass ended after {minutes()} (exit code {jax}); its output:", flush=True)
    print(log_path.read_text(encoding="utf-8"), flush=True)
    return tf or jax
