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
