"""Sequence to sequence: a GRU encoder-decoder, with or without attention.

``Seq2Seq`` is a ``keras.Model``: the encoder (embedding -> GRU, or a bidirectional GRU with half the
hidden_dim each way), the decoder (embedding -> GRU started from the encoder's summary -> optional
``Attention`` over the encoder states -> ``W_c [c; s]`` -> logits), trained with ``fit`` on
teacher-forced pairs (``word2bert.models.seq2seq.data``), and a ``step`` function for ``word2bert.samplers``.

Without attention the whole source reaches the decoder only through the encoder's summary c (its
last state; both last states for a bidirectional encoder): the bottleneck of Sutskever, Vinyals &
Le (2014) / Cho et al. (2014). As in Cho et al. (2014, eq. 8-9), c is the decoder's initial state
*and* an input of every decoder step and of every output, so the bottleneck is c's size and not a
weaker wiring. With attention the decoder looks at every encoder state (Luong et al. 2015,
section 3, eq. 5-8, "global attention" without input feeding; the ``additive`` score is Bahdanau
et al.'s, inside Luong's architecture: attention is computed from the new state s_t, and the
context is not fed into the GRU step as in Bahdanau's decoder).

``combine_activation`` defaults to None (``W_c [c; s]`` stays linear): Luong's ``tanh`` slowed the
start of training a great deal on the Bible verses of chapters 05-06 (the loss stayed at the
unigram entropy for several epochs); pass ``"tanh"`` for the published form.
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops

from word2bert.samplers import beam_search, greedy_search
from word2bert.layers.attention import SCORES, Attention
from word2bert.layers.checks import check_ids


@keras.saving.register_keras_serializable(package="word2bert")
class Seq2Seq(keras.Model):
    """A GRU encoder-decoder for translation, optionally with attention.

    Args:
        source_vocabulary_size, target_vocabulary_size: vocabulary sizes (id 0 = padding).
        embedding_dim: size of both embeddings.
        hidden_dim: GRU state size (encoder and decoder) and of the combined state ``W_c [c; s]``.
        attention: None (the bottleneck model) or a score for ``Attention``:
            ``"dot"``, ``"general"``, ``"additive"``.
        dropout: dropout on the embeddings and the combined state (0 disables).
        seed: seed for the dropout layers.
        attention_scale: divide ``dot``/``general`` scores by ``sqrt(hidden_dim)`` (Vaswani et
            al. 2017, eq. 1); default False, the published Luong scores. See ``Attention``.
        bidirectional: a bidirectional encoder GRU with ``hidden_dim // 2`` per direction (Bahdanau et
            al. 2015, section 3.2); its states are the two halves side by side, and the decoder
            starts from both last states.
        combine_activation: activation of ``W_c [c; s]`` (None: linear; ``"tanh"``: Luong et al.).
        **kwargs: ``keras.Model`` arguments (``name``, ``dtype``, ...).

    Call arguments:
        inputs: ``(source, decoder_input)``: int ``(batch, S)`` source ids and int ``(batch, T)``
            decoder inputs (``<s> y``), 0 = padding.
        training: Keras's training flag (dropout).

    Returns:
        float32 logits ``(batch, T, target_vocabulary_size)``. Compile with
        ``SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)`` and ``fit`` on
        ``((source, decoder_input), decoder_target)``.

    Methods: ``attention_weights`` (the weights of a teacher-forced pass), ``encode``, ``step``,
    ``translate`` for decoding with ``word2bert.samplers``, and ``score`` (the model's
    log-probability of given outputs, to compare greedy and beam search).

    Raises:
        ValueError: a size < 1, unknown ``attention``, dropout outside [0, 1), ``bidirectional``
            not a bool, or odd ``hidden_dim`` with a bidirectional encoder. When called on concrete ids (not inside
            ``fit``/``predict``, where ids are not checked): a source or target id outside its vocabulary.

    Example:
        >>> model = Seq2Seq(1000, 800, attention="general")
        >>> model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0))
        >>> model.fit((source, decoder_input), decoder_target, epochs=10)

    Reference: Cho et al. (2014) "Learning Phrase Representations using RNN
    Encoder-Decoder", section 2; Sutskever et al. (2014); Luong et al. (2015) eq. 5-8.
    """

    def __init__(self, source_vocabulary_size: int, target_vocabulary_size: int, embedding_dim: int = 128, hidden_dim: int = 256,
                 attention: str | None = None, dropout: float = 0.0, seed: int = 0, attention_scale: bool = False,
                 bidirectional: bool = False, combine_activation: str | None = None, **kwargs):
        kwargs.setdefault("name", f"seq2seq_{attention or 'no_attention'}")
        super().__init__(**kwargs)
        for name, value in (("source_vocabulary_size", source_vocabulary_size), ("target_vocabulary_size", target_vocabulary_size),
                            ("embedding_dim", embedding_dim), ("hidden_dim", hidden_dim)):
            if value < 1:
                raise ValueError(f"{name} must be >= 1, got {value}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        if attention is not None and attention not in SCORES:
            raise ValueError(f"attention must be None or one of {SCORES}, got {attention!r}")
        if not isinstance(bidirectional, bool):
            raise ValueError(f"bidirectional must be a bool, got {bidirectional!r}")
        if bidirectional and hidden_dim % 2:
            raise ValueError(f"a bidirectional encoder splits hidden_dim between its two directions: hidden_dim must be even, "
                             f"got {hidden_dim}")
        self.source_vocabulary_size, self.target_vocabulary_size = int(source_vocabulary_size), int(target_vocabulary_size)
        self.embedding_dim, self.hidden_dim = int(embedding_dim), int(hidden_dim)
        self.attention, self.dropout, self.seed, self.attention_scale = attention, float(dropout), seed, attention_scale
        self.bidirectional = bidirectional
        self.src_emb = keras.layers.Embedding(source_vocabulary_size, embedding_dim, name="source_embedding")
        self.tgt_emb = keras.layers.Embedding(target_vocabulary_size, embedding_dim, name="target_embedding")
        if bidirectional:
            self.encoder_gru = keras.layers.Bidirectional(
                keras.layers.GRU(hidden_dim // 2, return_sequences=True, return_state=True), name="encoder_bigru")
        else:
            self.encoder_gru = keras.layers.GRU(hidden_dim, return_sequences=True, return_state=True, name="encoder_gru")
        self.decoder_gru = keras.layers.GRU(hidden_dim, return_sequences=True, return_state=True, name="decoder_gru")
        self.attn = Attention(attention, scale=attention_scale, name="attention") if attention else None
        self.combine_activation = combine_activation
        self.combine = keras.layers.Dense(hidden_dim, activation=combine_activation, name="combine")
        self.out = keras.layers.Dense(target_vocabulary_size, name="logits")
        self.drop = keras.layers.Dropout(dropout, seed=seed) if dropout else None
        self.build()

    def build(self, input_shape=None):
        # every weight's shape follows from the sizes: build the sublayers by one pass over a dummy batch
        self.call((ops.ones((1, 2), "int32"), ops.ones((1, 2), "int32")))
        self.built = True

    def _encode(self, source, training=None):
        check_ids(source, self.source_vocabulary_size, "source ids", "encode the source with the source vocabulary")
        src_mask = ops.not_equal(source, 0)
        x = self.src_emb(source)
        if self.drop is not None:
            x = self.drop(x, training=training)
        if self.bidirectional:
            # forward and backward halves side by side; the decoder starts from both last states
            enc_out, forward_state, backward_state = self.encoder_gru(x, mask=src_mask, training=training)
            enc_state = ops.concatenate([forward_state, backward_state], axis=-1)
        else:
            enc_out, enc_state = self.encoder_gru(x, mask=src_mask, training=training)
        return enc_out, enc_state, src_mask

    def _decode(self, dec_in, state, enc_out, src_mask, context=None, training=None):
        check_ids(dec_in, self.target_vocabulary_size, "target ids", "encode the target with the target vocabulary")
        y = self.tgt_emb(dec_in)
        if self.drop is not None:
            y = self.drop(y, training=training)
        weights = None
        if self.attn is None:
            # Cho et al. (2014): the summary c of the source enters every decoder step and every output
            steps = ops.shape(y)[1]
            c = ops.repeat(ops.expand_dims(ops.cast(context, y.dtype), 1), steps, axis=1)
            dec_out, new_state = self.decoder_gru(ops.concatenate([y, c], axis=-1), initial_state=state,
                                                  training=training)
            h = self.combine(ops.concatenate([c, dec_out], axis=-1))
        else:
            dec_out, new_state = self.decoder_gru(y, initial_state=state, training=training)
            context, weights = self.attn(dec_out, enc_out, value_mask=src_mask)
            h = self.combine(ops.concatenate([context, dec_out], axis=-1))
        if self.drop is not None:
            h = self.drop(h, training=training)
        return ops.cast(self.out(h), "float32"), new_state, weights

    def call(self, inputs, training=None):
        source, dec_in = inputs
        source, dec_in = ops.cast(source, "int32"), ops.cast(dec_in, "int32")
        enc_out, enc_state, src_mask = self._encode(source, training)
        logits, _, _ = self._decode(dec_in, enc_state, enc_out, src_mask, enc_state, training)
        return logits

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape[1])[:2], self.target_vocabulary_size)

    def attention_weights(self, source, decoder_input) -> np.ndarray:
        """Attention weights of a teacher-forced pass: float32 numpy ``(batch, T, S)``.

        Raises:
            ValueError: the model has no attention.
        """
        if self.attn is None:
            raise ValueError("a Seq2Seq without attention has no attention weights")
        source, dec_in = (ops.convert_to_tensor(np.asarray(a, np.int32)) for a in (source, decoder_input))
        enc_out, enc_state, src_mask = self._encode(source)
        _, _, weights = self._decode(dec_in, enc_state, enc_out, src_mask, enc_state)
        return np.asarray(ops.convert_to_numpy(weights), np.float32)

    # ------------------------------------------------------------- decoding
    def encode(self, source) -> dict:
        """Initial decoding state for int32 ``source`` ``(batch, S)``: a dict of numpy arrays."""
        enc_out, enc_state, src_mask = self._encode(ops.convert_to_tensor(np.asarray(source, np.int32)))
        enc_state = ops.convert_to_numpy(enc_state)
        return {"h": enc_state, "context": enc_state, "memory": ops.convert_to_numpy(enc_out),
                "mask": np.asarray(ops.convert_to_numpy(src_mask), bool)}

    def step(self, state: dict, last_tokens):
        """One decoder step: ``(state, last_tokens (batch,)) -> (log_probs (batch, V), new_state)``."""
        token = ops.convert_to_tensor(np.asarray(last_tokens, np.int32)[:, None])
        logits, h, _ = self._decode(token, *(ops.convert_to_tensor(state[k]) for k in ("h", "memory", "mask", "context")))
        log_probs = ops.log_softmax(logits[:, 0, :], axis=-1)
        return ops.convert_to_numpy(log_probs), {**state, "h": ops.convert_to_numpy(h)}

    def score(self, source, targets, bos_id: int, eos_id: int, batch_size: int = 256) -> np.ndarray:
        """Model log-probability of given outputs: ``sum_t log p(y_t | y_<t, x)``, ``</s>`` included.

        Args:
            source: int32 ``(N, S)`` source ids; targets: N lists of target ids without ``<s>``/``</s>``
                (e.g. what ``translate`` returned).
            bos_id, eos_id: the target vocabulary's ``<s>`` and ``</s>``.
            batch_size: sentences scored together.

        Returns:
            float64 ``(N,)`` log-probabilities (natural log), from one teacher-forced pass per batch.

        Raises:
            ValueError: ``len(targets) != len(source)``.
        """
        source = np.asarray(source, np.int32)
        if len(targets) != len(source):
            raise ValueError(f"score needs one target per source, got {len(targets)} targets for {len(source)} sources")
        bos, eos = int(bos_id), int(eos_id)
        out = np.zeros(len(source))
        for lo in range(0, len(source), batch_size):
            rows = targets[lo:lo + batch_size]
            width = max(len(r) for r in rows) + 1
            dec_in = np.zeros((len(rows), width), np.int32)
            dec_out = np.zeros((len(rows), width), np.int32)
            for i, r in enumerate(rows):
                dec_in[i, 0], dec_in[i, 1:len(r) + 1] = bos, r
                dec_out[i, :len(r)], dec_out[i, len(r)] = r, eos
            logits = self((source[lo:lo + batch_size], dec_in))
            log_probs = ops.convert_to_numpy(ops.log_softmax(logits, axis=-1)).astype(np.float64)
            picked = np.take_along_axis(log_probs, dec_out[..., None], axis=-1)[..., 0]
            out[lo:lo + len(rows)] = np.where(dec_out > 0, picked, 0.0).sum(axis=1)
        return out

    def translate(self, source, bos_id: int, eos_id: int, max_length: int, beam_width: int = 1,
                  alpha: float = 0.6, batch_size: int = 256) -> list[list[int]]:
        """Translate int32 ``source`` ``(N, S)`` in batches; greedy when ``beam_width == 1``.

        Returns a list of N lists of target ids (no ``<s>``/``</s>``); each at most
        ``max_length`` tokens long. ``alpha``: see ``word2bert.samplers.beam_search``.
        """
        source = np.asarray(source, np.int32)
        out: list[list[int]] = []
        for lo in range(0, len(source), batch_size):
            batch = source[lo : lo + batch_size]
            state = self.encode(batch)
            if beam_width == 1:
                out += greedy_search(self.step, state, len(batch), bos_id, eos_id, max_length)
            else:
                out += beam_search(self.step, state, len(batch), bos_id, eos_id, max_length, beam_width, alpha)
        return out

    def get_config(self):
        return {**super().get_config(), "source_vocabulary_size": self.source_vocabulary_size, "target_vocabulary_size": self.target_vocabulary_size,
                "embedding_dim": self.embedding_dim, "hidden_dim": self.hidden_dim, "attention": self.attention,
                "dropout": self.dropout, "seed": self.seed, "attention_scale": self.attention_scale,
                "bidirectional": self.bidirectional, "combine_activation": self.combine_activation}
