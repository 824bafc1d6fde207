"""The course as a website: ``python -m word2bert site`` builds ``_build/site/`` offline.

The site is made from what is committed: the executed chapters (text, equations, code, outputs and plots as they
are, never run again), their ``W2B_RESULTS`` lines (the index's table and the results page, the same source as
``python -m word2bert table``) and the library's docstrings (the API reference, parsed by sphinx-autoapi without
importing the library). It is built by Sphinx with myst-nb in a virtual environment of its own (``.venv-site``,
pinned by ``requirements.txt`` beside this file), so neither TensorFlow nor JAX is needed for it.

Three steps, each a function here: ``ensure_venv`` makes or updates the site's environment; ``prepare_source``
(run inside that environment, where nbformat is installed) writes the Sphinx source folder; ``build_site`` runs
both and then Sphinx with warnings as errors. This module imports nothing outside the standard library.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

SITE_DIR = Path(__file__).resolve().parent
REQUIREMENTS = SITE_DIR / "requirements.txt"
STAMP = "word2bert-site-requirements.sha256"


class SiteError(RuntimeError):
    """The site could not be built: the message says which step failed and what to do."""


def _repo_root(root: str | os.PathLike) -> Path:
    root = Path(root).resolve()
    if not (root / "chapters").is_dir() or not (root / "lib" / "word2bert").is_dir():
        raise FileNotFoundError(f"{root} is not the course's root (no chapters/ and lib/word2bert/ there): "
                                "run from the repository root")
    return root


def _python_of(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv(venv: str | os.PathLike = ".venv-site", python: str | os.PathLike | None = None) -> Path:
    """Create the site's virtual environment, or bring it up to date with the pinned requirements.

    The sha256 of ``requirements.txt`` is written into the environment after a successful install; an
    environment whose stamp matches is used as it is (no network), one whose stamp differs is installed again.

    Args:
        venv: the environment's folder (made if missing).
        python: the interpreter that creates it (default: the one running this function).

    Returns:
        Path of the environment's ``python``.

    Raises:
        SiteError: ``venv`` or ``pip install`` failed (pip's own message is printed above).
    """
    venv = Path(venv)
    wanted = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    stamp = venv / STAMP
    exe = _python_of(venv)
    if exe.exists() and stamp.exists() and stamp.read_text().strip() == wanted:
        return exe
    if not exe.exists():
        print(f"word2bert site: creating {venv}", flush=True)
        if subprocess.call([str(python or sys.executable), "-m", "venv", str(venv)]) != 0:
            raise SiteError(f"could not create the virtual environment {venv} (on Debian: apt-get install "
                            "python3-venv)")
    print(f"word2bert site: installing {REQUIREMENTS.relative_to(SITE_DIR.parents[3])} into {venv}", flush=True)
    if subprocess.call([str(exe), "-m", "pip", "install", "-q", "-r", str(REQUIREMENTS)]) != 0:
        raise SiteError(f"pip could not install {REQUIREMENTS} into {venv}")
    stamp.write_text(wanted + "\n")
    return exe


def build_site(root: str | os.PathLike = ".", venv: str | os.PathLike = ".venv-site",
               out: str | os.PathLike = "_build/site", strict: bool = True) -> Path:
    """Build the website from the committed chapters and the library's docstrings.

    Writes ``_build/site-src/`` (the Sphinx source: filtered copies of the chapters, the generated pages),
    ``_build/doctrees/`` (made anew each time: the source is regenerated) and the site itself into ``out`` (all
    git-ignored under ``_build/``). The folder ``out`` is replaced only when the build succeeded: a failed build
    leaves the previous site in place.

    Args:
        root: the repository root.
        venv: the site's virtual environment (made or updated by ``ensure_venv``), relative to ``root``.
        out: the output folder, relative to ``root``.
        strict: treat every Sphinx warning as an error (``-W``), as CI does.

    Returns:
        Path of the built site's folder (open ``index.html``, or serve it with ``python -m http.server``).

    Raises:
        FileNotFoundError: ``root`` is not the course's root.
        SiteError: the environment could not be made, or Sphinx failed (its messages are printed above).
    """
    root = _repo_root(root)
    venv, out = root / venv, root / out
    started = time.perf_counter()
    exe = ensure_venv(venv)
    build = root / "_build"
    src, doctrees, fresh = build / "site-src", build / "doctrees", out.with_name(out.name + ".new")
    env = {**os.environ, "PYTHONPATH": str(root / "lib"), "PYTHONDONTWRITEBYTECODE": "1"}
    prepare = [str(exe), "-m", "word2bert.course.site.pages", str(root), str(src)]
    if subprocess.call(prepare, env=env, cwd=root) != 0:
        raise SiteError("could not prepare the site's source from the chapters (see above)")
    shutil.rmtree(fresh, ignore_errors=True)
    sphinx = [str(exe), "-m", "sphinx", "-b", "html", "-q", "-E", "-c", str(SITE_DIR), "-d", str(doctrees),
              str(src), str(fresh)]
    if strict:
        sphinx[3:3] = ["-W", "--keep-going"]
    if subprocess.call(sphinx, env=env, cwd=root) != 0:
        shutil.rmtree(fresh, ignore_errors=True)
        raise SiteError("Sphinx failed: fix the warnings above (the build treats them as errors)")
    shutil.rmtree(out, ignore_errors=True)
    os.replace(fresh, out)
    print(f"word2bert site: built {out.relative_to(root)}/ in {time.perf_counter() - started:.0f} s; "
          f"serve it with: python3 -m http.server -d {out.relative_to(root)} 8000", flush=True)
    return out
