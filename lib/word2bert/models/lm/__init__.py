"""Language models: counted n-grams, Bengio's NNLM, an LSTM LM, ELMo's bidirectional LM, and their batching.
"""
from word2bert.models.lm.batching import batchify, lm_windows, sliding_windows
from word2bert.models.lm.evaluation import stream_perplexity
from word2bert.models.lm.elmo import BidirectionalLM, ElmoClassifier, ElmoTokenTagger, bilm_targets, reverse_padded
from word2bert.models.lm.lstm import ResetStates, build_lstm_lm, lstm_step_fn, next_token_probs, sample, zaremba_sgd
from word2bert.models.lm.ngram import NGramLM, ngram_statistics
from word2bert.models.lm.nnlm import build_nnlm

__all__ = ["BidirectionalLM", "ElmoClassifier", "ElmoTokenTagger", "NGramLM", "ResetStates", "batchify",
           "bilm_targets", "build_lstm_lm", "build_nnlm", "lm_windows", "lstm_step_fn", "next_token_probs",
           "ngram_statistics", "reverse_padded", "sample", "sliding_windows", "stream_perplexity",
           "zaremba_sgd"]
