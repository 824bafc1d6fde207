"""A number one chapter quotes from another is read from that chapter's saved record (``read_result``) and listed
under ``inputs`` in its own results line; every such input equals the source chapter's committed line. A chapter
started on its own runs the earlier chapters whose saved files it reads (``with_prerequisites``)."""
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from backends import once_on_tensorflow
from word2bert.course import results, runner

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it

ROOT = Path(__file__).resolve().parents[2]
READS = re.compile(r"""read_result\(\s*["'](\d\d_[a-z0-9_]+)["']\s*,\s*["']([^"']+)["']""")


def input_mismatches(chapters_dir) -> list[str]:
    """Every disagreement between a committed chapter's ``inputs`` (and the reads its code makes) and the source
    chapters' committed results lines, one line each."""
    problems = []
    for path in sorted(Path(chapters_dir).glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        if "results_of(" in code:
            problems.append(f"{path.stem} reads another chapter's notebook with results_of: use read_result, which "
                            f"lists what it read under inputs")
        records = runner.results_of(nb)
        if not records:
            continue
        listed = records[-1].get("inputs", [])
        if "read_result(" in code and not listed:
            problems.append(f"{path.stem} reads other chapters' results but its committed results list no inputs "
                            f"(run it again)")
        for chapter, key in READS.findall(code):
            if not any(i["chapter"] == chapter and i["key"] == key for i in listed):
                problems.append(f"{path.stem} reads {chapter}'s {key} but its committed results list no such input "
                                f"(run it again)")
        for item in listed:
            source = results.committed_record(item["chapter"], chapters_dir)
            value = source["metrics"].get(item["key"], "<missing>")
            if value != item["value"] or source["profile"] != item["profile"]:
                problems.append(f"{path.stem} used {item['chapter']}'s {item['key']} = {item['value']} "
                                f"({item['profile']} run); {item['chapter']}'s committed run says {value} "
                                f"({source['profile']} run)")
    return problems


def test_every_committed_input_is_the_source_chapters_committed_number():
    assert input_mismatches(ROOT / "chapters") == []


def _chapter(path, code="", record=None):
    nb = new_notebook(cells=[new_code_cell(code)])
    if record is not None:
        nb.cells[0].outputs = [new_output("stream", name="stdout", text="W2B_RESULTS " + json.dumps(record) + "\n")]
    nbformat.write(nb, path)


def _record(chapter, metrics, profile="cpu", **extra):
    return {"chapter": chapter, "profile": profile, "backend": "tensorflow", "device": "cpu", "seconds": 60.0,
            "metrics": metrics, **extra}


def test_a_planted_mismatch_and_an_unlisted_read_are_caught(tmp_path):
    _chapter(tmp_path / "01_lm.ipynb", record=_record("01_lm", {"ppl_nnlm": 168.0}))
    used = {"chapter": "01_lm", "key": "ppl_nnlm", "value": 168.0, "profile": "cpu"}
    reader = 'x = read_result("01_lm", "ppl_nnlm")'
    _chapter(tmp_path / "12_gpt.ipynb", reader, _record("12_gpt", {"ppl": 134.0}, inputs=[used]))
    assert input_mismatches(tmp_path) == []
    _chapter(tmp_path / "12_gpt.ipynb", reader, _record("12_gpt", {"ppl": 134.0}, inputs=[{**used, "value": 168.4}]))
    assert input_mismatches(tmp_path) == ["12_gpt used 01_lm's ppl_nnlm = 168.4 (cpu run); 01_lm's committed run "
                                          "says 168.0 (cpu run)"]
    _chapter(tmp_path / "12_gpt.ipynb", reader, _record("12_gpt", {"ppl": 134.0}, inputs=[{**used, "profile": "ci"}]))
    assert len(input_mismatches(tmp_path)) == 1
    _chapter(tmp_path / "12_gpt.ipynb", reader, _record("12_gpt", {"ppl": 134.0}))   # read, never listed: a stale run
    assert input_mismatches(tmp_path)[1:] == ["12_gpt reads 01_lm's ppl_nnlm but its committed results list no such "
                                              "input (run it again)"]
    _chapter(tmp_path / "12_gpt.ipynb", "x = {k: read_result('01_lm', k) for k in keys}", _record("12_gpt", {"ppl": 1}))
    assert input_mismatches(tmp_path) == ["12_gpt reads other chapters' results but its committed results list no "
                                          "inputs (run it again)"]
    _chapter(tmp_path / "12_gpt.ipynb", "results_of(nb)", _record("12_gpt", {"ppl": 134.0}))
    assert "use read_result" in input_mismatches(tmp_path)[0]


def test_read_result_reads_the_saved_record_and_report_lists_it(tmp_path, capsys):
    _chapter(tmp_path / "01_lm.ipynb", record=_record("01_lm", {"ppl_nnlm": 168.0, "ppl_kn5": 141.2}))
    results.start_timer()
    assert results.read_result("01_lm", "ppl_nnlm", tmp_path) == 168.0
    assert results.read_result("01_lm", "ppl_nnlm", tmp_path) == 168.0   # read twice, listed once
    with pytest.raises(KeyError, match="no 'ppl_lstm'; they have: ppl_kn5, ppl_nnlm"):
        results.read_result("01_lm", "ppl_lstm", tmp_path)
    record = results.report("12_gpt", "ci", {"ppl": 134.0})
    assert record["inputs"] == [{"chapter": "01_lm", "key": "ppl_nnlm", "value": 168.0, "profile": "cpu"}]
    assert json.loads(capsys.readouterr().out.split("W2B_RESULTS ")[1])["inputs"] == record["inputs"]
    results.start_timer()   # a new chapter's set-up forgets them
    assert "inputs" not in results.report("12_gpt", "ci", {"ppl": 134.0})


def test_a_chapter_never_run_or_only_smoke_run_is_no_record(tmp_path):
    _chapter(tmp_path / "01_lm.ipynb")
    with pytest.raises(FileNotFoundError, match=r"run --profile cpu --inplace 01"):
        results.read_result("01_lm", "ppl_nnlm", tmp_path)
    _chapter(tmp_path / "01_lm.ipynb", record=_record("01_lm", {"ppl_nnlm": 900.0}, smoke=True))
    with pytest.raises(FileNotFoundError, match="holds no results line"):
        results.committed_record("01_lm", tmp_path)


def test_saved_files_names_the_chapter_that_saves_them_and_the_command(tmp_path):
    (tmp_path / "05_seq2seq_none.keras").write_text("x")
    assert results.saved_files("06_attention", ["05_seq2seq_none.keras"], "ci", tmp_path) == [
        tmp_path / "05_seq2seq_none.keras"]
    with pytest.raises(FileNotFoundError, match=r"chapter 05 saves it\. .*`python -m word2bert run --profile ci 06` "
                                                r"runs 05 first"):
        results.saved_files("06_attention", ["05_seq2seq_none.keras", "05_missing.json"], "ci", tmp_path)


def test_a_chapter_started_alone_runs_the_earlier_chapters_whose_files_it_reads(tmp_path):
    chapters, models = tmp_path / "chapters", tmp_path / "models" / "ci"
    chapters.mkdir()
    models.mkdir(parents=True)
    _chapter(chapters / "07_subwords.ipynb", "save('07_wordpiece_en.txt')", _record("07_subwords", {}, seconds=600))
    _chapter(chapters / "08_transformer.ipynb", "load(f'07_wordpiece_{lang}.txt')")
    _chapter(chapters / "09_bert.ipynb", "save('09_bert_vocab.txt')")
    _chapter(chapters / "10_finetune.ipynb", "load('09_bert_vocab.txt'); load('10_own.json')")
    _chapter(chapters / "11_probe.ipynb", "load('09_bert_vocab.txt')")
    pick = lambda *n: runner.find_chapters(chapters, n)
    order, notes = runner.with_prerequisites(pick("10", "11"), "ci", chapters)
    assert [p.stem for p in order] == ["09_bert", "10_finetune", "11_probe"]
    assert notes == ["word2bert: chapter 11 reads 09_bert_vocab.txt, not yet saved in models/ci/: running 09_bert "
                     "first"]
    order, notes = runner.with_prerequisites(pick("08"), "ci", chapters)
    assert [p.stem for p in order] == ["07_subwords", "08_transformer"]
    assert "its saved cpu run took 10.0 min" in notes[0]
    (models / "09_bert_vocab.txt").write_text("x")
    (models / "07_wordpiece_es.txt").write_text("x")   # the template 07_wordpiece_{lang}.txt matches it
    assert runner.with_prerequisites(pick("08", "10"), "ci", chapters) == (pick("08", "10"), [])
