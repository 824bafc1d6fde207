"""The one check that every word2bert layer and model passes (STYLE.md, "A test file").

Modelled on keras-hub's ``run_layer_test`` and ``run_precision_test`` (read, not copied)::

    from layer_checks import run_layer_test
    run_layer_test(Attention, {"score": "general"}, [query, values],
                   expected_output_shape=[(2, 3, 8), (2, 3, 5)], expected_num_trainable_weights=1)

It checks, in order:

1. the config holds the base keys (``name``, ``dtype``, ``trainable``) and every constructor
   argument (a layer argument as its serialized form, unless listed in ``not_in_config``);
   ``from_config(get_config())`` rebuilds the same config and the same weights (shapes, dtypes,
   trainability, in order), and with the same weights the same outputs; without ``not_in_config``,
   ``serialize_keras_object`` through JSON and back (by the registered name) gives the same config;
2. output shapes and the number of trainable / non-trainable weights;
3. ``compute_output_shape`` and ``compute_mask`` against the real (eager) call: where the class defines
   ``compute_output_shape`` (not Keras's base, which raises), its shapes for the test's input shapes (a
   call argument ``x`` given as ``x_shape`` where it names one) equal the call's output shapes (a None dim
   passes); the masks the call attaches to its outputs (``_keras_mask``; the input mask attached to the
   first input) equal ``compute_mask`` of the first input and its mask, and both equal the expected output
   mask; a call that attaches a mask the test does not expect fails;
4. one ``fit`` step changes the trainable weights (a loss that depends on every output);
5. built with ``dtype=`` ``"mixed_float16"``, ``"mixed_bfloat16"`` and ``"bfloat16"`` (the global
   policy left at float32, so a sublayer that is not handed the policy shows): every sublayer has
   the policy's compute and variable dtypes, every float weight the variable dtype, every float
   output (eager and symbolic) the compute dtype, or float32 where ``float32_outputs`` says the
   layer documents float32 (logits); the outputs are finite and, under the two mixed policies,
   close to float32's with the same weights;
6. a ``.keras`` file saved here loads in a *fresh* Python process, after ``import
   word2bert.register`` and without ``custom_objects``, on TensorFlow and on JAX, with the same
   weights (shapes, in order) and the same outputs there (so the layer computes the same on both
   backends). Since it covers both backends from one pass, it runs on the TensorFlow pass only
   (CI's JAX pass would repeat it).

A constructor argument that is a layer (``MaskedLMHead(token_embedding=...)``,
``BertPretrainer(backbone=...)``) is not shared between the instances the checks build: each gets
its own copy, deserialized from the layer's config (with the policy of check 5 as its ``dtype``)
and built as the original was (``build_from_config(get_build_config())``).

Three tables, keyed by registered name, hold what check 5 knows of existing classes: ``DOCUMENTED_FLOAT32``
(the default of ``float32_outputs``), ``KNOWN_DTYPE_BUGS`` (tolerated, each held by a strict xfail in
test_harness_models.py) and ``UNSUPPORTED_POLICIES`` (what Keras itself cannot build).
"""
from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import textwrap

import keras
import numpy as np

BASE_KEYS = {"name", "dtype", "trainable"}
BACKENDS = ("tensorflow", "jax")
POLICIES = ("mixed_float16", "mixed_bfloat16", "bfloat16")   # keras-hub's run_precision_test's three
# Layers and models whose docstrings give float32 outputs under every policy (logits, per-example losses): the
# default of ``float32_outputs`` for them when a call does not say (keys: registered names).
DOCUMENTED_FLOAT32 = {
    "word2bert>MaskedLMHead": "Returns: float32 logits",
    "word2bert>NextSentenceHead": "Returns: float32 logits",
    "word2bert>BertPretrainer": "Returns: float32 logits, both",
    "word2bert>Transformer": "Returns: float32 logits",
    "word2bert>DecoderOnlyTransformer": "Returns: float32 logits",
    "word2bert>Seq2Seq": "Returns: float32 logits",
    "word2bert>GloVe": "Returns: float32 (batch,)",
    "word2bert>SkipGram": "Returns: float32 (batch,) loss",
    "word2bert>CBOW": "Returns: float32 (batch,) loss",
    # the three output layers return a per-example loss; their docstrings say "float", their code casts to
    # float32 on purpose (outputs.py), as SkipGram / CBOW document it
    "word2bert>SoftmaxOutput": "a loss, cast to float32",
    "word2bert>HierarchicalSoftmax": "a loss, cast to float32",
    "word2bert>NegativeSampling": "a loss, cast to float32",
}
# Known bugs (keys: registered names), each held by a strict xfail in test_harness_models.py that fails once the
# bug is fixed: then delete its entry here. "policy": the model does not hand its ``dtype`` to its sublayers
# (check 5 builds it under the global policy instead, as the harness once did); "symbolic": its symbolic output
# is in the compute dtype while the eager one is float32 (``compute_output_shape`` without a float32
# ``compute_output_spec``), so that check is left out.
_SPEC = "compute_output_shape without compute_output_spec: KerasTensor in the compute dtype, eager output float32"
KNOWN_DTYPE_BUGS = {
    "word2bert>Seq2Seq": {"policy": "seq2seq/model.py: embeddings, GRUs, Dense built without dtype=",
                          "symbolic": _SPEC},
    "word2bert>SkipGram": {"policy": "word2vec/models.py: input_vectors and the output layer built without dtype="},
    "word2bert>CBOW": {"policy": "word2vec/models.py: input_vectors and the output layer built without dtype="},
    "word2bert>GloVe": {"symbolic": _SPEC},
    "word2bert>SoftmaxOutput": {"symbolic": _SPEC},
    "word2bert>HierarchicalSoftmax": {"symbolic": _SPEC},
    "word2bert>NegativeSampling": {"symbolic": _SPEC},
}
# Policies Keras itself cannot build a model in (keys: registered names); not our bugs, so no xfail.
_QR = "the LSTMs' Orthogonal recurrent initializer needs a QR decomposition, which has no bfloat16 kernel"
UNSUPPORTED_POLICIES = {
    "word2bert>Seq2Seq": {"bfloat16": "the GRUs' Orthogonal recurrent initializer needs a QR decomposition, "
                                      "which has no bfloat16 kernel"},
    "word2bert>BidirectionalLM": {"bfloat16": _QR},
    "word2bert>ElmoClassifier": {"bfloat16": _QR + " (the biLM inside)"},
    "word2bert>ElmoTokenTagger": {"bfloat16": _QR + " (the biLM inside)"},
}
_LOADER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import keras
    import word2bert.register
    def rebuild(s, arrays):
        if isinstance(s, dict):
            return {k: rebuild(v, arrays) for k, v in s.items()}
        if isinstance(s, list):
            return tuple(rebuild(x, arrays) for x in s)
        return arrays[s]
    for line in sys.stdin:                     # one request a line: [path, inputs .npz, outputs .npz, spec]
        path, data, out, spec = json.loads(line)
        try:
            keras.backend.clear_session()
            keras.config.set_dtype_policy("float32")
            arrays = np.load(data)
            args = [rebuild(s, arrays) for s in json.loads(spec)]
            model = keras.saving.load_model(path)
            outputs = keras.tree.flatten(model(args if len(args) > 1 else args[0]))
            np.savez(out, *[np.asarray(keras.ops.convert_to_numpy(o)) for o in outputs])
            with open(out + ".json", "w") as f:
                json.dump([list(w.shape) for w in model.weights], f)
            reply = {"ok": True}
        except Exception as e:  # reported to the test, which fails with it
            import traceback
            reply = {"ok": False, "error": traceback.format_exc()[-3000:]}
        print(json.dumps(reply), flush=True)
""")
# One loader process per backend, started on first use and kept for the pytest process: it imports Keras and the
# library once (a fresh interpreter per check cost 5-10 s each), never builds a model itself, and clears the Keras
# session before each load, so every .keras file is still loaded where none of its classes was ever instantiated.
_LOADERS: dict = {}


def _loader(backend):
    proc = _LOADERS.get(backend)
    if proc is None or proc.poll() is not None:
        env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"}
        proc = subprocess.Popen([sys.executable, "-c", _LOADER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, env=env)
        _LOADERS[backend] = proc
    return proc



def _flat(x):
    """The leaves of an output or mask structure (a tensor, a list / tuple, a dict by sorted key)."""
    return keras.tree.flatten(x)


def to_numpy(x):
    """A backend tensor (a torch tensor may require grad) as a numpy array."""
    return np.asarray(keras.ops.convert_to_numpy(x))


def _like(outputs, fn):
    """``fn`` of each output, in the outputs' structure (a dict, a list for a list or tuple, or one)."""
    if isinstance(outputs, dict):
        return {k: fn(v) for k, v in outputs.items()}
    if isinstance(outputs, (list, tuple)):
        return [fn(v) for v in outputs]
    return fn(outputs)


def _outputs(obj, args, call_kwargs):
    return [to_numpy(o) for o in _flat(obj(*args, **call_kwargs))]


def _symbolic(x):
    if isinstance(x, dict):
        return {k: _symbolic(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return tuple(_symbolic(v) for v in x)
    return keras.Input(shape=x.shape[1:], dtype=str(x.dtype))


def _spec(args, arrays):
    def one(x):
        if isinstance(x, dict):
            return {k: one(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [one(v) for v in x]
        key = f"a{len(arrays)}"
        arrays[key] = x
        return key
    return [one(a) for a in args]


def _as_model(obj, args, call_kwargs):
    """The object itself when it is a Model, else a functional model around the layer."""
    if isinstance(obj, keras.Model):
        return obj
    symbolic = [_symbolic(a) for a in args]
    return keras.Model(symbolic if len(symbolic) > 1 else symbolic[0], obj(*symbolic, **call_kwargs))


def _fresh_process_outputs(path, args, tmp_path, backend):
    arrays = {}
    spec = _spec(args, arrays)
    data, out = str(tmp_path / "inputs.npz"), str(tmp_path / f"outputs_{backend}.npz")
    np.savez(data, **arrays)
    proc = _loader(backend)
    proc.stdin.write(json.dumps([path, data, out, json.dumps(spec)]) + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    while line and not line.startswith('{"ok"'):   # anything else a library printed on stdout
        line = proc.stdout.readline()
    reply = json.loads(line) if line else {"ok": False, "error": "the loader process died"}
    assert reply["ok"], f"loading on {backend} in a separate process failed:\n{reply['error']}"
    loaded = np.load(out)
    with open(out + ".json") as f:
        shapes = [tuple(s) for s in json.load(f)]
    return [loaded[f"arr_{i}"] for i in range(len(loaded.files))], shapes


def _shape_of(x):
    """The shape structure of a call argument (a tuple for an array; tuples / dicts kept as such)."""
    if isinstance(x, dict):
        return {k: _shape_of(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return tuple(_shape_of(v) for v in x)
    return tuple(np.shape(x))


def _is_shape(s):
    return isinstance(s, (list, tuple)) and all(d is None or isinstance(d, (int, np.integer)) for d in s)


def _flat_shapes(s):
    """The shapes of a ``compute_output_shape`` result, one per output (dicts by sorted key, as ``_flat``)."""
    if _is_shape(s):
        return [tuple(s)]
    if isinstance(s, dict):
        return [shape for k in sorted(s) for shape in _flat_shapes(s[k])]
    return [shape for part in s for shape in _flat_shapes(part)]


def defines_compute_output_shape(cls) -> bool:
    """Whether ``cls`` has a ``compute_output_shape`` of its own (or a Keras layer's), not the base that raises."""
    return cls.compute_output_shape is not keras.layers.Layer.compute_output_shape


def check_output_shape(obj, args, call_kwargs, outputs):
    """``obj.compute_output_shape`` of the test's input shapes equals the shapes of the eager ``outputs``.

    Each positional argument's shape goes positionally; a call keyword ``x`` goes as ``x_shape`` (an array) or
    as itself (``reverse=True``) where ``compute_output_shape`` names such a parameter. A None dim passes (a
    dim the layer leaves dynamic); every other dim, and the rank and number of outputs, must match.
    Nothing is checked for a class that keeps Keras's base ``compute_output_shape`` (which raises).
    """
    cls = type(obj)
    if not defines_compute_output_shape(cls):
        return
    params = inspect.signature(obj.compute_output_shape).parameters
    kwargs = {}
    for key, value in call_kwargs.items():
        if f"{key}_shape" in params:
            kwargs[f"{key}_shape"] = _shape_of(value)
        elif key in params and key not in ("training", "mask"):
            kwargs[key] = value
    computed = _flat_shapes(obj.compute_output_shape(*[_shape_of(a) for a in args], **kwargs))
    real = [tuple(o.shape) for o in outputs]
    assert len(computed) == len(real), \
        f"{cls.__name__}.compute_output_shape gives {len(computed)} shapes {computed}, the call {len(real)}: {real}"
    for i, (c, r) in enumerate(zip(computed, real)):
        assert len(c) == len(r) and all(a is None or a == b for a, b in zip(c, r)), \
            f"{cls.__name__}.compute_output_shape gives {c} for output {i}, the call returns {r}"


def _with_mask(x, mask):
    """``x`` as tensors carrying ``mask`` as their Keras mask (a list of arrays takes a list of masks)."""
    if isinstance(x, (list, tuple)) and isinstance(mask, (list, tuple)):
        return type(x)(_with_mask(a, m) for a, m in zip(x, mask))
    if mask is None or isinstance(x, (dict, list, tuple)):
        return x
    tensor = keras.ops.convert_to_tensor(x)
    keras.src.backend.set_keras_mask(tensor, keras.ops.convert_to_tensor(mask))
    return tensor


def check_masks(obj, args, call_kwargs, input_mask, expected_output_mask):
    """The masks of the real call, of ``compute_mask`` and the expected ones agree (check 3 of the module).

    The call runs with ``input_mask`` attached to the first input, as Keras passes a mask on; the masks it
    attaches to its outputs (``_keras_mask``, which Keras sets from ``compute_mask`` unless the call set one
    itself) must equal ``compute_mask(args[0], input_mask)`` output by output, and both the expected masks. A
    call that attaches a mask while the test expects none fails: the test must state the mask.
    """
    name = type(obj).__name__
    outputs = _flat(obj(_with_mask(args[0], input_mask), *args[1:], **call_kwargs))
    attached = [keras.src.backend.get_keras_mask(o) for o in outputs]
    computed = obj.compute_mask(args[0], input_mask)   # as Keras calls it: the first input and its mask
    computed = [] if computed is None else _flat(computed)
    computed = computed + [None] * (len(outputs) - len(computed))
    if expected_output_mask is None:
        assert all(m is None for m in attached), \
            f"{name}'s call attaches a mask to its outputs; state it as expected_output_mask"
        assert all(m is None for m in computed), f"{name}.compute_mask gives {computed}, none expected"
        return
    expected = _flat(expected_output_mask)
    expected = expected + [None] * (len(outputs) - len(expected))
    for i, (a, c, e) in enumerate(zip(attached, computed, expected)):
        for kind, got in (("compute_mask", c), ("the call's attached mask", a)):
            if e is None:
                assert got is None, f"{name}: {kind} for output {i} is {got}, none expected"
            else:
                assert got is not None, f"{name}: {kind} dropped the mask of output {i}"
                np.testing.assert_array_equal(to_numpy(got), e, err_msg=f"{name}: {kind} of output {i}")


def _weights_now(obj):
    return [to_numpy(w).copy() for w in obj.trainable_weights]


def _weight_layout(obj):
    """What a rebuilt object must have again: each weight's shape, dtype and trainability, in order."""
    return [(tuple(w.shape), keras.backend.standardize_dtype(w.dtype), bool(w.trainable)) for w in obj.weights]


def _canonical(value):
    """A config as plain JSON values (tuples as lists, numpy as Python), so that equal configs compare equal."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return value


def _copy_layer(layer, dtype=None):
    """A new layer of ``layer``'s config (``dtype`` replacing its policy), built as ``layer`` was."""
    config = keras.saving.serialize_keras_object(layer)
    if dtype is not None:
        config["config"]["dtype"] = keras.dtype_policies.serialize(keras.dtype_policies.get(dtype))
    copy = keras.saving.deserialize_keras_object(config)
    if layer.built and not copy.built:
        copy.build_from_config(layer.get_build_config())
    return copy


def _instance_kwargs(init_kwargs, dtype=None):
    """``init_kwargs`` for one new instance: each layer argument copied, ``dtype`` added when given."""
    kwargs = {k: _copy_layer(v, dtype) if isinstance(v, keras.layers.Layer) else v for k, v in init_kwargs.items()}
    return kwargs if dtype is None else {**kwargs, "dtype": dtype}


def _is_float(dtype):
    return "float" in keras.backend.standardize_dtype(dtype)


def _check_dtypes(obj, outputs, symbolic, policy, float32_outputs):
    """keras-hub's precision assertions: sublayers, weights and outputs in the dtypes of ``policy``."""
    name = type(obj).__name__
    for layer in obj._flatten_layers():
        if isinstance(layer, keras.layers.InputLayer):
            continue
        assert (layer.compute_dtype, layer.variable_dtype) == (policy.compute_dtype, policy.variable_dtype), \
            (f"{name} under {policy.name}: sublayer {layer.name!r} computes in {layer.compute_dtype} with "
             f"{layer.variable_dtype} variables (not handed the policy?)")
    for w in obj.weights:
        if _is_float(w.dtype):
            assert keras.backend.standardize_dtype(w.dtype) == policy.variable_dtype, \
                f"{name} under {policy.name}: weight {w.path} is {w.dtype}, not {policy.variable_dtype}"
    for kind, tensors in (("output", outputs), ("symbolic output", symbolic)):
        for i, o in enumerate(tensors):
            if not _is_float(o.dtype):
                continue
            expected = "float32" if float32_outputs is True or i in float32_outputs else policy.compute_dtype
            got = keras.backend.standardize_dtype(o.dtype)
            assert got == expected, (f"{name} under {policy.name}: {kind} {i} is {got}, expected {expected}"
                                     + ("" if expected == "float32" else " (or declare it in float32_outputs)"))


def _build_low(cls, init_kwargs, policy, handed_down):
    """``cls`` under ``policy``: given as ``dtype=`` (``handed_down``), else set as the global policy."""
    kwargs = _instance_kwargs(init_kwargs, policy.name)
    if handed_down:
        return cls(**kwargs)
    kwargs.pop("dtype")
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy(policy)
    try:
        return cls(**kwargs)
    finally:
        keras.config.set_dtype_policy(previous)


def run_precision_checks(cls, init_kwargs, args, call_kwargs=None, float32_outputs=None,
                         low_precision_tol=(3e-2, 8e-2), known_bugs=True, policies=POLICIES):
    """Check 5 of ``run_layer_test`` alone (the arguments as there).

    ``known_bugs``: True tolerates the entries of ``KNOWN_DTYPE_BUGS`` for ``cls``; False none; a set of kinds
    (``"policy"``, ``"symbolic"``) those alone (the strict xfails that hold the bugs call it so).
    ``policies``: the policies to build under (``UNSUPPORTED_POLICIES`` of ``cls`` left out).
    """
    call_kwargs = call_kwargs or {}
    name = keras.saving.get_registered_name(cls)
    bugs = KNOWN_DTYPE_BUGS.get(name, {})
    bugs = bugs if known_bugs is True else {k: v for k, v in bugs.items() if k in (known_bugs or ())}
    if float32_outputs is None:
        float32_outputs = name in DOCUMENTED_FLOAT32
    float32_outputs = True if float32_outputs is True else set(float32_outputs or ())
    reference = cls(**_instance_kwargs(init_kwargs))
    ref_out = _outputs(reference, args, call_kwargs)
    tolerances = dict(zip(POLICIES, low_precision_tol))
    policies = [p for p in policies if p not in UNSUPPORTED_POLICIES.get(name, {})]
    for policy in map(keras.dtype_policies.get, policies):
        low = _build_low(cls, init_kwargs, policy, handed_down="policy" not in bugs)
        tensors = _flat(low(*args, **call_kwargs))
        symbolic = [] if "symbolic" in bugs else _flat(low(*[_symbolic(a) for a in args], **call_kwargs))
        _check_dtypes(low, tensors, symbolic, policy, float32_outputs)
        if policy.name not in tolerances:   # bfloat16 variables: the dtypes and finiteness only
            assert all(np.all(np.isfinite(to_numpy(t).astype("float32"))) for t in tensors), \
                f"non-finite output under {policy.name}"
            continue
        low.set_weights(reference.get_weights())
        for a, b in zip(ref_out, _outputs(low, args, call_kwargs)):
            b = b.astype("float32")
            assert np.all(np.isfinite(b)), f"non-finite output under {policy.name}"
            scale = max(1.0, float(np.max(np.abs(a))))
            np.testing.assert_allclose(b, a, atol=tolerances[policy.name] * scale,
                                       err_msg=f"{policy.name} differs from float32")


def run_layer_test(cls, init_kwargs, args, tmp_path, call_kwargs=None, expected_output_shape=None,
                   expected_num_trainable_weights=None, expected_num_non_trainable_weights=0,
                   input_mask=None, expected_output_mask=None, fit_data=None, compile_kwargs=None,
                   mixed_precision=True, cross_backend=True, atol=1e-5, low_precision_tol=(3e-2, 8e-2),
                   not_in_config=(), float32_outputs=None):
    """Run the shared checks on ``cls(**init_kwargs)`` called as ``obj(*args, **call_kwargs)``.

    Args:
        cls: a word2bert ``keras.layers.Layer`` or ``keras.Model`` subclass.
        init_kwargs: constructor arguments; every one must come back in ``get_config()``, a layer
            argument as ``keras.saving.serialize_keras_object`` of it (each instance gets a copy; see
            the module docstring).
        args: positional call arguments (numpy arrays, or tuples / dicts of them for a model's input).
        tmp_path: pytest's ``tmp_path``.
        expected_output_shape: a shape or a list of shapes, one per output (dict outputs by sorted key).
        expected_num_trainable_weights / expected_num_non_trainable_weights: variable counts.
        input_mask, expected_output_mask: the mask of the first input, given to
            ``compute_mask`` as Keras does, and the mask expected back (an array, a list of
            arrays, or None).
        fit_data: ``(x, y)`` or ``(x, y, sample_weight)`` for the training step with ``compile_kwargs``
            (default: a mean squared error of every output against random targets, SGD).
        mixed_precision: run check 5; cross_backend: run check 6 on TensorFlow and JAX.
        atol: tolerance of the float32 comparisons; low_precision_tol: ``(float16, bfloat16)``
            tolerances relative to the largest float32 output.
        not_in_config: constructor arguments documented as *not* part of the config (a tied layer
            that the owning model passes again): they must be absent from ``get_config()`` and
            ``from_config`` is given a copy of them again.
        float32_outputs: the outputs (indices into the flattened outputs, dicts by sorted key) that the
            layer documents as float32 under every policy, e.g. logits; True: every float output; None:
            True for the classes in ``DOCUMENTED_FLOAT32``, none for the others.

    Returns:
        the float32 outputs, a list of numpy arrays (dict outputs by sorted key).
    """
    call_kwargs = call_kwargs or {}
    not_in_config = set(not_in_config)
    kwargs = _instance_kwargs(init_kwargs)
    obj = cls(**kwargs)
    raw = obj(*args, **call_kwargs)
    out = [to_numpy(o) for o in _flat(raw)]

    # 1. config: base keys, every constructor argument, a faithful round trip
    config = obj.get_config()
    missing = (BASE_KEYS | set(init_kwargs)) - not_in_config - set(config)
    assert not missing, f"{cls.__name__}.get_config() lacks {sorted(missing)}"
    present = not_in_config & set(config)
    assert not present, f"{cls.__name__}.get_config() holds {sorted(present)}, documented as not in the config"
    for key, value in init_kwargs.items():
        if key in not_in_config:
            continue
        if isinstance(value, keras.layers.Layer):
            assert _canonical(config[key]) == _canonical(keras.saving.serialize_keras_object(kwargs[key])), key
        else:
            assert config[key] == value or np.array_equal(np.asarray(config[key]), np.asarray(value)), key
    clone = cls.from_config({**config, **{k: _copy_layer(init_kwargs[k]) for k in not_in_config}})
    _outputs(clone, args, call_kwargs)
    assert _canonical(clone.get_config()) == _canonical(config)
    assert _weight_layout(clone) == _weight_layout(obj), \
        f"{cls.__name__}.from_config(get_config()) builds other weights:\n{_weight_layout(clone)}\n" \
        f"instead of\n{_weight_layout(obj)}"
    clone.set_weights(obj.get_weights())
    for a, b in zip(out, _outputs(clone, args, call_kwargs)):
        np.testing.assert_allclose(a, b, atol=atol)
    if not not_in_config:   # by the registered name, through JSON, as a .keras file stores it
        revived = keras.saving.deserialize_keras_object(json.loads(json.dumps(
            keras.saving.serialize_keras_object(obj))))
        assert type(revived) is cls and _canonical(revived.get_config()) == _canonical(config)

    # 2. shapes and weight counts
    if expected_output_shape is not None:
        shapes = expected_output_shape if isinstance(expected_output_shape, list) else [expected_output_shape]
        assert [tuple(o.shape) for o in out] == [tuple(s) for s in shapes]
    if expected_num_trainable_weights is not None:
        assert len(obj.trainable_weights) == expected_num_trainable_weights, [w.path for w in obj.trainable_weights]
    assert len(obj.non_trainable_weights) == expected_num_non_trainable_weights, \
        [w.path for w in obj.non_trainable_weights]

    # 3. compute_output_shape and compute_mask against the real call
    check_output_shape(obj, args, call_kwargs, out)
    check_masks(obj, args, call_kwargs, input_mask, expected_output_mask)

    # 4. one training step moves the weights
    if obj.trainable_weights:
        model = _as_model(obj, args, call_kwargs)
        before = _weights_now(obj)
        if fit_data is None:
            rng = np.random.default_rng(0)
            targets = _like(raw, lambda o: rng.normal(size=o.shape).astype("float32"))
            model.compile(optimizer=keras.optimizers.SGD(0.1), loss=_like(raw, lambda o: "mse"))
            x = args if len(args) > 1 else args[0]
            model.fit(x, targets, epochs=1, batch_size=len(out[0]), verbose=0)
        else:
            model.compile(**(compile_kwargs or {"optimizer": keras.optimizers.SGD(0.1)}))
            x, y, *weights = tuple(fit_data) + (None,) * (2 - len(fit_data))
            model.fit(x, y, sample_weight=weights[0] if weights else None, epochs=1, verbose=0)
        moved = [not np.allclose(a, b) for a, b in zip(before, _weights_now(obj))]
        assert any(moved), "one fit step left every trainable weight unchanged"
        obj.set_weights([w for w in obj.get_weights()])  # still usable after training

    # 5. dtype policies: sublayers, weights and outputs in the policy's dtypes; finite; close to float32
    if mixed_precision:
        run_precision_checks(cls, init_kwargs, args, call_kwargs, float32_outputs, low_precision_tol)

    # 6. .keras save here, load in a separate process on each backend (one that never built a model): the same weights and outputs
    if cross_backend and keras.config.backend() == "tensorflow":
        model = _as_model(obj, args, call_kwargs)
        here = _outputs(model, [args if len(args) > 1 else args[0]], {})
        here_shapes = [tuple(w.shape) for w in model.weights]
        path = str(tmp_path / f"{cls.__name__}.keras")
        model.save(path)
        for backend in BACKENDS:
            there, shapes = _fresh_process_outputs(path, args, tmp_path, backend)
            assert shapes == here_shapes, f"loaded on {backend}, the model has other weights: {shapes} vs {here_shapes}"
            assert len(there) == len(here)
            for a, b in zip(here, there):
                np.testing.assert_allclose(b, a, atol=max(atol, 1e-5), rtol=1e-5,
                                           err_msg=f"{backend} in a separate process gives other outputs")
    return out
