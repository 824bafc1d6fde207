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


def test_atomic_save_keeps_the_old_file_when_the_writer_fails(tmp_path):
    from word2bert.course import atomic_save

    path = tmp_path / "sub" / "model.keras"
    atomic_save(lambda p: open(p, "w").write("v1"), path)
    assert path.read_text() == "v1"

    def broken(p):
        assert p.endswith(".keras")  # the writer sees the target's suffix
        open(p, "w").write("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        atomic_save(broken, path)
    assert path.read_text() == "v1" and sorted(f.name for f in path.parent.iterdir()) == ["model.keras"]
