"""word2bert: the Keras 3 library behind the word2bert course.

From n-gram language models through word2vec, GloVe, seq2seq with attention and the
Transformer to BERT. The packages, in the order data flows through them (each imports only
from the ones above it; a test checks this):

- ``word2bert.course``   -- profiles (``pick``), the ``W2B_RESULTS`` contract, the runner, atomic files.
- ``word2bert.datasets`` -- real, offline corpora (PTB, Wikipedia sample, similarity sets, Ding de-en,
  the Bibles, BERT's pretraining documents).
- ``word2bert.text``     -- the special tokens (word level and BERT's), ``Vocabulary``, the word
  tokenizer, WordPiece and BPE.
- ``word2bert.batching`` -- ``LengthBatches``, pairs of similar length batched together.
- ``word2bert.resumable`` -- ``resumable_fit``, ``EpochCheckpoint``, ``RunRecords``: trainings that survive an
  interruption.
- ``word2bert.layers``   -- shared Keras layers: ``Attention``, scaled dot-product and multi-head
  attention, masks, positions, the tied ``ReversibleEmbedding``, the Transformer's encoder and
  decoder blocks.
- ``word2bert.decoding`` -- greedy, beam and sampling search over any step function.
- ``word2bert.metrics``  -- perplexity, BLEU, word-vector evaluation, token-weighted accuracy.
- models: ``word2bert.lm`` (n-grams, NNLM, LSTM), ``word2bert.word2vec``, ``word2bert.glove``,
  ``word2bert.seq2seq``, ``word2bert.transformer`` (the Transformer, a decoder-only LM, cached
  decoding), ``word2bert.bert`` (BERT and its pretraining); no model package imports another.
- ``word2bert.plots``    -- the figures the chapters share.
- ``word2bert.setup``    -- a chapter's set-up call (profile, seeds, quiet logging).

``import word2bert`` stays cheap: it starts no deep-learning backend. Import a package by name
(``from word2bert.word2vec import SkipGram``). Loading a saved ``.keras`` model needs the
package that defines its classes imported first (``import word2bert.word2vec``); ``setup`` and
every package import register their classes with Keras.
"""
import os

# TensorFlow prints start-up logs (CUDA probing, oneDNN notes) to stderr when it is first
# imported; a course's notebooks show them in every chapter. This quiets those that honour
# TF_CPP_MIN_LOG_LEVEL, and only when word2bert is imported before keras / tensorflow (the
# chapters import it first). Only a default: set the variable yourself to see them.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from word2bert.course.profiles import PROFILES, pick, profile  # noqa: E402

__version__ = "0.1.0"
__all__ = ["PROFILES", "pick", "profile", "setup", "__version__"]


def __getattr__(name):
    if name == "setup":  # imported on first use: it loads Keras
        from word2bert.chapter import setup

        return setup
    raise AttributeError(f"module 'word2bert' has no attribute {name!r}")
