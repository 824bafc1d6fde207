"""The minutes the README's results table and the site's findings page give for each chapter are those of the
chapter's committed run (the ``seconds`` of its ``W2B_RESULTS`` line), never typed from another run."""
import re
from pathlib import Path

import numpy as np
import pytest

from backends import once_on_tensorflow
from word2bert.course import results

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
TABLES = {"README.md": ROOT / "README.md",
          "findings page": ROOT / "lib" / "word2bert" / "course" / "site" / "pages" / "findings.md"}


def committed_minutes(path) -> float:
    """The committed run's wall time in minutes, one decimal, from the notebook's W2B_RESULTS line."""
    return round(committed_record(path)["seconds"] / 60, 1)


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


NUMBER = re.compile(r"(?<![\w.])([−-]?\d+\.\d+(?:e-?\d+)?)(%|M|×)?")
# numbers in the rows that are not results of the chapter's run: published figures and sizes
NOT_RESULTS = {"01": {"148.3", "141.2"}, "03": {"1.3M"}, "04": {"1.3M"}}


def committed_record(path) -> dict:
    return results.committed_record(path.stem, path.parent)


def unmatched_numbers(row: str, record: dict, allowed=frozenset()) -> list[str]:
    """The decimal numbers of a table row that no metric of the record (or an input it read) rounds to."""
    values = [v for v in record["metrics"].values() if isinstance(v, (int, float))]
    values += [i["value"] for i in record.get("inputs", []) if isinstance(i["value"], (int, float))]
    values += [record["seconds"] / 60]
    values += [int(n) for key in record["metrics"] for n in re.findall(r"\d{4,}", key)]   # pairs_..._2048000_tokens
    missing = []
    for found in NUMBER.finditer(row.rsplit("|", 2)[0]):       # the minutes column is checked above
        text, unit = found.group(1), found.group(2) or ""
        if text + unit in allowed:
            continue
        shown = float(text.replace("−", "-"))
        decimals = len(text.split(".")[1].split("e")[0])
        scale = {"%": 100.0, "M": 1e-6}.get(unit, 1.0)
        close = (lambda v: np.isclose(v * scale, shown, rtol=0.051)) if "e" in text else (
            lambda v: round(v * scale, decimals) == shown or abs(v * scale - shown) <= 0.5 * 10 ** -decimals + 1e-12)
        if not any(close(v) for v in values):
            missing.append(text + unit)
    return missing


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name[:2])
def test_every_number_in_the_tables_is_the_committed_runs(path):
    record, number = committed_record(path), path.name[:2]
    for name, table in TABLES.items():
        rows = [line for line in table.read_text(encoding="utf-8").splitlines()
                if line.startswith(f"| [{number}](chapters/")]
        assert unmatched_numbers(rows[0], record, NOT_RESULTS.get(number, set())) == [], name


def test_a_drifted_number_is_caught():
    record = {"seconds": 600.0, "metrics": {"ppl": 168.03, "share": 0.00034, "ratio": 0.2987, "p": 1.1e-05},
              "inputs": [{"value": 130.12}]}
    row = "| [12](x) | t | NNLM 168.0, LSTM 130.1, 0.034%, 0.30×, p = 1.1e-05 | 10.0 min |"
    assert unmatched_numbers(row, record) == []
    assert unmatched_numbers(row.replace("168.0", "168.4"), record) == ["168.4"]
    assert unmatched_numbers(row.replace("0.30×", "0.31×"), record) == ["0.31×"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name[:2])
def test_every_headline_of_the_front_page_is_a_metric_of_the_committed_run(path):
    from word2bert.course.site.pages import HEADLINES

    metrics = committed_record(path)["metrics"]
    assert [key for key, _, _ in HEADLINES[path.name[:2]] if key not in metrics] == []
