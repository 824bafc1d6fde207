"""The library's layering: imports run one way, from data to models to plots.

Every ``import word2bert.X`` in the library's source (at module level or inside a function) is
parsed with ``ast`` and checked against the ranks below: a package may import only packages of a
lower rank (and itself). Packages of one rank never import each other, so no model package
reaches into another, and ``layers``, ``text`` and ``metrics`` import no model package.
"""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

import word2bert

LIB = Path(word2bert.__file__).parent
RANKS = {
    "course": 0,                                       # profiles, results, runner, io: no ML
    "datasets": 1,                                     # raw corpora
    "text": 2,                                         # specials, vocabulary, tokenizers
    "layers": 3, "decoding": 3, "metrics": 3,          # shared building blocks
    "batching": 3, "callbacks": 3, "resumable": 3,   # resumable: training that survives an interruption
    "lm": 4, "word2vec": 4, "glove": 4, "seq2seq": 4,  # models: never import each other
    "transformer": 4, "bert": 4,
    "plots": 5, "register": 5,                    # register: imports every model package
    "chapter": 6,                                      # a chapter's set-up
}
# word2bert/__init__.py imports course eagerly and, lazily in __getattr__, chapter.setup
ALLOWED = {("__init__", "course"), ("__init__", "chapter"), ("__main__", "course")}


def _package_of(path: Path) -> str:
    rel = path.relative_to(LIB)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


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
                yield node.lineno, parts[1]


def _violations():
    found = []
    for path in sorted(LIB.rglob("*.py")):
        here = _package_of(path)
        for line, target in _word2bert_imports(path):
            if target == here or (here, target) in ALLOWED:
                continue
            if here not in RANKS or target not in RANKS:
                found.append(f"{path.relative_to(LIB)}:{line}: {here} -> {target} (a package missing from RANKS)")
            elif RANKS[target] >= RANKS[here]:
                found.append(f"{path.relative_to(LIB)}:{line}: {here} (rank {RANKS[here]}) imports {target} "
                             f"(rank {RANKS[target]})")
    return found


def test_every_package_has_a_rank():
    packages = {_package_of(p) for p in LIB.rglob("*.py")} - {"__init__", "__main__"}
    assert packages == set(RANKS), packages ^ set(RANKS)


def test_imports_run_one_way():
    assert _violations() == []


def test_the_check_catches_an_upward_import(tmp_path, monkeypatch):
    # the checker itself: a layer that imports a model package must be reported
    fake = tmp_path / "word2bert"
    (fake / "layers").mkdir(parents=True)
    (fake / "layers" / "bad.py").write_text("def f():\n    from word2bert.seq2seq import Seq2Seq\n")
    (fake / "lm").mkdir()
    (fake / "lm" / "peer.py").write_text("import word2bert.word2vec.models\n")
    monkeypatch.setattr(sys.modules[__name__], "LIB", fake)
    found = _violations()
    assert len(found) == 2 and "layers (rank 3) imports seq2seq" in found[0] and "lm (rank 4) imports word2vec" in found[1]


@pytest.mark.parametrize("module", ["word2bert", "word2bert.course", "word2bert.course.runner", "word2bert.datasets"])
def test_light_packages_start_no_backend(module):
    code = (f"import sys, {module}; heavy = [m for m in ('keras', 'tensorflow', 'jax', 'torch') if m in sys.modules]; "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"importing {module} loaded {out}"
