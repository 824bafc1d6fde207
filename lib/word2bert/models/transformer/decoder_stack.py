"""The decoder stack that the encoder-decoder and the decoder-only Transformer share: token and position
embeddings, the ``TransformerDecoder`` list, an optional final LayerNorm (pre-LN) and the output layer,
run teacher-forced over a whole target sequence (Vaswani et al. 2017, section 3.1, "Decoder").

Decoding one token at a time, with or without a key/value cache, is in ``word2bert.models.transformer.incremental``;
the searches over it (greedy, beam) are in ``word2bert.samplers``.
"""
from __future__ import annotations

from keras import ops

from word2bert.models.transformer.incremental import IncrementalDecoding


class DecoderStack(IncrementalDecoding):
    """What the encoder-decoder and the decoder-only Transformer share: the teacher-forced decoder pass and
    (from ``IncrementalDecoding``) the step functions for decoding.

    Subclasses set ``self.target_embedding`` (a ``TokenAndPositionEmbedding``), ``self.decoder_blocks``
    (``TransformerDecoder`` list), ``self.embedding_dropout``, ``self.final_norm`` (a LayerNorm for pre-LN, else None),
    ``self.max_sequence_length`` and implement ``output_logits(x)``.
    """

    def run_decoder(self, decoder_input, memory=None, memory_mask=None, training=None, return_attention_scores=False,
                    decoder_mask=None):
        """Teacher-forced pass: int ``(batch, T)`` -> float32 logits ``(batch, T, V)`` (and the scores).

        ``memory`` float ``(batch, S, hidden_dim)`` and ``memory_mask`` bool ``(batch, S)``: the encoder output and
        its mask (None for decoder-only). ``decoder_mask`` (bool ``(batch, T)``) defaults to ``decoder_input != 0``.
        With ``return_attention_scores``, also one dict per block of its attention weights (``"self"``
        ``(batch, heads, T, T)`` and, with an encoder, ``"cross"`` ``(batch, heads, T, S)``).
        """
        out = self.decoder_states(decoder_input, memory, memory_mask, training=training, decoder_mask=decoder_mask,
                                  return_attention_scores=return_attention_scores)
        if return_attention_scores:
            return self.output_logits(out[0]), out[1]
        return self.output_logits(out)

    def decoder_states(self, decoder_input, memory=None, memory_mask=None, training=None, decoder_mask=None,
                       return_attention_scores=False):
        """The last decoder block's output ``(batch, T, hidden_dim)`` (after the final LayerNorm of a pre-LN stack):
        the vectors the output layer reads, which a fine-tuning head reads too (GPT's recipe). Arguments as
        ``run_decoder`` (with ``return_attention_scores``: ``(states, scores)``); position t depends on the inputs at
        positions <= t only (the causal mask)."""
        states, scores = self._decoder_layers(decoder_input, memory, memory_mask, training, decoder_mask,
                                              return_attention_scores)
        x = states[-1]
        return (x, scores) if return_attention_scores else x

    def _decoder_layers(self, decoder_input, memory, memory_mask, training, decoder_mask, return_attention_scores):
        """``(states, scores)``: the embedding output then every block's output (the last one after the final
        LayerNorm of a pre-LN stack), and each block's attention weights (None without ``return_attention_scores``)."""
        x = self.embedding_dropout(self.target_embedding(decoder_input), training=training)
        mask = ops.not_equal(decoder_input, 0) if decoder_mask is None else decoder_mask
        states, scores = [x], []
        for block in self.decoder_blocks:
            out = block(x, memory, decoder_sequence_mask=mask, encoder_sequence_mask=memory_mask,
                        return_attention_scores=return_attention_scores, training=training)
            x, s = out if return_attention_scores else (out, None)
            states.append(x)
            scores.append(s)
        if self.final_norm is not None:
            states[-1] = self.final_norm(x)
        return states, scores
