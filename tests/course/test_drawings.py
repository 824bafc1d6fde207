"""The course's drawings show what the library computes: a Huffman code, a WordPiece split, co-occurrence counts."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from backends import once_on_tensorflow  # noqa: E402
from word2bert.course import drawings  # noqa: E402
from word2bert.models.glove.cooccurrence import cooccurrence_matrix  # noqa: E402
from word2bert.models.word2vec.huffman import build_huffman_tree  # noqa: E402

pytestmark = once_on_tensorflow


def texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts] + [ax.get_title() for ax in fig.axes]


def test_the_huffman_drawing_gives_the_librarys_code_and_path():
    words, counts = ["the", "of", "and", "cat", "sat", "mat", "rug"], [60, 40, 30, 8, 6, 4, 3]
    fig = drawings.huffman_tree(words, counts, highlight="cat")
    code = "".join(map(str, build_huffman_tree(np.array(counts, float)).codes[3]))
    assert f"Huffman tree: 'cat' has code {code}, {len(code)} binary decisions" in texts(fig)
    tree_ax = fig.axes[0]
    red_bits = [t.get_text() for t in tree_ax.texts if t.get_color() == "tab:red"]
    assert "".join(red_bits) == code            # the red edges are the path, root first
    bars = fig.axes[1].containers[1]
    noise = np.array(counts, float) ** 0.75
    np.testing.assert_allclose([b.get_height() for b in bars], noise / noise.sum())
    with pytest.raises(ValueError, match="highlight must be one of the words"):
        drawings.huffman_tree(words, counts, highlight="dog")


def test_the_wordpiece_drawing_lists_every_try_and_the_librarys_pieces():
    fig = drawings.wordpiece_match("unaffable", {"un", "##aff", "##able"})
    shown = texts(fig)
    assert "'unaffable' -> un ##aff ##able" in shown
    tries = [t for t in shown if t.startswith(("un", "##"))]
    assert tries[:8] == ["unaffable", "unaffabl", "unaffab", "unaffa", "unaff", "unaf", "una", "un"]
    assert tries[-1] == "##able" and len(tries) == 8 + 5 + 1   # ##affable .. ##aff, then ##able at once
    fig = drawings.wordpiece_match("unaffable", {"un", "una", "##aff", "##able", "[UNK]"})
    assert "nothing spells the rest: the whole word becomes [UNK]" in texts(fig)


def test_the_glove_drawing_shows_the_librarys_counts():
    sentences = [["ice", "is", "solid"], ["steam", "is", "gas"]]
    fig = drawings.glove_inputs(sentences, window_size=2)
    ids = [np.array([0, 1, 2]), np.array([3, 1, 4])]
    image = fig.axes[0].get_images()[0].get_array()
    np.testing.assert_allclose(image, cooccurrence_matrix(ids, 5, 2).toarray())
    assert image[0, 2] == 0.5 and image[0, 3] == 0        # distance 2 adds 1/2; no pair crosses a sentence


def test_the_encoder_decoder_drawings_check_their_weights():
    fig = drawings.encoder_decoder(attention=[0.1, 0.2, 0.7], step=2)
    lines = [line for line in fig.axes[0].lines if line.get_color() == "tab:orange"]
    assert [round(line.get_linewidth(), 2) for line in lines] == [1.1, 1.7, 4.7]
    assert "bottleneck" in drawings.encoder_decoder().axes[0].get_title()
    with pytest.raises(ValueError, match="summing to 1"):
        drawings.encoder_decoder(attention=[0.5, 0.2, 0.7])
    with pytest.raises(ValueError, match="3 non-negative weights"):
        drawings.encoder_decoder(attention=[0.5, 0.5])


def test_the_architecture_drawings_name_their_parts():
    assert "one shared\ntable C" in texts(drawings.language_models())
    shown = texts(drawings.word2vec_architectures(("a", "b", "c", "d", "e"), centre=1))
    assert "score every word: b?" in shown and "4 predictions per window" in shown
    with pytest.raises(ValueError, match="centre must index"):
        drawings.word2vec_architectures(("a", "b"), centre=2)


def test_the_transformer_drawing_shows_the_three_masks_the_blocks_use():
    fig = drawings.transformer(("a", "b", "[PAD]"), ("[CLS]", "x", "y", "[PAD]", "[PAD]"))
    shown = [np.asarray(ax.images[0].get_array()) for ax in fig.axes if ax.images]
    src, tgt = np.array([1, 1, 0], bool), np.array([1, 1, 1, 0, 0], bool)
    causal = np.tril(np.ones((5, 5), bool))
    expected = [src[:, None] & src[None, :], causal & tgt[:, None] & tgt[None, :], tgt[:, None] & src[None, :]]
    assert len(shown) == 3
    for drawn, right in zip(shown, expected):
        np.testing.assert_array_equal(drawn.astype(bool), right)
    assert "2 x" in texts(fig)
    with pytest.raises(ValueError, match="end with any padding"):
        drawings.transformer(("a", "[PAD]", "b"))


def test_the_bert_drawing_takes_pieces_and_segments_from_the_tokenizer():
    from word2bert.tokenizers import WordPieceTokenizer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "my", "dog", "is", "cute", "he", "likes", "play", "##ing"]
    fig = drawings.bert(WordPieceTokenizer(vocab), reads={4: "[MASK]", 9: "##ing"})
    shown = texts(fig)
    assert [t for t in shown if t in ("E_A", "E_B")] == ["E_A"] * 6 + ["E_B"] * 5   # [CLS] A [SEP] | B [SEP]
    assert "E([MASK])" in shown and "E(cute)" not in shown      # the model reads [MASK] where cute was chosen
    assert "cute?" in shown and "##ing?" in shown and "dog?" not in shown
    with pytest.raises(ValueError, match="not \\[CLS\\] or \\[SEP\\]"):
        drawings.bert(WordPieceTokenizer(vocab), reads={5: "[MASK]"})


def test_the_who_sees_what_drawing_has_one_arrow_per_word_read():
    n = 5
    causal = np.tril(np.ones((n, n), bool))
    fig = drawings.who_sees_what({"GPT": causal, "BERT": np.ones((n, n), bool)}, position=2)
    arrows = [len([t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]) for ax in fig.axes]
    assert arrows == [3, 5]                                     # positions 0-2 under the causal mask; all 5 in BERT
    assert "GPT\nreads 3 of 5 words" in texts(fig)
    with pytest.raises(ValueError, match="square bool"):
        drawings.who_sees_what({"GPT": causal, "BERT": np.ones((4, 4), bool)})
    with pytest.raises(ValueError, match="position"):
        drawings.who_sees_what({"GPT": causal}, position=5)


def test_the_probing_drawing_reads_the_layer_asked_for():
    fig = drawings.probing(num_layers=2, read=1, words=("a", "b"))
    shown = texts(fig)
    assert [t for t in shown if t.startswith("h")] == ["h0", "h1", "h2"] * 2
    probe_arrows = [t for t in fig.axes[0].texts if getattr(t, "arrow_patch", None) is not None
                    and t.arrowprops.get("color") == "tab:orange"]
    assert len(probe_arrows) == 2 and {round(t.xyann[1], 2) for t in probe_arrows} == {1.85}  # one per word, from h1
    with pytest.raises(ValueError, match="read <= num_layers"):
        drawings.probing(num_layers=2, read=3)
