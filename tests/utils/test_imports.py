"""word2bert.utils.imports.require: a missing optional package names itself and the extra that installs it."""
import sys

import pytest

from backends import once_on_tensorflow
from word2bert.datasets import CorpusNotFoundError
from word2bert.utils.imports import OPTIONAL, install_hint, require

pytestmark = once_on_tensorflow          # imports only: no Keras backend involved


def test_require_returns_the_module():
    import json.decoder

    assert require("json.decoder", extra="core") is json.decoder


@pytest.mark.parametrize("module, package, extra", [("safetensors.numpy", "safetensors", "bert"),
                                                    ("sklearn.linear_model", "scikit-learn", "baselines"),
                                                    ("sacrebleu", "sacrebleu", "eval"),
                                                    ("matplotlib.pyplot", "matplotlib", "plots"),
                                                    ("tensorflow_text", "tensorflow-text", "tokenizers"),
                                                    ("tqdm", "tqdm", "course")])
def test_a_missing_package_names_itself_and_its_extra(monkeypatch, module, package, extra):
    monkeypatch.setitem(sys.modules, module.split(".")[0], None)   # as if it were not installed
    monkeypatch.delitem(sys.modules, module, raising=False) if "." in module else None
    with pytest.raises(ImportError) as err:
        require(module, purpose="this call")
    assert not isinstance(err.value, ModuleNotFoundError)
    assert str(err.value) == (f'this call needs {package}, which is not installed: '
                              f'pip install "word2bert[{extra}]" (or pip install {package})')


def test_the_extra_and_the_error_class_can_be_chosen(monkeypatch):
    monkeypatch.setitem(sys.modules, "gensim", None)
    monkeypatch.setitem(sys.modules, "gensim.utils", None)        # imported already by another test: hide it too
    with pytest.raises(CorpusNotFoundError, match=r'pip install "word2bert\[data\]" \(or pip install gensim\)'):
        require("gensim.utils", extra="data", error=CorpusNotFoundError)
    assert install_hint("gensim.models") == 'pip install "word2bert[eval]" (or pip install gensim)'


def test_a_module_missing_inside_an_installed_package_is_raised_unchanged(tmp_path, monkeypatch):
    (tmp_path / "w2b_broken").mkdir()
    (tmp_path / "w2b_broken" / "__init__.py").write_text("import w2b_absent_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="w2b_absent_dependency"):
        require("w2b_broken", extra="core")


def test_every_extra_named_exists_in_pyproject():
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for package, extra in OPTIONAL.values():
        assert any(r.split(">")[0].split("=")[0].split("[")[0] == package for r in extras[extra]), (package, extra)
        assert any(r.split(">")[0].split("=")[0] == package for r in extras["course"]), package
    assert not any(r.startswith("tqdm") for r in project["dependencies"])
