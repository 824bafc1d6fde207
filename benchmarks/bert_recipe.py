"""Chapter 09's pretraining recipe chosen on held-out masked-LM loss: short runs sized to equal training time.

Every variant pretrains a BERT from scratch on chapter 09's training documents (the Wikipedia sample and the
World English Bible without the translation chapters' evaluation books) for the steps that fit the same
number of minutes of training on this machine (the minutes each run really took are recorded), then is
scored on one fixed set of held-out pairs: the held-out documents packed into spans of at most 30 pieces,
pairs of 64 tokens, NotNext partners from another document of the same source, 15% of the pieces masked
with one fixed draw. The score that chooses is the held-out masked-LM loss
(lower is better); the masked-LM and next-sentence accuracies are printed beside it.

The variants change one thing at a time. The first stage (A-F) compares model sizes and packing (filling
each segment with consecutive sentences up to the length, as the paper's "sentences" are spans of text);
the second (G-N) starts from the best size of the first, packed, and changes the peak learning rate, the
masking rate (Wettig et al. 2023), pre-LN with a higher peak, next-sentence prediction on or off (RoBERTa,
Cramming), the batch size and the warm-up share. O repeats G with another seed, so that a difference smaller
than G against O reads as a tie; P puts the two best changes of the second stage together. A short run
favours a small model: the chapter trains about eight times as long.

    KERAS_BACKEND=tensorflow python benchmarks/bert_recipe.py --minutes 2.5 [--only A,B] [--out FILE]

The learning-rate schedule (linear warm-up, cosine decay to a tenth of the peak, AdamW as chapter 09) is
sized for the steps that fit the budget: each variant first times 8 steps, then a fresh model trains for
``minutes * 60 / seconds_per_step`` steps. Writes one JSON line per variant to ``--out`` as soon as it is
measured (a rerun with ``--only`` adds to the file) and prints the table chapter 09 prints. The WordPiece
vocabulary (8,000 pieces, chapter 09's settings) is learned once and kept as ``models/cpu/09_bench_vocab.txt``.
The timings assume nothing else runs on the cores.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
VALID_LEN, VALID_PAIRS = 64, 768

BASE = dict(num_layers=4, hidden_dim=256, num_heads=4, intermediate_dim=1024)
SMALL = dict(num_layers=4, hidden_dim=128, num_heads=4, intermediate_dim=512)
TINY = dict(SMALL, num_layers=2)
# name: (what changes, model, packed, mask rate, NSP loss weight, peak, warm-up share, batch, pre-LN)
VARIANTS = {
    "A": ("the paper's recipe at chapter 09's first size: 4 x 256, one sentence a segment", BASE, False, 0.15,
          1.0, 1e-3, 0.1, 32, False),
    "B": ("A, 2 x 256", dict(BASE, num_layers=2), False, 0.15, 1.0, 1e-3, 0.1, 32, False),
    "C": ("A, 4 x 128", SMALL, False, 0.15, 1.0, 1e-3, 0.1, 32, False),
    "D": ("A, 2 x 128", dict(SMALL, num_layers=2), False, 0.15, 1.0, 1e-3, 0.1, 32, False),
    "E": ("A, segments packed with consecutive sentences", BASE, True, 0.15, 1.0, 1e-3, 0.1, 32, False),
    "F": ("C, packed", SMALL, True, 0.15, 1.0, 1e-3, 0.1, 32, False),
    # the second stage starts from G: the best size of the first, packed
    "G": ("D, packed", TINY, True, 0.15, 1.0, 1e-3, 0.1, 32, False),
    "H": ("G, peak 2e-3", TINY, True, 0.15, 1.0, 2e-3, 0.1, 32, False),
    "I": ("G, 30% masked", TINY, True, 0.30, 1.0, 1e-3, 0.1, 32, False),
    "J": ("G, 40% masked", TINY, True, 0.40, 1.0, 1e-3, 0.1, 32, False),
    "K": ("G, pre-LN, peak 3e-3", TINY, True, 0.15, 1.0, 3e-3, 0.1, 32, True),
    "L": ("G, no next-sentence loss", TINY, True, 0.15, 0.0, 1e-3, 0.1, 32, False),
    "M": ("G, batches of 64, peak 1.4e-3", TINY, True, 0.15, 1.0, 1.4e-3, 0.1, 64, False),
    "N": ("G, warm-up 3% of the steps", TINY, True, 0.15, 1.0, 1e-3, 0.03, 32, False),
    "O": ("G again, another seed: the seed-to-seed spread", TINY, True, 0.15, 1.0, 1e-3, 0.1, 32, False),
    "P": ("G, 40% masked, peak 2e-3 (J and H together)", TINY, True, 0.40, 1.0, 2e-3, 0.1, 32, False),
}
SEED = {"O": 1}                           # variant: seed of the weights, the draws and the masks (the others: 0)
KEYS = ("what", "model", "packed", "mask_rate", "nsp_weight", "peak", "warmup_share", "batch_size", "pre_ln")


def data():
    """Training documents (plain and packed), the held-out batches and the tokenizer."""
    from word2bert.models.bert import PretrainingBatches, pack_documents
    from word2bert.datasets import pretraining_documents
    from word2bert.tokenizers import WordPieceTokenizer, train_wordpiece
    documents = {split: pretraining_documents(split) for split in ("train", "valid")}
    vocab = ROOT / "models" / "cpu" / "09_bench_vocab.txt"
    if vocab.exists():
        tokenizer = WordPieceTokenizer.load(vocab)
    else:
        tokenizer = train_wordpiece([s for d in documents["train"] for s in d.sentences], 8000, lowercase=True,
                                    num_iterations=2, upper_thresh=2000)
        tokenizer.save(vocab)
    span = (VALID_LEN - 3) // 2
    packed = {split: pack_documents(docs, tokenizer, span) for split, docs in documents.items()}
    valid = PretrainingBatches(packed["valid"], tokenizer, batch_size=32, sequence_length=VALID_LEN, seed=1000,
                               remask=False, pairs_per_epoch=VALID_PAIRS, negatives="same_source")
    return documents, packed, valid, tokenizer


def measure(name, minutes, documents, packed, valid, tokenizer):
    from word2bert.models.bert import BertBackbone, BertPretrainer, PretrainingBatches
    seed = SEED.get(name, 0)
    what, model_args, is_packed, rate, nsp_weight, peak, warmup_share, batch, pre_ln = VARIANTS[name]

    def batches(pairs_per_epoch=None):
        return PretrainingBatches(packed["train"] if is_packed else documents["train"], tokenizer, batch_size=batch,
                                  sequence_length=VALID_LEN, seed=seed + 100, rate=rate, negatives="same_source",
                                  pairs_per_epoch=pairs_per_epoch)

    train = batches()

    def build(total_steps):
        keras.utils.set_random_seed(seed)
        backbone = BertBackbone(tokenizer.vocabulary_size, max_sequence_length=VALID_LEN, dropout=0.0, normalize_first=pre_ln,
                                **model_args)
        model = BertPretrainer(backbone)
        model.build()
        warmup = max(1, int(warmup_share * total_steps))
        schedule = keras.optimizers.schedules.CosineDecay(0.0, max(1, total_steps - warmup), alpha=0.1,
                                                          warmup_target=peak, warmup_steps=warmup)
        model.compile(optimizer=keras.optimizers.AdamW(schedule, weight_decay=0.01, beta_2=0.98, epsilon=1e-6,
                                                       clipnorm=1.0),
                      loss_weights={"mlm": 1.0, "nsp": nsp_weight})
        return model

    probe = build(1000)
    for i in range(2):                                   # compile and warm up
        probe.train_on_batch(*train[i])
    started = time.perf_counter()
    for i in range(2, 10):
        probe.train_on_batch(*train[i])
    step_seconds = (time.perf_counter() - started) / 8
    total_steps = int(minutes * 60 / step_seconds)
    epochs = -(-total_steps // len(train))             # new pairs and masks every epoch: whole epochs only
    train = batches(total_steps // epochs * batch)
    total_steps = epochs * len(train)
    model = build(total_steps)
    started = time.perf_counter()
    model.fit(train, epochs=epochs, verbose=0)
    seconds = time.perf_counter() - started
    scores = model.evaluate(valid, verbose=0, return_dict=True)
    return {"name": name, **dict(zip(KEYS, VARIANTS[name])), "max_len": VALID_LEN, "precision": "float32",
            "seed": seed, "parameters": model.backbone.count_params(),
            "minutes": round(seconds / 60, 2), "steps": total_steps,
            "val_mlm_loss": round(scores["mlm_loss"], 4), "val_mlm_accuracy": round(scores["mlm_accuracy"], 4),
            "val_nsp_accuracy": round(scores["nsp_accuracy"], 4)}


def table(rows) -> str:
    """The rows as chapter 09 prints them, best held-out masked-LM loss marked."""
    best = min(r["val_mlm_loss"] for r in rows)
    lines = [f"{'':2s} {'variant':48s} {'peak':>6s} {'mask':>5s} {'params':>7s} {'steps':>6s} {'min':>4s} "
             f"{'MLM loss':>9s} {'MLM acc':>8s} {'NSP acc':>8s}"]
    for r in rows:
        mark = "*" if r["val_mlm_loss"] == best else " "
        what = r["what"].replace("the paper's recipe at chapter 09's first size: ", "paper-like: ")
        lines.append(f"{r['name']:2s} {what[:48]:48s} {r['peak']:6.0e} {r['mask_rate']:5.0%} "
                     f"{r['parameters'] / 1e6:6.2f}M {r['steps']:6d} {r['minutes']:4.1f} "
                     f"{r['val_mlm_loss']:8.3f}{mark} {r['val_mlm_accuracy']:8.3f} {r['val_nsp_accuracy']:8.3f}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=2.5)
    parser.add_argument("--only", default=",".join(VARIANTS))
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "bert_recipe.jsonl"))
    args = parser.parse_args()
    documents, packed, valid, tokenizer = data()
    for name in args.only.split(","):
        row = measure(name, args.minutes, documents, packed, valid, tokenizer)
        with open(args.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        print(table([row]).splitlines()[-1], flush=True)
    rows = [json.loads(line) for line in Path(args.out).read_text(encoding="utf-8").splitlines()]
    print(table(rows))


if __name__ == "__main__":
    main()
