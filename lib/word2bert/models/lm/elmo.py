"""ELMo's bidirectional language model (Peters et al. 2018, section 3.1) and its use as frozen features.

Two LSTM language models read the same sentence, one left to right and one right to left:

    forward:  p(t_k | t_1 .. t_{k-1})        backward:  p(t_k | t_{k+1} .. t_N)

They share the token embedding and the softmax layer, and nothing else; the training loss is the sum of
the two directions' negative log-likelihoods. The backward LSTM is an ordinary LSTM run over the
reversed sentence (``reverse_padded``); its outputs are reversed back, so position k of both directions
describes token k. The ELMo vector of token k is a learned scalar mix (``word2bert.layers.ScalarMix``)
of the layers ``[x_k; x_k]`` (the token embedding, twice) and ``[h_k^fwd; h_k^bwd]`` of every LSTM layer
(section 3.2, eq. 1); a task reads it with the language model frozen (``ElmoClassifier``,
``ElmoTokenTagger``).

Simplifications against the paper: the tokens are embedded by a lookup table (ELMo uses a character CNN),
and the LSTMs have no projection layers or residual connections.
"""
from __future__ import annotations

import keras
import numpy as np
from keras import ops

from word2bert.layers import ScalarMix
from word2bert.layers.checks import check_ids
from word2bert.layers.masking import token_ids_and_mask
from word2bert.models.task import Task


def reverse_padded(x, mask):
    """Reverse each row's real positions, leaving the padding where it is.

    Args:
        x: ``(batch, T, ...)`` any dtype.
        mask: bool ``(batch, T)``, True at real positions; every row holds its real tokens first, then padding
            (right padding, as ``word2bert.models.bert.encode_texts`` writes rows). Not checked inside a graph: a row
            with padding in the middle is reversed as if its length were its number of real tokens.

    Returns:
        ``x``'s shape and dtype: row b's positions ``0 .. n_b - 1`` in reverse order (``n_b`` real tokens),
        then its padding unchanged. Applying it twice gives ``x`` back.

    Example:
        >>> reverse_padded(np.array([[1, 2, 3, 0]]), np.array([[True, True, True, False]]))   # [[3, 2, 1, 0]]
    """
    x = ops.convert_to_tensor(x)
    lengths = ops.sum(ops.cast(mask, "int32"), axis=1, keepdims=True)             # (batch, 1)
    t = ops.expand_dims(ops.arange(ops.shape(x)[1], dtype="int32"), 0)            # (1, T)
    index = ops.where(t < lengths, lengths - 1 - t, t)                            # (batch, T)
    index = ops.reshape(index, tuple(ops.shape(index)) + (1,) * (len(x.shape) - 2))
    return ops.take_along_axis(x, ops.broadcast_to(index, ops.shape(x)), axis=1)


def bilm_targets(token_ids) -> np.ndarray:
    """The two directions' targets of each position: int32 ``(batch, T, 2)``.

    ``[..., 0]`` is the next token (forward LM), ``[..., 1]`` the previous one (backward LM); 0 where there is
    none (past either end of the row, or padding), which the loss ignores (``ignore_class=0``).

    Args:
        token_ids: int ``(batch, T)`` with 0 = padding after the real tokens.

    Raises:
        ValueError: ``token_ids`` not a 2-D integer array.
    """
    ids = np.asarray(token_ids)
    if ids.ndim != 2 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"token_ids must be a 2-D integer array, got shape {ids.shape} and dtype {ids.dtype}")
    ids = ids.astype(np.int32)
    forward = np.zeros_like(ids)
    backward = np.zeros_like(ids)
    forward[:, :-1] = ids[:, 1:]
    backward[:, 1:] = ids[:, :-1]
    real = ids != 0
    return np.stack([np.where(real, forward, 0), np.where(real, backward, 0)], axis=-1)


@keras.saving.register_keras_serializable(package="word2bert")
class BidirectionalLM(keras.Model):
    """ELMo's biLM: a forward and a backward stack of LSTMs over a shared embedding, with a shared softmax.

    Args:
        vocabulary_size: token ids (0 = padding).
        hidden_dim: the embedding size and the units of every LSTM (one value, so that every layer of the
            ELMo mix has width ``2 * hidden_dim``).
        num_layers: LSTM layers per direction (2 in the paper).
        dropout: on the embedding and between layers (not on the recurrent connections).
        **kwargs: the usual ``keras.Model`` arguments.

    Call arguments:
        inputs: int ``(batch, T)`` ids (0 = padding, after the real tokens) or a dict with ``"token_ids"`` (and
            ``"padding_mask"``).
        training: dropout on or off.

    Returns:
        float32 logits ``(batch, T, 2, vocabulary_size)``: ``[:, k, 0]`` scores token k + 1 from tokens 1..k (forward),
        ``[:, k, 1]`` token k - 1 from tokens k..N (backward); train against ``bilm_targets(token_ids)`` with a
        sparse cross-entropy that ignores class 0.

    Raises:
        ValueError: a size < 1; ``dropout`` outside [0, 1); called on concrete ids (not inside ``fit``/``predict``,
            where ids are not checked), an id outside ``0 .. vocabulary_size - 1``.

    Reference: Peters et al. (2018), "Deep contextualized word representations", section 3.1;
    Jozefowicz et al. (2016) for the LSTM language models it builds on.
    """

    def __init__(self, vocabulary_size: int, hidden_dim: int = 128, num_layers: int = 2, dropout: float = 0.1, **kwargs):
        super().__init__(**kwargs)
        for arg, value in (("vocabulary_size", vocabulary_size), ("hidden_dim", hidden_dim), ("num_layers", num_layers)):
            if int(value) < 1:
                raise ValueError(f"{arg} must be >= 1, got {value}")
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.vocabulary_size, self.hidden_dim, self.num_layers = int(vocabulary_size), int(hidden_dim), int(num_layers)
        self.dropout = float(dropout)
        self.embedding = keras.layers.Embedding(self.vocabulary_size, self.hidden_dim, dtype=self.dtype_policy,
                                                name="token_embedding")
        lstm = dict(units=self.hidden_dim, return_sequences=True, dtype=self.dtype_policy)
        self.forward_layers = [keras.layers.LSTM(name=f"forward_lstm_{i + 1}", **lstm) for i in range(self.num_layers)]
        self.backward_layers = [keras.layers.LSTM(name=f"backward_lstm_{i + 1}", **lstm)
                                for i in range(self.num_layers)]
        self.dropout_layer = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy, name="dropout")
        self.softmax = keras.layers.Dense(self.vocabulary_size, dtype=self.dtype_policy, name="softmax")

    def build(self, input_shape=None):
        self.call(np.ones((1, 2), np.int32))
        self.built = True

    def directions(self, inputs, training=None):
        """``(forward, backward)``: each a list of ``num_layers + 1`` float tensors ``(batch, T, hidden_dim)`` in
        the sentence's order: the token embedding, then every LSTM layer's output. Position k of
        ``forward[j]`` has read tokens 1..k, of ``backward[j]`` tokens k..N (its row's real tokens)."""
        ids, mask = token_ids_and_mask(inputs)
        check_ids(ids, self.vocabulary_size, "token_ids", "encode the text with the vocabulary the biLM was trained on")
        x = self.embedding(ids)
        forward, backward = [x], [x]
        h = self.dropout_layer(x, training=training)
        for layer in self.forward_layers:
            h = layer(h, mask=mask, training=training)
            forward.append(h)
            h = self.dropout_layer(h, training=training)
        h = self.dropout_layer(reverse_padded(x, mask), training=training)
        for layer in self.backward_layers:
            h = layer(h, mask=mask, training=training)
            backward.append(reverse_padded(h, mask))
            h = self.dropout_layer(h, training=training)
        return forward, backward

    def hidden_states(self, inputs, training=None):
        """The layers ELMo mixes: ``num_layers + 1`` float tensors ``(batch, T, 2 * hidden_dim)``, ``[x; x]`` then
        ``[h_fwd; h_bwd]`` of each LSTM layer (Peters et al. 2018, section 3.2)."""
        forward, backward = self.directions(inputs, training=training)
        return [ops.concatenate([f, b], axis=-1) for f, b in zip(forward, backward)]

    def call(self, inputs, training=None):
        forward, backward = self.directions(inputs, training=training)
        top = ops.stack([forward[-1], backward[-1]], axis=2)                     # (batch, T, 2, hidden_dim)
        return ops.cast(self.softmax(self.dropout_layer(top, training=training)), "float32")

    def compute_output_spec(self, inputs, training=None):
        ids = inputs["token_ids"] if isinstance(inputs, dict) else inputs
        return keras.KerasTensor((*ids.shape[:2], 2, self.vocabulary_size), dtype="float32")

    def get_config(self):
        return {**super().get_config(), "vocabulary_size": self.vocabulary_size, "hidden_dim": self.hidden_dim,
                "num_layers": self.num_layers, "dropout": self.dropout}


class _ElmoHead(Task):
    """What the ELMo heads add to ``Task``: a learned scalar mix of the biLM's layers (Peters et al. 2018,
    equation 1). The biLM is frozen by default (``freeze_backbone=True``): the task trains the mix and the head."""

    backbone_class = BidirectionalLM

    def __init__(self, backbone: BidirectionalLM, dropout: float = 0.1, freeze_backbone: bool = True, **kwargs):
        super().__init__(backbone, dropout=dropout, freeze_backbone=freeze_backbone, **kwargs)
        self.mix = ScalarMix(backbone.num_layers + 1, dtype=self.dtype_policy, name="scalar_mix")

    def _head(self, name: str, value) -> keras.layers.Dense:
        return keras.layers.Dense(self.check_outputs(name, value), dtype=self.dtype_policy, name="head")

    def elmo(self, inputs, training=None):
        """``(vectors, mask)``: the ELMo vectors ``(batch, T, 2 * hidden_dim)`` (the biLM run without dropout
        when frozen) and the bool padding mask ``(batch, T)``."""
        _, mask = token_ids_and_mask(inputs)
        x = self.mix(self.backbone.hidden_states(inputs, training=self.backbone_training(training)))
        return self.feature_dropout(x, training=training), mask

    def unused_backbone_variables(self) -> list:
        """The biLM's softmax (its next-token output layer): no head reads it, so it gets no gradient from one
        (kept out of training also when ``freeze_backbone=False``)."""
        return list(self.backbone.softmax.weights)

    def build(self, input_shape=None):
        self.call(np.ones((1, 2), np.int32))
        self.built = True


@keras.saving.register_keras_serializable(package="word2bert")
class ElmoClassifier(_ElmoHead):
    """A sentence classifier on frozen ELMo vectors: scalar mix -> mean over the real tokens -> dropout ->
    Dense(num_classes). Only the mix (``num_layers + 2`` scalars, in 2 weights) and the dense layer (kernel and
    bias) are trained: ``trainable_weights`` holds these 4, never the biLM's weights, and ``fit`` leaves the
    biLM as it is, also after a ``.keras`` save and load. The biLM's own ``trainable`` flags are not touched (it
    can still be trained on its own, or shared by several heads); a model that wraps this head reads those flags,
    so freeze the biLM there with ``backbone.trainable = False``.

    Args:
        backbone: a trained ``BidirectionalLM``; frozen inside this model (its flags are left as they are).
        num_classes: >= 2, as every ``Task``.
        dropout: on the pooled vector.
        freeze_backbone: True (ELMo's recipe); False fine-tunes the biLM with the head.
        **kwargs: the usual ``keras.Model`` arguments.

    Call arguments:
        inputs: int ``(batch, T)`` ids or a dict with ``"token_ids"`` (and ``"padding_mask"``).

    Returns:
        float32 logits ``(batch, num_classes)``.

    Raises:
        ValueError: ``backbone`` not a ``BidirectionalLM``; ``num_classes`` < 2; ``dropout`` outside [0, 1).

    Reference: Peters et al. (2018), section 3.3 (frozen biLM, a learned mix fed to the task model).
    """

    def __init__(self, backbone: BidirectionalLM, num_classes: int = 2, dropout: float = 0.1,
                 freeze_backbone: bool = True, **kwargs):
        super().__init__(backbone, dropout=dropout, freeze_backbone=freeze_backbone, **kwargs)
        self.output_layer = self._head("num_classes", num_classes)
        self.num_classes = int(num_classes)

    def call(self, inputs, training=None):
        x, mask = self.elmo(inputs, training=training)
        weight = ops.expand_dims(ops.cast(mask, x.dtype), -1)
        pooled = ops.sum(x * weight, axis=1) / ops.maximum(ops.sum(weight, axis=1), 1.0)
        return ops.cast(self.output_layer(pooled), "float32")

    def get_config(self):
        return {**super().get_config(), "num_classes": self.num_classes}


@keras.saving.register_keras_serializable(package="word2bert")
class ElmoTokenTagger(_ElmoHead):
    """A token tagger on frozen ELMo vectors: scalar mix -> dropout -> Dense(num_tags) at every position.

    Args:
        backbone, dropout, freeze_backbone: as ``ElmoClassifier``.
        **kwargs: as ``ElmoClassifier``.
        num_tags: >= 2, as every ``Task``.

    Returns:
        float32 logits ``(batch, T, num_tags)``.

    Raises:
        ValueError: as ``ElmoClassifier``.
    """

    def __init__(self, backbone: BidirectionalLM, num_tags: int, dropout: float = 0.1, freeze_backbone: bool = True,
                 **kwargs):
        super().__init__(backbone, dropout=dropout, freeze_backbone=freeze_backbone, **kwargs)
        self.output_layer = self._head("num_tags", num_tags)
        self.num_tags = int(num_tags)

    def call(self, inputs, training=None):
        x, _ = self.elmo(inputs, training=training)
        return ops.cast(self.output_layer(x), "float32")

    def compute_output_spec(self, inputs, training=None):
        # float32 logits (batch, T, num_tags); JAX cannot trace the call on a symbolic batch of a dict input
        shape = inputs["token_ids"].shape if isinstance(inputs, dict) else inputs.shape
        return keras.KerasTensor((*shape[:2], self.num_tags), dtype="float32")

    def get_config(self):
        return {**super().get_config(), "num_tags": self.num_tags}
