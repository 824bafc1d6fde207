"""What a pretrained encoder holds, layer by layer (chapter 11).

- ``layer_outputs_model``: a Keras model mapping BERT's inputs to every hidden state (the embedding
  output, then one per block), for reading the layers of a frozen encoder;
- ``layer_features``: those vectors as NumPy arrays, either at chosen token positions (first pieces of
  words, for a word-level probe) or pooled per row (mean over the real tokens, or ``[CLS]``);
- ``train_probe``: a linear probe, softmax regression on standardised features (one Keras ``Dense``
  layer), its L2 penalty chosen on validation data: what a layer's vectors give a
  classifier that can only draw hyperplanes (Alain & Bengio 2016; Tenney et al. 2019);
- ``attention_shares``: how much of each head's attention goes to ``[CLS]``, ``[SEP]``, the token
  itself, the previous and next token and other copies of the same token (Clark et al. 2019,
  "What Does BERT Look At?", section 3);
- ``attention_entropy``: how spread out each head's attention is: the entropy of its distribution over
  the keys, and the effective number of keys it reads (Clark et al. 2019, section 3, "broad attention").
"""
from __future__ import annotations

import collections

import keras
import numpy as np
from keras import ops

from word2bert.models.bert.model import BertBackbone
from word2bert.preprocessing.batching import rounded_width, row_extents
from word2bert.utils.inputs import model_inputs

SHARE_KINDS = ("[CLS]", "[SEP]", "self", "previous", "next", "same token", "other")
# id(backbone) -> (backbone, _states_model(backbone)): the last few backbones read, so that repeated calls reuse one
# model (its predict function traced once); the entry holds the backbone, so an id cannot be reused while cached
_LAYER_OUTPUTS: collections.OrderedDict = collections.OrderedDict()
_WIDTH_STEP = 32                # batches are cut to a multiple of this many columns
_LAYER_OUTPUTS_KEPT = 4


def _check_backbone(backbone):
    if not isinstance(backbone, BertBackbone):
        raise ValueError(f"backbone must be a BertBackbone, got {type(backbone).__name__}")


class _HiddenStates(keras.Model):
    """Calls ``source.hidden_states(inputs, training=False)``: a model to run in batches."""

    def __init__(self, source, **kwargs):
        super().__init__(**kwargs)
        self.source = source

    def call(self, inputs):
        return self.source.hidden_states(inputs, training=False)


def _states_model(model) -> tuple:
    """``(run, input_names)``: a function from a batch dict to a frozen model's list of layer vectors, and the input
    arrays it reads. A ``BertBackbone`` goes through ``layer_outputs_model`` in a plain call, not
    ``predict_on_batch``: Keras compiles ``predict_on_batch`` with XLA on TensorFlow once per input shape, and the
    batches come in several widths. Any other model with a ``hidden_states(inputs)`` method (``BidirectionalLM``,
    ``DecoderOnlyTransformer``) reads ``token_ids`` and ``padding_mask`` through ``predict_on_batch``: a recurrent
    model run eagerly steps through the positions op by op, about 15x slower than compiled on a CPU."""
    if isinstance(model, BertBackbone):
        outputs = layer_outputs_model(model)
        return (lambda batch: outputs(batch, training=False)), {"token_ids", "segment_ids", "padding_mask"}
    if not callable(getattr(model, "hidden_states", None)):
        raise ValueError(f"backbone must be a BertBackbone or a model with a hidden_states method (BidirectionalLM, "
                         f"DecoderOnlyTransformer), got {type(model).__name__}")
    return _HiddenStates(model, name=f"{model.name}_layer_states").predict_on_batch, {"token_ids", "padding_mask"}


def layer_outputs_model(backbone: BertBackbone) -> keras.Model:
    """A functional ``keras.Model`` from BERT's inputs to all of ``backbone``'s hidden states.

    Args:
        backbone: a ``BertBackbone`` (its weights are shared, not copied).

    Returns:
        a model taking ``{"token_ids", "segment_ids", "padding_mask"}`` (int ``(batch, L)`` each; the mask
        True / 1 on real tokens) and returning a list of ``num_layers + 1`` float tensors
        ``(batch, L, hidden_dim)``: the embedding output, then the output of each block; the same tensors
        as ``backbone.hidden_states`` (the last one is ``sequence_output``).

    Raises:
        ValueError: ``backbone`` is not a ``BertBackbone``.
    """
    _check_backbone(backbone)
    inputs = {name: keras.Input(shape=(None,), dtype="int32", name=name)
              for name in ("token_ids", "segment_ids", "padding_mask")}
    return keras.Model(inputs, backbone.hidden_states(inputs), name=f"{backbone.name}_layer_outputs")


def _check_inputs(inputs):
    if not isinstance(inputs, dict) or "token_ids" not in inputs:
        raise ValueError("inputs must be a dict with 'token_ids' (and optionally 'segment_ids', 'padding_mask'), "
                         f"got {type(inputs).__name__}")
    ids = np.asarray(inputs["token_ids"])
    if ids.ndim != 2:
        raise ValueError(f"token_ids must be (batch, L), got shape {ids.shape}")
    parts = model_inputs({**{k: inputs.get(k) for k in ("segment_ids", "padding_mask")}, "token_ids": ids})
    return {key: np.asarray(value).astype(np.int32) for key, value in parts.items()}


def layer_features(backbone, inputs: dict, select=None, pooling: str | None = None,
                   batch_size: int = 64) -> np.ndarray:
    """Every layer's vectors of a frozen ``backbone`` (dropout off), as float32 NumPy arrays.

    Args:
        backbone: a ``BertBackbone``, or a language model with a ``hidden_states(inputs)`` method returning its
            layers' ``(batch, L, width)`` vectors (``BidirectionalLM``: width ``2 * hidden_dim``;
            ``DecoderOnlyTransformer``: ``hidden_dim``), which reads ``token_ids`` and ``padding_mask`` (its
            ``segment_ids`` are ignored).
        inputs: a dict of int arrays ``(n, L)``: ``"token_ids"``, optional ``"segment_ids"`` (default 0) and
            ``"padding_mask"`` (default ``token_ids != 0``), as ``encode_texts`` or ``align_first_pieces`` make.
        select: bool ``(n, L)``: keep the vector of each True position (e.g. ``labels != IGNORE_LABEL``, the
            first piece of each word), in row-major order, i.e. the order of ``labels[select]``.
        pooling: instead of ``select``: ``"mean"`` (over the positions of the padding mask, ``[CLS]`` and
            ``[SEP]`` included) or ``"cls"`` (position 0), one vector per row.
        batch_size: rows per forward pass. The rows go through longest first and each batch is cut to the columns
            it needs (rounded up to a multiple of 32), so short rows padded to a long ``L`` cost little; the result
            is in the rows' own order.

    Returns:
        float32 ``(n_selected, num_layers + 1, width)`` with ``select``, ``(n, num_layers + 1, width)``
        with ``pooling``; index 0 of axis 1 is the embedding output (``width``: ``hidden_dim`` for a
        ``BertBackbone``).

    Raises:
        ValueError: neither a ``BertBackbone`` nor a model with ``hidden_states``; neither or both of ``select`` and ``pooling``; an unknown pooling;
            ``select`` or a mask of another shape than ``token_ids``; ``batch_size`` < 1.
    """
    full = _check_inputs(inputs)
    if (select is None) == (pooling is None):
        raise ValueError("give exactly one of select (token positions) and pooling ('mean' or 'cls')")
    if pooling is not None and pooling not in ("mean", "cls"):
        raise ValueError(f"pooling must be 'mean' or 'cls', got {pooling!r}")
    if select is not None:
        select = np.asarray(select, bool)
        if select.shape != full["token_ids"].shape:
            raise ValueError(f"select must have the shape of token_ids {full['token_ids'].shape}, got {select.shape}")
    if int(batch_size) < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if id(backbone) not in _LAYER_OUTPUTS:
        _LAYER_OUTPUTS[id(backbone)] = (backbone, _states_model(backbone))
        while len(_LAYER_OUTPUTS) > _LAYER_OUTPUTS_KEPT:
            _LAYER_OUTPUTS.popitem(last=False)
    _LAYER_OUTPUTS.move_to_end(id(backbone))
    run, names = _LAYER_OUTPUTS[id(backbone)][1]
    n, length = full["token_ids"].shape
    # Rows go through longest first, each batch cut to the columns it needs (its longest real row, or its last
    # selected position, rounded up to a multiple of _WIDTH_STEP): trailing padding changes no real position's
    # vector (attention never reads a padding key, positions count from the left), and a few widths keep the
    # number of traced shapes small.
    needed = row_extents(full["padding_mask"])
    if select is not None:
        needed = np.maximum(needed, row_extents(select))
    order = np.argsort(-needed, kind="stable")
    per_row = [None] * n
    for start in range(0, n, int(batch_size)):
        rows = order[start:start + int(batch_size)]
        width = rounded_width(needed[rows].max(), _WIDTH_STEP, length)
        batch = {k: v[rows, :width] for k, v in full.items() if k in names}
        states = np.stack([ops.convert_to_numpy(s).astype(np.float32) for s in run(batch)],
                          axis=2)                                               # (b, width, layers, hidden)
        if select is not None:
            for i, row in enumerate(rows):
                per_row[row] = states[i][select[row, :width]]
        elif pooling == "cls":
            for i, row in enumerate(rows):
                per_row[row] = states[i, 0][None]
        else:
            mask = batch["padding_mask"].astype(np.float32)[:, :, None, None]
            pooled = (states * mask).sum(1) / np.maximum(mask.sum(1), 1.0)
            for i, row in enumerate(rows):
                per_row[row] = pooled[i][None]
    out = [r for r in per_row if r is not None]
    if out:
        return np.concatenate(out)
    one = {k: v[:1, :1] for k, v in full.items() if k in names} if n else {"token_ids": np.ones((1, 1), np.int32)}
    states = run(one)
    return np.zeros((0, len(states), states[0].shape[-1]), np.float32)


class LinearProbe:
    """A fitted linear probe: standardise with the training mean and deviation, then one dense layer
    (softmax regression). ``predict(x)`` gives int labels ``(n,)``, ``score(x, y)`` the accuracy; ``model`` is the
    Keras model (a ``Dense`` layer on the standardised features), ``l2`` its weight penalty."""

    def __init__(self, model, mean, scale, l2):
        self.model, self.mean, self.scale, self.l2 = model, mean, scale, l2

    def predict(self, x, batch_size: int = 4096):
        x = (np.asarray(x, np.float32) - self.mean) / self.scale
        return ops.convert_to_numpy(self.model.predict(x, batch_size=batch_size, verbose=0)).argmax(-1)

    def score(self, x, y) -> float:
        return float(np.mean(self.predict(x) == np.asarray(y)))


def train_probe(train_x, train_y, valid_x, valid_y, l2_values=(1e-4, 1e-2), epochs: int = 10, batch_size: int = 1024,
                learning_rate: float = 1e-2, min_steps: int = 300, seed: int = 0):
    """A linear probe: softmax regression on standardised features, its L2 penalty chosen on validation examples.

    Args:
        train_x, valid_x: float ``(n, dim)`` feature arrays, every value finite; ``train_y``, ``valid_y``: int labels
            ``(n,)`` in ``0..num_classes - 1`` (``num_classes`` = the largest label seen + 1); float labels are
            accepted only where they are whole numbers (``1.0``, not ``1.5``).
        l2_values: weight penalties tried (``keras.regularizers.L2`` on the kernel; larger: a simpler probe).
        epochs, batch_size, learning_rate: Adam on the cross-entropy, the same for every penalty: ``epochs`` passes
            over the training rows in batches of ``b = min(batch_size, n)`` rows (fewer rows than ``batch_size``:
            every step takes all of them), each pass in a new random order.
        min_steps: at least this many optimiser steps whatever the number of rows (more passes on small data, so
            that a few hundred rows are not left near the random start): ``max(epochs, ceil(min_steps / k)) * k``
            steps with ``k = ceil(n / b)`` per pass. Each pass is filled up to whole batches with the first rows of
            its order (so some rows count twice in a pass). Only the order of row indices is laid out for all
            passes; each batch's rows are gathered when its step comes, so memory stays one copy of the standardised
            features (``n * dim`` floats) however many passes (laying the passes out as rows would take
            ``passes * k * b * dim`` floats: about 9 GB for 4,000 words of 7,168 features over 75 passes).
        seed: seeds the initial weights (``keras.utils.set_random_seed``) and the order of the rows.

    Returns:
        ``(probe, choice)``: the ``LinearProbe`` with the best penalty (``probe.score(x, y)`` is its accuracy; of
        penalties tied on validation accuracy, the first in ``l2_values``) and
        ``{"l2": best, "valid_accuracy": {l2: accuracy}}``.

    Raises:
        ValueError: features not 2-D, a NaN or infinite feature (naming the argument and the row), features and
            labels of different lengths, no validation row, widths that differ between the splits, labels that are not
            whole numbers (``1.5``, NaN, strings; naming the argument and the row), negative labels, fewer than two
            classes in the training labels, no ``l2_values``, ``epochs`` or ``batch_size`` < 1, ``min_steps`` < 0.

    Source: the probing method of Alain & Bengio (2016) and Tenney et al. (2019): a classifier that can only
    draw hyperplanes, so what it finds is (linearly) in the vectors, not computed by the probe.
    """
    arrays = {}
    for name, x, y in (("train", train_x, train_y), ("valid", valid_x, valid_y)):
        x, y = np.asarray(x, np.float32), np.asarray(y)
        if x.ndim != 2:
            raise ValueError(f"{name}_x must be (n, dim), got shape {x.shape}")
        if len(x) != len(y):
            raise ValueError(f"{name}_x has {len(x)} rows but {name}_y {len(y)} labels")
        broken = np.argwhere(~np.isfinite(x))
        if len(broken):
            row, column = (int(v) for v in broken[0])
            raise ValueError(f"{name}_x has a NaN or infinite value in row {row} (column {column}; {len(broken)} such "
                             f"values): drop or repair those rows before probing")
        if y.dtype.kind not in "iub":
            whole = np.zeros(y.shape, bool)
            if y.dtype.kind == "f":
                whole = np.isfinite(y) & (y == np.round(y))
            if not whole.all():
                row = int(np.flatnonzero(~whole.ravel())[0])
                value = y.ravel()[row:row + 1].tolist()[0]
                raise ValueError(f"{name}_y must hold whole-number class ids, got {value!r} (dtype {y.dtype}) in row "
                                 f"{row}: map the labels to ints 0..num_classes - 1 first")
        if len(y) and y.min() < 0:
            raise ValueError(f"{name}_y has a negative label {int(y.min())}: labels must be 0..num_classes - 1")
        arrays[name] = (x, y.astype(np.int32))
    if not len(arrays["valid"][1]):                      # the penalty is chosen on it: accuracy 0/0 (a crash before)
        raise ValueError("valid_x and valid_y are empty: the L2 penalty is chosen on validation accuracy, give at "
                         "least one validation row")
    if arrays["train"][0].shape[1] != arrays["valid"][0].shape[1]:
        raise ValueError(f"train_x and valid_x differ in width: {arrays['train'][0].shape[1]} vs "
                         f"{arrays['valid'][0].shape[1]}")
    if len(np.unique(arrays["train"][1])) < 2:
        raise ValueError("train_y needs at least two classes")
    if len(l2_values) == 0:
        raise ValueError("l2_values is empty")
    if min(int(epochs), int(batch_size), int(min_steps) + 1) < 1:
        raise ValueError(f"epochs and batch_size must be >= 1 and min_steps >= 0, got {epochs}, {batch_size}, {min_steps}")
    x, y = arrays["train"]
    mean, scale = x.mean(0), x.std(0) + 1e-6
    num_classes = int(max(y.max(), arrays["valid"][1].max(initial=0))) + 1
    batch = min(int(batch_size), len(x))             # fewer rows than batch_size: one step a pass, of all rows
    per_pass = -(-len(x) // batch)
    passes = max(int(epochs), -(-int(min_steps) // per_pass))
    rng = np.random.default_rng(seed)                 # every pass a new order, the passes laid end to end: one fit
    order = np.concatenate([np.concatenate([p, p[: per_pass * batch - len(x)]])
                            for p in (rng.permutation(len(x)) for _ in range(passes))])
    standard = (x - mean) / scale
    best, scores = None, {}
    for l2 in l2_values:
        keras.utils.set_random_seed(seed)
        model = keras.Sequential([keras.Input((x.shape[1],)),
                                  keras.layers.Dense(num_classes, kernel_regularizer=keras.regularizers.L2(float(l2)))])
        model.compile(optimizer=keras.optimizers.Adam(learning_rate),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(_ProbeBatches(standard, y, order, batch), epochs=1, shuffle=False, verbose=0)
        probe = LinearProbe(model, mean, scale, float(l2))
        scores[float(l2)] = probe.score(*arrays["valid"])
        if best is None or scores[float(l2)] > scores[best.l2]:
            best = probe
    return best, {"l2": best.l2, "valid_accuracy": scores}


class _ProbeBatches(keras.utils.PyDataset):
    """Batch ``i`` of a probe's training: the rows ``order[i * batch:(i + 1) * batch]`` of ``x`` and ``y``, gathered
    when asked for (the same batches as fitting on ``x[order]`` with ``shuffle=False``, without that copy)."""

    def __init__(self, x, y, order, batch):
        super().__init__()
        self.x, self.y, self.order, self.batch = x, y, order, int(batch)

    def __len__(self):
        return len(self.order) // self.batch

    def __getitem__(self, index):
        rows = self.order[index * self.batch:(index + 1) * self.batch]
        return self.x[rows], self.y[rows]


def _stacked_weights(weights, dtype) -> np.ndarray:
    """Attention weights as one ``(layers, batch, heads, L, L)`` array, from a list per layer or already stacked."""
    stacked = np.stack([np.asarray(w, dtype) for w in weights]) if isinstance(weights, (list, tuple)) \
        else np.asarray(weights, dtype)
    if stacked.ndim != 5:
        raise ValueError(f"weights must be a list of (batch, heads, L, L) arrays, got shape {stacked.shape}")
    return stacked


def attention_shares(weights, token_ids, padding_mask, cls_id: int, sep_id: int) -> dict:
    """The share of each head's attention that goes to each kind of key, averaged over the real queries.

    Every (query, key) pair falls in exactly one kind, taken in this order: the key is ``[CLS]``; the key is
    ``[SEP]``; the key is the query itself; the token just before; just after; another position holding
    the same token id; anything else. So for each query the shares of the seven kinds sum to 1 (padding
    keys get no weight from BERT, and padding queries are left out).

    Args:
        weights: a list with one float array ``(batch, heads, L, L)`` per layer (``BertBackbone.attention_scores``),
            or one array ``(layers, batch, heads, L, L)``.
        token_ids: int ``(batch, L)``; padding_mask: bool or int ``(batch, L)``, True on real tokens.
        cls_id, sep_id: the ids of ``[CLS]`` and ``[SEP]``.

    Returns:
        ``{kind: float array (layers, heads)}`` for the kinds of ``SHARE_KINDS``, plus ``"queries"``: how many
        queries were averaged.

    Raises:
        ValueError: arrays whose shapes do not fit together (names the argument and both shapes), or no
            real query.

    Reference: Clark, Khandelwal, Levy & Manning (2019), "What Does BERT Look At? An Analysis of BERT's
    Attention", section 3 (attention to delimiters, to the previous / next token, broad attention).
    """
    stacked = _stacked_weights(weights, np.float32)
    ids, real = np.asarray(token_ids), np.asarray(padding_mask).astype(bool)
    _, batch, _, length, keys = stacked.shape
    if ids.shape != (batch, length) or keys != length:
        raise ValueError(f"token_ids must be (batch, L) = {(batch, length)} to fit weights of shape "
                         f"{stacked.shape[1:]}, got {ids.shape}")
    if real.shape != ids.shape:
        raise ValueError(f"padding_mask must have the shape of token_ids {ids.shape}, got {real.shape}")
    if not real.any():
        raise ValueError("padding_mask has no real token: nothing to average")
    i, j = np.arange(length)[:, None], np.arange(length)[None, :]
    key = ids[:, None, :]
    kind = np.full((batch, length, length), len(SHARE_KINDS) - 1, np.int8)
    rules = [key == cls_id, key == sep_id, np.broadcast_to(i == j, kind.shape), np.broadcast_to(j == i - 1, kind.shape),
             np.broadcast_to(j == i + 1, kind.shape), key == ids[:, :, None]]
    for k, rule in reversed(list(enumerate(rules))):      # the first rule that holds wins
        kind[np.broadcast_to(rule, kind.shape)] = k
    onehot = (kind[..., None] == np.arange(len(SHARE_KINDS))).astype(np.float32)     # (batch, L, L, kinds)
    totals = np.einsum("lbhij,bijc,bi->lhc", stacked, onehot, real.astype(np.float32))
    shares = totals / real.sum()
    return {**{name: shares[..., k] for k, name in enumerate(SHARE_KINDS)}, "queries": int(real.sum())}


def attention_entropy(weights, padding_mask) -> dict:
    """How spread out each head's attention is: the entropy of each query's distribution over the keys, averaged.

    For one query with weights ``a_j`` over the keys, the entropy is ``H = -sum_j a_j ln a_j`` (nats; 0 when all
    the weight is on one key, ``ln k`` when it is spread evenly over ``k`` keys); ``exp(H)`` is the effective
    number of keys the query reads. Both are averaged over the real queries (padding queries left out).

    Args:
        weights: a list with one float array ``(batch, heads, L, L)`` per layer (``BertBackbone.attention_scores``),
            or one array ``(layers, batch, heads, L, L)``; each query's row sums to 1.
        padding_mask: bool or int ``(batch, L)``, True on real tokens.

    Returns:
        ``{"entropy": E, "effective_keys": K, "max_entropy": M}``, ``E`` and ``K`` float arrays ``(layers, heads)``
        and ``M`` a float: the mean entropy, the mean of ``exp(entropy)`` over queries, and the mean over real
        queries of ``ln(number of real keys)``, the entropy of uniform attention over the sentence.

    Raises:
        ValueError: weights not of rank 5 (stacked), a padding_mask of another shape, no real query, or rows that
            do not sum to 1 (more than 1e-3 off: not attention weights).

    Reference: Clark, Khandelwal, Levy & Manning (2019), "What Does BERT Look At?", section 3 (entropy of each
    head's attention distribution).
    """
    stacked = _stacked_weights(weights, np.float64)
    real = np.asarray(padding_mask).astype(bool)
    _, batch, _, length, keys = stacked.shape
    if real.shape != (batch, length) or keys != length:
        raise ValueError(f"padding_mask must be (batch, L) = {(batch, length)} to fit weights of shape "
                         f"{stacked.shape[1:]}, got {real.shape}")
    if not real.any():
        raise ValueError("padding_mask has no real token: nothing to average")
    rows = stacked.sum(-1)[:, real.nonzero()[0], :, real.nonzero()[1]]
    if np.abs(rows - 1).max() > 1e-3:
        raise ValueError(f"attention rows must sum to 1 (softmax weights), one sums to {rows.flat[np.abs(rows - 1).argmax()]:.4f}")
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(stacked > 0, -stacked * np.log(stacked), 0.0)
    entropy = terms.sum(-1)                                   # (layers, batch, heads, L)
    weight = real[None, :, None, :].astype(np.float64)
    n = real.sum()
    mean = (entropy * weight).sum((1, 3)) / n
    effective = (np.exp(entropy) * weight).sum((1, 3)) / n
    max_entropy = float((np.log(real.sum(1)) * real.sum(1)).sum() / n)
    return {"entropy": mean.astype(np.float32), "effective_keys": effective.astype(np.float32),
            "max_entropy": max_entropy}
