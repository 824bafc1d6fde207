"""Drawings of the models the chapters build (matplotlib): what a learner holds in mind while reading the code.

Each function returns a ``matplotlib.figure.Figure`` (shown inline in a notebook). Where a drawing shows something
the library computes (a Huffman code, a WordPiece split, a co-occurrence count, GloVe's weight, the noise
distribution of negative sampling), it asks the library, so the picture and the code cannot disagree::

    from word2bert.course import drawings
    drawings.huffman_tree(["the", "of", "cat", "sat", "mat"], [50, 30, 8, 6, 4], highlight="cat")

The drawings:

- ``language_models``: n-gram counts, Bengio's NNLM and an LSTM language model (chapter 01).
- ``word2vec_architectures``: CBOW and skip-gram over one window (chapter 02).
- ``huffman_tree``: hierarchical softmax's tree, one word's path, and the noise distribution of negative sampling
  (chapter 03).
- ``glove_inputs``: a co-occurrence matrix and GloVe's weighting function (chapter 04).
- ``encoder_decoder``: the GRU encoder-decoder, with its fixed-size bottleneck or with attention (chapters 05, 06).
- ``wordpiece_match``: WordPiece's greedy longest match, try by try (chapter 07).
- ``transformer``: the Transformer's encoder and decoder blocks with their three attention masks (chapter 08).
- ``bert``: BERT's three input embeddings, its encoder and its two pretraining heads (chapter 09).
- ``probing``: a linear probe reading one layer of a frozen encoder (chapter 11).
- ``who_sees_what``: which input words one position's vector depends on, in ELMo, GPT and BERT (chapter 12).
"""
from __future__ import annotations

import numpy as np

from word2bert.utils.imports import require

BOX = "#dbe7f4"      # a vector or a layer
WORD = "#f6ecd2"     # a token
OUT = "#e3f1de"      # a prediction
EDGE = "#33475b"


def _plt():
    return require("matplotlib.pyplot", extra="course", purpose="the course's drawings")


def _canvas(panels: int, width: float, height: float, xlim, ylim):
    fig, axes = _plt().subplots(1, panels, figsize=(width, height), squeeze=False)
    for ax in axes[0]:
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_axis_off()
    return fig, list(axes[0])


def _box(ax, x, y, text, color=BOX, w=1.0, h=0.5, size=9):
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.03", fc=color, ec=EDGE, lw=1))
    ax.text(x, y, text, ha="center", va="center", fontsize=size)


def _arrow(ax, start, end, color=EDGE, lw=1.0, style="-|>", dashed=False, rad=0.0):
    ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle=style, color=color, lw=lw, shrinkA=0, shrinkB=0,
                                                          linestyle="--" if dashed else "-",
                                                          connectionstyle=f"arc3,rad={rad}"))


def language_models(context=("the", "cat", "sat"), next_word="on"):
    """Three ways to score the next word: a count table, Bengio's NNLM (a fixed window of embeddings into a tanh
    layer and a softmax) and an LSTM (a state carried along the whole history).

    Returns:
        a Figure of three panels. Source: Kneser & Ney (1995); Bengio et al. (2003), figure 1; Zaremba et al. (2014).
    """
    fig, (ng, nn, rnn) = _canvas(3, 13, 4.2, (0, 6), (0, 6))
    n = len(context)
    ng.set_title("n-gram: counts of what followed", fontsize=10)
    for i, w in enumerate(context[-2:]):
        _box(ng, 2 + 2 * i, 0.6, w, WORD)
        _arrow(ng, (2 + 2 * i, 0.9), (3, 2.2))
    _box(ng, 3, 2.6, f"count table c({' '.join(context[-2:])} ·)\nsmoothed (Kneser-Ney)", w=4.2, h=0.8)
    _arrow(ng, (3, 3.0), (3, 4.3))
    _box(ng, 3, 4.7, f"P({next_word} | {' '.join(context[-2:])})", OUT, w=3.0)
    nn.set_title("NNLM: a window of embeddings", fontsize=10)
    xs = np.linspace(1, 5, n)
    for x, w in zip(xs, context):
        _box(nn, x, 0.5, w, WORD, w=0.9)
        _arrow(nn, (x, 0.75), (x, 1.35))
        _box(nn, x, 1.6, "C[w]", w=0.9)
        _arrow(nn, (x, 1.85), (3, 2.55))
    nn.text(5.55, 1.6, "one shared\ntable C", fontsize=8, va="center")
    _box(nn, 3, 2.8, "concatenate", w=2.6)
    _arrow(nn, (3, 3.05), (3, 3.45))
    _box(nn, 3, 3.7, "tanh(H x + d)", w=2.6)
    _arrow(nn, (3, 3.95), (3, 4.35))
    _box(nn, 3, 4.6, "softmax over the vocabulary", w=3.6)
    _arrow(nn, (3, 4.85), (3, 5.25))
    _box(nn, 3, 5.5, f"P({next_word} | {' '.join(context)})", OUT, w=3.2)
    rnn.set_title("LSTM: a state over the whole history", fontsize=10)
    words = list(context) + [next_word]
    xs = np.linspace(0.7, 5.3, len(words))
    for i, (x, w) in enumerate(zip(xs, words)):
        _box(rnn, x, 0.8, w, WORD, w=0.95)
        _arrow(rnn, (x, 1.05), (x, 2.2))
        _box(rnn, x, 2.6, "LSTM", w=0.95, h=0.8)
        _arrow(rnn, (x, 3.0), (x, 4.1))
        _box(rnn, x, 4.5, (words + ["<eos>"])[i + 1], OUT, w=0.95)
        if i:
            _arrow(rnn, (xs[i - 1] + 0.48, 2.6), (x - 0.48, 2.6))
    rnn.text(3, 3.35, "state (h, c) carried right", ha="center", fontsize=8)
    rnn.text(3, 5.3, "each step predicts the next word", ha="center", fontsize=8)
    fig.tight_layout()
    return fig


def word2vec_architectures(sentence=("the", "quick", "brown", "fox", "jumps"), centre: int = 2):
    """CBOW (the context predicts the centre word) and skip-gram (the centre word predicts each context word),
    over one window of ``sentence``.

    Args:
        sentence: the window's words; ``centre`` is the index of the centre word, every other word its context.

    Raises:
        ValueError: ``centre`` outside the sentence.

    Returns:
        a Figure of two panels. Source: Mikolov et al. (2013a), figure 1.
    """
    if not 0 <= centre < len(sentence):
        raise ValueError(f"centre must index the sentence (0..{len(sentence) - 1}), got {centre}")
    context = [w for i, w in enumerate(sentence) if i != centre]
    fig, (cbow, sg) = _canvas(2, 11, 4.2, (0, 6), (0, 5))
    xs = np.linspace(0.7, 5.3, len(context))
    cbow.set_title("CBOW: the context predicts the centre word", fontsize=10)
    for x, w in zip(xs, context):
        _box(cbow, x, 0.5, w, WORD, w=0.95)
        _arrow(cbow, (x, 0.75), (3, 1.95))
    _box(cbow, 3, 2.3, "average of their input vectors", w=3.8)
    _arrow(cbow, (3, 2.55), (3, 3.35))
    _box(cbow, 3, 3.7, f"score every word: {sentence[centre]}?", OUT, w=3.8)
    cbow.text(3, 4.5, "one prediction per window", ha="center", fontsize=8)
    sg.set_title("skip-gram: the centre word predicts each context word", fontsize=10)
    _box(sg, 3, 0.5, sentence[centre], WORD, w=1.1)
    _arrow(sg, (3, 0.75), (3, 1.35))
    _box(sg, 3, 1.6, "its input vector", w=2.4)
    for x, w in zip(xs, context):
        _arrow(sg, (3, 1.85), (x, 3.45))
        _box(sg, x, 3.7, f"{w}?", OUT, w=0.95)
    sg.text(3, 4.5, f"{len(context)} predictions per window", ha="center", fontsize=8)
    fig.tight_layout()
    return fig


def _layout(tree, vocabulary_size):
    """Children of each inner node from the library's paths: ``{node: {bit: ("node", id) or ("leaf", id)}}``."""
    children: dict[int, dict[int, tuple]] = {}
    for word in range(vocabulary_size):
        nodes, codes = list(tree.points[word]), list(tree.codes[word])
        for j, (node, bit) in enumerate(zip(nodes, codes)):
            child = ("node", int(nodes[j + 1])) if j + 1 < len(nodes) else ("leaf", word)
            children.setdefault(int(node), {})[int(bit)] = child
    return children


def huffman_tree(words, counts, highlight: str, power: float = 0.75):
    """Hierarchical softmax's Huffman tree over a small vocabulary, with one word's path (its code, the branch
    taken at each inner node), beside the noise distribution negative sampling draws from.

    Args:
        words: the vocabulary (at least 2 words); counts: their counts (the library's ``build_huffman_tree``).
        highlight: the word whose path is drawn in red, its code bits on the edges.
        power: the noise distribution's exponent (``unigram_probs``).

    Raises:
        ValueError: ``highlight`` is not among ``words``; bad counts (as ``build_huffman_tree``).

    Returns:
        a Figure of two panels. Source: Mikolov et al. (2013a, section 3; 2013b, section 2.2).
    """
    from word2bert.models.word2vec.huffman import build_huffman_tree
    from word2bert.models.word2vec.sampling import unigram_probs

    words = list(words)
    if highlight not in words:
        raise ValueError(f"highlight must be one of the words, got {highlight!r}")
    counts = np.asarray(counts, dtype=np.float64)
    tree = build_huffman_tree(counts)
    children = _layout(tree, len(words))
    root = len(words) - 2
    position, leaves = {}, []

    def place(item, depth):   # leaves left to right in code order; an inner node above the middle of its children
        kind, ident = item
        if kind == "leaf":
            position[item] = (len(leaves), -depth)
            leaves.append(ident)
        else:
            place(children[ident][0], depth + 1)
            place(children[ident][1], depth + 1)
            xs = [position[children[ident][b]][0] for b in (0, 1)]
            position[item] = (sum(xs) / 2, -depth)
    place(("node", root), 0)
    target = words.index(highlight)
    on_path = {("node", int(p)) for p in tree.points[target]} | {("leaf", target)}
    fig, (ax, bars) = _plt().subplots(1, 2, figsize=(12, 4.2), gridspec_kw={"width_ratios": [3, 2]})
    ax.set_axis_off()
    for (kind, ident), kids in ((("node", n), k) for n, k in children.items()):
        x, y = position[(kind, ident)]
        for bit, child in kids.items():
            cx, cy = position[child]
            red = (kind, ident) in on_path and child in on_path
            ax.plot([x, cx], [y, cy], color="tab:red" if red else "0.6", lw=2.2 if red else 1, zorder=1)
            ax.text((x + cx) / 2, (y + cy) / 2, str(bit), fontsize=8, color="tab:red" if red else "0.4",
                    ha="center", va="bottom")
    for item, (x, y) in position.items():
        if item[0] == "node":
            ax.scatter([x], [y], s=160, color="tab:red" if item in on_path else BOX, edgecolor=EDGE, zorder=2)
        else:
            ax.text(x, y - 0.25, f"{words[item[1]]}\n{counts[item[1]]:g}", ha="center", va="top", fontsize=8,
                    bbox=dict(boxstyle="round", fc=WORD, ec="tab:red" if item in on_path else EDGE))
    code = "".join(str(int(b)) for b in tree.codes[target])
    ax.set_title(f"Huffman tree: '{highlight}' has code {code}, {len(code)} binary decisions", fontsize=10)
    ax.set_ylim(min(y for _, y in position.values()) - 1.2, 0.5)
    probs = counts / counts.sum()
    noise = unigram_probs(counts, power)
    xs = np.arange(len(words))
    bars.bar(xs - 0.2, probs, 0.4, label="unigram", color="0.7")
    bars.bar(xs + 0.2, noise, 0.4, label=f"unigram^{power:g} (negatives)", color="tab:blue")
    bars.set_xticks(xs, words, rotation=45)
    bars.set_ylabel("probability")
    bars.set_title("negative sampling draws rare words more often", fontsize=10)
    bars.legend(fontsize=8)
    fig.tight_layout()
    return fig


def glove_inputs(sentences, window_size: int = 2, x_max: float = 100.0, alpha: float = 0.75):
    """What GloVe fits: a word-word co-occurrence matrix (each pair at distance d adds 1/d), and the weight
    f(x) = min(1, (x / x_max)^alpha) its loss gives each cell.

    Args:
        sentences: a few tokenized sentences (lists of words); their words, in order of first use, label the matrix.
        window_size, x_max, alpha: as ``cooccurrence_matrix`` and ``glove_weight``.

    Returns:
        a Figure of two panels. Source: Pennington et al. (2014), sections 3 and 4.2.
    """
    from word2bert.models.glove.cooccurrence import cooccurrence_matrix
    from word2bert.models.glove.model import glove_weight

    words = list(dict.fromkeys(w for s in sentences for w in s))
    ids = [np.array([words.index(w) for w in s]) for s in sentences]
    matrix = cooccurrence_matrix(ids, len(words), window_size).toarray()
    fig, (heat, curve) = _plt().subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [1, 1]})
    heat.imshow(matrix, cmap="Blues")
    heat.set_xticks(range(len(words)), words, rotation=60, fontsize=8)
    heat.set_yticks(range(len(words)), words, fontsize=8)
    for i in range(len(words)):
        for j in range(len(words)):
            if matrix[i, j]:
                heat.text(j, i, f"{matrix[i, j]:.2g}", ha="center", va="center", fontsize=7,
                          color="white" if matrix[i, j] > matrix.max() / 2 else "black")
    heat.set_title(f"co-occurrence X (window {window_size}, 1/d per pair)", fontsize=10)
    x = np.linspace(0, 2 * x_max, 400)
    curve.plot(x, np.asarray(glove_weight(x, x_max, alpha)), color="tab:blue")
    curve.axvline(x_max, color="0.5", ls=":")
    curve.text(x_max * 1.03, 0.1, f"x_max = {x_max:g}", fontsize=8)
    curve.set(xlabel="co-occurrence count x", ylabel="weight f(x)",
              title=f"GloVe's weight: rare pairs count little, frequent ones are capped (alpha {alpha:g})")
    curve.title.set_fontsize(10)
    fig.tight_layout()
    return fig


def encoder_decoder(source=("dios", "es", "amor"), target=("god", "is", "love"), attention=None, step: int = 1):
    """The GRU encoder-decoder: without attention the whole source reaches the decoder through one vector c; with
    ``attention`` (one weight per source word) decoder step ``step`` reads a weighted mix of every encoder state.

    Args:
        source, target: the sentence pair drawn.
        attention: None (the bottleneck), or one non-negative weight per source word summing to 1 (drawn as line
            widths, printed beside them).
        step: the decoder step whose attention is drawn (0-based).

    Raises:
        ValueError: attention weights of the wrong number, negative, or not summing to 1; ``step`` out of range.

    Returns:
        a Figure. Source: Cho et al. (2014); Sutskever et al. (2014); Bahdanau et al. (2015); Luong et al. (2015).
    """
    source, target = list(source), list(target)
    if not 0 <= step <= len(target):
        raise ValueError(f"step must be 0..{len(target)}, got {step}")
    if attention is not None:
        attention = np.asarray(attention, dtype=float)
        if attention.shape != (len(source),) or (attention < 0).any() or not np.isclose(attention.sum(), 1):
            raise ValueError(f"attention must be {len(source)} non-negative weights summing to 1, got {attention}")
    n_dec = len(target) + 1
    width = len(source) + n_dec + 3
    fig, (ax,) = _canvas(1, 1.25 * width, 4.4, (-0.2, width), (0, 5.4))
    enc = [0.8 + i * 1.1 for i in range(len(source))]
    dec = [enc[-1] + 2.4 + i * 1.1 for i in range(n_dec)]
    for i, (x, w) in enumerate(zip(enc, source)):
        _box(ax, x, 0.6, w, WORD, w=0.95)
        _arrow(ax, (x, 0.85), (x, 1.6))
        _box(ax, x, 2.0, f"h{i + 1}", w=0.8, h=0.7)
        if i:
            _arrow(ax, (enc[i - 1] + 0.4, 2.0), (x - 0.4, 2.0))
    ax.text(sum(enc) / len(enc), 2.8, "encoder (bidirectional GRU)", ha="center", fontsize=9)
    ins, outs = ["<s>"] + target, target + ["</s>"]
    for i, x in enumerate(dec):
        _box(ax, x, 0.6, ins[i], WORD, w=0.95)
        _arrow(ax, (x, 0.85), (x, 1.6))
        _box(ax, x, 2.0, f"s{i + 1}", w=0.8, h=0.7)
        _arrow(ax, (x, 2.35), (x, 4.35))
        _box(ax, x, 4.6, outs[i], OUT, w=0.95)
        if i:
            _arrow(ax, (dec[i - 1] + 0.4, 2.0), (x - 0.4, 2.0))
    ax.text(sum(dec) / len(dec), 5.15, "decoder (GRU), fed its previous word", ha="center", fontsize=9)
    cx = (enc[-1] + dec[0]) / 2
    _box(ax, cx, 3.4, "c", "#f4d6d6", w=0.7, h=0.6)
    _arrow(ax, (enc[-1] + 0.4, 2.2), (cx - 0.3, 3.2))
    if attention is None:
        for x in dec:
            _arrow(ax, (cx + 0.35, 3.4), (x - 0.2, 2.35), color="tab:red", dashed=True)
        ax.set_title("no attention: the whole source passes through one vector c (the bottleneck)", fontsize=10)
    else:
        x = dec[step]
        _box(ax, x + 0.55, 3.4, "a", "#fde2b8", w=0.5, h=0.5)
        _arrow(ax, (x + 0.55, 3.65), (x + 0.2, 4.35), color="tab:orange")
        for h, weight in zip(enc, attention):
            ax.plot([h, x + 0.55], [2.35, 3.15], color="tab:orange", lw=0.5 + 6 * weight, alpha=0.8)
            ax.text(h, 2.55, f"{weight:.2f}", ha="center", fontsize=8, color="tab:orange")
        _arrow(ax, (cx + 0.35, 3.4), (dec[0] - 0.2, 2.35), color="tab:red", dashed=True)
        ax.set_title(f"attention: at step {step + 1} the context a mixes every encoder state, weighted by how well "
                     f"it matches s{step + 1}", fontsize=10)
    return fig


def wordpiece_match(word: str, vocabulary, suffix_indicator: str = "##"):
    """WordPiece's greedy longest match, try by try: from the start of what is left, the longest piece in the
    vocabulary wins; a word that cannot be spelled becomes the unknown token.

    Args:
        word: one normalised word; vocabulary: its pieces (continuations start with ``suffix_indicator``).

    Returns:
        a Figure listing each try (rejected ones struck through) and the pieces, which are
        ``wordpiece_split(word, vocabulary)``'s. Source: Wu et al. (2016); BERT's ``WordpieceTokenizer``.
    """
    from word2bert.tokenizers.wordpiece import wordpiece_split

    pieces = wordpiece_split(word, vocabulary, suffix_indicator=suffix_indicator)
    rows, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else suffix_indicator + word[start:end]
            rows.append((piece, piece in vocabulary))
            if piece in vocabulary:
                break
        else:
            break
        start = end
    fig, (ax,) = _canvas(1, 7, 0.32 * len(rows) + 1.2, (0, 10), (-len(rows) - 1.5, 1))
    ax.set_title(f"'{word}' -> {' '.join(pieces)}", fontsize=10, family="monospace")
    for i, (piece, found) in enumerate(rows):
        ax.text(0.2, -i, piece, family="monospace", fontsize=9, color="black" if found else "0.55")
        ax.text(6.0, -i, "in the vocabulary: keep it" if found else "not in the vocabulary: one shorter",
                fontsize=8, color="tab:green" if found else "0.55")
        if not found:
            ax.plot([0.2, 0.2 + 0.105 * len(piece)], [-i + 0.15, -i + 0.15], color="0.55", lw=0.8)
    if pieces != [p for p, found in rows if found]:   # a rest that no piece spells: the whole word is unknown
        ax.text(0.2, -len(rows), f"nothing spells the rest: the whole word becomes {pieces[0]}", fontsize=9,
                color="tab:red")
    return fig


def _mask_panel(ax, allowed, rows, columns, title):
    ax.imshow(allowed, cmap="Greys", vmin=0, vmax=1.4)
    ax.set_xticks(range(len(columns)), columns, rotation=90, fontsize=7)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    ax.set_title(title, fontsize=8.5)


def transformer(source=("dios", "es", "amor", "[PAD]"), target=("[CLS]", "god", "is", "love", "[PAD]"),
                num_layers: int = 2, pad: str = "[PAD]"):
    """The Transformer encoder-decoder with its three masks: the blocks of the encoder and the decoder, and beside
    them which query may attend to which key in the encoder's self-attention (padding), the decoder's
    self-attention (causal and padding) and the encoder-decoder attention (source padding).

    Args:
        source, target: the token strings of one padded pair (``pad`` marks padding); the target is the decoder's
            input, starting with its start token.
        num_layers: the number of blocks written beside each stack (``N x``).

    Raises:
        ValueError: an empty side, or padding before a real token.

    Returns:
        a Figure; the masks are ``word2bert.layers.masking.merge_masks`` of the padding masks (and
        ``causal_mask`` for the decoder), as the library's blocks build them. Source: Vaswani et al. (2017), Figure 1.
    """
    from keras import ops
    from word2bert.layers.masking import causal_mask, merge_masks

    for name, side in (("source", source), ("target", target)):
        real = [t != pad for t in side]
        if not any(real) or real != sorted(real, reverse=True):
            raise ValueError(f"{name} must start with real tokens and end with any padding ({pad}), got {list(side)}")
    src_real = np.array([[t != pad for t in source]])
    tgt_real = np.array([[t != pad for t in target]])
    masks = [merge_masks(src_real, src_real),
             merge_masks(tgt_real, tgt_real, causal=causal_mask(len(target), len(target))),
             merge_masks(tgt_real, src_real)]
    masks = [ops.convert_to_numpy(m)[0] for m in masks]
    plt = _plt()
    fig = plt.figure(figsize=(13, 5))
    grid = fig.add_gridspec(2, 4, width_ratios=[2.4, 1, 1, 1], height_ratios=[1, 0.08], left=0.02, right=0.98,
                            wspace=0.35)
    ax = fig.add_subplot(grid[:, 0])
    ax.set_xlim(-0.6, 10)
    ax.set_ylim(0, 10)
    ax.set_axis_off()
    enc = [("self-attention\n(mask A)", BOX), ("add & norm", "#eeeeee"), ("feed-forward", BOX),
           ("add & norm", "#eeeeee")]
    dec = [("causal self-attention\n(mask B)", BOX), ("add & norm", "#eeeeee"),
           ("encoder-decoder attention\n(mask C)", "#fde2b8"), ("add & norm", "#eeeeee"), ("feed-forward", BOX),
           ("add & norm", "#eeeeee")]
    for x, rows, inputs in ((2.2, enc, "source pieces + positions"), (7.4, dec, "target pieces + positions")):
        _box(ax, x, 0.6, inputs, WORD, w=3.6, h=0.6, size=8)
        top = 1.5 + 1.05 * len(rows)
        ax.add_patch(plt.Rectangle((x - 2.1, 1.2), 4.2, top - 1.45, fill=False, ec="0.5", ls="--"))
        ax.text(x - 2.2, top - 0.6, f"{num_layers} x", fontsize=10, color="0.4", ha="right")
        _arrow(ax, (x, 0.9), (x, 1.3))
        for j, (label, color) in enumerate(rows):
            y = 1.7 + 1.05 * j
            _box(ax, x, y, label, color, w=3.4, h=0.75, size=7.5)
            if j:
                _arrow(ax, (x, y - 0.68), (x, y - 0.38))
    y_memory = 1.7 + 1.05 * (len(enc) - 1)
    _arrow(ax, (4.0, y_memory), (5.7, 1.7 + 1.05 * 2), color="tab:orange", lw=1.5)
    ax.text(4.85, y_memory + 0.35, "encoder output:\nkeys and values", fontsize=7, color="tab:orange", ha="center")
    y_out = 1.7 + 1.05 * len(dec)
    _box(ax, 7.4, y_out + 0.35, "linear + softmax: the next piece\n(weights tied to the target table)", OUT, w=3.8,
         h=0.7, size=7.5)
    _arrow(ax, (7.4, y_out - 0.38), (7.4, y_out))
    ax.set_title("encoder (left) and decoder (right)", fontsize=10)
    for k, (allowed, rows, cols, title) in enumerate((
            (masks[0], source, source, "A: encoder self-attention\nreal pieces only"),
            (masks[1], target, target, "B: decoder self-attention\nearlier pieces, real only"),
            (masks[2], target, source, "C: encoder-decoder attention\nreal source pieces"))):
        _mask_panel(fig.add_subplot(grid[0, k + 1]), allowed, rows, cols, title)
    fig.text(0.62, 0.04, "rows: queries, columns: keys; dark: may attend", fontsize=8.5)
    return fig


def bert(tokenizer, first: str = "my dog is cute", second: str = "he likes playing", reads=None):
    """BERT's input and its two pretraining heads for one sentence pair: the pieces of ``[CLS] A [SEP] B [SEP]``
    with their token, segment and position embeddings added up, the encoder in which every position attends to every
    other, the masked-LM head at the chosen positions and the next-sentence head on ``[CLS]``.

    Args:
        tokenizer: a ``WordPieceTokenizer``; the pieces and the segment ids are its ``encode_pair``'s.
        first, second: the two segments.
        reads: ``{position: piece}``: the chosen positions and what the model reads there (``[MASK]``, a random
            piece, or the piece itself); default: none chosen.

    Raises:
        ValueError: a chosen position outside the pair, or on ``[CLS]`` / ``[SEP]``.

    Returns:
        a Figure. Source: Devlin et al. (2019), Figures 1 and 2.
    """
    encoded = tokenizer.encode_pair(first, second, sequence_length=512)
    n = int(encoded["padding_mask"].sum())
    pieces = [tokenizer.id_to_token(int(i)) for i in encoded["token_ids"][:n]]
    segments = [int(s) for s in encoded["segment_ids"][:n]]
    reads = dict(reads or {})
    bad = [t for t in reads if not 0 <= t < n or pieces[t] in ("[CLS]", "[SEP]")]
    if bad:
        raise ValueError(f"chosen positions must be real pieces of the pair (1..{n - 2}, not [CLS] or [SEP]): {bad}")
    fig, (ax,) = _canvas(1, max(9.0, 1.05 * n + 2.5), 5.6, (-2.2, n + 0.2), (-0.2, 7.4))
    rows = (("token", lambda t: f"E({pieces[t]})"), ("segment", lambda t: "E_A" if segments[t] == 0 else "E_B"),
            ("position", lambda t: f"E_{t}"))
    for t in range(n):
        shown = reads.get(t, pieces[t])
        _box(ax, t, 0.3, pieces[t], WORD, w=0.95, h=0.45, size=8)
        if t in reads:
            _box(ax, t, 1.0, shown, "#f4d6d6", w=0.95, h=0.45, size=8)
        for r, (_, label) in enumerate(rows):
            _box(ax, t, 1.75 + 0.55 * r, label(t) if r else f"E({shown})", BOX if r != 1 or not segments[t] else
                 "#e6dcf2", w=0.95, h=0.42, size=7)
        _arrow(ax, (t, 3.15), (t, 3.55))
    for r, (name, _) in enumerate(rows):
        ax.text(-0.7, 1.75 + 0.55 * r, name, ha="right", va="center", fontsize=8)
    ax.text(-0.7, 0.3, "text", ha="right", va="center", fontsize=8)
    if reads:
        ax.text(-0.7, 1.0, "model reads", ha="right", va="center", fontsize=8, color="tab:red")
    ax.text(-0.7, 3.35, "sum, LayerNorm", ha="right", va="center", fontsize=8)
    _box(ax, (n - 1) / 2, 4.2, "encoder: L Transformer blocks; every position attends to every real position, "
         "left and right", BOX, w=n - 0.1, h=1.0, size=9)
    _box(ax, 0, 5.5, "pooler, NSP head:\nIsNext / NotNext", OUT, w=1.6, h=0.8, size=7.5)
    _arrow(ax, (0, 4.7), (0, 5.1))
    for t in reads:
        _arrow(ax, (t, 4.7), (t, 5.15), color="tab:red")
        _box(ax, t, 5.45, f"{pieces[t]}?", OUT, w=0.95, h=0.45, size=8)
    if reads:
        ax.text((n - 1) / 2, 6.3, "masked-LM head (dense, GELU, LayerNorm, the token table transposed) at the chosen "
                "positions only", ha="center", fontsize=8.5, color="tab:red")
    ax.set_title("BERT: three embeddings in, one encoder, two heads out", fontsize=10)
    return fig


def who_sees_what(patterns: dict, words=None, position: int = 2):
    """Which input words the vector of one position depends on, one panel per model, side by side: arrows from every
    input word the output at ``position`` reads.

    Args:
        patterns: ``{model name: bool (n, n) matrix}``, entry ``(t, j)`` True when output ``t`` changes with input word
            ``j`` (measured on the networks, as chapter 12 does by changing one input word at a time).
        words: the ``n`` input words written under the arrows (default ``w1 .. wn``).
        position: the output position whose arrows are drawn (0-based).

    Raises:
        ValueError: a pattern that is not square and bool-valued, patterns of different sizes, ``words`` of another
            length, or ``position`` outside them.

    Returns:
        a Figure. Source: Devlin et al. (2019), Figure 3 (BERT, OpenAI GPT, ELMo).
    """
    mats = {name: np.asarray(m) for name, m in patterns.items()}
    sizes = {m.shape for m in mats.values()}
    if not mats or len(sizes) != 1 or any(m.ndim != 2 or m.shape[0] != m.shape[1] or m.dtype != bool
                                          for m in mats.values()):
        raise ValueError(f"patterns must be square bool matrices of one size, got shapes {sorted(sizes)}")
    n = next(iter(sizes))[0]
    words = list(words) if words is not None else [f"w{t + 1}" for t in range(n)]
    if len(words) != n or not 0 <= position < n:
        raise ValueError(f"need {n} words and a position in 0..{n - 1}, got {len(words)} words, position {position}")
    fig, axes = _canvas(len(mats), 3.3 * len(mats), 3.0, (-0.6, n - 0.4), (-0.5, 3.0))
    for ax, (name, seen) in zip(axes, mats.items()):
        for t, w in enumerate(words):
            _box(ax, t, 0, w, WORD, w=0.8, h=0.45, size=8)
        _box(ax, position, 2.4, f"vector of {words[position]}", OUT, w=2.0, h=0.45, size=8)
        for j in np.flatnonzero(seen[position]):
            _arrow(ax, (j, 0.25), (position, 2.15), color="tab:blue", lw=1.2)
        ax.set_title(f"{name}\nreads {int(seen[position].sum())} of {n} words", fontsize=9)
    return fig


def probing(num_layers: int = 2, read: int = 1, words=("the", "king", "said")):
    """A linear probe on a frozen encoder: the embedding output and every block's output are kept, and a softmax
    regression is trained on one layer's vectors only, here to read each word's tag; the encoder is not trained.

    Args:
        num_layers: the encoder's blocks (layers drawn: the embedding output 0, then 1 .. num_layers).
        read: the layer the probe reads (0 .. num_layers).
        words: the sentence drawn under the encoder.

    Raises:
        ValueError: ``num_layers`` below 1, ``read`` outside 0 .. num_layers, or no words.

    Returns:
        a Figure. Source: Alain & Bengio (2016); Tenney et al. (2019).
    """
    if num_layers < 1 or not 0 <= read <= num_layers or not words:
        raise ValueError(f"need num_layers >= 1, 0 <= read <= num_layers and some words, got num_layers={num_layers}, "
                         f"read={read}, {len(words)} words")
    n = len(words)
    fig, (ax,) = _canvas(1, 2.2 * n + 5, 1.0 * num_layers + 3.4, (-1.6, 1.6 * n + 3.2), (-1.1, num_layers + 1.8))
    for t, w in enumerate(words):
        x = 1.6 * t
        _box(ax, x, -0.2, w, WORD, w=1.2, h=0.4, size=8)
        for layer in range(num_layers + 1):
            chosen = layer == read
            _box(ax, x, 0.6 + layer, f"h{layer}", "#fde2b8" if chosen else "#e8e8e8", w=1.0, h=0.45, size=8)
            if layer:
                _arrow(ax, (x, 0.83 + layer - 1), (x, 0.37 + layer))
        _arrow(ax, (x, 0.0), (x, 0.37))
        _arrow(ax, (x, 0.85 + read), (1.6 * n + 0.4, 0.75 + read), color="tab:orange", lw=0.8, rad=-0.25)
    for layer in range(num_layers + 1):
        name = "embeddings" if layer == 0 else f"block {layer}"
        ax.text(-0.8, 0.6 + layer, name, ha="right", va="center", fontsize=8, color="0.35")
    _box(ax, 1.6 * n + 1.5, 0.6 + read, "linear probe\nsoftmax(W h + b)\n-> each word's tag", OUT, w=2.2, h=0.9,
         size=8)
    ax.text(1.6 * (n - 1) / 2, -0.85, "frozen encoder (its weights are not trained)", ha="center", fontsize=9,
            color="0.35")
    ax.set_title(f"A probe on layer {read}: what a hyperplane can read from those vectors", fontsize=10)
    return fig
