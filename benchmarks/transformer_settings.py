"""Settings of chapter 08's Transformer chosen on the validation books: short runs of equal training time.

Every variant is trained on chapter 08's training pairs (Bible verses of at most 30 words) for the same
number of minutes of training on this machine, then scored on the validation books: the label-smoothed
loss over the real target pieces and greedy BLEU on the first 200 validation verses (the subset chapter
08 follows during training). The variants change one thing at a time from a starting point:

- the learning-rate schedule: warm-up length and peak (linear warm-up, then 1 / sqrt(step) decay);
- the size: width, feed-forward size, heads, layers;
- dropout (on embeddings, attention weights and sublayer outputs);
- the vocabulary: chapter 07's two WordPiece vocabularies (source and target embeddings apart, the output
  layer tied to the target embedding) or one vocabulary learned on both languages with all three tables tied.

    KERAS_BACKEND=tensorflow python benchmarks/transformer_settings.py --minutes 4 [--only A,B] [--out FILE]

Needs chapter 07's vocabularies of the profile (``models/<profile>/07_wordpiece_{es,en}.txt``); the shared
vocabulary (8,000 pieces, learned on both sides of the training pairs) is learned here once and kept as
``models/<profile>/08_wordpiece_shared.txt``. Writes one JSON line per variant to ``--out`` as soon as it is
measured (a rerun with ``--only`` adds to the file), and prints the table chapter 08 prints. The timings assume nothing else runs on the cores.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

BASE = dict(num_layers=2, hidden_dim=256, num_heads=4, intermediate_dim=1024, dropout=0.1)
# name: (what changes, model arguments, vocabulary, peak learning rate, warm-up steps, batch size)
VARIANTS = {
    "A": ("the paper's schedule as chapter 08 first used it (warm-up 1,000, peak 2.0e-3)", BASE, "separate",
          None, 1000, 64),
    "B": ("short warm-up (150 steps), peak 1e-3", BASE, "separate", 1e-3, 150, 64),
    "C": ("B, peak 2e-3", BASE, "separate", 2e-3, 150, 64),
    "D": ("B, feed-forward 512, dropout 0.3", dict(BASE, intermediate_dim=512, dropout=0.3), "separate",
          1e-3, 150, 64),
    "E": ("D, one shared vocabulary, three tables tied", dict(BASE, intermediate_dim=512, dropout=0.3), "shared",
          1e-3, 150, 64),
    "F": ("D, width 192, 3 heads", dict(BASE, hidden_dim=192, num_heads=3, intermediate_dim=512, dropout=0.3),
          "separate", 1e-3, 150, 64),
    "G": ("D, dropout 0.1", dict(BASE, intermediate_dim=512), "separate", 1e-3, 150, 64),
    "H": ("D, 3 encoder and 3 decoder layers", dict(BASE, num_layers=3, intermediate_dim=512, dropout=0.3),
          "separate", 1e-3, 150, 64),
    "I": ("D, batches of 128 pairs, warm-up 75", dict(BASE, intermediate_dim=512, dropout=0.3), "separate",
          1.4e-3, 75, 128),
    "J": ("B in mixed bfloat16 (matrix products in bfloat16, weights float32)", BASE, "separate", 1e-3, 150, 64),
    "K": ("B, width 128, feed-forward 512", dict(BASE, hidden_dim=128, intermediate_dim=512), "separate", 1e-3, 150, 64),
    "M": ("K, peak 2e-3", dict(BASE, hidden_dim=128, intermediate_dim=512), "separate", 2e-3, 150, 64),
}
PRECISION = {"J": "mixed_bfloat16"}       # the others: float32


def load_data(profile: str):
    """Training and validation arrays for both vocabularies, and the validation verses with their references."""
    from word2bert import datasets
    from word2bert.models.seq2seq import group_references
    from word2bert.tokenizers.words import tokenize
    from word2bert.tokenizers import WordPieceTokenizer, train_wordpiece
    from word2bert.models.transformer import encode_translation_pairs

    folder = ROOT / "models" / profile
    norm = dict(lowercase=True, strip_accents=False)
    paths = {lang: folder / f"07_wordpiece_{lang}.txt" for lang in ("es", "en")}
    if not all(p.exists() for p in paths.values()):
        sys.exit(f"{[str(p) for p in paths.values()]} missing: run chapter 07 first "
                 f"(python -m word2bert run --profile {profile} 07)")
    within = lambda pairs: [p for p in pairs if 0 < len(tokenize(p.source)) <= 30  # noqa: E731
                            and 0 < len(tokenize(p.target)) <= 30]
    train = within(datasets.bible_pairs("spa_rv1909", "eng_web", "train"))
    valid = datasets.bible_pairs("spa_rv1909", "eng_web", "valid")
    shared_path = folder / "08_wordpiece_shared.txt"
    if not shared_path.exists():
        shared = train_wordpiece([p.source for p in train] + [p.target for p in train], 8000, **norm, lower_thresh=2)
        shared.save(shared_path)
    tokenizers = {"separate": tuple(WordPieceTokenizer.load(paths[lang], **norm) for lang in ("es", "en")),
                  "shared": (WordPieceTokenizer.load(shared_path, **norm),) * 2}
    arrays = {kind: tuple(encode_translation_pairs([(p.source, p.target) for p in pairs], *toks, 64)[:3]
                          for pairs in (train, within(valid)))
              for kind, toks in tokenizers.items()}
    valid_sources, valid_refs = group_references(valid, sequence_length=30)
    return tokenizers, arrays, valid_sources[:200], valid_refs[:200]


def run_variant(name, minutes, tokenizers, arrays, sources, refs, seed=0) -> dict:
    from word2bert.training.callbacks import BleuCurve
    from word2bert.models.transformer import Transformer, train_transformer, translate_texts, warmup_inverse_sqrt

    what, model_args, vocab, peak, warmup, batch = VARIANTS[name]
    src_tok, tgt_tok = tokenizers[vocab]
    keras.utils.set_random_seed(seed)
    keras.config.set_dtype_policy(PRECISION.get(name, "float32"))
    model = Transformer(src_tok.vocabulary_size, tgt_tok.vocabulary_size, max_sequence_length=64, share_embeddings=vocab == "shared",
                        **model_args)
    model.build()
    schedule = None if peak is None else warmup_inverse_sqrt(peak, warmup, model.hidden_dim)
    curve = BleuCurve(lambda: translate_texts(model, sources, src_tok, tgt_tok, 64), refs, minutes=minutes)
    train, valid = arrays[vocab]
    started = time.time()
    history, _ = train_transformer(model, train, valid, 1000, batch, warmup, seed=seed, callbacks=[curve],
                                   learning_rate=schedule)
    keras.config.set_dtype_policy("float32")
    steps = round(curve.points[-1]["epochs"] * int(np.ceil(len(train[0]) / batch)))
    return {"variant": name, "what": what, "model": model_args, "vocabulary": vocab,
            "precision": PRECISION.get(name, "float32"), "peak": peak, "warmup_steps": warmup, "batch_size": batch,
            "parameters": model.count_params(),
            "minutes": minutes, "epochs": curve.points[-1]["epochs"], "steps": steps,
            "valid_loss": round(float(min(history["val_loss"])), 4), "valid_bleu": curve.points[-1]["bleu"],
            "curve": curve.points, "wall_seconds": round(time.time() - started, 1)}


def table(rows) -> str:
    lines = [f"{'':2s} {'variant':58s} {'params':>6s} {'min':>4s} {'epochs':>6s} {'val loss':>8s} {'val BLEU':>8s}"]
    for r in rows:
        lines.append(f"{r['variant']:2s} {r['what'][:58]:58s} {r['parameters'] / 1e6:5.1f}M {r['minutes']:4g} "
                     f"{r['epochs']:6.2f} {r['valid_loss']:8.3f} {r['valid_bleu']:8.2f}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=4.0, help="training minutes per variant")
    parser.add_argument("--only", default=",".join(VARIANTS), help="comma-separated variant names")
    parser.add_argument("--profile", default="cpu")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "transformer_settings.jsonl"))
    args = parser.parse_args()
    data = load_data(args.profile)
    rows = []
    for name in args.only.split(","):
        rows.append(run_variant(name, args.minutes, *data))
        with open(args.out, "a") as f:
            f.write(json.dumps(rows[-1]) + "\n")
        print(table(rows[-1:]), flush=True)
    print(table(rows))


if __name__ == "__main__":
    main()
