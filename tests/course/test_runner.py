import json
import os
import subprocess
import sys

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from word2bert.course import runner


def _write(path, *sources):
    nb = new_notebook(cells=[new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def test_find_chapters_orders_and_selects(tmp_path):
    for name in ["02_b", "01_a", "10_c"]:
        _write(tmp_path / f"{name}.ipynb", "1")
    (tmp_path / "notes.ipynb").write_text("{}")
    assert [p.stem for p in runner.find_chapters(tmp_path)] == ["01_a", "02_b", "10_c"]
    assert [p.stem for p in runner.find_chapters(tmp_path, ["10", "1", "02_b"])] == ["01_a", "02_b", "10_c"]
    with pytest.raises(ValueError, match="no chapter matches '7'"):
        runner.find_chapters(tmp_path, ["7"])
    with pytest.raises(FileNotFoundError, match="no chapters folder"):
        runner.find_chapters(tmp_path / "missing")


def test_run_course_collects_results_and_strips_stderr(tmp_path, monkeypatch):
    chapters = tmp_path / "chapters"
    chapters.mkdir()
    _write(chapters / "01_demo.ipynb",
           "import sys, os\nprint('noise', file=sys.stderr)\nprofile = os.environ['W2B_PROFILE']",
           "import json\nprint('W2B_RESULTS ' + json.dumps({'chapter': '01_demo', 'profile': profile, "
           "'backend': 'none', 'device': 'cpu', 'seconds': 1.5, 'metrics': {'ppl': 12.5}}))")
    monkeypatch.delenv("W2B_PROFILE", raising=False)
    records = runner.run_course("ci", [], chapters, tmp_path / "runs")
    assert "W2B_PROFILE" not in os.environ  # the caller's environment is left as it was
    assert records == [{"chapter": "01_demo", "profile": "ci", "backend": "none", "device": "cpu",
                        "seconds": 1.5, "metrics": {"ppl": 12.5}}]
    executed = nbformat.read(tmp_path / "runs" / "ci" / "01_demo.ipynb", as_version=4)
    streams = [o for c in executed.cells for o in c.outputs]
    assert all(o.get("name") != "stderr" for o in streams)
    assert json.loads((tmp_path / "runs" / "ci" / "results.json").read_text()) == records
    assert (tmp_path / "runs" / "ci" / "01_demo.kernel.log").exists()
    assert "| 01_demo | ci | none / cpu | 0.0 | ppl 12.5 |" in (tmp_path / "runs" / "ci" / "results.md").read_text()
    table = runner.committed_table(tmp_path / "runs" / "ci", ci_results=tmp_path / "runs" / "ci" / "results.json")
    assert "| 01_demo | 01_demo | ci, none / cpu | 0.0 | 0.0 | ppl 12.5 |" in table
    # the chapter itself is untouched without --inplace
    assert not nbformat.read(chapters / "01_demo.ipynb", as_version=4).cells[0].get("outputs")
    # a later run of another chapter keeps 01_demo's record in results.json
    _write(chapters / "02_more.ipynb", "import json\nprint('W2B_RESULTS ' + json.dumps({'chapter': '02_more', "
           "'profile': 'ci', 'backend': 'none', 'device': 'cpu', 'seconds': 3.0, 'metrics': {}}))")
    runner.run_course("ci", ["02"], chapters, tmp_path / "runs")
    saved = json.loads((tmp_path / "runs" / "ci" / "results.json").read_text())
    assert [r["chapter"] for r in saved] == ["01_demo", "02_more"] and saved[0] == records[0]


def test_failing_chapter_names_the_cell_and_error(tmp_path):
    chapters = tmp_path / "chapters"
    chapters.mkdir()
    _write(chapters / "01_bad.ipynb", "x = 1", "raise RuntimeError('learning stopped')")
    with pytest.raises(runner.ChapterError, match=r"01_bad.ipynb failed in cell 1(.|\n)*learning stopped"):
        runner.run_course("ci", [], chapters, tmp_path / "runs")


def test_cli_reports_bad_profile_in_one_line(tmp_path):
    env = {"W2B_PROFILE": "huge", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "word2bert", "run", "--chapters-dir", str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0
    assert "unknown W2B_PROFILE 'huge'" in proc.stderr and "export W2B_PROFILE=cpu" in proc.stderr


def test_cli_terminal_shows_no_backend_start_up_logs(tmp_path):
    # no W2B_PROFILE: the runner asks the backend for a GPU, which imports TensorFlow; its C++ start-up
    # lines (cuInit, oneDNN, absl) must not reach the terminal
    env = {k: v for k, v in os.environ.items() if k not in ("W2B_PROFILE", "TF_CPP_MIN_LOG_LEVEL")}
    proc = subprocess.run([sys.executable, "-m", "word2bert", "run", "--chapters-dir", str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("word2bert: "), proc.stderr


def _chapters_conftest():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "chapters" / "conftest.py"
    spec = importlib.util.spec_from_file_location("chapters_conftest", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.once_on_tensorflow
def test_chapter_chains_follow_the_files_one_chapter_saves_and_another_reads(tmp_path):
    """CI runs the chapters on two xdist workers; a chapter that reads ``models/<profile>/NN_*`` must share a
    worker (and come after) chapter NN, transitively: 03 reads 01's file and 04 reads 03's -> one chain."""
    _write(tmp_path / "01_a.ipynb", "save('01_model.keras')")
    _write(tmp_path / "02_b.ipynb", "print(1)")
    _write(tmp_path / "03_c.ipynb", "load(dir / '01_model.keras'); save(f'03_vocab_{lang}.txt')")
    _write(tmp_path / "04_d.ipynb", "json.load('03_vocab_en.txt')")
    _write(tmp_path / "05_e.ipynb", "x = '04_d.ipynb'  # a notebook's own name is not a saved file")
    conftest = _chapters_conftest()
    assert conftest.chapter_groups(tmp_path) == {"01": "chapter-01", "02": "chapter-02", "03": "chapter-01",
                                                 "04": "chapter-01", "05": "chapter-05"}
    groups = conftest.chapter_groups()          # the course itself
    assert groups["06"] == groups["05"] and groups["08"] == groups["07"]
    assert groups["10"] == groups["11"] == groups["12"] == groups["09"] != groups["07"]
    assert conftest._notebook_group("chapters/10_bert_finetuning.ipynb::Cell 4", groups) == "chapter-09"
    assert conftest._notebook_group("tests/models/test_bert.py::test_x", groups) is None


@pytest.mark.once_on_tensorflow
def test_the_test_command_refuses_an_unknown_mode_and_a_folder_without_tests(tmp_path):
    from word2bert.course.testing import JAX_PASS, TF_PASS, run_tests

    with pytest.raises(ValueError, match="mode must be"):
        run_tests("quick", tmp_path)
    with pytest.raises(FileNotFoundError, match="no tests folder"):
        run_tests("together", tmp_path)
    # the passes README command (b) promises: chapters under nbval on TensorFlow, the backend tests on JAX
    assert TF_PASS[:2] == ["tests", "chapters"] and "--nbval-lax" in TF_PASS and "loadgroup" in TF_PASS
    assert JAX_PASS[:3] == ["tests", "-m", "not once_on_tensorflow and (not slow or jax_too)"] and "chapters" not in JAX_PASS


@pytest.mark.once_on_tensorflow
def test_an_interrupted_run_resumes_with_the_chapters_it_did_not_finish(tmp_path, capsys):
    """Run 1 stops at 02 (a failing chapter, as a kill would stop it); run 2 skips 01, runs 02, stops at 03; 01's
    code changes, so run 3 runs 01 again and skips only 02; once a run finished all, the next starts afresh."""
    chapters, log = tmp_path / "chapters", tmp_path / "ran.txt"
    chapters.mkdir()

    def chapter(name, fails_if=None, extra=""):
        check = f"assert not (tmp / {fails_if!r}).exists(), 'told to fail'\n" if fails_if else ""
        _write(chapters / f"{name}.ipynb",
               f"import json, pathlib\ntmp = pathlib.Path({str(tmp_path)!r})\n{check}{extra}"
               f"with open(tmp / 'ran.txt', 'a') as f:\n    f.write({name!r} + '\\n')\n"
               f"print('W2B_RESULTS ' + json.dumps({{'chapter': {name!r}, 'profile': 'ci', 'backend': 'none', "
               f"'device': 'cpu', 'seconds': 1.0, 'metrics': {{}}}}))")

    chapter("01_a")
    chapter("02_b", fails_if="fail_02")
    chapter("03_c", fails_if="fail_03")
    (tmp_path / "fail_02").touch()
    (tmp_path / "fail_03").touch()
    runs = tmp_path / "runs"
    with pytest.raises(runner.ChapterError, match="02_b"):
        runner.run_course("ci", [], chapters, runs)
    (tmp_path / "fail_02").unlink()
    capsys.readouterr()
    with pytest.raises(runner.ChapterError, match="03_c"):
        runner.run_course("ci", [], chapters, runs)
    assert "resuming an interrupted ci run: 01_a finished then and is not run again" in capsys.readouterr().err
    assert log.read_text().split() == ["01_a", "02_b"]
    chapter("01_a", extra="# edited\n")
    (tmp_path / "fail_03").unlink()
    records = runner.run_course("ci", [], chapters, runs)
    assert "02_b finished then and is not run again; 01_a changed since and runs again" in capsys.readouterr().err
    assert log.read_text().split() == ["01_a", "02_b", "01_a", "03_c"]
    assert [r["chapter"] for r in records] == ["01_a", "02_b", "03_c"] and "digest" not in records[1]
    runner.run_course("ci", [], chapters, runs)                          # all finished: a new run runs all
    assert log.read_text().split()[4:] == ["01_a", "02_b", "03_c"] and "resuming" not in capsys.readouterr().err
    assert not list((runs / "ci").glob(".*.tmp"))


def test_smoke_run_works_in_a_scratch_folder_with_the_smoke_switch_and_leaves_models_alone(tmp_path, monkeypatch):
    chapters, data = tmp_path / "chapters", tmp_path / "data"
    chapters.mkdir()
    data.mkdir()
    (data / "corpus.txt").write_text("real data")
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "sweep.jsonl").write_text("{}")
    (tmp_path / "models").mkdir()
    _write(chapters / "01_demo.ipynb",
           "import os, json, pathlib\n"
           "seen = {k: os.environ.get(k) for k in ('W2B_PROFILE', 'W2B_SMOKE', 'KERAS_BACKEND')}\n"
           "assert False, 'learned-result asserts are off in a smoke run'\n"
           "text = pathlib.Path('../data/corpus.txt').read_text() + pathlib.Path('../benchmarks/sweep.jsonl').read_text()\n"
           "pathlib.Path('../models/gpu').mkdir(parents=True, exist_ok=True)\n"
           "pathlib.Path('../models/gpu/01_demo.txt').write_text('smoke')",
           "print('W2B_RESULTS ' + json.dumps({'chapter': '01_demo', 'profile': seen['W2B_PROFILE'], "
           "'backend': 'none', 'device': 'cpu', 'seconds': 1.0, 'metrics': {'smoke': seen['W2B_SMOKE'], "
           "'text': text}}))")
    monkeypatch.delenv("W2B_SMOKE", raising=False)
    root = tmp_path / "scratch"
    records = runner.run_smoke([], root, chapters, data)
    assert records[0]["profile"] == "gpu" and records[0]["metrics"] == {"smoke": "1", "text": "real data{}"}
    assert "W2B_SMOKE" not in os.environ
    assert (root / "models" / "gpu" / "01_demo.txt").read_text() == "smoke"
    assert not (tmp_path / "models" / "gpu").exists()          # the real models folder is untouched
    assert (root / "runs" / "gpu" / "01_demo.ipynb").exists()
    with pytest.raises(FileNotFoundError, match="no data folder"):
        runner.run_smoke([], tmp_path / "other", chapters, tmp_path / "missing")
    # a failing chapter does not stop the ones after it; the run fails at the end and the table says which
    _write(chapters / "00_broken.ipynb", "raise RuntimeError('gpu path broken')")
    with pytest.raises(runner.ChapterError, match=r"00_broken \(tensorflow\) failed"):
        runner.run_smoke([], tmp_path / "again", chapters, data)
    table = (tmp_path / "again" / "runs" / "smoke.md").read_text()
    assert "| 00_broken | tensorflow |" in table and "FAILED" in table and "| 01_demo | tensorflow |" in table
    assert table.index("00_broken") < table.index("01_demo") and table.count("passed") == 1


def test_a_kernel_that_dies_is_a_chapter_error_naming_the_cell(tmp_path):
    _write(tmp_path / "01_dies.ipynb", "x = 1", "import os\nos._exit(3)", "print('never')")
    with pytest.raises(runner.ChapterError, match=r"01_dies.ipynb: the kernel died after cell 1 of 3"):
        runner.run_chapter(tmp_path / "01_dies.ipynb", tmp_path, "ci")
    assert (tmp_path / "01_dies.ipynb").exists()
