"""Scores: perplexity and token-weighted accuracy (Keras metrics), BLEU (sacrebleu), SQuAD v1.1's exact match and F1, and word-vector evaluation; bootstrap intervals over test examples.
"""
from word2bert.metrics.bleu import bleu_by_bucket, corpus_bleu, corpus_chrf
from word2bert.metrics.intervals import Interval, SeededResult, bootstrap_interval, separated, tune_then_repeat
from word2bert.metrics.perplexity import Perplexity
from word2bert.metrics.squad import exact_match, f1, normalize_answer, squad_scores
from word2bert.metrics.token_accuracy import MaskedAccuracy, token_hits
from word2bert.metrics.vectors import (analogy_accuracy, as_keyed_vectors, evaluate_vectors, nearest_neighbours,
                                       random_baseline_vectors, similarity_spearman)

__all__ = ["Interval", "SeededResult", "bootstrap_interval", "separated", "tune_then_repeat", "MaskedAccuracy", "Perplexity", "analogy_accuracy", "as_keyed_vectors", "bleu_by_bucket", "corpus_bleu",
           "corpus_chrf", "evaluate_vectors", "exact_match", "f1", "normalize_answer", "squad_scores", "nearest_neighbours", "random_baseline_vectors", "similarity_spearman",
           "token_hits"]
