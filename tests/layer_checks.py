"""The one check that every word2bert layer and model passes (STYLE.md, "A test file").

Modelled on keras-hub's ``run_layer_test`` (read, not copied)::

    from layer_checks import run_layer_test
    run_layer_test(Attention, {"score": "general"}, [query, values],
                   expected_output_shape=[(2, 3, 8), (2, 3, 5)], expected_num_trainable_weights=1)

It checks, in order:

1. the config holds the base keys (``name``, ``dtype``, ``trainable``) and every constructor
   argument; ``from_config(get_config())`` rebuilds the same config, and with the same weights
   the same outputs;
2. output shapes and the number of trainable / non-trainable weights;
3. the mask: ``compute_mask`` of the given input mask equals the expected output mask;
4. one ``fit`` step changes the trainable weights (a loss that depends on every output);
5. under ``mixed_float16`` and ``mixed_bfloat16`` the outputs are finite and close to float32's
   with the same weights;
6. a ``.keras`` file saved here loads in a *fresh* Python process, after ``import
   word2bert.register`` and without ``custom_objects``, on TensorFlow and on JAX, and gives the
   same outputs there (so the layer computes the same on both backends). Since it covers both
   backends from one pass, it runs on the TensorFlow pass only (CI's JAX pass would repeat it).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import keras
import numpy as np

BASE_KEYS = {"name", "dtype", "trainable"}
BACKENDS = ("tensorflow", "jax")
_LOADER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import keras
    import word2bert.register
    path, data, out, spec = sys.argv[1:5]
    spec = json.loads(spec)
    arrays = np.load(data)
    def rebuild(s):
        if isinstance(s, list):
            return tuple(rebuild(x) for x in s)
        return arrays[s]
    args = [rebuild(s) for s in spec]
    model = keras.saving.load_model(path)
    outputs = model(args if len(args) > 1 else args[0])
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    np.savez(out, *[np.asarray(keras.ops.convert_to_numpy(o)) for o in outputs])
""")


def _flat(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def to_numpy(x):
    """A backend tensor (a torch tensor may require grad) as a numpy array."""
    return np.asarray(keras.ops.convert_to_numpy(x))


def _outputs(obj, args, call_kwargs):
    return [to_numpy(o) for o in _flat(obj(*args, **call_kwargs))]


def _symbolic(x):
    if isinstance(x, (list, tuple)):
        return tuple(_symbolic(v) for v in x)
    return keras.Input(shape=x.shape[1:], dtype=str(x.dtype))


def _spec(args, arrays):
    def one(x):
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
    env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run([sys.executable, "-c", _LOADER, path, data, out, json.dumps(spec)],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, f"loading on {backend} in a fresh process failed:\n{proc.stderr[-3000:]}"
    loaded = np.load(out)
    return [loaded[f"arr_{i}"] for i in range(len(loaded.files))]


def _weights_now(obj):
    return [to_numpy(w).copy() for w in obj.trainable_weights]


def run_layer_test(cls, init_kwargs, args, tmp_path, call_kwargs=None, expected_output_shape=None,
                   expected_num_trainable_weights=None, expected_num_non_trainable_weights=0,
                   input_mask=None, expected_output_mask=None, fit_data=None, compile_kwargs=None,
                   mixed_precision=True, cross_backend=True, atol=1e-5, low_precision_tol=(3e-2, 8e-2)):
    """Run the shared checks on ``cls(**init_kwargs)`` called as ``obj(*args, **call_kwargs)``.

    Args:
        cls: a word2bert ``keras.layers.Layer`` or ``keras.Model`` subclass.
        init_kwargs: constructor arguments; every one must come back in ``get_config()``.
        args: positional call arguments (numpy arrays, or tuples of them for a model's tuple input).
        tmp_path: pytest's ``tmp_path``.
        expected_output_shape: a shape or a list of shapes, one per output.
        expected_num_trainable_weights / expected_num_non_trainable_weights: variable counts.
        input_mask, expected_output_mask: the mask of the first input, given to
            ``compute_mask`` as Keras does, and the mask expected back (an array, a list of
            arrays, or None).
        fit_data: ``(x, y)`` for the training step with ``compile_kwargs`` (default: a mean
            squared error of every output against random targets, SGD).
        mixed_precision: run check 5; cross_backend: run check 6 on TensorFlow and JAX.
        atol: tolerance of the float32 comparisons; low_precision_tol: ``(float16, bfloat16)``
            tolerances relative to the largest float32 output.

    Returns:
        the float32 outputs, a list of numpy arrays.
    """
    call_kwargs = call_kwargs or {}
    obj = cls(**init_kwargs)
    out = _outputs(obj, args, call_kwargs)

    # 1. config: base keys, every constructor argument, a faithful round trip
    config = obj.get_config()
    missing = (BASE_KEYS | set(init_kwargs)) - set(config)
    assert not missing, f"{cls.__name__}.get_config() lacks {sorted(missing)}"
    for key, value in init_kwargs.items():
        assert config[key] == value or np.array_equal(np.asarray(config[key]), np.asarray(value)), key
    clone = cls.from_config(config)
    assert clone.get_config() == config
    _outputs(clone, args, call_kwargs)
    clone.set_weights(obj.get_weights())
    for a, b in zip(out, _outputs(clone, args, call_kwargs)):
        np.testing.assert_allclose(a, b, atol=atol)

    # 2. shapes and weight counts
    if expected_output_shape is not None:
        shapes = expected_output_shape if isinstance(expected_output_shape, list) else [expected_output_shape]
        assert [tuple(o.shape) for o in out] == [tuple(s) for s in shapes]
    if expected_num_trainable_weights is not None:
        assert len(obj.trainable_weights) == expected_num_trainable_weights, [w.path for w in obj.trainable_weights]
    assert len(obj.non_trainable_weights) == expected_num_non_trainable_weights, \
        [w.path for w in obj.non_trainable_weights]

    # 3. mask propagation
    if input_mask is not None or expected_output_mask is not None:
        got = obj.compute_mask(args[0], input_mask)  # as Keras calls it: the first input and its mask
        if expected_output_mask is None:
            assert got is None or all(m is None for m in _flat(got)), got
        else:
            expected = _flat(expected_output_mask)
            got = _flat(got)
            assert len(got) == len(expected), (got, expected)
            for g, e in zip(got, expected):
                assert g is not None, "compute_mask dropped the mask"
                np.testing.assert_array_equal(to_numpy(g), e)

    # 4. one training step moves the weights
    if obj.trainable_weights:
        model = _as_model(obj, args, call_kwargs)
        before = _weights_now(obj)
        if fit_data is None:
            rng = np.random.default_rng(0)
            targets = [rng.normal(size=o.shape).astype("float32") for o in out]
            model.compile(optimizer=keras.optimizers.SGD(0.1), loss=["mse"] * len(targets) if len(targets) > 1 else "mse")
            x = args if len(args) > 1 else args[0]
            model.fit(x, targets if len(targets) > 1 else targets[0], epochs=1, batch_size=len(out[0]), verbose=0)
        else:
            model.compile(**(compile_kwargs or {"optimizer": keras.optimizers.SGD(0.1)}))
            model.fit(*fit_data, epochs=1, verbose=0)
        moved = [not np.allclose(a, b) for a, b in zip(before, _weights_now(obj))]
        assert any(moved), "one fit step left every trainable weight unchanged"
        obj.set_weights([w for w in obj.get_weights()])  # still usable after training

    # 5. mixed precision: finite and close to float32 with the same weights
    if mixed_precision:
        reference = cls(**init_kwargs)
        ref_out = _outputs(reference, args, call_kwargs)
        for policy, tol in zip(("mixed_float16", "mixed_bfloat16"), low_precision_tol):
            previous = keras.config.dtype_policy()
            keras.config.set_dtype_policy(policy)
            try:
                low = cls(**init_kwargs)
                _outputs(low, args, call_kwargs)
                low.set_weights(reference.get_weights())
                for a, b in zip(ref_out, _outputs(low, args, call_kwargs)):
                    b = b.astype("float32")
                    assert np.all(np.isfinite(b)), f"non-finite output under {policy}"
                    scale = max(1.0, float(np.max(np.abs(a))))
                    np.testing.assert_allclose(b, a, atol=tol * scale, err_msg=f"{policy} differs from float32")
            finally:
                keras.config.set_dtype_policy(previous)

    # 6. .keras save here, load in a fresh process on each backend: the same outputs
    if cross_backend and keras.config.backend() == "tensorflow":
        model = _as_model(obj, args, call_kwargs)
        here = _outputs(model, [args if len(args) > 1 else args[0]], {})
        path = str(tmp_path / f"{cls.__name__}.keras")
        model.save(path)
        for backend in BACKENDS:
            there = _fresh_process_outputs(path, args, tmp_path, backend)
            assert len(there) == len(here)
            for a, b in zip(here, there):
                np.testing.assert_allclose(b, a, atol=max(atol, 1e-5), rtol=1e-5,
                                           err_msg=f"{backend} in a fresh process gives other outputs")
    return out
