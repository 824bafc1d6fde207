"""Atomic file writing: a file a user made is never left half-written.

Everything the library writes (vocabularies, caches, results) goes through
``atomic_write``: the data goes to a temporary file in the same folder, is flushed to
disk, then renamed over the target in one step (``os.replace``), so a rerun or an
interrupted run leaves either the old file or the new one, never a mix.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: str | os.PathLike, data: str | bytes, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` atomically; return the path.

    Args:
        path: target file; its folder is created if missing.
        data: str (written with ``encoding``) or bytes.
        encoding: text encoding for str data.

    Returns:
        ``pathlib.Path`` of the written file.

    Raises:
        TypeError: ``data`` is neither str nor bytes.
        OSError: the folder cannot be created or written.
    """
    if not isinstance(data, (str, bytes)):
        raise TypeError(f"atomic_write needs str or bytes, got {type(data).__name__}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)

    def write(tmp):
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private (0600): give it the mode the target has, or a new file's mode
        if path.exists():
            mode = path.stat().st_mode & 0o7777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)

    return _write_then_replace(write, tmp, path)


def _write_then_replace(write, tmp: str, path: Path) -> Path:
    """Run ``write(tmp)``, flush it to disk, then rename ``tmp`` over ``path`` and flush the folder (so that after a
    power cut the new name never points at data that did not reach the disk); on any failure remove ``tmp`` and
    re-raise."""
    try:
        write(tmp)
        with open(tmp, "rb+") as f:            # a writer that takes a path (Keras's) may not have synced its file
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _sync_folder(path.parent)
    return path


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename) to disk, where the system allows it (not on Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_save(save, path: str | os.PathLike) -> Path:
    """Write a file with someone else's writer, atomically: ``save(tmp)`` then rename over ``path``.

    For writers that take a path rather than bytes, e.g. ``atomic_save(model.save, "m.keras")``:
    the temporary file sits in the target's folder and keeps its ending, up to two suffixes (Keras checks the
    ``.keras`` and ``.weights.h5`` endings), and replaces the target in one step only after ``save`` returned.

    Args:
        save: a callable taking the temporary path (str).
        path: the target file; its folder is created if missing.

    Returns:
        ``pathlib.Path`` of the written file.

    Raises:
        Whatever ``save`` raises (the temporary file is removed and the target left as it was).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = "".join(path.suffixes[-2:])     # keeps a compound ending whole: Keras asks for ".weights.h5"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:len(path.name) - len(suffix)]}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    os.unlink(tmp)  # the writer creates the file itself
    return _write_then_replace(save, tmp, path)
