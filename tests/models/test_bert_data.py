"""Tests for BERT's pretraining data (word2bert.models.bert.pretraining with word2bert.tokenizers): whole-word groups at the
segment boundaries, random replacements never drawn from the bracketed (special) tokens, and the padding mask by
position that ``PretrainingBatches`` passes on from ``encode_pair``."""
import keras
import numpy as np
import pytest

from backends import once_on_tensorflow
from word2bert.models.bert import BertBackbone, BertPretrainer, PretrainingBatches, mask_tokens
from word2bert.tokenizers import BERT_SPECIALS, WordPieceTokenizer

WORDS = "the cat dog sat ran on a mat sun moon is was big small red tree house river bird fish".split()


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_whole_word_groups_end_at_special_tokens():
    vocabulary = list(BERT_SPECIALS) + ["a", "##b", "##c"]
    ids = {t: i for i, t in enumerate(vocabulary)}
    pieces = ["[CLS]", "a", "##b", "[SEP]", "##c", "[SEP]"]
    row = np.array([[ids[p] for p in pieces]], np.int32)
    starts = np.array([[not p.startswith("##") for p in pieces]])
    # the words are {a ##b} (positions 1, 2) and {##c} (4): a "##c" after [SEP] does not continue the word before
    # it. 3 eligible tokens at rate 0.5: a quota of 2, so a draw takes either {a ##b} or {##c}, never all three
    # (one word {a ##b ##c} of 3 would exceed the quota and be taken whole as the only word that fits P = 3).
    seen = set()
    for seed in range(200):
        _, positions, labels, weights = mask_tokens(row, seed, len(vocabulary), range(5), ids["[MASK]"], rate=0.5,
                                                    max_predictions=3, whole_word=True, word_starts=starts)
        chosen = tuple(positions[0][weights[0] > 0].tolist())
        seen.add(chosen)
        np.testing.assert_array_equal(labels[0][weights[0] > 0], row[0][list(chosen)])
    assert seen == {(1, 2), (4,)}


def _documents(words, n_docs=10, seed=0, extra=""):
    rng = np.random.default_rng(seed)
    return [[" ".join(rng.choice(words, int(rng.integers(4, 9)))) + extra for _ in range(int(rng.integers(3, 6)))]
            for _ in range(n_docs)]


@once_on_tensorflow                                        # NumPy only: no Keras backend involved
def test_random_replacements_are_never_bracketed_tokens():
    bracketed = ["[unused0]", "[unused1]", "[unused2]", "[unused3]", "[EXTRA]", "[BOS]"]
    vocabulary = list(BERT_SPECIALS) + bracketed + WORDS
    tok = WordPieceTokenizer(vocabulary)
    is_bracketed = np.array([t.startswith("[") and t.endswith("]") for t in vocabulary])
    data = PretrainingBatches(_documents(WORDS), tok, batch_size=4, sequence_length=32, seed=3)
    replaced = 0
    for epoch in range(60):
        data.set_epoch(epoch)
        for i in range(len(data)):
            x, y, w = data[i]
            chosen = w["mlm"] > 0
            rows = np.broadcast_to(np.arange(len(chosen))[:, None], chosen.shape)
            now = x["token_ids"][rows[chosen], x["mask_positions"][chosen]]
            original = y["mlm"][chosen]
            assert not is_bracketed[original].any()                       # never chosen
            random = (now != original) & (now != tok.token_to_id("[MASK]"))
            assert not is_bracketed[now[random]].any(), [vocabulary[t] for t in now[random]]
            replaced += int(random.sum())
    # drawing from every id but the five BERT specials would give a bracketed token in 6 of 26 draws: over these
    # replacements one at least would be bracketed, with probability 1 - (20/26)^replaced > 1 - 1e-22
    assert replaced >= 200, replaced


def _pad_tokenizer():
    return WordPieceTokenizer(list(BERT_SPECIALS) + [".", "walk", "##ing"] + WORDS)


@pytest.mark.slow
def test_batches_pass_on_the_padding_mask_by_position():
    tok = _pad_tokenizer()
    docs = _documents(WORDS, extra=" [PAD] walking .")                 # a [PAD] written in every sentence
    data = PretrainingBatches(docs, tok, batch_size=4, sequence_length=32, seed=1)     # 12 + 12 + 3: nothing is cut
    written = 0
    for i in range(len(data)):
        x, _, w = data[i]
        assert set(x) == {"token_ids", "segment_ids", "padding_mask", "mask_positions"}
        assert x["padding_mask"].dtype == bool and x["padding_mask"].shape == x["token_ids"].shape == (4, 32)
        pairs = data._epoch_pairs[i * 4:(i + 1) * 4]
        expected = np.stack([tok.encode_pair(p.a, p.b, 32)["padding_mask"] for p in pairs])
        np.testing.assert_array_equal(x["padding_mask"], expected)
        # by position: True up to the last [SEP], False after it, whatever the ids
        last_sep = np.array([np.flatnonzero(r == tok.token_to_id("[SEP]")).max() for r in x["token_ids"]])
        np.testing.assert_array_equal(x["padding_mask"], np.arange(32)[None, :] <= last_sep[:, None])
        written += int((x["padding_mask"] & (x["token_ids"] == 0)).sum())  # written [PAD]s: id 0, real tokens
        rows = np.broadcast_to(np.arange(4)[:, None], x["mask_positions"].shape)
        assert x["padding_mask"][rows[w["mlm"] > 0], x["mask_positions"][w["mlm"] > 0]].all()
    assert written >= len(data) * 4                                     # at least one in every pair
    # the batches go through fit as they are, padding_mask included, on this backend
    model = BertPretrainer(BertBackbone(tok.vocabulary_size, num_layers=1, hidden_dim=16, num_heads=2,
                                        intermediate_dim=32, max_sequence_length=32, dropout=0.0))
    model.compile(optimizer=keras.optimizers.Adam(1e-3))
    history = model.fit(data, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


# ------------------------------------------------------------------ NSP negatives of the same source, packed spans
def _sourced_documents(rng):
    from word2bert.datasets.pretraining import Document
    return [Document(f"{source}/{d}", source, tuple(f"{source}{d}s{s}" for s in range(int(rng.integers(1, 9)))))
            for source, n in (("wiki", 7), ("bible", 40)) for d in range(n)]


@once_on_tensorflow
def test_same_source_negatives_never_cross_sources_and_any_does():
    from word2bert.models.bert import NOT_NEXT, NextSentencePairs
    docs = _sourced_documents(np.random.default_rng(2))
    crossed = {}
    for negatives in ("any", "same_source"):
        sampler = NextSentencePairs(docs, negatives=negatives)
        pairs = [p for seed in range(20) for p in sampler.draw(seed) if p.label == NOT_NEXT]
        assert all(p.doc_a != p.doc_b for p in pairs)
        crossed[negatives] = np.mean([docs[p.doc_a].source != docs[p.doc_b].source for p in pairs])
        # the partner sentence belongs to the partner document
        assert all(p.b in docs[p.doc_b].sentences for p in pairs)
    assert crossed["same_source"] == 0
    assert crossed["any"] > 0.1                  # about 7/46 of the Bible's negatives and 40/46 of Wikipedia's
    with pytest.raises(ValueError, match="only one"):
        NextSentencePairs(docs[:1] + docs[7:], negatives="same_source")    # one Wikipedia document
    with pytest.raises(ValueError, match="negatives"):
        NextSentencePairs(docs, negatives="other")


@once_on_tensorflow
def test_pack_documents_fills_spans_greedily_and_loses_no_text():
    from word2bert.models.bert import pack_documents
    from word2bert.datasets.pretraining import Document

    class Spaces:                                # one token a word: counts are easy to check by hand
        def encode(self, text):
            return text.split()

    rng = np.random.default_rng(4)
    docs = [Document(f"d{d}", "x", tuple(" ".join(WORDS[:int(rng.integers(1, 14))]) for _ in range(int(rng.integers(1, 30)))))
            for d in range(30)]
    packed = pack_documents(docs, Spaces(), max_tokens=20)
    for doc, out in zip(docs, packed):
        assert (out.id, out.source) == (doc.id, doc.source)
        assert " ".join(out.sentences) == " ".join(doc.sentences)
        sizes = [len(s.split()) for s in out.sentences]
        assert all(n <= 20 for n in sizes)
        # consecutive sentences, in order; greedy: the sentence after a span would not have fitted in it
        i = 0
        for span in out.sentences:
            j = next(j for j in range(i + 1, len(doc.sentences) + 1) if " ".join(doc.sentences[i:j]) == span)
            if j < len(doc.sentences):
                assert len(span.split()) + len(doc.sentences[j].split()) > 20
            i = j
        assert i == len(doc.sentences)
    assert pack_documents([["a b c d e f"]], Spaces(), max_tokens=3) == [["a b c d e f"]]   # too long: kept whole
    assert pack_documents([["a", "b", "c"]], Spaces(), max_tokens=2) == [["a b", "c"]]
    with pytest.raises(ValueError, match="max_tokens"):
        pack_documents(docs, Spaces(), max_tokens=0)


def test_pre_ln_backbone_counts_saves_and_differs_from_post_ln(tmp_path):
    from word2bert.models.bert import BertConfig
    config = BertConfig(50, num_layers=2, hidden_dim=16, num_heads=2, intermediate_dim=24, max_sequence_length=12,
                        normalize_first=True)
    backbone = BertBackbone.from_bert_config(config)
    rng = np.random.default_rng(0)
    ids = rng.integers(1, 50, (2, 12)).astype(np.int32)
    backbone({"token_ids": ids})
    # weights of unit scale: at BERT's initialisation (0.02) every sublayer adds almost nothing to its input,
    # and pre-LN and post-LN both return nearly the normalised embeddings
    backbone.set_weights([rng.normal(0, 0.5, w.shape).astype(w.dtype) for w in backbone.get_weights()])
    out = keras.ops.convert_to_numpy(backbone({"token_ids": ids})["sequence_output"])
    assert backbone.count_params() == config.num_parameters() == BertConfig(
        **{**config.to_dict(), "normalize_first": False}).num_parameters() + 2 * 16
    assert all(block.normalize_first for block in backbone.encoder_blocks)
    # post-LN with the same weights (the final LayerNorm left out) computes something else
    post = BertBackbone.from_bert_config(BertConfig(**{**config.to_dict(), "normalize_first": False}))
    post({"token_ids": ids})
    post.set_weights([w for w, v in zip(backbone.get_weights(), backbone.weights) if "final_norm" not in v.path])
    assert np.abs(keras.ops.convert_to_numpy(post({"token_ids": ids})["sequence_output"]) - out).max() > 1e-2
    path = tmp_path / "pre_ln.keras"
    backbone.save(path)
    loaded = keras.saving.load_model(path)
    assert loaded.normalize_first
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded({"token_ids": ids})["sequence_output"]), out,
                               atol=1e-6)


@once_on_tensorflow
def test_epoch_pairs_are_the_pairs_the_batches_encode():
    from word2bert.models.bert import IS_NEXT, NOT_NEXT
    rng = np.random.default_rng(1)
    docs = [[" ".join(rng.choice(WORDS, 5)) for _ in range(6)] for _ in range(12)]
    tokenizer = WordPieceTokenizer(list(BERT_SPECIALS) + WORDS)
    batches = PretrainingBatches(docs, tokenizer, batch_size=4, sequence_length=16, seed=3, pairs_per_epoch=23)
    assert len(batches.epoch_pairs) == 20
    for i in range(len(batches)):
        x, y, _ = batches[i]
        chunk = batches.epoch_pairs[i * 4:(i + 1) * 4]
        np.testing.assert_array_equal(y["nsp"], [p.label for p in chunk])
        for row, p in zip(x["segment_ids"], chunk):        # segment B holds as many tokens as B has words
            assert int((row == 1).sum()) == len(p.b.split()) + 1
    assert {p.label for p in batches.epoch_pairs} == {IS_NEXT, NOT_NEXT}
