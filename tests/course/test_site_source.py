"""The website's source, made from the chapters at build time (``word2bert.course.site``), without Sphinx."""
import nbformat
import pytest

from word2bert.course.site import build_site
from word2bert.course.site.pages import HEADLINES, chapter_title, filter_chapter, index_page, library_names

pytestmark = pytest.mark.once_on_tensorflow


def _notebook():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 03 · Efficient word2vec\n\nUse `SkipGram` and `NegativeSampling`; not "
                                      "`Other`.\n\n```python\nx = `SkipGram`\n```"),
        nbformat.v4.new_code_cell("%matplotlib inline\n"
                                  "from word2bert.models.word2vec import SkipGram, NegativeSampling as NS\n"
                                  "from word2bert.course import pick\nimport numpy as np"),
        nbformat.v4.new_code_cell("# NBVAL_CHECK_OUTPUT\nprint(1)"),
    ]
    return nb


def test_library_names_come_from_the_imports_with_their_full_paths():
    assert library_names(_notebook()) == {"SkipGram": "word2bert.models.word2vec.SkipGram",
                                          "NS": "word2bert.models.word2vec.NegativeSampling",
                                          "pick": "word2bert.course.pick"}


def test_attributes_of_an_imported_library_module_count_as_its_names():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from word2bert import datasets\nfrom word2bert.models import word2vec as w2v\nimport word2bert.models.lm as lm\n"
                                          "m = w2v.SkipGram(10)\nx = lm.NGramLM\ny = np.zeros(3)\n"
                                          "datasets = {}\ndatasets.update(a=1)")]
    names = library_names(nb)
    assert names["SkipGram"] == names["w2v.SkipGram"] == "word2bert.models.word2vec.SkipGram"
    assert names["NGramLM"] == "word2bert.models.lm.NGramLM" and names["datasets"] == "word2bert.datasets"
    assert "zeros" not in names  # numpy is not the library
    assert "update" not in names  # a dict that shadows the module's name: not a library name
    prose = "# 01 · x\n\n`w2v.SkipGram`, `word2bert.metrics` and `SkipGram()`"
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(prose))
    page = filter_chapter(nb)
    assert ("{py:obj}`w2v.SkipGram <word2bert.models.word2vec.SkipGram>`, {py:obj}`word2bert.metrics <word2bert.metrics>` "
            "and {py:obj}`SkipGram() <word2bert.models.word2vec.SkipGram>`") in page.cells[0].source
    assert page.cells[1].source.count("word2bert.models.word2vec.SkipGram") == 1  # listed once in the box


def test_filter_moves_markers_to_tags_links_names_and_leaves_the_original_alone():
    nb = _notebook()
    page = filter_chapter(nb)
    assert "NBVAL" not in page.cells[-1].source and page.cells[-1].source == "print(1)"
    assert page.cells[-1].metadata["tags"] == ["NBVAL_CHECK_OUTPUT"]
    assert nb.cells[-1].source.startswith("# NBVAL_CHECK_OUTPUT")  # the committed notebook is not touched
    prose = page.cells[0].source
    assert "{py:obj}`SkipGram <word2bert.models.word2vec.SkipGram>`" in prose
    assert "`NegativeSampling`" in prose and "`Other`" in prose  # imported as NS; never imported: left as code
    assert "x = `SkipGram`" in prose  # inside a fenced block: left alone
    box = page.cells[1]
    assert box.cell_type == "markdown" and "{py:obj}`pick <word2bert.course.pick>`" in box.source
    assert chapter_title(page, "x") == "Efficient word2vec"


def test_index_lists_every_chapter_with_its_headline_numbers():
    nb = _notebook()
    nb.cells.append(nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output(
        "stream", name="stdout", text='W2B_RESULTS {"chapter": "03_x", "profile": "cpu", "backend": "tensorflow", '
                                      '"device": "cpu", "seconds": 420, "metrics": {"ws353_sg_ns_ours": 0.30261}}\n')]))
    from pathlib import Path

    text = index_page([(Path("03_x.ipynb"), nb), (Path("04_y.ipynb"), _notebook())])
    assert "| [03](chapters/03_x.ipynb) | Efficient word2vec |" in text and "**0.303**" in text and "| 7.0 |" in text
    assert "| [04](chapters/04_y.ipynb) | Efficient word2vec | not run yet |" in text
    assert set(HEADLINES) == {f"{n:02d}" for n in range(1, 13)}


def test_build_refuses_a_folder_that_is_not_the_course(tmp_path):
    with pytest.raises(FileNotFoundError, match="not the course's root"):
        build_site(tmp_path)


def test_an_environment_with_the_current_stamp_is_used_without_pip(tmp_path, monkeypatch):
    import hashlib
    import subprocess

    from word2bert.course.site import REQUIREMENTS, STAMP, ensure_venv

    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.write_text("")
    (tmp_path / STAMP).write_text(hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest() + "\n")
    monkeypatch.setattr(subprocess, "call", lambda *a, **k: pytest.fail("nothing is installed when the stamp matches"))
    assert ensure_venv(tmp_path) == python


def test_the_site_command_outside_the_course_says_where_to_run_it(tmp_path, monkeypatch, capsys):
    from word2bert.__main__ import main

    monkeypatch.chdir(tmp_path)
    assert main(["site"]) == 1
    assert "run from the repository root" in capsys.readouterr().err
