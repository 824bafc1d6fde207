"""Incremental decoding for the Transformer's decoder stack, with and without a key/value cache.

Autoregressive decoding feeds the output back one token at a time. Without a cache, step t runs
the decoder over the whole prefix y_0..y_t again: O(t) positions through every layer, O(T^2) for a
sentence. With a cache, each self-attention layer keeps the keys and values of the positions
already decoded (they never change: position i only sees positions <= i), so step t computes
one new position and attends over t + 1 cached keys; the encoder's keys and values for
cross-attention are projected once per source sentence. The tokens are the same either way.

The caches are backend tensors from the first step to the last: a step hands them to the compiled
step and keeps what it returns, and beam search reorders them with ``keras.ops.take``, so they stay
on the device (a GPU) and are never copied to NumPy. Only the log-probabilities ``(batch, V)`` come
back to NumPy, for the search.

Both step functions fit ``word2bert.samplers``'s ``step_fn(state, last_tokens)`` interface, so
greedy and beam search run on either. Reference: Vaswani et al. (2017), section 3.2.3 (masked
decoder self-attention makes the cached keys and values of earlier positions final).
"""
from __future__ import annotations

import time

import keras
import numpy as np
from keras import ops

from word2bert.layers.checks import check_ids


def compile_function(fn):
    """``fn`` compiled for the active backend: ``tf.function`` (shapes may vary), ``jax.jit``, or as is.

    Compile again after the weights change: ``jax.jit`` bakes the current weights into the compiled
    function.
    """
    backend = keras.config.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        return tf.function(fn, reduce_retracing=True)
    if backend == "jax":
        import jax

        return jax.jit(fn)
    return fn


class IncrementalDecoding:
    """Step functions for ``word2bert.samplers``, mixed into a model with a decoder stack.

    The host class provides ``target_embedding`` (a ``TokenAndPositionEmbedding``), ``decoder_blocks``
    (``TransformerDecoder`` list), ``final_norm`` (a LayerNorm or None), ``max_sequence_length``,
    ``output_logits(x)`` and ``run_decoder(...)`` (the teacher-forced pass).
    """

    # ------------------------------------------------------------ the two step functions
    def _cached_step(self, tokens, index, self_caches, cross_caches, memory_mask):
        x = self.target_embedding(tokens[:, None], start_index=index)
        # an explicit all-True query mask: otherwise Keras fills query_mask from the embedding's
        # mask (tokens != 0), and an id 0 fed back would be masked here but not in the uncached step
        real = ops.ones(ops.shape(tokens[:, None]), "bool")
        new_caches = []
        for block, cache, cross in zip(self.decoder_blocks, self_caches, cross_caches):
            x, cache = block(x, None, decoder_sequence_mask=real, self_attention_cache=cache, cache_index=index,
                             cross_attention_cache=cross, encoder_sequence_mask=memory_mask, training=False)
            new_caches.append(cache)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return ops.log_softmax(self.output_logits(x)[:, 0, :], axis=-1), new_caches

    def _uncached_step(self, prefix, memory, memory_mask):
        # every prefix token is real, even an id 0 an untrained model may emit (the cached step sees it too)
        logits = self.run_decoder(prefix, memory, memory_mask, training=False,
                                  decoder_mask=ops.ones(ops.shape(prefix), "bool"))
        return ops.log_softmax(logits[:, -1, :], axis=-1)

    def decoding_state(self, batch_size: int, max_length: int, use_cache: bool = True) -> dict:
        """The state that changes from step to step, for ``word2bert.samplers`` (batch first).

        Args:
            batch_size: rows (``sentences * beam_width`` for beam search); max_length: most tokens decoded
                (<= the model's ``max_sequence_length``).
            use_cache: key/value caches for ``step``: ``self_k{i}`` and ``self_v{i}`` per layer, zero backend
                tensors ``(batch, max_length, heads, key_dim)`` of the compute dtype; else ``prefix``, int32 numpy
                ``(batch, max_length)``, for ``step_uncached``. Both have ``index``, int32 numpy ``(batch,)``:
                the position decoded next (the same in every row).

        Raises:
            ValueError: ``max_length`` above the model's.
        """
        if not self.built:
            self.build()
        if max_length > self.max_sequence_length:
            raise ValueError(f"cannot decode {max_length} tokens: the model's max_sequence_length is {self.max_sequence_length}")
        state = {"index": np.zeros((batch_size,), np.int32)}
        if not use_cache:
            state["prefix"] = np.zeros((batch_size, max_length), np.int32)
            return state
        dtype = keras.backend.standardize_dtype(self.compute_dtype)
        for i, block in enumerate(self.decoder_blocks):
            attn = block.self_attention
            shape = (batch_size, max_length, attn.num_heads, attn.key_dim)
            state[f"self_k{i}"], state[f"self_v{i}"] = ops.zeros(shape, dtype), ops.zeros(shape, dtype)
        return state

    def source_context(self, memory, memory_mask, repeat: int = 1) -> dict:
        """What every step reads but never changes: the encoder output, its mask, and each decoder block's
        cross-attention keys and values, projected once (backend tensors, rows repeated ``repeat`` times).

        Beam search keeps hypothesis j of sentence b in row ``b * beam_width + j`` and only reorders
        rows within a sentence, so a context repeated ``beam_width`` times stays valid at every step
        and need not travel with the state.
        """
        if not self.built:
            self.build()
        memory = ops.repeat(ops.convert_to_tensor(memory), repeat, axis=0)
        mask = ops.repeat(ops.cast(ops.convert_to_tensor(memory_mask), "bool"), repeat, axis=0)
        context = {"memory": memory, "memory_mask": mask}
        for i, block in enumerate(self.decoder_blocks):
            context[f"cross{i}"] = block.cross_attention_layer.project_key_value(memory, value_mask=mask)
        return context

    def step_functions(self, context: dict | None = None):
        """``(step, step_uncached)``: freshly compiled ``step_fn(state, last_tokens)`` for ``word2bert.samplers``.

        ``context``: ``source_context(...)`` for an encoder-decoder model (None for decoder-only). Both return
        float32 numpy log-probabilities ``(batch, V)``; ``step`` keeps the caches of ``decoding_state`` as backend
        tensors (the compiled step's outputs, never copied to NumPy).
        """
        n = len(self.decoder_blocks)
        cached = compile_function(self._cached_step)
        uncached = compile_function(self._uncached_step)
        context = context or {}
        cross = [context.get(f"cross{i}") for i in range(n)]
        mask, memory = context.get("memory_mask"), context.get("memory")

        vocabulary_size = self.target_embedding.vocabulary_size

        def step(state, last_tokens):
            index = _checked_index(state, state["self_k0"].shape[1] if n else None, last_tokens, vocabulary_size)
            self_caches = [(state[f"self_k{i}"], state[f"self_v{i}"]) for i in range(n)]
            log_probs, caches = cached(ops.convert_to_tensor(np.asarray(last_tokens, np.int32)),
                                       ops.convert_to_tensor(np.int32(index)), self_caches, cross, mask)
            new = {**state, "index": state["index"] + 1}
            for i, (k, v) in enumerate(caches):
                new[f"self_k{i}"], new[f"self_v{i}"] = k, v
            return ops.convert_to_numpy(log_probs), new

        def step_uncached(state, last_tokens):
            index = _checked_index(state, state["prefix"].shape[1], last_tokens, vocabulary_size)
            prefix = state["prefix"].copy()
            prefix[:, index] = last_tokens
            log_probs = uncached(ops.convert_to_tensor(prefix[:, :index + 1]), memory, mask)
            return ops.convert_to_numpy(log_probs), {**state, "prefix": prefix, "index": state["index"] + 1}

        return step, step_uncached


def _checked_index(state, slots, last_tokens, vocabulary_size: int) -> int:
    """The position decoded next; a ValueError when the state has no slot for it or ``last_tokens`` is not ids.

    Inside the compiled step ``keras.ops.slice_update`` would clip an index past the cache and overwrite its
    last slot, so the length is checked here, in Python, where the index is a number.
    """
    index = int(state["index"][0])
    if slots is not None and index >= slots:
        raise ValueError(f"the decoding state has {slots} positions and all are decoded (next position {index}); "
                         f"build it with decoding_state(batch_size, max_length) for as many tokens as will be decoded")
    tokens = np.asarray(last_tokens)
    if tokens.shape != (state["index"].shape[0],) or not np.issubdtype(tokens.dtype, np.integer):
        raise ValueError(f"last_tokens must be int ids of shape ({state['index'].shape[0]},), one per row, "
                         f"got {tokens.dtype} {tokens.shape}")
    check_ids(tokens, vocabulary_size, "last_tokens", "feed back ids of the target vocabulary (start_id, then each "
              "step's choice)")
    return index


def run_steps(step_fn, state, start_tokens, steps: int):
    """Greedy decoding for exactly ``steps`` steps, ignoring end tokens (to time a step function).

    Args:
        step_fn: ``(state, last_tokens) -> (log_probs, state)``; state: its initial state;
        start_tokens: int ``(batch,)``; steps: how many tokens to produce.

    Returns:
        ``(tokens, seconds)``: int32 ``(batch, steps)`` and the wall seconds the loop took.
    """
    tokens = np.asarray(start_tokens, np.int32)
    out = []
    started = time.perf_counter()
    for _ in range(steps):
        log_probs, state = step_fn(state, tokens)
        tokens = np.asarray(log_probs).argmax(axis=-1).astype(np.int32)
        out.append(tokens)
    return np.stack(out, axis=1), time.perf_counter() - started
