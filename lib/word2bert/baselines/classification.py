"""Non-neural baselines for chapter 10's tasks, measured in the same run as BERT:

- ``bag_of_words_classifier``: logistic regression on word (and word-pair) counts, scikit-learn's
  ``CountVectorizer`` + ``LogisticRegression``, the regularisation chosen on validation data;
- ``MostFrequentTag``: each word's most frequent tag in the training data, unknown words the most
  frequent tag of all (the classic part-of-speech baseline, about 90% on the Penn tags);
- ``overlap_classifier``: a pair is positive when the word overlap (Jaccard) of its two texts is at
  least a threshold chosen on the training pairs.

The sliding-window baseline of extractive QA is ``word2bert.baselines.question_answering``.
"""
from __future__ import annotations

import collections

import numpy as np

from word2bert.utils.imports import require

from word2bert.tokenizers.words import WORD_OR_MARK



def bag_of_words_classifier(train_texts, train_labels, valid_texts, valid_labels, c_values=(0.1, 0.3, 1.0, 3.0, 10.0),
                            ngram_range=(1, 2)):
    """Logistic regression on counts of words and word bigrams, ``C`` chosen on the validation texts.

    Args:
        train_texts, valid_texts: lists of strings; ``train_labels``, ``valid_labels``: int labels.
        c_values: the inverse regularisation strengths tried.
        ngram_range: the n-grams counted (``(1, 2)``: words and word pairs).

    Returns:
        ``(model, choice)``: a fitted scikit-learn ``Pipeline`` (``model.predict(texts)``), refitted on the
        training texts with the best ``C``, and ``{"C": ..., "valid_accuracy": {C: accuracy}}``.

    Raises:
        ValueError: texts and labels of different lengths, or fewer than two classes.

    Source: scikit-learn's ``CountVectorizer`` and ``LogisticRegression`` (lbfgs); Pang & Lee (2005) and
    Wang & Manning (2012) for bag-of-words baselines on sentence polarity.
    """
    purpose = "the bag-of-words baseline"
    CountVectorizer = require("sklearn.feature_extraction.text", purpose=purpose).CountVectorizer
    LogisticRegression = require("sklearn.linear_model", purpose=purpose).LogisticRegression
    make_pipeline = require("sklearn.pipeline", purpose=purpose).make_pipeline

    for texts, labels, name in ((train_texts, train_labels, "train"), (valid_texts, valid_labels, "valid")):
        if len(texts) != len(labels):
            raise ValueError(f"{name}: {len(texts)} texts but {len(labels)} labels")
    if len(set(train_labels)) < 2:
        raise ValueError(f"train_labels need at least two classes, got {sorted(set(train_labels))}")

    def fit(c):
        model = make_pipeline(CountVectorizer(ngram_range=ngram_range, token_pattern=r"(?u)\b\w+\b|[^\w\s]"),
                              LogisticRegression(C=c, max_iter=2000))
        return model.fit(list(train_texts), list(train_labels))

    scores = {c: float(np.mean(fit(c).predict(list(valid_texts)) == np.asarray(valid_labels))) for c in c_values}
    best = max(c_values, key=lambda c: (scores[c], -c))
    return fit(best), {"C": best, "valid_accuracy": scores}


class MostFrequentTag:
    """Tag each word with its most frequent tag in the training sentences; unknown words get the most
    frequent tag overall.

    Args:
        lowercase: count ``The`` and ``the`` as one word.

    Methods:
        ``fit(sentences, tags)`` (lists of word and tag lists) -> self; ``predict(sentences)`` -> tag lists;
        ``accuracy(sentences, tags)`` -> word-level accuracy in [0, 1].

    Raises:
        ValueError: ``predict`` before ``fit``; a sentence and its tags of different lengths.
    """

    def __init__(self, lowercase: bool = False):
        self.lowercase = bool(lowercase)
        self.table: dict | None = None
        self.default = None

    def _key(self, word):
        return word.lower() if self.lowercase else word

    def fit(self, sentences, tags):
        counts: dict = collections.defaultdict(collections.Counter)
        overall = collections.Counter()
        for words, word_tags in zip(sentences, tags):
            if len(words) != len(word_tags):
                raise ValueError(f"a sentence of {len(words)} words has {len(word_tags)} tags: {words[:8]}")
            for word, tag in zip(words, word_tags):
                counts[self._key(word)][tag] += 1
                overall[tag] += 1
        self.table = {w: c.most_common(1)[0][0] for w, c in counts.items()}
        self.default = overall.most_common(1)[0][0]
        return self

    def predict(self, sentences):
        if self.table is None:
            raise ValueError("MostFrequentTag.predict before fit")
        return [[self.table.get(self._key(w), self.default) for w in words] for words in sentences]

    def accuracy(self, sentences, tags) -> float:
        predicted = self.predict(sentences)
        hits = sum(p == t for ps, ts in zip(predicted, tags) for p, t in zip(ps, ts))
        return hits / sum(len(ts) for ts in tags)


def word_overlap(a: str, b: str) -> float:
    """Jaccard overlap of the lowercased word sets of two texts (punctuation left out): ``|A & B| / |A | B|``;
    0 for two texts without words."""
    first = {t for t in WORD_OR_MARK.findall(a.lower()) if t[0].isalnum()}
    second = {t for t in WORD_OR_MARK.findall(b.lower()) if t[0].isalnum()}
    union = first | second
    return len(first & second) / len(union) if union else 0.0


def overlap_classifier(train_pairs, train_labels):
    """A threshold on ``word_overlap``: label 1 when the overlap is at least the threshold that is most
    accurate on the training pairs.

    Args:
        train_pairs: list of ``(a, b)`` strings; ``train_labels``: 0/1 ints.

    Returns:
        ``(predict, threshold)``: ``predict(pairs)`` -> int array of 0/1 labels.

    Raises:
        ValueError: pairs and labels of different lengths or no pairs.
    """
    if len(train_pairs) != len(train_labels) or not train_pairs:
        raise ValueError(f"need as many labels as pairs (> 0), got {len(train_pairs)} pairs, {len(train_labels)} labels")
    overlaps = np.array([word_overlap(a, b) for a, b in train_pairs])
    labels = np.asarray(train_labels)
    candidates = np.unique(overlaps)
    accuracy = [np.mean((overlaps >= t) == (labels == 1)) for t in candidates]
    threshold = float(candidates[int(np.argmax(accuracy))])

    def predict(pairs):
        return np.array([int(word_overlap(a, b) >= threshold) for a, b in pairs])

    return predict, threshold
