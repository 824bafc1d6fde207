"""An extractive question-answering set in the SQuAD v1.1 format, built by templates from real text.

Questions come from regular expressions run over the World English Bible (2015 edition, public
domain) and the Wikipedia sample that gensim ships (CC BY-SA 3.0); every answer is the real
character span of the matched words in a context taken from the same document. Nothing is written
by hand and nothing is paraphrased, so the answers are right where the pattern reads the sentence
right (names, numbers and places are checked to be 1-4 capitalised or numeric words).

Bible (``bible("eng_web")``: it says "X became the father of Y", never "begot"):

==========  ===============================================  ==========================================
type        pattern in a verse                               question / answer
==========  ===============================================  ==========================================
father      X became the father of Y                         Who did X become the father of? / Y
son         X(,) the son of Y                                Whose son was X? / Y
king        X(,) (the) king of (the) P                       Of what was X king? / (the) P
age         X was N years old when C                         How old was X when C? / N
lived       X lived N years, (and/then) became the father    How many years had X lived when he became
            of Y                                             the father of Y? / N
place       X went/came/returned/fled/... (up/down) to P     Where did X go/come/...? / P
lived_in    X lived/dwelt/stayed/reigned/died/was buried     Where did X live/.../die?, Where was X
            in P                                             buried? / P
==========  ===============================================  ==========================================

X, Y and P are capitalised names (1-2 words; pronouns and sentence openers such as "He", "The",
"Then" are not names), N a number in words ("nine hundred thirty"). A question asked twice in one
chapter with different answers (two men named Zechariah, two kings of Israel) is dropped; asked
twice with the same answer, it is kept once. The context is the answer verse with five verses
before and five after it from the same chapter (11 verses, fewer in a short chapter; shifted at the
chapter's ends), joined with spaces.

Wikipedia (``wikipedia_texts()``), one question per sentence and type at most (the first match):

==========  ===============================================  ==========================================
type        pattern                                          question / answer
==========  ===============================================  ==========================================
definition  first sentence "T (...) is/was a/an/the NP ..."  What is/was T? / a/an/the NP (<= 4 words)
born        first sentence "T (... DATE – ...)" or "T was    When was T born? / DATE
            born (on) DATE"
year        "... in YEAR ..."                                the sentence, "in YEAR" -> "in what year",
                                                             ending "?" / YEAR
number      "... 1,200 people|km|miles|percent|..."          the sentence, the number -> "how many"
                                                             ("what" before percent) / 1,200
place       "... in/at Place, ..." (1-3 capitalised words    the sentence, "in Place" -> "where" / Place
            then , . ; or in/on/during/since)
==========  ===============================================  ==========================================

T is the article's title; as for the Bible, a question asked twice in an article with different answers
is dropped. The year, number and place questions are cloze questions: the answer
sentence itself with the answer replaced by a wh-phrase. They share nearly all their words with
the sentence that holds the answer, so lexical overlap finds that sentence easily: this set is
easier than SQuAD, whose crowd workers were asked to paraphrase (the sliding-window baseline scores
far higher here than its 13% exact match on SQuAD). The context is the answer sentence with three
sentences before and three after it from the same article (7 sentences, shifted at the ends).

Splits are by whole document. Bible: a book's split is ``split_of_book`` (the translation chapters'
train / valid / test books; the valid and test books are never pretrained on). Wikipedia: the 11
articles that ``pretraining_documents("valid")`` holds out go to test (text the pretrained BERT never
read); of the other 95, the 10 whose ``"qa/" + title`` has the smallest CRC-32 go to valid, the rest
to train. Examples come in canonical order (Bible books, then Wikipedia articles in their order);
the set is the same on every call (no randomness at all).

Counted sizes (``template_qa(split)``), Bible + Wikipedia:

=====  =================================================================  ===============================================
split  Bible                                                              Wikipedia
=====  =================================================================  ===============================================
train  1,566: son 1,015, king 262, father 125, place 86, age 42,          2,072: year 1,172, place 745, number 138,
       lived_in 22, lived 14                                              definition 13, born 4
valid  14: son 11, king 3                                                 186: year 109, place 53, number 22, definition 2
test   29: son 11, father 9, king 6, place 3                              74: year 35, place 35, number 4
=====  =================================================================  ===============================================

train 3,638, valid 200, test 103 questions. The held-out Bible books (prophets and letters) name few
people, so their share is small: valid and test are mostly Wikipedia, and a score on the Bible part
alone (14 / 29 questions) is too noisy to compare models by.

Context length in words (split on spaces), all splits: median 173 (10%: 111, 90%: 331); Bible median
280, Wikipedia 144: most contexts are longer than 128 WordPiece tokens, so a model reads them in
windows (document stride).

Sliding-window baseline (``word2bert.baselines.question_answering``, defaults), exact match / F1 in percent: valid
63.5 / 75.3 (Bible 7.1 / 14.3, Wikipedia 67.7 / 79.9); test 49.5 / 58.5 (Bible 3.4 / 5.2, Wikipedia
67.6 / 79.4). Overlap alone answers two cloze questions in three; the Bible's short questions ("Whose
son was Ishmael?") give it little to go on.

Source and license: the World English Bible (public domain), Debian's ``sword-text-web``; Wikipedia
(CC BY-SA 3.0) via gensim's test data. The questions inherit these licences.
"""
from __future__ import annotations

import functools
import os
import re
import zlib
from pathlib import Path

from word2bert.datasets.bible import bible, split_of_book
from word2bert.datasets.paths import split_and_sources
from word2bert.datasets.pretraining import pretraining_documents
from word2bert.datasets.squad import QAExample, squad_v1, write_squad_v1
from word2bert.datasets.wikipedia import wikipedia_texts
from word2bert.utils.paths import cache_dir

QA_SPLITS = ("train", "valid", "test")
QA_SOURCES = ("bible", "wikipedia")
BIBLE_CONTEXT_VERSES = 5  # on each side of the answer verse
WIKI_CONTEXT_SENTENCES = 3  # on each side of the answer sentence
WIKI_VALID_ARTICLES = 10
MAX_ANSWER_WORDS = 4

# ---------------------------------------------------------------- the Bible
_NOT_NAMES = frozenset(
    "The He She They It And But Then When So Now This These That There His Her Their Your My You We All If For Of "
    "In On At To Behold After Yet Thus Therefore Also Even Because Who What Why How Let Go Come Moreover Again "
    "Afterward Before Each Every Some No Not Both As From With By Is Was Are Were I Our Its Them Him Us".split())
_NAME = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
_PLACE = rf"{_NAME}(?: {_NAME})?"
# a subject: a name not preceded by "the" ("the Canaanites lived in Gezer" is no question about a person)
_SUBJECT = rf"(?<![Tt]he )\b(?P<x>{_NAME})"
_VERB = "became|was|had|lived|went|came|said|did|were"
_UNIT = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
         "eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_NUMBER_WORD = rf"(?:(?:{'|'.join(_TENS)})(?:-(?:{'|'.join(_UNIT[:9])}))?|{'|'.join(_UNIT)}|hundred|thousand)"
_NUMBER = rf"{_NUMBER_WORD}(?: (?:and )?{_NUMBER_WORD}){{0,3}}"

_GO = {"went": "go", "came": "come", "returned": "return", "fled": "flee", "traveled": "travel",
       "journeyed": "journey", "departed": "depart"}
_IN = {"lived": "Where did {x} live?", "dwelt": "Where did {x} dwell?", "stayed": "Where did {x} stay?",
       "reigned": "Where did {x} reign?", "died": "Where did {x} die?", "was buried": "Where was {x} buried?"}

# (type, regex, question(match) , answer group); the subject is group "x", the answer group "a"
_BIBLE_PATTERNS = (
    ("father", re.compile(rf"{_SUBJECT} became the father of (?P<a>{_NAME}(?:(?:, {_NAME})*,? and {_NAME}\b(?! {_VERB}))?)\b"),
     lambda m: f"Who did {m['x']} become the father of?"),
    ("son", re.compile(rf"{_SUBJECT},? the son of (?=(?P<a>{_NAME})\b)"),
     lambda m: f"Whose son was {m['x']}?"),
    ("king", re.compile(rf"(?<!son of ){_SUBJECT},? (?:the )?king of (?P<a>(?:the )?{_NAME})\b"),
     lambda m: f"Of what was {m['x']} king?"),
    ("age", re.compile(rf"{_SUBJECT} was (?P<a>{_NUMBER}) years old when (?P<c>[^.,;:!?]+)"),
     lambda m: f"How old was {m['x']} when {m['c'].strip()}?"),
    ("lived", re.compile(rf"{_SUBJECT} lived (?P<a>{_NUMBER}) years, (?:and |then )?became the father of "
                         rf"(?P<y>{_NAME})\b"),
     lambda m: f"How many years had {m['x']} lived when he became the father of {m['y']}?"),
    ("place", re.compile(rf"{_SUBJECT} (?P<v>{'|'.join(_GO)})(?: up| down| out| back| away)? (?:to|into) "
                         rf"(?P<a>{_PLACE})\b"),
     lambda m: f"Where did {m['x']} {_GO[m['v']]}?"),
    ("lived_in", re.compile(rf"{_SUBJECT} (?P<v>{'|'.join(_IN)}) in (?P<a>{_PLACE})\b"),
     lambda m: _IN[m["v"]].format(x=m["x"])),
)


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def _names_ok(m) -> bool:
    names = [m[g] for g in ("x", "y") if g in m.re.groupindex] + [m["a"].removeprefix("the ")]
    return all(n.split()[0] not in _NOT_NAMES and n.split()[-1] not in _NOT_NAMES for n in names)


def _window(n: int, i: int, side: int) -> range:
    """Indices of a window of ``2 side + 1`` items around ``i`` among ``n``, shifted to stay inside."""
    lo = max(0, min(i - side, n - (2 * side + 1)))
    return range(lo, min(n, lo + 2 * side + 1))


def _keep_unambiguous(found):
    """``found``: [(key, question, answer, payload)] of one document, in order; drop questions with two answers."""
    answers: dict[str, set] = {}
    for _, question, answer, _ in found:
        answers.setdefault(question, set()).add(answer)
    seen, out = set(), []
    for item in found:
        question = item[1]
        if len(answers[question]) == 1 and question not in seen:
            seen.add(question)
            out.append(item)
    return out


def _bible_examples() -> dict:
    chapters: dict[tuple[str, int], list] = {}
    for (book, chapter, verse), text in bible("eng_web").items():
        chapters.setdefault((book, chapter), []).append((verse, text))
    out = {split: [] for split in QA_SPLITS}
    for (book, chapter), verses in chapters.items():
        found = []
        for i, (verse, text) in enumerate(verses):
            for kind, pattern, ask in _BIBLE_PATTERNS:
                for m in pattern.finditer(text):
                    if _words(m["a"]) <= MAX_ANSWER_WORDS and _names_ok(m):
                        found.append(((i, verse), ask(m), m["a"], (kind, m.start("a"))))
        per_verse: dict[int, int] = {}
        for (i, verse), question, answer, (kind, start) in _keep_unambiguous(found):
            window = _window(len(verses), i, BIBLE_CONTEXT_VERSES)
            before = " ".join(verses[k][1] for k in window if k < i)
            context = " ".join(verses[k][1] for k in window)
            offset = (len(before) + 1 if before else 0) + start
            assert context[offset:offset + len(answer)] == answer, (book, chapter, verse, answer)
            n = per_verse.get(verse, 0)
            per_verse[verse] = n + 1
            qid = f"bible-{book.replace(' ', '_')}-{chapter}-{verse}-q{n}"
            out[split_of_book(book)].append((kind, QAExample(qid, book, context, question, ((answer, offset),))))
    return out


# ---------------------------------------------------------------- Wikipedia
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_DATE = rf"(?:{_MONTH} \d{{1,2}}, \d{{3,4}}|\d{{1,2}} {_MONTH} \d{{3,4}})"
_BORN = (re.compile(rf"^[^()]*\([^()]*?(?P<a>{_DATE})\s*[–-]"), re.compile(rf"\bwas born (?:on )?(?P<a>{_DATE})"))
_YEAR = re.compile(r"\b(?P<p>[Ii]n) (?P<a>1\d{3}|20[01]\d)\b(?!s|[–-]\d)")
_UNITS = ("people|inhabitants|residents|km|kilometres|kilometers|miles|metres|meters|feet|percent|tons|tonnes|species|"
          "students|members|soldiers|children|languages|copies|words|pages|games|episodes")
_NUMBER_UNIT = re.compile(rf"(?<![\w.,$])(?P<a>\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?) (?P<u>{_UNITS})\b")
_NOT_PLACES = frozenset(f"{_MONTH[3:-1]}|The|A|An|This|His|Her|Their|English|Latin|Greek|French|German|Christianity|"
                        "God|Europe's".split("|"))
_IN_PLACE = re.compile(r"(?<=[a-z,] )(?P<p>in|at) (?P<a>[A-Z][a-z]+(?: [A-Z][a-z]+){0,2})"
                       r"(?=[,.;]| (?:in|on|during|since)\b)")
_DEFINITION_STOP = frozenset("that which who whose of in on by from for with to and or as is was where when".split())


def _cloze(sentence: str, start: int, end: int, phrase: str) -> str:
    question = (sentence[:start] + phrase + sentence[end:]).strip().lstrip(",;: ")
    question = re.sub(r"[.!?;:,\s]+$", "", question)
    return question[:1].upper() + question[1:] + "?"


def _definition(title: str, sentence: str):
    m = re.match(rf"{re.escape(title)}(?: \([^()]*\))?,? (?P<v>is|was|are|were) (?P<a>(?:an?|the) )", sentence)
    if not m:
        return None
    words, end, stop = [], m.end(), None
    for w in re.finditer(r"[\w'-]+|[^\w\s]", sentence[end:]):
        token = w.group(0)
        if not re.fullmatch(r"[\w'-]+", token) or token.lower() in _DEFINITION_STOP or re.search(r"(ed|ing)$", token):
            stop = token.lower()
            break
        words.append(w)
    # "an allegorical and dystopian novella": a phrase cut at "and"/"or" is no noun phrase
    if not words or len(words) + 1 > MAX_ANSWER_WORDS or stop in (None, "and", "or"):
        return None
    after = end + words[-1].end()
    if sentence[after:after + 1] == "." and sentence[after + 1:after + 2].isalnum():  # "a U.S. state": cut inside
        return None
    start = m.start("a")
    return f"What {m['v']} {title}?", start, end + words[-1].end()


def _wiki_questions(title: str, sentences: list, i: int):
    """(type, question, answer start, answer end) of sentence ``i`` of an article."""
    s = sentences[i]
    if _words(s) < 6 or _words(s) > 60:
        return
    if i == 0:
        d = _definition(title, s)
        if d:
            yield ("definition",) + d
    if i < 3:
        for pattern in _BORN:
            m = pattern.search(s)
            if m and (pattern is _BORN[1] or s.startswith(title)):
                yield "born", f"When was {title} born?", m.start("a"), m.end("a")
                break
    m = _YEAR.search(s)
    if m:
        yield "year", _cloze(s, m.start(), m.end(), f"{m['p']} what year"), m.start("a"), m.end("a")
    m = _NUMBER_UNIT.search(s)
    if m:
        yield "number", _cloze(s, m.start("a"), m.end("a"), "what" if m["u"] == "percent" else "how many"), \
            m.start("a"), m.end("a")
    for m in _IN_PLACE.finditer(s):
        if m["a"].split()[0] not in _NOT_PLACES and m["a"] != title:
            yield "place", _cloze(s, m.start(), m.end(), "where"), m.start("a"), m.end("a")
            break


def wikipedia_qa_split(title: str) -> str:
    """The split of a Wikipedia article in ``template_qa``: ``"test"``, ``"valid"`` or ``"train"``.

    Args:
        title: an article title of ``wikipedia_texts()``.

    Returns:
        ``"test"`` for the articles ``pretraining_documents("valid")`` holds out, ``"valid"`` for the
        ``WIKI_VALID_ARTICLES`` other articles whose ``"qa/" + title`` has the smallest CRC-32, else ``"train"``.

    Raises:
        ValueError: ``title`` is not an article of the sample.

    Source: the Wikipedia sample of gensim's test data (CC BY-SA 3.0).
    """
    splits = _wiki_splits()
    if title not in splits:
        raise ValueError(f"unknown Wikipedia article {title!r}: titles are those of wikipedia_texts()")
    return splits[title]


@functools.lru_cache(maxsize=1)
def _wiki_splits() -> dict:
    held = {d.id.removeprefix("wikipedia/") for d in pretraining_documents("valid", sources="wikipedia")}
    rest = sorted((zlib.crc32(f"qa/{a.title}".encode("utf-8")), a.title) for a in wikipedia_texts() if a.title not in held)
    valid = {title for _, title in rest[:WIKI_VALID_ARTICLES]}
    return {a.title: "test" if a.title in held else "valid" if a.title in valid else "train" for a in wikipedia_texts()}


def _wiki_examples() -> dict:
    out = {split: [] for split in QA_SPLITS}
    for article in wikipedia_texts():
        sentences, found = article.sentences, []
        for i in range(len(sentences)):
            for kind, question, start, end in _wiki_questions(article.title, sentences, i):
                answer = sentences[i][start:end]
                if 1 <= _words(answer) <= MAX_ANSWER_WORDS:
                    found.append((i, question, answer, (kind, start)))
        for n, (i, question, answer, (kind, start)) in enumerate(_keep_unambiguous(found)):
            window = _window(len(sentences), i, WIKI_CONTEXT_SENTENCES)
            before = " ".join(sentences[k] for k in window if k < i)
            context = " ".join(sentences[k] for k in window)
            offset = (len(before) + 1 if before else 0) + start
            assert context[offset:offset + len(answer)] == answer, (article.title, i, answer)
            qid = f"wiki-{article.title.replace(' ', '_')}-{n}"
            out[wikipedia_qa_split(article.title)].append(
                (kind, QAExample(qid, article.title, context, question, ((answer, offset),))))
    return out


@functools.lru_cache(maxsize=1)
def _all() -> dict:
    return {"bible": _bible_examples(), "wikipedia": _wiki_examples()}


def _check(split: str, sources) -> tuple:
    return split_and_sources(split, QA_SPLITS, sources, QA_SOURCES)


def template_qa(split: str = "train", sources=QA_SOURCES) -> list[QAExample]:
    """Template questions on the World English Bible and the Wikipedia sample, SQuAD v1.1-style.

    How they are built, the question types, the splits and their sizes: the module docstring.

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"`` (whole books / articles; see the module docstring).
        sources: any of ``"bible"`` and ``"wikipedia"``.

    Returns:
        list of ``QAExample(id, title, context, question, answers)`` with one answer each, Bible
        first (canonical order), then Wikipedia (article order); built once per process (about 4 s once
        the corpora are read).

    Raises:
        ValueError: unknown split or source.
        CorpusNotFoundError: gensim, pysword or ``sword-text-web`` is missing.

    Source and license: the World English Bible (public domain); Wikipedia (CC BY-SA 3.0) via gensim.
    """
    sources = _check(split, sources)
    return [e for source in QA_SOURCES if source in sources for _, e in _all()[source][split]]


def template_qa_types(split: str = "train", sources=QA_SOURCES) -> dict:
    """``{question id: question type}`` (``"father"``, ``"year"``, ...) of ``template_qa(split, sources)``.

    Args:
        split, sources: as ``template_qa``.

    Returns:
        dict from id to the template's name (the tables of the module docstring).

    Raises:
        ValueError: unknown split or source.

    Source: as ``template_qa``.
    """
    sources = _check(split, sources)
    return {e.id: kind for source in QA_SOURCES if source in sources for kind, e in _all()[source][split]}


def template_qa_file(split: str = "train", folder: str | os.PathLike | None = None) -> Path:
    """``template_qa(split)`` as a SQuAD v1.1 file ``<folder>/<split>.json``, written once, then reused.

    Read it with ``word2bert.datasets.squad.squad_v1`` (it checks every span again).

    Args:
        split: as ``template_qa``.
        folder: where the file goes (created if missing; None: ``qa`` in ``word2bert.utils.paths.cache_dir()``,
            the course's ``data/cache/qa``).

    Returns:
        ``pathlib.Path`` of the file.

    Raises:
        ValueError: unknown split, or an existing file that is not a valid SQuAD file.

    Source: as ``template_qa``.
    """
    folder = cache_dir() / "qa" if folder is None else folder
    _check(split, QA_SOURCES)
    path = Path(folder) / f"{split}.json"
    if path.exists():
        squad_v1(path)  # a broken cache raises here rather than later
        return path
    return write_squad_v1(template_qa(split), path)
