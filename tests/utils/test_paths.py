"""word2bert.utils.paths: the one cache folder (WORD2BERT_CACHE, else the XDG cache folder), never in the install."""
from pathlib import Path

import pytest

import word2bert
from backends import once_on_tensorflow
from word2bert.utils.paths import cache_dir

pytestmark = once_on_tensorflow          # environment variables and paths: no Keras backend involved


def test_cache_dir_follows_the_variable_then_xdg_then_home(tmp_path, monkeypatch):
    monkeypatch.setenv("WORD2BERT_CACHE", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.setenv("WORD2BERT_CACHE", "")                       # empty: not set
    assert cache_dir() == tmp_path / "xdg" / "word2bert"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")          # the XDG specification: ignore a relative path
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "word2bert"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.delenv("WORD2BERT_CACHE")
    assert cache_dir() == tmp_path / "home" / ".cache" / "word2bert"
    assert not (tmp_path / "home").exists()                         # asking creates nothing
    package = Path(word2bert.__file__).resolve().parent
    assert package not in cache_dir().resolve().parents


def test_the_checkout_uses_its_data_cache():
    import word2bert.course  # noqa: F401  (sets WORD2BERT_CACHE by default when run from a checkout)

    root = Path(__file__).resolve().parents[2]
    assert cache_dir() == root / "data" / "cache"


def test_the_course_sets_the_cache_only_by_default(tmp_path):
    import subprocess
    import sys

    code = "import os, word2bert.course; print(os.environ['WORD2BERT_CACHE'])"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(word2bert.__file__).parents[1])}
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(root / "data" / "cache")
    out = subprocess.run([sys.executable, "-c", code], env={**env, "WORD2BERT_CACHE": str(tmp_path)},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(tmp_path)
