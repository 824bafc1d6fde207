"""The library as its users get it: a wheel installed outside the repository, in a read-only folder.

The wheel is built from a copy of the sources, installed with ``pip install --no-deps --target``, and used from a
fresh process whose ``HOME`` and ``XDG_CACHE_HOME`` are temporary folders and which has no ``WORD2BERT_CACHE``: it
loads a BERT from an explicit checkpoint folder (the tiny one of ``test_hf_checkpoint``) and a tokenizer from a saved
folder. Nothing may be written inside the install (compared by a snapshot of paths, sizes and modification times:
CI runs as root, for whom ``chmod a-w`` stops nothing), and the cache goes to the user's cache folder.
"""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from backends import once_on_tensorflow

pytestmark = [pytest.mark.slow, once_on_tensorflow]

ROOT = Path(__file__).resolve().parents[1]


def _build_wheel(out: Path) -> Path:
    """``pip wheel`` of a copy of pyproject.toml, LICENSE and lib/ (the checkout is left untouched)."""
    src = out / "src"
    src.mkdir()
    for name in ("pyproject.toml", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "lib", src / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    try:
        import setuptools

        recent = int(setuptools.__version__.split(".")[0]) >= 77
    except ImportError:
        recent = False
    # offline where the environment has setuptools >= 77 (PEP 639's license fields); else pip fetches it
    isolation = ["--no-build-isolation"] if recent else []
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *isolation, "-w", str(out / "dist"),
                          str(src)], capture_output=True, text=True)
    assert run.returncode == 0, f"pip wheel failed:\n{run.stdout}\n{run.stderr}"
    (wheel,) = (out / "dist").glob("word2bert-*.whl")
    return wheel


def _snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size if p.is_file() else None)
            for p in [folder, *folder.rglob("*")]}


_USER = r'''
import json, os, sys, warnings
import numpy as np
site, checkpoint, tokenizer_folder, blocked = sys.argv[1:]
import word2bert
assert os.path.realpath(word2bert.__file__).startswith(os.path.realpath(site) + os.sep), word2bert.__file__
from word2bert.models.bert import load_hf_bert
from word2bert.tokenizers import WordPieceTokenizer
from word2bert.utils.paths import cache_dir
backbone, tokenizer = load_hf_bert(checkpoint)                   # the default cache: the user's cache folder
ids = np.array([[2, 5, 6, 7, 3, 0]], "int32")
batch = {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": (ids != 0).astype("int32")}
pooled = np.asarray(backbone(batch)["pooled_output"]).tolist()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    again, _ = load_hf_bert(checkpoint, cache_dir=blocked)
same = np.asarray(again(batch)["pooled_output"]).tolist() == pooled
print(json.dumps({"pooled": pooled, "cache": str(cache_dir()), "cached": sorted(os.listdir(cache_dir())),
                  "warnings": [str(w.message) for w in caught], "same": same,
                  "tokens": WordPieceTokenizer.load(tokenizer_folder).tokenize("Paris is big.")}))
'''


def test_the_wheel_installs_and_writes_nothing_inside_itself(tmp_path):
    import keras

    from test_hf_checkpoint import _write_checkpoint
    from word2bert.models.bert import load_hf_bert
    from word2bert.tokenizers import WordPieceTokenizer

    wheel = _build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert "word2bert-0.1.0.dist-info/licenses/LICENSE" in names and "word2bert/py.typed" in names
    assert {"word2bert/course/site/requirements.txt", "word2bert/course/site/_static/site.css",
            "word2bert/course/site/pages/running.md"} <= set(names)
    metadata = zipfile.ZipFile(wheel).read("word2bert-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata and "Requires-Dist: tqdm" not in metadata.split("Provides-Extra")[0]
    assert "](" not in metadata.split("\n\n", 1)[1].replace("](https://", "")    # no relative links in the README

    site = tmp_path / "site"
    run = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    checkpoint = _write_checkpoint(tmp_path / "tiny_bert")
    tokenizer_folder = tmp_path / "cased"
    WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "Paris", "is", "big", "."],
                       lowercase=False).save(tokenizer_folder)
    (tmp_path / "a_file").write_text("not a folder")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(site), "HOME": str(tmp_path / "home"),
           "XDG_CACHE_HOME": str(tmp_path / "xdg"), "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3",
           "PYTHONDONTWRITEBYTECODE": "1", "CUDA_VISIBLE_DEVICES": ""}
    before = _snapshot(site)
    subprocess.run(["chmod", "-R", "a-w", str(site)], check=True)
    try:
        user = subprocess.run([sys.executable, "-c", _USER, str(site), str(checkpoint), str(tokenizer_folder),
                               str(tmp_path / "a_file" / "cache")], env=env, capture_output=True, text=True,
                              cwd=tmp_path, timeout=300)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(site)], check=True)
    assert user.returncode == 0, user.stderr[-3000:]
    result = json.loads(user.stdout.strip().splitlines()[-1])
    assert _snapshot(site) == before                                   # nothing written inside the install
    assert result["cache"] == str(tmp_path / "xdg" / "word2bert")
    assert len(result["cached"]) == 1 and result["cached"][0].startswith("tiny_bert-")
    assert result["same"] and len(result["warnings"]) == 1
    assert f"could not write its cache {tmp_path / 'a_file' / 'cache'}" in result["warnings"][0]
    assert result["tokens"] == ["Paris", "is", "big", "."]            # cased, as saved
    reference, _ = load_hf_bert(checkpoint, cache_dir=None)            # the same model loaded here, from the sources
    ids = np.array([[2, 5, 6, 7, 3, 0]], "int32")
    expected = reference({"token_ids": ids, "segment_ids": np.zeros_like(ids),
                          "padding_mask": (ids != 0).astype("int32")})["pooled_output"]
    np.testing.assert_allclose(result["pooled"], keras.ops.convert_to_numpy(expected), rtol=1e-5, atol=1e-6)
