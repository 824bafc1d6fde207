"""Benchmark: WordPiece tokenization speed, ours (Python) against tensorflow-text and keras-hub, one run.

One vocabulary (``train_wordpiece`` on the English training text of chapter 07: WEB training books and the
first 90 Wikipedia articles, lowercased, accents kept), one held-out text (the WEB test books and the other
Wikipedia articles), three tokenizers that give the same ids:

- ours: ``WordPieceTokenizer.encode`` (normalise and split in Python, greedy longest match first in
  Python); timed with an empty word cache (``cold``) and again with the cache filled (``warm``);
- tensorflow-text's ``FastWordpieceTokenizer`` (linear-time WordPiece, Song et al. 2021) on the words that
  ours split (so only the WordPiece step is timed), one batch of all words, eager;
- keras-hub's ``WordPieceTokenizer`` with the same vocabulary (``lowercase=True, strip_accents=False``),
  on the raw texts, one batch.

tokens/s = tokens produced / wall seconds, best of ``--repeats`` runs, all in one process one after the
other (they see the same machine load). Usage (not part of the tests; about a minute on 2 cores):

    python benchmarks/wordpiece_speed.py [--vocab-size 8000] [--repeats 3]

(The file is not called tokenizers.py: that name would shadow the tokenizers package keras-hub imports.)
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

from word2bert import datasets  # noqa: E402
from word2bert.tokenizers import WordPieceTokenizer, train_wordpiece  # noqa: E402


def best_seconds(fn, repeats: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    train = [p.target for p in datasets.bible_pairs("spa_rv1909", "eng_web", "train")]
    articles = datasets.wikipedia_texts()
    train += [s for a in articles[:90] for s in a.sentences]
    texts = [p.target for p in datasets.bible_pairs("spa_rv1909", "eng_web", "test")]
    texts += [s for a in articles[90:] for s in a.sentences]
    ours = train_wordpiece(train, args.vocabulary_size, lowercase=True, strip_accents=False)

    reference = [ours.encode(t) for t in texts]
    n_tokens = sum(map(len, reference))
    rows = []

    def cold():
        fresh = WordPieceTokenizer(ours.vocabulary, lowercase=True, strip_accents=False)
        return [fresh.encode(t) for t in texts]

    seconds, out = best_seconds(cold, args.repeats)
    assert out == reference
    rows.append(("ours, Python (empty word cache)", seconds))
    seconds, out = best_seconds(lambda: [ours.encode(t) for t in texts], args.repeats)
    rows.append(("ours, Python (word cache filled)", seconds))

    words = [w for t in texts for w in ours.words(t)]
    fast = ours.to_tensorflow_text(pretokenized=True)
    words_tensor = tf.constant(words)
    seconds, out = best_seconds(lambda: fast.tokenize(words_tensor), args.repeats)
    assert out.flat_values.numpy().tolist() == [i for r in reference for i in r]
    rows.append(("tensorflow-text FastWordpieceTokenizer (WordPiece step only)", seconds))

    import keras_hub

    hub = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=ours.vocabulary, lowercase=True, strip_accents=False,
                                                  oov_token="[UNK]", dtype="int32")
    texts_tensor = tf.constant(texts)
    seconds, out = best_seconds(lambda: hub.tokenize(texts_tensor), args.repeats)
    hub_rows = out.to_list() if hasattr(out, "to_list") else [list(r) for r in out]
    hub_same = sum(a == b for a, b in zip(hub_rows, reference))
    rows.append((f"keras-hub WordPieceTokenizer (whole pipeline; same ids on {hub_same}/{len(texts)} texts)",
                 seconds))

    print(f"{len(texts):,} held-out texts, {len(words):,} words, {n_tokens:,} tokens; vocabulary {ours.vocabulary_size:,}")
    print(f"| tokenizer | seconds | tokens/s |\n|---|---|---|")
    for name, s in rows:
        print(f"| {name} | {s:.3f} | {n_tokens / s:,.0f} |")


if __name__ == "__main__":
    main()
