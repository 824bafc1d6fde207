"""Baselines without a network, to measure a model against: a bag-of-words classifier, the most frequent tag, word
overlap of two sentences, a sliding-window answer finder, the nearest training sentence and the copied source.
"""
from word2bert.baselines.classification import MostFrequentTag, bag_of_words_classifier, overlap_classifier, word_overlap
from word2bert.baselines.question_answering import sliding_window_answer, sliding_window_predictions
from word2bert.baselines.translation import NearestSentenceLookup, copy_source

__all__ = ["MostFrequentTag", "NearestSentenceLookup", "bag_of_words_classifier", "copy_source", "overlap_classifier",
           "sliding_window_answer", "sliding_window_predictions", "word_overlap"]
