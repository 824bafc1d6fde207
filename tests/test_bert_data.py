"""Tests for BERT's pretraining data (word2bert.bert.pretraining with word2bert.text): whole-word groups at the
segment boundaries, random replacements never drawn from the bracketed (special) tokens, and the padding mask by
position that ``PretrainingBatches`` passes on from ``encode_pair``."""
import keras
import numpy as np

from backends import once_on_tensorflow
from word2bert.bert import BertBackbone, BertPretrainer, PretrainingBatches, mask_tokens
from word2bert.text import BERT_SPECIALS, WordPieceTokenizer

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
    data = PretrainingBatches(_documents(WORDS), tok, batch_size=4, max_len=32, seed=3)
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


def test_batches_pass_on_the_padding_mask_by_position():
    tok = _pad_tokenizer()
    docs = _documents(WORDS, extra=" [PAD] walking .")                 # a [PAD] written in every sentence
    data = PretrainingBatches(docs, tok, batch_size=4, max_len=32, seed=1)     # 12 + 12 + 3: nothing is cut
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
    model = BertPretrainer(BertBackbone(tok.vocab_size, num_layers=1, hidden_dim=16, num_heads=2,
                                        intermediate_dim=32, max_len=32, dropout=0.0))
    model.compile(optimizer=keras.optimizers.Adam(1e-3))
    history = model.fit(data, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
