"""The library's layering: imports run one way, from utilities and data to models and analysis, with the course
on top.

Every ``import word2bert.X`` in the library's source (at module level or inside a function) is
parsed with ``ast`` and checked against the ranks below: a package may import only packages of a
lower rank (and itself). Packages of one rank never import each other, so no model family
(``models.bert``, ``models.lm``, ...) reaches into another, ``layers``, ``tokenizers`` and ``metrics`` import no
model, and no library package imports ``course``.
"""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

import word2bert

LIB = Path(word2bert.__file__).parent
RANKS = {
    "utils": 0,                                        # atomic files, argument checks, the cache folder
    "datasets": 1,                                     # raw corpora
    "tokenizers": 2,                                   # specials, vocabulary, tokenizers
    "converters": 3,                                   # other libraries' checkpoint files read (no model built)
    "layers": 3, "samplers": 3, "metrics": 3, "optimizers": 3,          # shared building blocks
    "preprocessing": 3, "baselines": 3,
    "training": 3.5,                                   # fit that survives an interruption, callbacks (BLEU)
    "models.task": 4,                                  # the one task-head base every family's heads build on
    "models": 5,                                       # the families: never import each other (checked below)
    "analysis": 6,                                     # probes and scores over any model that exposes its layers
    "plots": 6, "register": 6,                         # register: imports every model family
    "course": 7,                                       # the course on top: the library never imports it
}
ALLOWED = {("__main__", "course")}


def _package_of(path: Path) -> str:
    rel = path.relative_to(LIB)
    if rel.parts[0] == "models" and len(rel.parts) > 2:
        return f"models.{rel.parts[1]}"           # each family is a package of its own
    if rel.parts[:2] == ("models", "task.py"):
        return "models.task"                      # shared by the families, below them
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _rank(package: str):
    if package in RANKS:
        return RANKS[package]
    return RANKS.get("models" if package.startswith("models.") else package)


def _word2bert_imports(path: Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names if node.module == "word2bert"]
        for name in names:
            parts = name.split(".")
            if parts[0] == "word2bert" and len(parts) > 1 and parts[1] != "__version__":
                yield node.lineno, (f"models.{parts[2]}" if parts[1] == "models" and len(parts) > 2 else parts[1])


def _violations():
    found = []
    for path in sorted(LIB.rglob("*.py")):
        here = _package_of(path)
        for line, target in _word2bert_imports(path):
            if target == here or (here, target) in ALLOWED:
                continue
            if _rank(here) is None or _rank(target) is None:
                found.append(f"{path.relative_to(LIB)}:{line}: {here} -> {target} (a package missing from RANKS)")
            elif _rank(target) >= _rank(here):
                found.append(f"{path.relative_to(LIB)}:{line}: {here} (rank {_rank(here)}) imports {target} "
                             f"(rank {_rank(target)})")
    return found


def test_every_package_has_a_rank():
    packages = {_package_of(p) for p in LIB.rglob("*.py")} - {"__init__", "__main__"}
    packages = {p if p == "models.task" else p.split(".")[0] for p in packages}
    assert packages == set(RANKS), packages ^ set(RANKS)


def test_no_library_module_imports_the_course():
    users = [f"{p.relative_to(LIB)}:{line}" for p in sorted(LIB.rglob("*.py"))
             if _package_of(p) not in ("course", "__main__") for line, target in _word2bert_imports(p) if target == "course"]
    assert users == []


def test_imports_run_one_way():
    assert _violations() == []


def test_the_check_catches_an_upward_import(tmp_path, monkeypatch):
    # the checker itself: a layer that imports a model package must be reported
    fake = tmp_path / "word2bert"
    (fake / "layers").mkdir(parents=True)
    (fake / "layers" / "bad.py").write_text("def f():\n    from word2bert.models.seq2seq import Seq2Seq\n")
    (fake / "models" / "lm").mkdir(parents=True)
    (fake / "models" / "lm" / "peer.py").write_text("import word2bert.models.word2vec.models\n")
    (fake / "metrics").mkdir()
    (fake / "metrics" / "up.py").write_text("from word2bert.course.profiles import pick\n")
    monkeypatch.setattr(sys.modules[__name__], "LIB", fake)
    found = _violations()
    assert len(found) == 3, found
    assert "layers (rank 3) imports models.seq2seq" in found[0]
    assert "metrics (rank 3) imports course" in found[1]
    assert "models.lm (rank 5) imports models.word2vec" in found[2]


def test_every_family_may_import_the_task_base_and_it_imports_no_family(tmp_path, monkeypatch):
    fake = tmp_path / "word2bert"
    (fake / "models" / "gpt").mkdir(parents=True)
    (fake / "models" / "gpt" / "heads.py").write_text("from word2bert.models.task import Task\n")
    (fake / "models" / "task.py").write_text("from word2bert.models.bert.model import BertBackbone\n")
    monkeypatch.setattr(sys.modules[__name__], "LIB", fake)
    assert _violations() == ["models/task.py:1: models.task (rank 4) imports models.bert (rank 5)"]


def test_importing_the_library_changes_no_environment_variable():
    code = "import os; before = dict(os.environ); import word2bert, word2bert.datasets; print(dict(os.environ) == before)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "True"


@pytest.mark.parametrize("module", ["word2bert", "word2bert.course", "word2bert.course.runner", "word2bert.datasets"])
def test_light_packages_start_no_backend(module):
    code = (f"import sys, {module}; heavy = [m for m in ('keras', 'tensorflow', 'jax', 'torch') if m in sys.modules]; "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"importing {module} loaded {out}"
