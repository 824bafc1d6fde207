import os

import pytest

from word2bert.course import atomic_write


def test_atomic_write_replaces_whole_file(tmp_path):
    path = tmp_path / "a" / "f.txt"
    atomic_write(path, "old")
    atomic_write(path, b"new")
    assert path.read_bytes() == b"new"
    assert os.listdir(path.parent) == ["f.txt"]


def test_interrupted_write_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "f.txt"
    atomic_write(path, "precious")

    def boom(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, "half")
    assert path.read_text() == "precious"
    assert os.listdir(tmp_path) == ["f.txt"]


def test_rejects_other_types(tmp_path):
    with pytest.raises(TypeError):
        atomic_write(tmp_path / "f", 3)


def test_file_mode_is_kept_or_a_normal_new_file_mode(tmp_path):
    path = tmp_path / "f.txt"
    atomic_write(path, "a")
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    os.chmod(path, 0o640)
    atomic_write(path, "b")
    assert path.stat().st_mode & 0o777 == 0o640
