"""Every committed chapter reads in one look: no code cell over 30 lines, no cell whose text output runs over 40 lines,
nothing written to stderr. Chapters not yet revised are listed below, cell by cell, with the issue that revises them;
a new violation fails, and so does a listed one that is gone (the list only shrinks)."""
import json
from pathlib import Path

import pytest

from backends import once_on_tensorflow

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it

CHAPTERS = sorted((Path(__file__).resolve().parents[2] / "chapters").glob("[0-9][0-9]_*.ipynb"))
MAX_CODE_LINES, MAX_OUTPUT_LINES = 30, 40
# (chapter, cell index, "code" or "output"): the issue whose revision removes it
KNOWN: dict = {}


def _output_lines(output) -> int:
    if output.get("output_type") == "stream":
        return len("".join(output.get("text", "")).splitlines())
    data = output.get("data", {})
    if "image/png" in data or "image/svg+xml" in data:
        return 0                                                    # a figure is read as one picture
    return len("".join(data.get("text/plain", "")).splitlines())


def _violations(path):
    nb = json.loads(path.read_text())
    found, stderr = set(), []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        if len("".join(cell["source"]).splitlines()) > MAX_CODE_LINES:
            found.add((path.name[:2], i, "code"))
        if sum(_output_lines(o) for o in cell.get("outputs", [])) > MAX_OUTPUT_LINES:
            found.add((path.name[:2], i, "output"))
        stderr += [i for o in cell.get("outputs", []) if o.get("name") == "stderr"]
    return found, stderr


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name[:2])
def test_cells_and_outputs_fit_in_one_look_and_nothing_goes_to_stderr(path):
    found, stderr = _violations(path)
    known = {k for k in KNOWN if k[0] == path.name[:2]}
    assert not stderr, f"{path.name}: cells {stderr} write to stderr"
    assert not found - known, f"{path.name}: code cells over {MAX_CODE_LINES} lines or outputs over " \
                              f"{MAX_OUTPUT_LINES} lines: {sorted(found - known)}"
    assert not known - found, f"{path.name}: listed as too long but no longer: {sorted(known - found)} (drop them)"


def test_the_check_counts_lines_as_a_reader_sees_them(tmp_path):
    cells = [{"cell_type": "code", "source": ["x = 1\n"] * 31, "outputs": [], "metadata": {}},
             {"cell_type": "code", "source": ["print()\n"], "metadata": {},
              "outputs": [{"output_type": "stream", "name": "stdout", "text": "a\n" * 41},
                          {"output_type": "display_data", "data": {"image/png": "", "text/plain": "x\n" * 99}}]},
             {"cell_type": "code", "source": ["print()\n"], "metadata": {},
              "outputs": [{"output_type": "stream", "name": "stdout", "text": "a\n" * 39},
                          {"output_type": "stream", "name": "stderr", "text": "warning\n"}]}]
    path = tmp_path / "99_x.ipynb"
    path.write_text(json.dumps({"cells": cells}))
    assert _violations(path) == ({("99", 0, "code"), ("99", 1, "output")}, [2])


DRAWN = ("01", "02", "03", "04", "05", "06", "07", "08", "09", "11", "12")   # chapters that draw their model


@pytest.mark.parametrize("number", DRAWN)
def test_the_chapter_draws_its_model_and_tucks_away_its_set_up_and_checks(number):
    path = next(p for p in CHAPTERS if p.name.startswith(f"{number}_"))
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    drawn = [c for c in cells if "drawings." in "".join(c["source"])]
    assert drawn and all(any("image/png" in o.get("data", {}) for o in c["outputs"]) for c in drawn), \
        f"{path.name}: no drawing of its model, or one committed without its picture"
    hidden = lambda c: "hide-cell" in c.get("metadata", {}).get("tags", [])
    set_up = [c for c in cells if "SIZES = by_profile(" in "".join(c["source"])]
    assert len(set_up) == 1 and hidden(set_up[0]) and hidden(cells[0]), \
        f"{path.name}: the imports and the profile table (one line per setting, by_profile) belong in hidden cells"
    checks = [c for c in cells if "".join(c["source"]).startswith(("# Checks", "# The course's learning checks"))]
    assert len(checks) == 1 and hidden(checks[0]), f"{path.name}: the learned-result checks belong in one hidden cell"
