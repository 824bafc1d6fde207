"""Pretraining speed of our BERT against keras-hub's, on this machine's CPU, in one run.

Train-step tokens/s (``fit`` on TensorFlow, XLA as Keras decides for both) of
``word2bert.models.bert.BertPretrainer`` against keras-hub's ``BertBackbone`` of the same size with its
``MaskedLMHead`` (tied to the token embedding) and a Dense(2) next-sentence head: the same masked
batches, the same losses (``MaskedLMLoss`` + sparse cross-entropy) and optimizer. Target: ours >= 0.95x.

    KERAS_BACKEND=tensorflow python benchmarks/bert.py [--quick]

Each number is the median of ``--repeats`` timed epochs, after one untimed epoch that traces and compiles.
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402


class _Batches(keras.utils.PyDataset):
    def __init__(self, items):
        super().__init__()
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]


def make_batches(steps: int, batch: int, length: int, vocabulary_size: int, predictions: int, hub: bool):
    from word2bert.models.bert import mask_tokens

    rng = np.random.default_rng(0)
    items = []
    for _ in range(steps):
        ids = rng.integers(5, vocabulary_size, (batch, length)).astype("int32")
        ids[:, 0], ids[:, length // 2], ids[:, -1] = 2, 3, 3
        masked, positions, labels, weights = mask_tokens(ids, rng, vocabulary_size, [0, 1, 2, 3, 4], 4,
                                                         max_predictions=predictions)
        segments = (np.arange(length) > length // 2).astype("int32")[None].repeat(batch, 0)
        x = {"token_ids": masked, "segment_ids": segments, "mask_positions": positions}
        if hub:
            x["padding_mask"] = (masked != 0).astype("int32")
        items.append((x, {"mlm": labels, "nsp": rng.integers(0, 2, batch).astype("int32")},
                      {"mlm": weights, "nsp": np.ones(batch, "float32")}))
    return _Batches(items)


def build(kind: str, vocabulary_size: int, layers: int, hidden: int, heads: int, ffn: int, length: int):
    from word2bert.models.bert import BertBackbone, BertPretrainer, MaskedLMLoss

    keras.utils.set_random_seed(0)
    losses = {"mlm": MaskedLMLoss(), "nsp": keras.losses.SparseCategoricalCrossentropy(from_logits=True)}
    if kind == "ours":
        model = BertPretrainer(BertBackbone(vocabulary_size, layers, heads, hidden, ffn, max_sequence_length=length))
        model.compile(optimizer=keras.optimizers.Adam(1e-4), loss=losses, weighted_metrics=None)
        return model
    import keras_hub

    backbone = keras_hub.models.BertBackbone(vocabulary_size=vocabulary_size, num_layers=layers, num_heads=heads,
                                             hidden_dim=hidden, intermediate_dim=ffn, max_sequence_length=length)
    inputs = {name: keras.Input((None,), dtype="int32", name=name)
              for name in ("token_ids", "segment_ids", "padding_mask", "mask_positions")}
    out = backbone({k: inputs[k] for k in ("token_ids", "segment_ids", "padding_mask")})
    head = keras_hub.layers.MaskedLMHead(vocabulary_size=vocabulary_size, token_embedding=backbone.token_embedding,
                                         intermediate_activation="gelu", layer_norm_epsilon=1e-12, name="mlm")
    mlm = head(out["sequence_output"], mask_positions=inputs["mask_positions"])
    nsp = keras.layers.Dense(2, name="nsp")(out["pooled_output"])
    model = keras.Model(inputs, {"mlm": mlm, "nsp": nsp})
    model.compile(optimizer=keras.optimizers.Adam(1e-4), loss=losses)
    return model


def median_fit_seconds(model, data, warmup, repeats: int) -> float:
    """Median seconds of ``repeats`` one-epoch ``fit`` calls over ``data``, after one over ``warmup`` (trace, compile)."""
    model.fit(warmup, epochs=1, verbose=0)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        model.fit(data, epochs=1, verbose=0)
        times.append(time.perf_counter() - started)
    return float(np.median(times))


def tokens_per_second(kind: str, args) -> tuple[float, int]:
    model = build(kind, args.vocab, args.layers, args.hidden, args.heads, args.ffn, args.length)
    data = make_batches(args.steps, args.batch, args.length, args.vocab, args.predictions, hub=kind != "ours")
    warmup = make_batches(2, args.batch, args.length, args.vocab, args.predictions, hub=kind != "ours")
    seconds = median_fit_seconds(model, data, warmup, args.repeats)
    return args.batch * args.steps * args.length / seconds, model.count_params()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and repeats (a smoke run)")
    parser.add_argument("--vocab", type=int, default=8000)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--ffn", type=int, default=1024)
    parser.add_argument("--length", type=int, default=128)
    parser.add_argument("--predictions", type=int, default=20)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.repeats = 4, 1
    print(f"backend {keras.backend.backend()}; BERT L={args.layers} H={args.hidden} A={args.heads} "
          f"FFN={args.ffn}, vocabulary {args.vocab}, batch {args.batch} x {args.length} tokens, "
          f"{args.predictions} predictions per sequence")
    results = {}
    for kind in ("ours", "keras_hub"):
        results[kind], params = tokens_per_second(kind, args)
        print(f"{kind:>10}: {results[kind]:9.0f} tokens/s  ({params:,} parameters)")
    print(f"ratio ours / keras-hub: {results['ours'] / results['keras_hub']:.3f} (target >= 0.95)")
    return results


if __name__ == "__main__":
    main()
