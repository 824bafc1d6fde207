"""The minutes the README's results table and the site's findings page give for each chapter are those of the
chapter's committed run (the ``seconds`` of its ``W2B_RESULTS`` line), never typed from another run."""
import json
import re
from pathlib import Path

import pytest

from backends import once_on_tensorflow

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
TABLES = {"README.md": ROOT / "README.md",
          "findings page": ROOT / "lib" / "word2bert" / "course" / "site" / "pages" / "findings.md"}


def committed_minutes(path) -> float:
    """The committed run's wall time in minutes, one decimal, from the notebook's W2B_RESULTS line."""
    for cell in json.loads(path.read_text())["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", ""))
            if "W2B_RESULTS " in text:
                line = text[text.index("W2B_RESULTS ") + len("W2B_RESULTS "):].splitlines()[0]
                return round(json.loads(line)["seconds"] / 60, 1)
    raise AssertionError(f"{path.name} has no W2B_RESULTS line")


def table_minutes(text, number) -> float:
    """The minutes in the last column of a chapter's row (``| [NN](chapters/...) | ... | 17.0 min |``)."""
    rows = [line for line in text.splitlines() if line.startswith(f"| [{number}](chapters/")]
    assert len(rows) == 1, f"{len(rows)} rows for chapter {number}"
    found = re.search(r"\|\s*([\d.]+) min\s*\|\s*$", rows[0])
    assert found, f"chapter {number}'s row ends without its minutes: {rows[0][-60:]!r}"
    return float(found.group(1))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name[:2])
def test_every_table_gives_the_committed_runs_minutes(path):
    minutes = committed_minutes(path)
    for name, table in TABLES.items():
        assert table_minutes(table.read_text(encoding="utf-8"), path.name[:2]) == minutes, name


def test_a_typed_figure_is_caught():
    text = "| [03](chapters/03_x.ipynb) | word2vec | 0.30× | 7.0 min |\n"
    assert table_minutes(text, "03") == 7.0
    assert table_minutes(text.replace("7.0", "7.4"), "03") != 7.0
    with pytest.raises(AssertionError, match="without its minutes"):
        table_minutes("| [03](chapters/03_x.ipynb) | word2vec | 0.30× |\n", "03")
