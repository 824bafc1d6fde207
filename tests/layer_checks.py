"""One shared check that every word2bert layer passes (see STYLE.md, "A test file").

    from layer_checks import check_layer
    check_layer(lambda: MyLayer(units=4), [np.zeros((2, 3, 4), "float32")])

Checks: ``get_config`` round trip gives the same outputs with the same weights; a
``.keras`` save/load of a model wrapping the layer gives equal outputs; the layer runs
finite under the ``mixed_float16`` and ``mixed_bfloat16`` dtype policies.
"""
from __future__ import annotations

import numpy as np
import keras


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _np(x):
    """A backend tensor (a torch tensor may require grad) as a numpy array."""
    return np.asarray(keras.ops.convert_to_numpy(x))


def _call(layer, inputs, **kwargs):
    return layer(inputs if len(inputs) > 1 else inputs[0], **kwargs)


def check_layer(make_layer, inputs, tmp_path=None, call_kwargs=None, atol=1e-5, mixed_precision=True):
    """Run the shared checks on the layer built by ``make_layer()`` with ``inputs`` (numpy arrays)."""
    call_kwargs = call_kwargs or {}
    inputs = _as_list(inputs)
    layer = make_layer()
    out = [_np(o) for o in _as_list(_call(layer, inputs, **call_kwargs))]

    # 1. config round trip, same weights -> same outputs
    clone = layer.__class__.from_config(layer.get_config())
    _call(clone, inputs, **call_kwargs)
    clone.set_weights(layer.get_weights())
    for a, b in zip(out, _as_list(_call(clone, inputs, **call_kwargs))):
        np.testing.assert_allclose(a, _np(b), atol=atol)
    assert clone.get_config() == layer.get_config()

    # 2. .keras save / load of a model around the layer
    if tmp_path is not None:
        symbolic = [keras.Input(shape=x.shape[1:], dtype=str(x.dtype)) for x in inputs]
        model = keras.Model(symbolic, _call(layer, symbolic, **call_kwargs))
        path = str(tmp_path / "layer_check.keras")
        model.save(path)
        loaded = keras.saving.load_model(path)
        for a, b in zip(out, _as_list(loaded(inputs))):
            np.testing.assert_allclose(a, _np(b), atol=atol)

    # 3. mixed precision: finite outputs
    if mixed_precision:
        for policy in ("mixed_float16", "mixed_bfloat16"):
            previous = keras.config.dtype_policy()
            keras.config.set_dtype_policy(policy)
            try:
                low = make_layer()
                for o in _as_list(_call(low, inputs, **call_kwargs)):
                    o = _np(keras.ops.cast(o, "float32"))
                    assert np.all(np.isfinite(o)), f"non-finite output under {policy}"
            finally:
                keras.config.set_dtype_policy(previous)
    return out
