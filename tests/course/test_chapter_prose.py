"""The chapters' prose speaks to the learner about the subject, not about how the project was built.

Every markdown cell of every chapter is scanned for words that belong to the project's own bookkeeping:
issue numbers, targets met or missed, work still owed, runs made outside the notebook, the articles the syllabus
follows ("the seed's ..."), the notebook's own checks ("the notebook asserts"), profile goals, and references to
chapters that do not exist (yet). The code cells are scanned for settings named as targets (``*_must_win``).
"""
import json
import re
from pathlib import Path

import pytest

from backends import once_on_tensorflow

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it

CHAPTERS = sorted((Path(__file__).resolve().parents[2] / "chapters").glob("[0-9][0-9]_*.ipynb"))
PROJECT_TALK = {
    "an issue or ticket": r"\bissues?\b|\btickets?\b|(?<![\w&])#\d+\b",
    "a target met or missed": (r"\btargets?\b[^.\n]{0,60}\b(met|missed|reached|hit)\b|\b(met|missed)\b[^.\n]{0,20}"
                               r"\btargets?\b|\bagainst the targets?\b|\btargets?:"),
    "owed or pending work": r"\b(still )?owed\b|\bTODO\b|\bFIXME\b|\bnot (yet )?(done|measured|run) yet\b|\bto be done\b",
    "a run outside the notebook": r"\bside[- ]runs?\b|\bcommitted run\b|\boutside (this|the) notebook\b|\bbenchmark run\b",
    "the project's process": r"\bthe (reviewer|review|learner'?s review)\b|\bacceptance\b|(?-i:\bCI\b)",
    "the syllabus's articles": r"\bthe seeds?'s?(?=\s|$)|\bthe seeds'",
    "the notebook's own checks": r"\bthe (notebook|chapter|code) asserts?\b|\bwe assert\b",
    "a profile's goal": r"\bprofiles? aims?\b|\bthe profile'?s? (goal|budget aim)",
}
SETTING_AS_TARGET = r"\b\w*_?must_(win|beat|pass|reach)\w*\b"
CHAPTER_NUMBERS = {int(p.name[:2]) for p in CHAPTERS}
CHAPTER_REFERENCE = r"\bchapters? (\d{1,2})(?:(?:\s*(?:-|–|,|and|to|or)\s*)(\d{1,2}))*"


def _markdown(path):
    nb = json.loads(path.read_text())
    return [(i, "".join(c["source"])) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"]


def _code(path):
    nb = json.loads(path.read_text())
    return [(i, "".join(c["source"])) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]


def _missing_chapters(text, existing=None):
    """Chapter numbers named in ``text`` ("chapter 10", "chapters 08-09", "chapters 10 and 11") that do not exist."""
    existing = CHAPTER_NUMBERS if existing is None else existing
    found = []
    for m in re.finditer(CHAPTER_REFERENCE, text, flags=re.IGNORECASE):
        numbers = [int(n) for n in re.findall(r"\d{1,2}", m.group(0))]
        found += [(f"chapter {n:02d}, which does not exist", m.group(0)) for n in numbers if n not in existing]
    return found


def _findings(text, existing=None):
    return [(what, m.group(0)) for what, pattern in PROJECT_TALK.items()
            for m in re.finditer(pattern, text, flags=re.IGNORECASE)] + _missing_chapters(text, existing)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_markdown_speaks_about_the_subject(path):
    found = [f"cell {i}: {what}: {hit!r}" for i, text in _markdown(path) for what, hit in _findings(text)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_settings_are_not_named_as_targets(path):
    found = [f"code cell {i}: {m.group(0)!r}" for i, text in _code(path)
             for m in re.finditer(SETTING_AS_TARGET, text, flags=re.IGNORECASE)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text", [
    "As issue 10 asked, we rerun it.", "see #12", "The 0.25x target: met.", "The GPU figure is still owed.",
    "numbers from a side run", "CI runs this chapter", "The seed's example, padded to 16:",
    "the seeds' syllabus", "here the notebook asserts that the Transformer wins", "That is over the 30 minutes this "
    "profile aims at.", "Chapter 10 fine-tunes it.", "chapters 08-10 use it", "Chapters 10 and 11 start from it",
])
def test_the_scan_catches_project_talk(text):
    assert _findings(text, existing=set(range(1, 10)))


@pytest.mark.parametrize("text", ['    SIZES = {"cpu": dict(epochs=4, transformer_must_win=True)}',
                                  'if cfg["must_beat_words"]:', "lstm_must_beat=False"])
def test_the_code_scan_catches_settings_named_as_targets(text):
    assert re.search(SETTING_AS_TARGET, text, flags=re.IGNORECASE)


@pytest.mark.parametrize("text", [
    "The target word is predicted from its context.", "Negative sampling met the paper's numbers within noise? No:",
    "The first and most frequent word", "We measured 0.3 on WordSim-353.",
    "Chapter 08's Transformer", "chapters 05 and 06 use the same split", "the seed spread of two runs",
    "with the same seed and machine", "the second seed's run scores 17.99", "seeds 0 and 1",
])
def test_the_scan_leaves_subject_prose_alone(text):
    assert not _findings(text, existing=set(range(1, 10)))
