"""word2bert.optimizers: the one warm-up + cosine schedule, its resettable twin, and AdamW's exclusions."""
import keras
import numpy as np
import pytest

from word2bert.optimizers import ResettableWarmupCosine, adamw, warmup_cosine_decay


def _curve(schedule, steps):
    return np.array([float(keras.ops.convert_to_numpy(schedule(s))) for s in steps])


def test_warmup_cosine_by_hand():
    # 4 warm-up steps to 1e-3, then 6 steps of cosine decay to alpha * peak
    schedule = warmup_cosine_decay(1e-3, total_steps=10, warmup_steps=4, alpha=0.1)
    steps = np.arange(12)
    expected = np.where(steps < 4, 1e-3 * steps / 4,
                        1e-3 * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * np.minimum(steps - 4, 6) / 6))))
    np.testing.assert_allclose(_curve(schedule, steps), expected, rtol=1e-5, atol=1e-10)


def test_without_warmup_the_decay_starts_at_the_peak():
    np.testing.assert_allclose(_curve(warmup_cosine_decay(2e-3, 8, 0), [0, 8]), [2e-3, 0.0], atol=1e-10)


def test_the_resettable_schedule_equals_the_keras_one_after_each_reset():
    resettable = ResettableWarmupCosine()
    steps = np.arange(0, 40)
    for peak, total, warmup in ((1e-3, 30, 3), (5e-4, 17, 0), (2e-2, 40, 10)):
        resettable.set(peak, warmup, total - warmup)
        np.testing.assert_allclose(_curve(resettable, steps), _curve(warmup_cosine_decay(peak, total, warmup), steps),
                                   rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("args", [(0.0, 10, 1), (1e-3, 0, 0), (1e-3, 10, 10), (1e-3, 10, -1)])
def test_bad_schedules_are_refused(args):
    with pytest.raises(ValueError, match="need peak > 0"):
        warmup_cosine_decay(*args)


def test_adamw_leaves_layer_norm_and_biases_undecayed():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2), keras.layers.LayerNormalization()])
    optimizer = adamw(1e-3)
    optimizer.build(model.trainable_variables)
    decayed = {v.path.split("/")[-1]: optimizer._use_weight_decay(v) for v in model.trainable_variables}
    assert decayed == {"kernel": True, "bias": False, "gamma": False, "beta": False}
