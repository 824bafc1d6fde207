"""Benchmark: our skip-gram (Keras, ``train_word2vec``) against gensim's Word2Vec, one run.

Same token stream (Wikipedia sample + PTB train, lowercased), same settings (dimension,
window, min_count, negatives, sample, epochs); gensim with ``workers=2``. Prints one
table: words/s of both, the ratio, and WordSim-353 / SimLex-999 Spearman rho of both.

words/s = corpus tokens (before min_count) x epochs / wall seconds of training (ours:
example generation + negatives + ``fit``; gensim: ``train``). Both run in the same
process one after the other, so they see the same machine load.

Usage (not part of the test suite; about 2-3 minutes on 2 cores with the defaults):

    python benchmarks/word2vec.py [--epochs 2] [--output negative|hierarchical] [--tokens N]

GPU check (target: ours on the GPU >= 5x gensim's CPU words/s). The GPU machine has no
TensorFlow and no gensim, so the corpus travels pre-tokenized:

    python benchmarks/word2vec.py --export data/cache/w2v_corpus.npz      # here: prints gensim's words/s
    KERAS_BACKEND=jax python benchmarks/word2vec.py --corpus data/cache/w2v_corpus.npz \
        --gensim-wps <that figure>                                          # there

``--corpus`` trains ours only and compares its words/s (all epochs, compiling included;
the later epochs' rate is printed too) with the given gensim figure; the file holds the
id stream, sentence ids, counts, words and the two similarity sets. Not run on a GPU yet.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from word2bert import datasets  # noqa: E402
from word2bert.models import word2vec as w2v  # noqa: E402
from word2bert.metrics import similarity_spearman  # noqa: E402
from word2bert.tokenizers import Vocabulary  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Our skip-gram (Keras, train_word2vec) against gensim's Word2Vec on the same corpus, one run.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--epochs", type=int, default=2, help="passes over the corpus, both models")
    parser.add_argument("--output", choices=["negative", "hierarchical"], default="negative", help="output layer")
    parser.add_argument("--dim", type=int, default=100, help="vector length")
    parser.add_argument("--window", type=int, default=5, help="maximum context distance")
    parser.add_argument("--negatives", type=int, default=5, help="negatives per pair (negative sampling)")
    parser.add_argument("--min-count", type=int, default=5, help="drop words seen fewer times")
    parser.add_argument("--sample", type=float, default=1e-3, help="subsampling threshold t (0: off)")
    parser.add_argument("--tokens", type=int, default=0, help="use only the first N tokens (0: all)")
    parser.add_argument("--batch-size", type=int, default=None,
                        help="examples per step (None: train_word2vec's, 4096 NS / 2048 HS)")
    parser.add_argument("--optimizer", choices=["sgd", "adam"], default="sgd",
                        help="ours: word2vec's SGD (sparse step on TensorFlow) or Adam")
    parser.add_argument("--export", metavar="NPZ", help="write the tokenized corpus and eval sets, time gensim, stop")
    parser.add_argument("--corpus", metavar="NPZ", help="train ours only, on a corpus written by --export")
    parser.add_argument("--gensim-wps", type=float, help="with --corpus: gensim's words/s measured with --export")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.tokens < 0 or args.dim < 1 or args.window < 1:
        parser.error("need --epochs, --dim and --window >= 1 and --tokens >= 0")
    if args.corpus:
        return _ours_only(args)

    sentences = datasets.english_sentences(args.tokens or None)
    n_tokens = sum(map(len, sentences))
    vocab = Vocabulary(sentences, min_count=args.min_count, specials=("<pad>",), unk_token=None)
    ids, sentence_ids = w2v.encode_sentences(sentences, vocab)
    ws, sl = datasets.wordsim353(), datasets.simlex999()
    print(f"corpus: {n_tokens:,} tokens, {len(vocab):,} words (min_count {args.min_count}); "
          f"skip-gram {args.output}, dim {args.dim}, window {args.window}, epochs {args.epochs}, "
          f"backend {keras.config.backend()}", flush=True)

    if args.export:
        import io

        from word2bert.course import atomic_write

        buffer = io.BytesIO()
        np.savez_compressed(buffer, ids=ids, sentence_ids=sentence_ids, counts=np.asarray(vocab.counts),
                            words=np.array(vocab.itos), n_tokens=n_tokens,
                            wordsim353=np.array(ws, dtype=object).astype(str),
                            simlex999=np.array(sl, dtype=object).astype(str))
        atomic_write(args.export, buffer.getvalue())
        print(f"wrote {args.export}")
    else:
        model, ours_wps = _train_ours(args, vocab.counts, ids, sentence_ids, n_tokens)
        ours_vectors = (vocab, model.word_vectors())

    gensim, gensim_seconds = w2v.gensim_word2vec(sentences, "skipgram", args.output, embedding_dim=args.dim,
                                                 window_size=args.window, min_count=args.min_count, sample=args.sample,
                                                 num_negatives=args.negatives, epochs=args.epochs, workers=2, seed=1)
    gensim_wps = n_tokens * args.epochs / gensim_seconds

    if args.export:
        print(f"gensim (workers=2): {gensim_wps:,.0f} words/s -- pass --gensim-wps {gensim_wps:.0f} with --corpus")
        return 0
    rows = [(f"ours (Keras {keras.config.backend()}, {args.optimizer})", ours_wps, ours_vectors),
            ("gensim (workers=2)", gensim_wps, gensim.wv)]
    print("\n| model | words/s | ratio vs gensim | WordSim-353 rho | SimLex-999 rho |")
    print("|---|---|---|---|---|")
    for name, wps, vectors in rows:
        a, b = similarity_spearman(vectors, ws), similarity_spearman(vectors, sl)
        print(f"| {name} | {wps:,.0f} | {wps / gensim_wps:.2f} | {a['rho']:.3f} (cov {a['coverage']:.2f}) "
              f"| {b['rho']:.3f} (cov {b['coverage']:.2f}) |")
    return 0


def _train_ours(args, counts, ids, sentence_ids, n_tokens):
    keras.utils.set_random_seed(0)
    model = w2v.SkipGram(len(counts), args.dim, args.output, counts=counts, num_negatives=args.negatives, seed=0)
    ours = w2v.train_word2vec(model, ids, sentence_ids, epochs=args.epochs, window_size=args.window,
                              sample=args.sample, batch_size=args.batch_size, optimizer=args.optimizer, seed=0)
    later = ours["epoch_seconds"][1:]
    if later:
        print(f"ours: {ours['epoch_seconds'][0]:.1f} s for epoch 1 (compiling included), "
              f"{np.mean(later):.1f} s per later epoch = {n_tokens / np.mean(later):,.0f} words/s", flush=True)
    return model, n_tokens * args.epochs / ours["seconds"]


def _ours_only(args):
    data = np.load(args.corpus)
    words = [str(w) for w in data["words"]]
    n_tokens = int(data["n_tokens"])
    pairs = {name: [(a, b, float(c)) for a, b, c in data[name]] for name in ("wordsim353", "simlex999")}
    print(f"corpus {args.corpus}: {n_tokens:,} tokens, {len(words):,} words; skip-gram {args.output}, dim {args.dim}, "
          f"epochs {args.epochs}, backend {keras.config.backend()}", flush=True)
    model, wps = _train_ours(args, data["counts"], data["ids"], data["sentence_ids"], n_tokens)
    vectors = {w: v for w, v in zip(words, model.word_vectors()) if w != "<pad>"}
    rho = {name: similarity_spearman(vectors, p)["rho"] for name, p in pairs.items()}
    ratio = f"{wps / args.gensim_wps:.2f}" if args.gensim_wps else "n/a"
    print("\n| model | words/s | ratio vs gensim (CPU) | WordSim-353 rho | SimLex-999 rho |")
    print("|---|---|---|---|---|")
    print(f"| ours (Keras {keras.config.backend()}, {args.optimizer}) | {wps:,.0f} | {ratio} | {rho['wordsim353']:.3f} "
          f"| {rho['simlex999']:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
