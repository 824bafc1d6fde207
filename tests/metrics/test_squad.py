"""SQuAD v1.1 reading and writing, SQuAD's exact match and F1, the template QA set, the sliding-window baseline.

The metric values are worked out by hand from the official definition (evaluate-v1.1.py); the
baseline's answers on two tiny contexts are worked out by hand from its documented rule.
"""
import importlib
import json
import re
import string

import pytest

from word2bert.baselines.question_answering import sliding_window_answer, sliding_window_predictions
from word2bert.datasets.squad import QAExample, answer_spans, squad_v1, write_squad_v1
from word2bert.metrics.squad import exact_match, f1, normalize_answer, squad_scores

FIXTURE = {
    "version": "1.1",
    "data": [
        {"title": "Genesis", "paragraphs": [
            {"context": "Adam lived 930 years. Seth lived 912 years.",
             "qas": [{"id": "g1", "question": "How many years did Seth live?",
                      "answers": [{"text": "912", "answer_start": 33}, {"text": "912 years", "answer_start": 33}]},
                     {"id": "g2", "question": "Who lived 930 years?",
                      "answers": [{"text": "Adam", "answer_start": 0}]}]},
            {"context": "Seth became the father of Enosh.",
             "qas": [{"id": "g3", "question": "Who did Seth become the father of?",
                      "answers": [{"text": "Enosh", "answer_start": 26}]}]}]},
        {"title": "Paris", "paragraphs": [
            {"context": "Paris is the capital of France.",
             "qas": [{"id": "p1", "question": "Of what is Paris the capital?",
                      "answers": [{"text": "France", "answer_start": 24}]}]}]},
    ],
}


def _write(tmp_path, obj, name="squad.json"):
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj), encoding="utf-8")
    return path


# ---------------------------------------------------------------- squad_v1 / write_squad_v1
def test_squad_v1_reads_the_official_layout(tmp_path):
    examples = squad_v1(_write(tmp_path, FIXTURE))
    assert [e.id for e in examples] == ["g1", "g2", "g3", "p1"]
    assert examples[0] == QAExample("g1", "Genesis", "Adam lived 930 years. Seth lived 912 years.",
                                    "How many years did Seth live?", (("912", 33), ("912 years", 33)))
    assert examples[3].title == "Paris" and examples[3].answers == (("France", 24),)
    for e in examples:
        for text, start in e.answers:
            assert e.context[start:start + len(text)] == text


def test_write_then_read_is_the_identity(tmp_path):
    examples = squad_v1(_write(tmp_path, FIXTURE))
    out = write_squad_v1(examples, tmp_path / "sub" / "out.json")
    assert json.loads(out.read_text(encoding="utf-8")) == FIXTURE  # grouped by title, then context, in order
    assert squad_v1(out) == examples
    assert not [p for p in (tmp_path / "sub").iterdir() if p.name != "out.json"]  # no temporary file left


def test_write_groups_interleaved_examples(tmp_path):
    a = QAExample("a", "T", "x y", "q?", (("x", 0),))
    b = QAExample("b", "U", "z", "q?", (("z", 0),))
    c = QAExample("c", "T", "x y", "q2?", (("y", 2),))
    root = json.loads(write_squad_v1([a, b, c], tmp_path / "f.json", version="x").read_text())
    assert root["version"] == "x"
    assert [d["title"] for d in root["data"]] == ["T", "U"]
    assert [q["id"] for q in root["data"][0]["paragraphs"][0]["qas"]] == ["a", "c"]
    assert squad_v1(tmp_path / "f.json") == [a, c, b]


def test_squad_v1_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.json"):
        squad_v1(tmp_path / "nowhere.json")
    with pytest.raises(ValueError, match="not a JSON"):
        squad_v1(_write(tmp_path, "{not json"))
    with pytest.raises(ValueError, match="'data'"):
        squad_v1(_write(tmp_path, {"version": "1.1"}))
    broken = json.loads(json.dumps(FIXTURE))
    del broken["data"][0]["paragraphs"][1]["context"]
    with pytest.raises(ValueError, match=r"'context'.*data\[0\]\.paragraphs\[1\]"):
        squad_v1(_write(tmp_path, broken))
    broken = json.loads(json.dumps(FIXTURE))
    del broken["data"][1]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"]
    with pytest.raises(ValueError, match=r"'answer_start'.*data\[1\]\.paragraphs\[0\]\.qas\[0\]\.answers\[0\]"):
        squad_v1(_write(tmp_path, broken))
    broken = json.loads(json.dumps(FIXTURE))
    broken["data"][0]["paragraphs"][0]["qas"][0]["answers"][1]["answer_start"] = 32  # " 912 year"
    with pytest.raises(ValueError, match="'g1'"):
        squad_v1(_write(tmp_path, broken))
    broken = json.loads(json.dumps(FIXTURE))
    broken["data"][1]["paragraphs"][0]["qas"][0]["id"] = "g2"
    with pytest.raises(ValueError, match="duplicate.*'g2'"):
        squad_v1(_write(tmp_path, broken))


def test_write_squad_v1_errors(tmp_path):
    good = QAExample("a", "T", "x y", "q?", (("y", 2),))
    with pytest.raises(ValueError, match="duplicate.*'a'"):
        write_squad_v1([good, good], tmp_path / "f.json")
    with pytest.raises(ValueError, match="'b'"):
        write_squad_v1([QAExample("b", "T", "x y", "q?", (("y", 1),))], tmp_path / "f.json")
    assert not (tmp_path / "f.json").exists()


# ---------------------------------------------------------------- metrics
def test_normalize_answer():
    assert normalize_answer("  The Cat's  hat! ") == "cats hat"
    assert normalize_answer("An apple, a day.") == "apple day"
    assert normalize_answer("The theater") == "theater"  # "the" inside a word stays
    assert normalize_answer("U.S.\tArmy\n") == "us army"
    assert normalize_answer("the") == ""


def _official_normalize_answer(s):
    """``normalize_answer`` of SQuAD v1.1's evaluate-v1.1.py, written out by hand: the functions are applied as
    ``white_space_fix(remove_articles(remove_punc(lower(s))))``, so punctuation goes before the articles."""
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


@pytest.mark.parametrize("text", ["a-b", "The-cat", "an.apple", "the,the", "A-an-the", "U.S.A. and the-UK", "(a) b",
                                  "an't", "the ends!"])
def test_normalize_answer_removes_punctuation_before_articles_as_the_official_script(text):
    assert normalize_answer(text) == _official_normalize_answer(text)


def test_normalize_answer_order_by_hand():
    # punctuation first: "a-b" -> "ab" (not the article "a" then "b"); "the-cat" -> "thecat"; "a.b c" -> "ab c"
    assert normalize_answer("a-b") == "ab"
    assert normalize_answer("The-cat") == "thecat"
    assert normalize_answer("a-b a b") == "ab b"
    assert exact_match("a-b", ["b"]) == 0.0 and exact_match("a-b", ["ab"]) == 1.0


def test_a_prediction_must_be_a_string():
    for score in (exact_match, f1):
        with pytest.raises(TypeError, match="prediction must be the predicted answer string .* got NoneType None"):
            score(None, ["cat"])
        with pytest.raises(TypeError, match="got int 3"):
            score(3, ["3"])
    assert exact_match("", ["cat"]) == 0.0 and f1("", ["cat"]) == 0.0       # no answer is a string: scored 0


def test_gold_answers_as_hugging_face_dicts_and_squad_json_dicts():
    hf = {"text": ["the Eiffel Tower", "Eiffel tower"], "answer_start": [0, 4]}
    # by hand: "eiffel tower" = normalised golds; "tower": [tower] vs [eiffel, tower]: P 1, R 1/2, F1 2/3
    assert exact_match("Eiffel Tower!", hf) == 1.0 and f1("Eiffel Tower!", hf) == 1.0
    assert exact_match("tower", hf) == 0.0 and f1("tower", hf) == pytest.approx(2 / 3)
    # read as its keys before: "text" and "answer_start", never a match
    assert exact_match("text", hf) == 0.0
    json_dicts = [{"text": "cat", "answer_start": 0}, {"text": "a cat sat", "answer_start": 0}]
    assert exact_match("the cat", json_dicts) == 1.0
    assert f1("cat sat down", json_dicts) == pytest.approx(0.8)              # [cat, sat, down] vs [cat, sat]: P 2/3, R 1
    assert f1("cat sat down", {"text": "a cat sat", "answer_start": 0}) == pytest.approx(0.8)   # one JSON dict
    examples = [QAExample("1", "t", "c", "q", {"text": ["Paris", "in Paris"], "answer_start": [0, 0]}),
                QAExample("2", "t", "c", "q", {"text": ["912 years"], "answer_start": [33]})]
    # by hand: 1: EM 1, F1 1; 2: [912] vs [912, years]: P 1, R 1/2, F1 2/3, EM 0
    assert squad_scores({"1": "paris", "2": "912"}, examples) == pytest.approx(
        {"exact_match": 50.0, "f1": 100 * (1 + 2 / 3) / 2})
    assert answer_spans(hf) == [("the Eiffel Tower", 0), ("Eiffel tower", 4)]
    assert answer_spans(json_dicts) == [("cat", 0), ("a cat sat", 0)]
    assert answer_spans([("UK", 3), "UK"]) == [("UK", 3), ("UK", None)]
    assert answer_spans({"text": [], "answer_start": []}) == []


@pytest.mark.parametrize("answers, error, words", [
    (None, TypeError, "ground_truths: the answers must be a list"),
    ({"text": ["a", "b"], "answer_start": [0]}, ValueError, "'text' has 2 answers but 'answer_start' 1"),
    ({"answer": ["a"]}, ValueError, "the answers are a dict but its 'text' is None"),
    ({"text": [3], "answer_start": [0]}, ValueError, "answer 0's text must be a string, got 3"),
    ({"text": ["a"], "answer_start": ["0"]}, ValueError, "answer 0's answer_start must be an int character offset"),
    ([{"text": 5}], ValueError, "a gold answer must be a string or a (text, answer_start) pair"),
])
def test_gold_answers_of_another_layout_are_refused(answers, error, words):
    with pytest.raises(error) as caught:
        exact_match("a", answers)
    assert words in str(caught.value)


def test_exact_match_by_hand():
    assert exact_match("the Eiffel Tower.", ["Eiffel tower"]) == 1.0
    assert exact_match("Eiffel", ["Eiffel tower"]) == 0.0
    assert exact_match("Paris", ["Eiffel tower", "in Paris", "paris!"]) == 1.0  # the max over ground truths
    with pytest.raises(ValueError, match="one string"):
        exact_match("a", "a")
    with pytest.raises(ValueError, match="empty"):
        f1("a", [])


def test_f1_by_hand():
    assert f1("the cat sat", ["a cat sat down"]) == pytest.approx(0.8)       # 2 common, P 1, R 2/3
    assert f1("cat", ["dog", "cat sat"]) == pytest.approx(2 / 3)             # best of two: P 1, R 1/2
    assert f1("cat cat", ["cat"]) == pytest.approx(2 / 3)                    # multiset: 1 common, P 1/2, R 1
    assert f1("cat cat sat", ["cat cat"]) == pytest.approx(0.8)              # 2 common (a set would say 1): P 2/3, R 1
    assert f1("The dog.", ["a cat"]) == 0.0
    assert f1("the", ["a"]) == 0.0                                           # both empty: no common token
    assert f1("Seth, lived", ["seth LIVED"]) == 1.0


def test_squad_scores():
    examples = [QAExample("1", "t", "c", "q", (("a cat sat down", 0), ("dog", 0))),
                QAExample("2", "t", "c", "q", (("Paris", 0),)),
                QAExample("3", "t", "c", "q", (("912", 0),))]
    predictions = {"1": "the cat sat", "2": "paris.", "3": "930", "extra": "ignored"}
    assert squad_scores(predictions, examples) == pytest.approx({"exact_match": 100 / 3, "f1": 100 * 1.8 / 3})
    del predictions["3"]
    with pytest.raises(ValueError, match="1 of 3 questions have no prediction.*'3'"):
        squad_scores(predictions, examples)
    assert squad_scores(predictions, examples, allow_missing=True) == pytest.approx(
        {"exact_match": 100 / 3, "f1": 100 * 1.8 / 3})
    with pytest.raises(ValueError, match="empty"):
        squad_scores({}, [])


def test_squad_scores_take_a_plain_string_gold_answer_as_one_answer():
    # issue 44: ["UK"] was read as the pair ("U", "K"): gold "U", EM 0 for a right answer
    assert squad_scores({"1": "UK"}, [QAExample("1", "t", "c", "q", ["UK"])]) == {"exact_match": 100.0, "f1": 100.0}
    examples = [QAExample("1", "t", "c", "q", ["UK"]),
                QAExample("2", "t", "c", "q", "United Kingdom"),             # answers itself one string
                QAExample("3", "t", "c", "q", ["Great Britain", ("the UK", 0)]),
                QAExample("4", "t", "c", "q", [{"text": "London", "answer_start": 0}])]
    predictions = {"1": "the UK.", "2": "the kingdom", "3": "Britain", "4": "in London"}
    # by hand: 1: "uk" = "uk", EM 1, F1 1; 2: [kingdom] vs [united, kingdom]: P 1, R 1/2, F1 2/3, EM 0;
    # 3: [britain] vs [great, britain]: F1 2/3 (vs "uk": 0), EM 0; 4: [in, london] vs [london]: P 1/2, R 1, F1 2/3
    scores = squad_scores(predictions, examples)
    assert scores["exact_match"] == pytest.approx(100 / 4)
    assert scores["f1"] == pytest.approx(100 * (1 + 2 / 3 + 2 / 3 + 2 / 3) / 4)
    assert squad_scores({"2": "United  kingdom!"}, examples[1:2]) == {"exact_match": 100.0, "f1": 100.0}
    for answers in ([("UK", 0, 3)], [7], ("UK", 3)):
        with pytest.raises(ValueError, match="question '5': a gold answer must be a string or a"):
            squad_scores({"5": "UK"}, [QAExample("5", "t", "c", "q", answers)])


# ---------------------------------------------------------------- the sliding-window baseline
def test_baseline_finds_a_determined_answer():
    # window = 6 distinct question words; "Lima" has the, capital, of, peru, is (all five) to its left
    context = "The capital of France is Paris. The capital of Peru is Lima."
    text, start = sliding_window_answer(context, "What is the capital of Peru?")
    assert (text, start) == ("Lima", context.index("Lima"))


def test_baseline_cannot_tell_answer_types():
    # "lived" and "912" both see seth and years within their sentence; "lived" comes first ("live" != "lived")
    context = "Adam lived 930 years. Seth lived 912 years."
    question = "How many years did Seth live?"
    assert sliding_window_answer(context, question) == ("lived", context.index("Seth lived") + 5)
    # window=1: "lived 912" sees seth (left) and years (right); "lived" only seth, "912" only years
    assert sliding_window_answer(context, question, window=1) == ("lived 912", context.index("Seth lived") + 5)
    assert sliding_window_answer(context, question, max_answer_words=1, window=1)[0] == "lived"
    examples = [QAExample("s", "t", context, question, (("912", context.index("912")),))]
    assert sliding_window_predictions(examples) == {"s": "lived"}
    assert squad_scores(sliding_window_predictions(examples), examples) == {"exact_match": 0.0, "f1": 0.0}


def test_baseline_edge_cases():
    assert sliding_window_answer("", "Who?") == ("", 0)
    assert sliding_window_answer("the of .", "Who?") == ("", 0)  # only function words and punctuation
    with pytest.raises(ValueError, match="max_answer_words"):
        sliding_window_answer("a b", "q", max_answer_words=0)
    with pytest.raises(ValueError, match="window"):
        sliding_window_answer("a b", "q", window=0)


# ---------------------------------------------------------------- the template QA set
COUNTS = {
    ("train", "bible"): {"age": 42, "father": 125, "king": 262, "lived": 14, "lived_in": 22, "place": 86, "son": 1015},
    ("train", "wikipedia"): {"born": 4, "definition": 13, "number": 138, "place": 745, "year": 1172},
    ("valid", "bible"): {"king": 3, "son": 11},
    ("valid", "wikipedia"): {"definition": 2, "number": 22, "place": 53, "year": 109},
    ("test", "bible"): {"father": 9, "king": 6, "place": 3, "son": 11},
    ("test", "wikipedia"): {"number": 4, "place": 35, "year": 35},
}


@pytest.fixture(scope="module")
def qa():
    pytest.importorskip("gensim")
    pytest.importorskip("pysword")
    tq = importlib.import_module("word2bert.datasets.template_qa")   # the module (the package exports the function)
    from word2bert.datasets.paths import CorpusNotFoundError

    try:
        sets = {(split, source): tq.template_qa(split, source) for split, source in COUNTS}
    except CorpusNotFoundError as e:
        pytest.skip(str(e))
    return tq, sets


def test_counts_per_split_and_type_are_the_documented_ones(qa):
    tq, sets = qa
    for (split, source), counts in COUNTS.items():
        types = tq.template_qa_types(split, source)
        assert [e.id for e in sets[split, source]] == list(types)
        found = {}
        for kind in types.values():
            found[kind] = found.get(kind, 0) + 1
        assert found == counts, (split, source)
    assert [len(tq.template_qa(s)) for s in tq.QA_SPLITS] == [3638, 200, 103]
    assert tq.template_qa("valid") == sets["valid", "bible"] + sets["valid", "wikipedia"]


def test_answers_are_exact_spans_and_ids_unique(qa):
    _, sets = qa
    ids = [e.id for examples in sets.values() for e in examples]
    assert len(ids) == len(set(ids))
    for examples in sets.values():
        for e in examples:
            assert len(e.answers) == 1
            text, start = e.answers[0]
            assert e.context[start:start + len(text)] == text and text.strip() == text
            assert 1 <= len(text.split()) <= 4 and e.question.endswith("?")


def test_bible_splits_are_whole_books_and_contexts_one_chapter(qa):
    from word2bert.datasets.bible import bible, split_of_book

    _, sets = qa
    chapters = {}
    for (book, chapter, _), text in bible("eng_web").items():
        chapters.setdefault((book, chapter), []).append(text)
    books = {}
    for split in ("train", "valid", "test"):
        books[split] = {e.title for e in sets[split, "bible"]}
        assert all(split_of_book(b) == split for b in books[split])
        for e in sets[split, "bible"]:
            book, chapter = e.id.removeprefix("bible-").rsplit("-", 3)[0].replace("_", " "), int(e.id.split("-")[-3])
            assert book == e.title and e.context in " ".join(chapters[book, chapter])
    assert not (books["train"] & books["valid"] or books["train"] & books["test"] or books["valid"] & books["test"])


def test_wikipedia_test_contexts_come_from_held_out_articles(qa):
    from word2bert.datasets.pretraining import pretraining_documents
    from word2bert.datasets.wikipedia import wikipedia_texts

    tq, sets = qa
    held = {d.id.removeprefix("wikipedia/") for d in pretraining_documents("valid", sources="wikipedia")}
    text = {a.title: " ".join(a.sentences) for a in wikipedia_texts()}
    titles = {split: {e.title for e in sets[split, "wikipedia"]} for split in ("train", "valid", "test")}
    assert titles["test"] <= held and not (titles["train"] | titles["valid"]) & held
    assert not titles["train"] & titles["valid"]
    assert len({t for t in text if tq.wikipedia_qa_split(t) == "valid"}) == tq.WIKI_VALID_ARTICLES
    for split in ("train", "valid", "test"):
        for e in sets[split, "wikipedia"]:
            assert e.context in text[e.title] and tq.wikipedia_qa_split(e.title) == split
    with pytest.raises(ValueError, match="'Nowhere'"):
        tq.wikipedia_qa_split("Nowhere")


def test_contexts_are_longer_than_a_bert_window(qa):
    _, sets = qa
    words = sorted(len(e.context.split()) for examples in sets.values() for e in examples)
    assert 150 <= words[len(words) // 2] <= 300


def test_deterministic_and_cached_file_round_trip(qa, tmp_path):
    tq, sets = qa
    assert [e for _, e in tq._wiki_examples()["valid"]] == sets["valid", "wikipedia"]  # rebuilt: the same
    path = tq.template_qa_file("valid", tmp_path / "qa")
    assert path == tmp_path / "qa" / "valid.json"
    assert squad_v1(path) == tq.template_qa("valid")  # one context a question: order kept
    assert tq.template_qa_file("valid", tmp_path / "qa") == path  # reused
    with pytest.raises(ValueError, match="'dev'"):
        tq.template_qa("dev")
    with pytest.raises(ValueError, match="'news'"):
        tq.template_qa("train", sources="news")


def test_baseline_scores_on_valid(qa):
    tq, _ = qa
    examples = tq.template_qa("valid")
    scores = squad_scores(sliding_window_predictions(examples), examples)
    assert scores == pytest.approx({"exact_match": 63.5, "f1": 75.32}, abs=0.01)
