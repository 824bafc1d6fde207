"""The chapters' prose speaks to the learner about the subject, not about how the project was built.

Every markdown cell of every chapter is scanned for words that belong to the project's own bookkeeping:
issue numbers, targets met or missed, work still owed, runs made outside the notebook.
"""
import json
import re
from pathlib import Path

import pytest

from backends import once_on_tensorflow

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it

CHAPTERS = sorted((Path(__file__).resolve().parents[1] / "chapters").glob("[0-9][0-9]_*.ipynb"))
PROJECT_TALK = {
    "an issue or ticket": r"\bissues?\b|\btickets?\b|(?<![\w&])#\d+\b",
    "a target met or missed": (r"\btargets?\b[^.\n]{0,60}\b(met|missed|reached|hit)\b|\b(met|missed)\b[^.\n]{0,20}"
                               r"\btargets?\b|\bagainst the targets?\b|\btargets?:"),
    "owed or pending work": r"\b(still )?owed\b|\bTODO\b|\bFIXME\b|\bnot (yet )?(done|measured|run) yet\b|\bto be done\b",
    "a run outside the notebook": r"\bside[- ]runs?\b|\bcommitted run\b|\boutside (this|the) notebook\b|\bbenchmark run\b",
    "the project's process": r"\bthe (reviewer|review|learner'?s review)\b|\bacceptance\b|(?-i:\bCI\b)",
}


def _markdown(path):
    nb = json.loads(path.read_text())
    return [(i, "".join(c["source"])) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"]


def _findings(text):
    return [(what, m.group(0)) for what, pattern in PROJECT_TALK.items()
            for m in re.finditer(pattern, text, flags=re.IGNORECASE)]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_markdown_speaks_about_the_subject(path):
    found = [f"cell {i}: {what}: {hit!r}" for i, text in _markdown(path) for what, hit in _findings(text)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text", [
    "As issue 10 asked, we rerun it.", "see #12", "The 0.25x target: met.", "The GPU figure is still owed.",
    "numbers from a side run", "CI runs this chapter",
])
def test_the_scan_catches_project_talk(text):
    assert _findings(text)


@pytest.mark.parametrize("text", [
    "The target word is predicted from its context.", "Negative sampling met the paper's numbers within noise? No:",
    "The first and most frequent word", "We measured 0.3 on WordSim-353.",
])
def test_the_scan_leaves_subject_prose_alone(text):
    assert not _findings(text)
