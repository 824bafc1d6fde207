"""Sequence to sequence: a GRU encoder-decoder, with or without attention.

``Seq2Seq`` is a ``keras.Model``: the encoder (embedding -> GRU), the decoder (embedding -> GRU
started from the encoder's last state -> optional ``Attention`` over the encoder states ->
``tanh(W_c [c; s])`` -> logits), trained with ``fit`` on teacher-forced pairs
(``word2bert.seq2seq.data``), and a ``step`` function for ``word2bert.decoding``.

Without attention the whole source reaches the decoder only through the encoder's last
state: the bottleneck of Sutskever, Vinyals & Le (2014) / Cho et al. (2014). With
attention the decoder looks at every encoder state (Luong et al. 2015, section 3,
eq. 5-8, "global attention" without input feeding; Bahdanau et al. 2015 for the
additive score).
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops

from word2bert.decoding import beam_search, greedy_search
from word2bert.layers.attention import SCORES, Attention


@keras.saving.register_keras_serializable(package="word2bert")
class Seq2Seq(keras.Model):
    """A GRU encoder-decoder for translation, optionally with attention.

    Args:
        src_vocab_size, tgt_vocab_size: vocabulary sizes (id 0 = padding).
        embedding_dim: size of both embeddings.
        units: GRU state size (encoder and decoder) and of the combined state
            ``tanh(W_c [c; s])``.
        attention: None (the bottleneck model) or a score for ``Attention``:
            ``"dot"``, ``"general"``, ``"additive"``.
        dropout: dropout on the embeddings and the combined state (0 disables).
        seed: seed for the dropout layers.
        attention_scale: divide ``dot``/``general`` scores by ``sqrt(units)`` (Vaswani et
            al. 2017, eq. 1); default False, the published Luong scores. See ``Attention``.
        **kwargs: ``keras.Model`` arguments (``name``, ``dtype``, ...).

    Call arguments:
        inputs: ``(source, decoder_input)``: int ``(batch, S)`` source ids and int ``(batch, T)``
            decoder inputs (``<s> y``), 0 = padding.
        training: Keras's training flag (dropout).

    Returns:
        float32 logits ``(batch, T, tgt_vocab_size)``. Compile with
        ``SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)`` and ``fit`` on
        ``((source, decoder_input), decoder_target)``.

    Methods: ``attention_weights`` (the weights of a teacher-forced pass), and ``encode``,
    ``step``, ``translate`` for decoding with ``word2bert.decoding``.

    Raises:
        ValueError: a size < 1, unknown ``attention``, dropout outside [0, 1).

    Example:
        >>> model = Seq2Seq(1000, 800, attention="general")
        >>> model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0))
        >>> model.fit((source, decoder_input), decoder_target, epochs=10)

    Reference: Cho et al. (2014) "Learning Phrase Representations using RNN
    Encoder-Decoder", section 2; Sutskever et al. (2014); Luong et al. (2015) eq. 5-8.
    """

    def __init__(self, src_vocab_size: int, tgt_vocab_size: int, embedding_dim: int = 128, units: int = 256,
                 attention: str | None = None, dropout: float = 0.0, seed: int = 0, attention_scale: bool = False,
                 **kwargs):
        kwargs.setdefault("name", f"seq2seq_{attention or 'no_attention'}")
        super().__init__(**kwargs)
        for name, value in (("src_vocab_size", src_vocab_size), ("tgt_vocab_size", tgt_vocab_size),
                            ("embedding_dim", embedding_dim), ("units", units)):
            if value < 1:
                raise ValueError(f"{name} must be >= 1, got {value}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        if attention is not None and attention not in SCORES:
            raise ValueError(f"attention must be None or one of {SCORES}, got {attention!r}")
        self.src_vocab_size, self.tgt_vocab_size = int(src_vocab_size), int(tgt_vocab_size)
        self.embedding_dim, self.units = int(embedding_dim), int(units)
        self.attention, self.dropout, self.seed, self.attention_scale = attention, float(dropout), seed, attention_scale
        self.src_emb = keras.layers.Embedding(src_vocab_size, embedding_dim, name="source_embedding")
        self.tgt_emb = keras.layers.Embedding(tgt_vocab_size, embedding_dim, name="target_embedding")
        self.encoder_gru = keras.layers.GRU(units, return_sequences=True, return_state=True, name="encoder_gru")
        self.decoder_gru = keras.layers.GRU(units, return_sequences=True, return_state=True, name="decoder_gru")
        self.attn = Attention(attention, scale=attention_scale, name="attention") if attention else None
        self.combine = keras.layers.Dense(units, activation="tanh", name="combine")
        self.out = keras.layers.Dense(tgt_vocab_size, name="logits")
        self.drop = keras.layers.Dropout(dropout, seed=seed) if dropout else None
        self.build()

    def build(self, input_shape=None):
        # every weight's shape follows from the sizes: build the sublayers by one pass over a dummy batch
        self.call((ops.ones((1, 2), "int32"), ops.ones((1, 2), "int32")))
        self.built = True

    def _encode(self, source, training=None):
        src_mask = ops.not_equal(source, 0)
        x = self.src_emb(source)
        if self.drop is not None:
            x = self.drop(x, training=training)
        enc_out, enc_state = self.encoder_gru(x, mask=src_mask, training=training)
        return enc_out, enc_state, src_mask

    def _decode(self, dec_in, state, enc_out, src_mask, training=None):
        y = self.tgt_emb(dec_in)
        if self.drop is not None:
            y = self.drop(y, training=training)
        dec_out, new_state = self.decoder_gru(y, initial_state=state, training=training)
        weights = None
        if self.attn is not None:
            context, weights = self.attn(dec_out, enc_out, value_mask=src_mask)
            h = self.combine(ops.concatenate([context, dec_out], axis=-1))
        else:
            h = self.combine(dec_out)
        if self.drop is not None:
            h = self.drop(h, training=training)
        return ops.cast(self.out(h), "float32"), new_state, weights

    def call(self, inputs, training=None):
        source, dec_in = inputs
        source, dec_in = ops.cast(source, "int32"), ops.cast(dec_in, "int32")
        enc_out, enc_state, src_mask = self._encode(source, training)
        logits, _, _ = self._decode(dec_in, enc_state, enc_out, src_mask, training)
        return logits

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape[1])[:2], self.tgt_vocab_size)

    def attention_weights(self, source, decoder_input) -> np.ndarray:
        """Attention weights of a teacher-forced pass: float32 numpy ``(batch, T, S)``.

        Raises:
            ValueError: the model has no attention.
        """
        if self.attn is None:
            raise ValueError("a Seq2Seq without attention has no attention weights")
        source, dec_in = (ops.convert_to_tensor(np.asarray(a, np.int32)) for a in (source, decoder_input))
        enc_out, enc_state, src_mask = self._encode(source)
        _, _, weights = self._decode(dec_in, enc_state, enc_out, src_mask)
        return np.asarray(ops.convert_to_numpy(weights), np.float32)

    # ------------------------------------------------------------- decoding
    def encode(self, source) -> dict:
        """Initial decoding state for int32 ``source`` ``(batch, S)``: a dict of numpy arrays."""
        enc_out, enc_state, src_mask = self._encode(ops.convert_to_tensor(np.asarray(source, np.int32)))
        return {"h": ops.convert_to_numpy(enc_state), "memory": ops.convert_to_numpy(enc_out),
                "mask": np.asarray(ops.convert_to_numpy(src_mask), bool)}

    def step(self, state: dict, last_tokens):
        """One decoder step: ``(state, last_tokens (batch,)) -> (log_probs (batch, V), new_state)``."""
        token = ops.convert_to_tensor(np.asarray(last_tokens, np.int32)[:, None])
        logits, h, _ = self._decode(token, ops.convert_to_tensor(state["h"]), ops.convert_to_tensor(state["memory"]),
                                    ops.convert_to_tensor(state["mask"]))
        log_probs = ops.log_softmax(logits[:, 0, :], axis=-1)
        return ops.convert_to_numpy(log_probs), {"h": ops.convert_to_numpy(h), "memory": state["memory"],
                                                 "mask": state["mask"]}

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

    def get_config(self):
        return {**super().get_config(), "src_vocab_size": self.src_vocab_size, "tgt_vocab_size": self.tgt_vocab_size,
                "embedding_dim": self.embedding_dim, "units": self.units, "attention": self.attention,
                "dropout": self.dropout, "seed": self.seed, "attention_scale": self.attention_scale}
