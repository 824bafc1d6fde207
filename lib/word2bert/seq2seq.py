"""Sequence to sequence: a GRU encoder-decoder, with or without attention.

- ``tokenize`` / ``detokenize``: lowercase + punctuation split, and its inverse for BLEU.
- ``encode_pairs``: id arrays for teacher forcing (decoder input = ``<s> y``, target =
  ``y </s>``), right-padded with 0.
- ``Seq2Seq``: the encoder (embedding -> GRU), the decoder (embedding -> GRU started
  from the encoder's last state -> optional ``Attention`` over the encoder states ->
  ``tanh(W_c [c; s])`` -> softmax), the training ``model`` and a ``step`` function for
  ``word2bert.decoding``.

Without attention the whole source reaches the decoder only through the encoder's last
state: the bottleneck of Sutskever, Vinyals & Le (2014) / Cho et al. (2014). With
attention the decoder looks at every encoder state (Luong et al. 2015, section 3,
eq. 5-8, "global attention" without input feeding; Bahdanau et al. 2015 for the
additive score).
"""
from __future__ import annotations

import re

import keras
import numpy as np
from keras import ops

from word2bert._checks import not_a_string
from word2bert.attention import Attention
from word2bert.decoding import beam_search, greedy_search

PAD, UNK, BOS, EOS = "<pad>", "<unk>", "<s>", "</s>"
SPECIALS = (PAD, UNK, BOS, EOS)

_TOKEN = re.compile(r"\w+(?:['\-]\w+)*|[^\w\s]")
_NO_SPACE_BEFORE = re.compile(r" ([.,!?;:%)\]}]|'s\b|n't\b)")
_NO_SPACE_AFTER = re.compile(r"([(\[{]) ")


def tokenize(text: str) -> list[str]:
    """Lowercase and split into words (with inner ``'``/``-``) and single punctuation marks.

    >>> tokenize("Don't forget the e-mail, Tom!")
    ["don't", 'forget', 'the', 'e-mail', ',', 'tom', '!']
    """
    return _TOKEN.findall(text.lower().replace("’", "'"))


def detokenize(tokens) -> str:
    """Join tokens with spaces, then remove the space before closing punctuation.

    Inverse of ``tokenize`` up to case and spacing, for BLEU on detokenized strings.

    >>> detokenize(["hello", ",", "world", "!"])
    'hello, world!'
    """
    text = " ".join(t for t in tokens if t not in SPECIALS)
    text = _NO_SPACE_BEFORE.sub(r"\1", text)
    return _NO_SPACE_AFTER.sub(r"\1", text)


def encode_pairs(pairs, src_vocab, tgt_vocab, max_len: int):
    """Encode tokenized pairs for teacher forcing.

    Args:
        pairs: list of ``(source_tokens, target_tokens)``.
        src_vocab, tgt_vocab: ``word2bert.vocab.Vocabulary`` with ``<pad>`` at id 0;
            the target vocabulary also needs ``<s>`` and ``</s>``.
        max_len: longest source / target kept (tokens, without ``<s>``/``</s>``);
            longer sides are cut.

    Returns:
        ``(source, decoder_input, decoder_target)``, int32 arrays of shapes
        ``(N, S)``, ``(N, T + 1)``, ``(N, T + 1)`` (S, T: the longest kept lengths),
        right-padded with 0. ``decoder_input = <s> y``; ``decoder_target = y </s>``.

    Raises:
        TypeError: a side of a pair is a string rather than a list of tokens.
        ValueError: empty ``pairs``, ``max_len`` < 1, ``<pad>`` not id 0, or the target
            vocabulary lacks ``<s>``/``</s>``.
    """
    if not pairs:
        raise ValueError("encode_pairs needs at least one pair")
    if max_len < 1:
        raise ValueError(f"max_len must be >= 1, got {max_len}")
    for name, vocab in (("src_vocab", src_vocab), ("tgt_vocab", tgt_vocab)):
        if vocab.token_to_id(PAD) != 0 or PAD not in vocab:
            raise ValueError(f"{name} must have {PAD!r} at id 0")
    if BOS not in tgt_vocab or EOS not in tgt_vocab:
        raise ValueError(f"tgt_vocab must contain {BOS!r} and {EOS!r} (pass specials={SPECIALS})")
    for i, (s, t) in enumerate(pairs):
        not_a_string(s, f"pairs[{i}][0]", "a list of source tokens (tokenize it first)")
        not_a_string(t, f"pairs[{i}][1]", "a list of target tokens (tokenize it first)")
    src = [src_vocab.encode(s[:max_len]) for s, _ in pairs]
    tgt = [tgt_vocab.encode(t[:max_len]) for _, t in pairs]
    bos, eos = tgt_vocab.token_to_id(BOS), tgt_vocab.token_to_id(EOS)
    s_len = max(max(len(s) for s in src), 1)
    t_len = max(len(t) for t in tgt) + 1
    source = np.zeros((len(pairs), s_len), np.int32)
    dec_in = np.zeros((len(pairs), t_len), np.int32)
    dec_out = np.zeros((len(pairs), t_len), np.int32)
    for i, (s, t) in enumerate(zip(src, tgt)):
        source[i, : len(s)] = s
        dec_in[i, 0] = bos
        dec_in[i, 1 : len(t) + 1] = t
        dec_out[i, : len(t)] = t
        dec_out[i, len(t)] = eos
    return source, dec_in, dec_out


class Seq2Seq:
    """A GRU encoder-decoder for translation, optionally with attention.

    Args:
        src_vocab_size, tgt_vocab_size: vocabulary sizes (id 0 = padding).
        embedding_dim: size of both embeddings.
        units: GRU state size (encoder and decoder) and of the combined state
            ``tanh(W_c [c; s])``.
        attention: None (the bottleneck model) or a score for ``Attention``:
            ``"dot"``, ``"general"``, ``"additive"``.
        attention_scale: divide ``dot``/``general`` scores by ``sqrt(units)`` (Vaswani et
            al. 2017, eq. 1); default False, the published Luong scores. See ``Attention``.
        dropout: dropout on the embeddings and the combined state (0 disables).
        seed: seed for the dropout layers.

    Attributes:
        model: training model, inputs ``[source (batch, S) int32, decoder_input (batch, T)
            int32]`` -> logits ``(batch, T, tgt_vocab_size)`` float32. Compile with
            ``SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)``.
        attention_model: same inputs -> weights ``(batch, T, S)`` (None without attention).

    Methods ``encode``, ``step`` and ``translate`` decode with ``word2bert.decoding``.

    Raises:
        ValueError: a size < 1, unknown ``attention``, dropout outside [0, 1).

    Reference: Cho et al. (2014) "Learning Phrase Representations using RNN
    Encoder-Decoder", section 2; Sutskever et al. (2014); Luong et al. (2015) eq. 5-8.
    """

    def __init__(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        embedding_dim: int = 128,
        units: int = 256,
        attention: str | None = None,
        dropout: float = 0.0,
        seed: int = 0,
        attention_scale: bool = False,
    ):
        for name, value in (("src_vocab_size", src_vocab_size), ("tgt_vocab_size", tgt_vocab_size),
                            ("embedding_dim", embedding_dim), ("units", units)):
            if value < 1:
                raise ValueError(f"{name} must be >= 1, got {value}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.attention = attention
        self.units = units
        self.src_emb = keras.layers.Embedding(src_vocab_size, embedding_dim, name="source_embedding")
        self.tgt_emb = keras.layers.Embedding(tgt_vocab_size, embedding_dim, name="target_embedding")
        self.encoder_gru = keras.layers.GRU(units, return_sequences=True, return_state=True, name="encoder_gru")
        self.decoder_gru = keras.layers.GRU(units, return_sequences=True, return_state=True, name="decoder_gru")
        self.attn = Attention(attention, scale=attention_scale, name="attention") if attention else None
        self.combine = keras.layers.Dense(units, activation="tanh", name="combine")
        self.out = keras.layers.Dense(tgt_vocab_size, name="logits")
        self.drop = keras.layers.Dropout(dropout, seed=seed) if dropout else None

        source = keras.Input((None,), dtype="int32", name="source")
        dec_in = keras.Input((None,), dtype="int32", name="decoder_input")
        enc_out, enc_state, src_mask = self._encode(source)
        logits, _, weights = self._decode(dec_in, enc_state, enc_out, src_mask)
        self.model = keras.Model([source, dec_in], logits, name=f"seq2seq_{attention or 'no_attention'}")
        self.attention_model = keras.Model([source, dec_in], weights) if attention else None
        self.encoder_model = keras.Model(source, [enc_out, enc_state, src_mask], name="encoder")

        token = keras.Input((1,), dtype="int32", name="last_token")
        state = keras.Input((units,), name="decoder_state")
        memory = keras.Input((None, units), name="encoder_outputs")
        mask = keras.Input((None,), dtype="bool", name="source_mask")
        step_logits, new_state, _ = self._decode(token, state, memory, mask)
        log_probs = ops.log_softmax(ops.cast(step_logits[:, 0, :], "float32"), axis=-1)
        self.step_model = keras.Model([token, state, memory, mask], [log_probs, new_state], name="decoder_step")

    def _encode(self, source):
        src_mask = ops.not_equal(source, 0)
        x = self.src_emb(source)
        if self.drop is not None:
            x = self.drop(x)
        enc_out, enc_state = self.encoder_gru(x, mask=src_mask)
        return enc_out, enc_state, src_mask

    def _decode(self, dec_in, state, enc_out, src_mask):
        y = self.tgt_emb(dec_in)
        if self.drop is not None:
            y = self.drop(y)
        dec_out, new_state = self.decoder_gru(y, initial_state=state)
        weights = None
        if self.attn is not None:
            context, weights = self.attn(dec_out, enc_out, values_mask=src_mask)
            h = self.combine(ops.concatenate([context, dec_out], axis=-1))
        else:
            h = self.combine(dec_out)
        if self.drop is not None:
            h = self.drop(h)
        return self.out(h), new_state, weights

    # ------------------------------------------------------------- decoding
    def encode(self, source) -> dict:
        """Initial decoding state for int32 ``source`` ``(batch, S)``: a dict of numpy arrays."""
        enc_out, enc_state, src_mask = self.encoder_model.predict_on_batch(np.asarray(source, np.int32))
        return {"h": enc_state, "memory": enc_out, "mask": np.asarray(src_mask, bool)}

    def step(self, state: dict, last_tokens):
        """One decoder step: ``(state, last_tokens (batch,)) -> (log_probs (batch, V), new_state)``."""
        log_probs, h = self.step_model.predict_on_batch(
            [np.asarray(last_tokens, np.int32)[:, None], state["h"], state["memory"], state["mask"]]
        )
        return log_probs, {"h": h, "memory": state["memory"], "mask": state["mask"]}

    def translate(self, source, bos_id: int, eos_id: int, max_len: int, beam_width: int = 1,
                  alpha: float = 0.6, batch_size: int = 256) -> list[list[int]]:
        """Translate int32 ``source`` ``(N, S)`` in batches; greedy when ``beam_width == 1``.

        Returns a list of N lists of target ids (no ``<s>``/``</s>``); each at most
        ``max_len`` tokens long. ``alpha``: see ``word2bert.decoding.beam_search``.
        """
        source = np.asarray(source, np.int32)
        out: list[list[int]] = []
        for lo in range(0, len(source), batch_size):
            batch = source[lo : lo + batch_size]
            state = self.encode(batch)
            if beam_width == 1:
                out += greedy_search(self.step, state, len(batch), bos_id, eos_id, max_len)
            else:
                out += beam_search(self.step, state, len(batch), bos_id, eos_id, max_len, beam_width, alpha)
        return out


def group_references(pairs, max_len: int | None = None):
    """Group translation pairs by source sentence, for multi-reference BLEU.

    Args:
        pairs: list of ``(source, target)`` str pairs (e.g. ``ding_de_en("test")``).
        max_len: keep only sources with at most this many ``tokenize`` tokens (None: all).

    Returns:
        ``(sources, references)``: the distinct source strings in order of first
        appearance, and for each a list of its reference strings, lowercased like the
        model's output (``detokenize(tokenize(target))``).
    """
    groups: dict[str, list[str]] = {}
    for source, target in pairs:
        if max_len is not None and len(tokenize(source)) > max_len:
            continue
        groups.setdefault(source, []).append(detokenize(tokenize(target)))
    return list(groups), list(groups.values())
