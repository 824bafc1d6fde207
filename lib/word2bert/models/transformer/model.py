"""The Transformer of Vaswani et al. (2017): an encoder stack and a decoder stack of the shared
blocks in ``word2bert.layers``, token + position embeddings, and a softmax output layer tied to
the target embedding (section 3.4). ``DecoderOnlyTransformer`` is the decoder stack alone (GPT).
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops

from word2bert.samplers import beam_search, greedy_search
from word2bert.layers import TokenAndPositionEmbedding, TransformerDecoder, TransformerEncoder
from word2bert.layers.checks import check_model_dims
from word2bert.layers.masking import token_ids_and_mask
from word2bert.models.transformer.decoder_stack import DecoderStack


class _Common(DecoderStack):
    def _check_sizes(self, hidden_dim, num_heads, num_layers, intermediate_dim, max_sequence_length):
        check_model_dims(hidden_dim, num_heads)
        if min(num_layers, intermediate_dim, max_sequence_length) < 1:
            raise ValueError(f"num_layers, intermediate_dim and max_sequence_length must be >= 1, got {num_layers}, "
                             f"{intermediate_dim}, {max_sequence_length}")

    def _block_kwargs(self):
        return dict(intermediate_dim=self.intermediate_dim, num_heads=self.num_heads, dropout=self.dropout,
                    activation=self.activation, normalize_first=self.normalize_first,
                    layer_norm_epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy)

    def _build_output(self, vocabulary_size):
        self.final_norm = keras.layers.LayerNormalization(epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy,
                                                          name="final_norm") if self.normalize_first else None
        self.output_dense = None if self.tie_embeddings else keras.layers.Dense(
            vocabulary_size, dtype=self.dtype_policy, name="output_dense")

    def build_output_bias(self, vocabulary_size):
        if self.tie_embeddings:
            self.output_bias = self.add_weight(name="output_bias", shape=(vocabulary_size,), initializer="zeros")

    def output_logits(self, x):
        """float32 logits ``(batch, T, V)``: ``x E^T + b`` with the target embedding E (tied) or a Dense layer."""
        if self.output_dense is not None:
            return ops.cast(self.output_dense(x), "float32")
        return self.target_embedding.token_embedding(x, reverse=True) + ops.cast(self.output_bias, "float32")

    def _search(self, step_fn, state, rows, start_id, end_id, max_length, beam_width, alpha):
        if beam_width == 1:
            return greedy_search(step_fn, state, rows, start_id, end_id, max_length)
        return beam_search(step_fn, state, rows, start_id, end_id, max_length, beam_width, alpha)


@keras.saving.register_keras_serializable(package="word2bert")
class Transformer(_Common, keras.Model):
    """The encoder-decoder Transformer for translation.

    Args:
        source_vocabulary_size, target_vocabulary_size: vocabulary sizes (id 0 = padding in both).
        num_layers: encoder layers (N = 6 in the paper); num_decoder_layers: decoder layers (default the same).
        hidden_dim: model width (512); num_heads: h (8); intermediate_dim: d_ff (2048).
        dropout: P_drop (0.1), on embeddings, attention weights and sublayer outputs.
        max_sequence_length: the longest source or target sequence.
        position: ``"sinusoidal"`` (the paper) or ``"learned"``.
        normalize_first: pre-LN blocks (and a final LayerNorm on each stack); default post-LN (the paper).
        tie_embeddings: the output layer is the target embedding transposed, plus a bias (the paper).
        share_embeddings: one embedding table for source and target (with ``tie_embeddings``, the paper's
            three-way tying over a shared vocabulary, section 3.4); needs ``source_vocabulary_size == target_vocabulary_size``.
        activation, layer_norm_epsilon: of the blocks.
        **kwargs: the usual ``keras.Model`` arguments.

    Call arguments:
        inputs: ``(source, decoder_input)``: int ``(batch, S)`` and int ``(batch, T)``, 0 = padding.
        training: dropout on or off.

    Returns:
        float32 logits ``(batch, T, target_vocabulary_size)``.

    Raises:
        ValueError: ``num_heads`` does not divide ``hidden_dim``; sizes < 1; a sequence over ``max_sequence_length``;
            ``share_embeddings`` with vocabularies of different sizes.

    Example:
        >>> model = Transformer(8000, 8000, num_layers=2, hidden_dim=128, num_heads=4, intermediate_dim=512)
        >>> model((source_ids, decoder_input_ids)).shape   # (batch, T, 8000)

    Reference: Vaswani et al. (2017), section 3 and table 3 (base: N=6, hidden_dim=512, h=8, d_ff=2048).
    """

    def __init__(self, source_vocabulary_size: int, target_vocabulary_size: int, num_layers: int = 2, hidden_dim: int = 256,
                 num_heads: int = 4, intermediate_dim: int = 1024, dropout: float = 0.1, max_sequence_length: int = 128,
                 position: str = "sinusoidal", normalize_first: bool = False, tie_embeddings: bool = True,
                 activation: str = "relu", layer_norm_epsilon: float = 1e-5, num_decoder_layers: int | None = None,
                 share_embeddings: bool = False, **kwargs):
        super().__init__(**kwargs)
        if share_embeddings and source_vocabulary_size != target_vocabulary_size:
            raise ValueError(f"share_embeddings needs one vocabulary, got source_vocabulary_size {source_vocabulary_size} and "
                             f"target_vocabulary_size {target_vocabulary_size}")
        self.share_embeddings = bool(share_embeddings)
        self._check_sizes(hidden_dim, num_heads, min(num_layers, num_decoder_layers or num_layers), intermediate_dim,
                          max_sequence_length)
        self.source_vocabulary_size, self.target_vocabulary_size = int(source_vocabulary_size), int(target_vocabulary_size)
        self.num_layers, self.num_decoder_layers = int(num_layers), int(num_decoder_layers or num_layers)
        self.hidden_dim, self.num_heads, self.intermediate_dim = int(hidden_dim), int(num_heads), int(intermediate_dim)
        self.dropout, self.max_sequence_length, self.position = float(dropout), int(max_sequence_length), position
        self.normalize_first, self.tie_embeddings = bool(normalize_first), bool(tie_embeddings)
        self.activation, self.layer_norm_epsilon = activation, float(layer_norm_epsilon)
        embed = dict(sequence_length=max_sequence_length, embedding_dim=hidden_dim, position=position, dtype=self.dtype_policy)
        self.source_embedding = TokenAndPositionEmbedding(source_vocabulary_size, name="source_embedding", **embed)
        self.target_embedding = self.source_embedding if self.share_embeddings else TokenAndPositionEmbedding(
            target_vocabulary_size, name="target_embedding", **embed)
        self.embedding_dropout = keras.layers.Dropout(dropout, dtype=self.dtype_policy, name="embedding_dropout")
        self.encoder_blocks = [TransformerEncoder(name=f"encoder_{i}", **self._block_kwargs())
                               for i in range(self.num_layers)]
        self.decoder_blocks = [TransformerDecoder(name=f"decoder_{i}", **self._block_kwargs())
                               for i in range(self.num_decoder_layers)]
        self.encoder_norm = keras.layers.LayerNormalization(epsilon=layer_norm_epsilon, dtype=self.dtype_policy,
                                                            name="encoder_norm") if normalize_first else None
        self._build_output(target_vocabulary_size)

    def build(self, input_shape=None):
        self.build_output_bias(self.target_vocabulary_size)
        ids = np.ones((1, 2), np.int32)
        self._forward(ids, ids)
        self.built = True

    # ------------------------------------------------------------ the two stacks
    def encode_source(self, source, training=None, return_attention_scores=False):
        """Encoder output ``(batch, S, hidden_dim)`` and the source mask ``(batch, S)`` (and the scores)."""
        source = ops.convert_to_tensor(source)
        mask = ops.not_equal(source, 0)
        x = self.embedding_dropout(self.source_embedding(source), training=training)
        scores = []
        for block in self.encoder_blocks:
            out = block(x, mask=mask, return_attention_scores=return_attention_scores, training=training)
            x, s = out if return_attention_scores else (out, None)
            scores.append(s)
        if self.encoder_norm is not None:
            x = self.encoder_norm(x)
        return (x, mask, scores) if return_attention_scores else (x, mask)

    def _forward(self, source, decoder_input, training=None):
        memory, mask = self.encode_source(source, training=training)
        return self.run_decoder(ops.convert_to_tensor(decoder_input), memory, mask, training=training)

    def call(self, inputs, training=None):
        source, decoder_input = inputs
        return self._forward(source, decoder_input, training=training)

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape[1])[:2], self.target_vocabulary_size)

    def compute_output_spec(self, inputs, training=None):
        return keras.KerasTensor(self.compute_output_shape((inputs[0].shape, inputs[1].shape)), dtype="float32")

    def attention_scores(self, source, decoder_input) -> dict:
        """Every layer's attention weights for one teacher-forced pass, as float32 numpy arrays.

        Returns ``{"encoder": [(batch, heads, S, S)] * num_layers, "decoder_self": [(batch, heads, T, T)],
        "cross": [(batch, heads, T, S)]}``.
        """
        memory, mask, enc = self.encode_source(np.asarray(source, np.int32), return_attention_scores=True)
        _, dec = self.run_decoder(ops.convert_to_tensor(np.asarray(decoder_input, np.int32)), memory, mask,
                                  return_attention_scores=True)
        as_np = lambda xs: [np.asarray(ops.convert_to_numpy(x), np.float32) for x in xs]  # noqa: E731
        return {"encoder": as_np(enc), "decoder_self": as_np(d["self"] for d in dec),
                "cross": as_np(d["cross"] for d in dec)}

    # ------------------------------------------------------------ decoding
    def translate(self, source, bos_id: int, eos_id: int, max_length: int, beam_width: int = 1, alpha: float = 0.6,
                  batch_size: int = 128, use_cache: bool = True, length_limit: tuple | None = None) -> list[list[int]]:
        """Translate int ``source`` ``(N, S)``: greedy (``beam_width=1``) or beam search, cached or not.

        Args:
            source: source ids, 0 = padding.
            bos_id, eos_id: the target's start and end ids.
            max_length: at most this many output tokens (the end token included); <= the model's ``max_sequence_length``.
            beam_width, alpha: see ``word2bert.samplers.beam_search``.
            batch_size: sentences decoded together.
            use_cache: decode with the key/value cache (True) or by recomputing the prefix (same tokens).
            length_limit: ``(a, b)``: a batch also stops after ``a * S_batch + b`` tokens, ``S_batch`` its
                longest source (None: ``max_length`` only). Decoding sorted sentences, this saves the steps and
                cache slots that a batch of short sentences never needs.

        Returns:
            N lists of target ids without the start and end tokens.

        Raises:
            ValueError: ``max_length`` above the model's; a source longer than the model's ``max_sequence_length``; a source
                that is not a 2-D int array; a source id outside the source vocabulary. An empty source gives [].
        """
        source = np.asarray(source)
        if source.size == 0:
            return []
        if source.ndim != 2 or not np.issubdtype(source.dtype, np.integer):
            raise ValueError(f"source must be int ids of shape (N, S), one padded sentence a row, got "
                             f"{source.dtype} {source.shape} (wrap a single sentence as [ids])")
        source = source.astype(np.int32)
        out: list[list[int]] = []
        for lo in range(0, len(source), batch_size):
            batch = source[lo:lo + batch_size]
            width = max(1, int((batch != 0).sum(axis=1).max()))
            batch = batch[:, :width]                                     # drop columns of padding only
            limit = max_length if length_limit is None else max(1, min(max_length, int(length_limit[0] * width
                                                                                  + length_limit[1])))
            memory, mask = self.encode_source(batch)
            step, step_uncached = self.step_functions(self.source_context(memory, mask, repeat=beam_width))
            state = self.decoding_state(len(batch), limit, use_cache=use_cache)
            out += self._search(step if use_cache else step_uncached, state, len(batch), bos_id, eos_id, limit,
                                beam_width, alpha)
        return out

    def get_config(self):
        return {**super().get_config(), "source_vocabulary_size": self.source_vocabulary_size, "target_vocabulary_size": self.target_vocabulary_size,
                "num_layers": self.num_layers, "hidden_dim": self.hidden_dim, "num_heads": self.num_heads,
                "intermediate_dim": self.intermediate_dim, "dropout": self.dropout, "max_sequence_length": self.max_sequence_length,
                "position": self.position, "normalize_first": self.normalize_first,
                "tie_embeddings": self.tie_embeddings, "activation": self.activation,
                "layer_norm_epsilon": self.layer_norm_epsilon, "num_decoder_layers": self.num_decoder_layers,
                "share_embeddings": self.share_embeddings}


@keras.saving.register_keras_serializable(package="word2bert")
class DecoderOnlyTransformer(_Common, keras.Model):
    """A decoder-only Transformer language model (the GPT shape): the decoder blocks without cross-attention.

    Args:
        vocabulary_size: number of token ids (0 = padding); the other arguments as ``Transformer``, in the
            positional order of keras-hub's ``GPT2Backbone`` (``vocabulary_size, num_layers, num_heads, hidden_dim,
            intermediate_dim, dropout, max_sequence_length``).

    Call arguments:
        inputs: int ``(batch, T)`` token ids; training: dropout on or off.

    Returns:
        float32 logits ``(batch, T, vocabulary_size)`` of the next token at each position.

    Raises:
        ValueError: as ``Transformer``.

    Example:
        >>> lm = DecoderOnlyTransformer(1000, num_layers=2, hidden_dim=64, num_heads=4, intermediate_dim=128)
        >>> lm.generate(4, start_id=1, end_id=2, max_length=20)   # 4 lists of ids

    Reference: Radford et al. (2018), section 3.1; Vaswani et al. (2017), section 3.1 (the decoder).
    """

    def __init__(self, vocabulary_size: int, num_layers: int = 2, num_heads: int = 4, hidden_dim: int = 256,
                 intermediate_dim: int = 1024, dropout: float = 0.1, max_sequence_length: int = 128, position: str = "learned",
                 normalize_first: bool = True, tie_embeddings: bool = True, activation: str = "gelu",
                 layer_norm_epsilon: float = 1e-5, **kwargs):
        super().__init__(**kwargs)
        self._check_sizes(hidden_dim, num_heads, num_layers, intermediate_dim, max_sequence_length)
        self.vocabulary_size, self.num_layers = int(vocabulary_size), int(num_layers)
        self.hidden_dim, self.num_heads, self.intermediate_dim = int(hidden_dim), int(num_heads), int(intermediate_dim)
        self.dropout, self.max_sequence_length, self.position = float(dropout), int(max_sequence_length), position
        self.normalize_first, self.tie_embeddings = bool(normalize_first), bool(tie_embeddings)
        self.activation, self.layer_norm_epsilon = activation, float(layer_norm_epsilon)
        self.target_embedding = TokenAndPositionEmbedding(vocabulary_size, max_sequence_length, hidden_dim, position=position,
                                                          dtype=self.dtype_policy, name="token_embedding")
        self.embedding_dropout = keras.layers.Dropout(dropout, dtype=self.dtype_policy, name="embedding_dropout")
        self.decoder_blocks = [TransformerDecoder(cross_attention=False, name=f"decoder_{i}",
                                                       **self._block_kwargs()) for i in range(self.num_layers)]
        self._build_output(vocabulary_size)

    def build(self, input_shape=None):
        self.build_output_bias(self.vocabulary_size)
        self.run_decoder(ops.ones((1, 2), "int32"))
        self.built = True

    def call(self, inputs, training=None):
        return self.run_decoder(ops.convert_to_tensor(inputs), training=training)

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape)[:2], self.vocabulary_size)

    def hidden_states(self, inputs, training=None):
        """Every layer's vectors: ``num_layers + 1`` float tensors ``(batch, T, hidden_dim)``, the embedding output
        (token + position) then each decoder block's output, the last one after the final LayerNorm of a pre-LN
        stack (the vectors ``decoder_states`` returns). Position t has read positions <= t only.

        Args:
            inputs: int ``(batch, T)`` ids (0 = padding) or a dict with ``"token_ids"`` (and ``"padding_mask"``,
                which then replaces ``token_ids != 0``), as ``BidirectionalLM.hidden_states`` takes them.
            training: dropout on or off.

        Raises:
            ValueError: a dict without ``"token_ids"``.
        """
        ids, mask = token_ids_and_mask(inputs)
        return self._decoder_layers(ids, None, None, training, mask, False)[0]

    def compute_output_spec(self, inputs, training=None):
        return keras.KerasTensor(self.compute_output_shape(inputs.shape), dtype="float32")

    def generate(self, batch_size: int, start_id: int, end_id: int | None, max_length: int, beam_width: int = 1,
                 alpha: float = 0.6, use_cache: bool = True) -> list[list[int]]:
        """Sample-free generation from ``start_id``: greedy or beam search, cached or not.

        ``end_id``: a row stops when it emits this id (not returned), or None (no end token): every row gets
        ``max_length`` ids.

        Returns ``batch_size`` lists of ids (without start and end tokens). Raises ValueError when
        ``batch_size`` or ``max_length`` is below 1 or ``max_length`` exceeds the model's, and the errors of
        ``word2bert.samplers.greedy_search`` / ``beam_search``.
        """
        step, step_uncached = self.step_functions()
        state = self.decoding_state(batch_size, max_length, use_cache=use_cache)
        return self._search(step if use_cache else step_uncached, state, batch_size, start_id, end_id, max_length,
                            beam_width, alpha)

    def sample(self, batch_size: int, prompt, end_id: int | None, max_new_tokens: int, temperature: float = 1.0,
               top_k: int | None = None, seed: int = 0, use_cache: bool = True) -> list[list[int]]:
        """Continue ``prompt`` by sampling, one token at a time (``word2bert.samplers.sample_search``).

        The prompt is fed through the decoder first (with the cache: one step per prompt token, its keys and
        values kept), then each drawn token is fed back. With ``use_cache=False`` every step recomputes the
        whole prefix instead: the same tokens for the same seed, more slowly.

        Args:
            batch_size: rows sampled in parallel.
            prompt: integer ids (Python ints or a NumPy integer array), either one prompt for every row, a
                non-empty 1-D ``(P,)`` list (e.g. the start id, then the words given), or one prompt per row, a
                2-D ``(batch_size, P)`` array (prompts of one length P; row b continues prompt b).
            end_id: a row stops when it draws this id (not returned), or None to always draw ``max_new_tokens``.
            max_new_tokens: at most this many ids drawn per row.
            temperature: >= 0; 0 is greedy. top_k: None, or draw among the ``top_k`` most probable ids only.
            seed: of the draws (NumPy); the same seed gives the same samples.
            use_cache: the key/value cache (True) or recomputing the prefix.

        Returns:
            ``batch_size`` lists of drawn ids (the prompt excluded), row b the continuation of its prompt.

        Raises:
            ValueError: ``batch_size`` < 1; an empty prompt; a prompt that is not integer ids (floats such as 1.9 are refused, not
                truncated); a 2-D prompt whose number of rows is not ``batch_size``, a ragged or 3-D prompt; an id
                outside ``0 .. vocabulary_size - 1``; ``max_new_tokens`` < 1; ``P + max_new_tokens`` above the model's
                ``max_sequence_length``; the errors of ``sample_search`` (temperature, top_k).
        """
        from word2bert.samplers import sample_search

        if batch_size < 1:                                            # before the prompt is spread over the rows
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        prompts = self._prompt_rows(prompt, batch_size)                # int32 (batch_size, P)
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {max_new_tokens}")
        length = prompts.shape[1] + max_new_tokens
        if length > self.max_sequence_length:
            raise ValueError(f"a prompt of {prompts.shape[1]} ids plus {max_new_tokens} new ones is {length} "
                             f"positions, over the model's max_sequence_length of {self.max_sequence_length}")
        step, step_uncached = self.step_functions()
        step = step if use_cache else step_uncached
        state = self.decoding_state(batch_size, length, use_cache=use_cache)
        for column in prompts[:, :-1].T:                            # the prompt's keys and values (or prefix)
            _, state = step(state, np.ascontiguousarray(column))
        last = [prompts[:, -1]]

        def step_from_prompt(state, tokens):                        # first step: each row's own last prompt id
            return step(state, last.pop() if last else tokens)

        return sample_search(step_from_prompt, state, batch_size, int(prompts[0, -1]), end_id, max_new_tokens,
                             temperature, seed, top_k)

    def _prompt_rows(self, prompt, batch_size: int) -> np.ndarray:
        """``prompt`` as int32 ``(batch_size, P)``: a 1-D prompt repeated on every row, a 2-D one checked."""
        try:
            ids = np.asarray(prompt)
        except ValueError as error:                                 # NumPy refuses ragged nested lists
            raise ValueError(f"prompt must be one list of ids or a (batch_size, P) array of prompts of one length, "
                             f"got rows of different lengths ({error}); pad them to one length or sample each "
                             f"prompt on its own") from None
        if ids.size == 0:
            raise ValueError("sample needs a prompt of at least one id (e.g. the start id), got an empty prompt")
        if ids.dtype == bool or not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(f"prompt must hold integer token ids, got dtype {ids.dtype} (e.g. {ids.ravel()[0]!r}); "
                             f"pass ints, e.g. np.asarray(prompt, np.int32), rather than floats to be truncated")
        if ids.ndim <= 1:
            ids = np.broadcast_to(ids.reshape(1, -1), (batch_size, ids.size))
        elif ids.ndim != 2 or ids.shape[0] != batch_size:
            raise ValueError(f"prompt must be 1-D (P,) (one prompt for every row) or 2-D (batch_size, P) = "
                             f"({batch_size}, P) (one prompt a row), got shape {ids.shape}; pass batch_size="
                             f"{ids.shape[0] if ids.ndim == 2 else 'the number of prompts'} with one prompt a row")
        if ids.min() < 0 or ids.max() >= self.vocabulary_size:
            raise ValueError(f"prompt ids must be in 0..{self.vocabulary_size - 1} (the vocabulary), got "
                             f"{int(ids.min())}..{int(ids.max())}; encode the prompt with the model's vocabulary")
        return np.array(ids, np.int32)

    def get_config(self):
        return {**super().get_config(), "vocabulary_size": self.vocabulary_size, "num_layers": self.num_layers,
                "hidden_dim": self.hidden_dim, "num_heads": self.num_heads, "intermediate_dim": self.intermediate_dim,
                "dropout": self.dropout, "max_sequence_length": self.max_sequence_length, "position": self.position,
                "normalize_first": self.normalize_first, "tie_embeddings": self.tie_embeddings,
                "activation": self.activation, "layer_norm_epsilon": self.layer_norm_epsilon}
