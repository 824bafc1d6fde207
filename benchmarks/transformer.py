"""Speed of the Transformer pieces against keras-hub, on this machine's CPU, in one run.

1. Train-step tokens/s of one encoder block: ``word2bert.layers.TransformerEncoder`` vs
   ``keras_hub.layers.TransformerEncoder`` of the same size (TensorFlow; ``fit`` with
   ``jit_compile`` on and off). Target: ours >= 0.95x keras-hub.
2. Greedy decoding of 64 tokens by a small ``Transformer``: with the key/value cache vs recomputing
   the prefix at every step. Target: cached >= 3x faster.

    KERAS_BACKEND=tensorflow python benchmarks/transformer.py [--quick]

Timings vary from run to run by a few per cent; each number is the median of ``--repeats`` runs.
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402


def encoder_tokens_per_second(kind: str, jit: bool, batch: int, length: int, hidden_dim: int, heads: int, ffn: int,
                              steps: int, repeats: int) -> float:
    import keras_hub

    from word2bert.layers import TransformerEncoder

    keras.utils.set_random_seed(0)
    inputs = keras.Input((length, hidden_dim))
    if kind == "ours":
        block = TransformerEncoder(ffn, heads, dropout=0.1)
    else:
        block = keras_hub.layers.TransformerEncoder(ffn, heads, dropout=0.1)
    model = keras.Model(inputs, keras.layers.Dense(1)(block(inputs)))
    model.compile(optimizer="adam", loss="mse", jit_compile=jit)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch * steps, length, hidden_dim)).astype("float32")
    y = rng.normal(size=(batch * steps, length, 1)).astype("float32")
    model.fit(x[:batch * 2], y[:batch * 2], batch_size=batch, epochs=1, verbose=0)   # trace and compile
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
        times.append(time.perf_counter() - started)
    return batch * steps * length / float(np.median(times))


def decoding_seconds(use_cache: bool, batch: int, steps: int, repeats: int) -> float:
    from word2bert.models.transformer import Transformer, run_steps

    keras.utils.set_random_seed(0)
    model = Transformer(8000, 8000, num_layers=2, hidden_dim=256, num_heads=4, intermediate_dim=1024, max_sequence_length=96)
    source = np.random.default_rng(0).integers(1, 8000, (batch, 24)).astype("int32")
    memory, mask = model.encode_source(source)
    step, step_uncached = model.step_functions(model.source_context(memory, mask))
    fn = step if use_cache else step_uncached
    run_steps(fn, model.decoding_state(batch, steps, use_cache), np.full(batch, 2), steps)  # compile
    times = [run_steps(fn, model.decoding_state(batch, steps, use_cache), np.full(batch, 2), steps)[1]
             for _ in range(repeats)]
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps (a smoke test)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    steps = 5 if args.quick else 30
    size = dict(batch=64, length=32, hidden_dim=256, heads=4, ffn=1024)
    print(f"backend {keras.config.backend()}, {os.cpu_count()} CPUs; encoder block {size}")
    for jit in (True, False):
        ours = encoder_tokens_per_second("ours", jit, steps=steps, repeats=args.repeats, **size)
        hub = encoder_tokens_per_second("keras_hub", jit, steps=steps, repeats=args.repeats, **size)
        print(f"encoder train step, jit_compile={jit}: ours {ours:,.0f} tokens/s, keras-hub {hub:,.0f} tokens/s, "
              f"ratio {ours / hub:.2f}")
    cached = decoding_seconds(True, batch=32, steps=64, repeats=args.repeats)
    uncached = decoding_seconds(False, batch=32, steps=64, repeats=args.repeats)
    print(f"greedy decoding of 64 tokens, batch 32: cached {cached:.2f} s, uncached {uncached:.2f} s, "
          f"speed-up {uncached / cached:.1f}x")


if __name__ == "__main__":
    main()
