"""Benchmark: our skip-gram (Keras, ``train_word2vec``) against gensim's Word2Vec, one run.

Same token stream (Wikipedia sample + PTB train, lowercased), same settings (dimension,
window, min_count, negatives, sample, epochs); gensim with ``workers=2``. Prints one
table: words/s of both, the ratio, and WordSim-353 / SimLex-999 Spearman rho of both.

words/s = corpus tokens (before min_count) x epochs / wall seconds of training (ours:
example generation + negatives + ``fit``; gensim: ``train``). Both run in the same
process one after the other, so they see the same machine load.

Usage (not part of the test suite; about 3-5 minutes on 2 cores with the defaults):

    python benchmarks/word2vec.py [--epochs 2] [--output negative|hierarchical] [--tokens N]

The GPU throughput check (``KERAS_BACKEND=jax`` on the GPU machine, target >= 5x the
gensim CPU figure) has not been run yet.
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from word2bert import datasets  # noqa: E402
from word2bert import word2vec as w2v  # noqa: E402
from word2bert.evaluation import similarity_spearman  # noqa: E402
from word2bert.vocab import Vocabulary  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--output", choices=["negative", "hierarchical"], default="negative")
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--window", type=int, default=5)
    parser.add_argument("--negatives", type=int, default=5)
    parser.add_argument("--min-count", type=int, default=5)
    parser.add_argument("--sample", type=float, default=1e-3)
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--tokens", type=int, default=0, help="use only the first N tokens (0: all)")
    args = parser.parse_args(argv)

    from gensim.models import Word2Vec

    sentences = datasets.wikipedia_sentences() + datasets.ptb("train")
    if args.tokens:
        kept, n = [], 0
        for s in sentences:
            if n >= args.tokens:
                break
            kept.append(s)
            n += len(s)
        sentences = kept
    n_tokens = sum(map(len, sentences))
    vocab = Vocabulary(sentences, min_count=args.min_count, specials=("<pad>",), unk_token=None)
    ids, sentence_ids = w2v.encode_sentences(sentences, vocab)
    ws, sl = datasets.wordsim353(), datasets.simlex999()
    print(f"corpus: {n_tokens:,} tokens, {len(vocab):,} words (min_count {args.min_count}); "
          f"skip-gram {args.output}, dim {args.dim}, window {args.window}, epochs {args.epochs}, "
          f"backend {keras.config.backend()}", flush=True)

    keras.utils.set_random_seed(0)
    model = w2v.SkipGram(len(vocab), args.dim, args.output, counts=vocab.counts,
                         num_negatives=args.negatives, seed=0)
    ours = w2v.train_word2vec(model, ids, sentence_ids, epochs=args.epochs, window_size=args.window,
                              sample=args.sample, batch_size=args.batch_size, seed=0)
    ours_wps = n_tokens * args.epochs / ours["seconds"]
    ours_vectors = (vocab, model.word_vectors())

    hs = args.output == "hierarchical"
    gensim = Word2Vec(vector_size=args.dim, window=args.window, min_count=args.min_count, sample=args.sample,
                      sg=1, hs=int(hs), negative=0 if hs else args.negatives, workers=2, seed=1)
    gensim.build_vocab(sentences)
    started = time.time()
    gensim.train(sentences, total_examples=len(sentences), epochs=args.epochs)
    gensim_wps = n_tokens * args.epochs / (time.time() - started)

    rows = [("ours (Keras SGD, batch %d)" % args.batch_size, ours_wps, ours_vectors),
            ("gensim (workers=2)", gensim_wps, gensim.wv)]
    print(f"\n| model | words/s | ratio vs gensim | WordSim-353 rho | SimLex-999 rho |")
    print("|---|---|---|---|---|")
    for name, wps, vectors in rows:
        a, b = similarity_spearman(vectors, ws), similarity_spearman(vectors, sl)
        print(f"| {name} | {wps:,.0f} | {wps / gensim_wps:.2f} | {a['rho']:.3f} (cov {a['coverage']:.2f}) "
              f"| {b['rho']:.3f} (cov {b['coverage']:.2f}) |")
    print("\nGPU check (KERAS_BACKEND=jax, target >= 5x gensim's CPU words/s): not run yet.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
