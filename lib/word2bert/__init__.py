"""word2bert: the Keras 3 library behind the word2bert course.

From n-gram language models through word2vec, GloVe, seq2seq with attention and the
Transformer to BERT. Each module implements one concept that a chapter derives:

- ``word2bert.profiles``  -- ``profile()`` / ``pick()``: the ci / cpu / gpu size profiles.
- ``word2bert.datasets``  -- real, offline corpora (PTB, Wikipedia sample, similarity sets, Ding de-en).
- ``word2bert.vocab``     -- ``Vocabulary``: token <-> id with ``<unk>`` handling.
- ``word2bert.ngram``     -- n-gram models (MLE, add-k, interpolated Kneser-Ney).
- ``word2bert.lm``        -- NNLM and LSTM language models, the ``Perplexity`` metric.
- ``word2bert.word2vec``  -- skip-gram and CBOW with softmax, hierarchical softmax, negative sampling
  (data in ``word2vec_data``, layers in ``word2vec_layers``).
- ``word2bert.evaluation`` -- word-similarity and analogy evaluation of word vectors.
- ``word2bert.glove``     -- co-occurrence counts, GloVe, PPMI and LSA.
- ``word2bert.attention``, ``seq2seq``, ``decoding``, ``metrics``, ``plots`` -- translation.
- ``word2bert.results``, ``runner`` -- the results contract and the course runner.

Submodules are not imported by ``import word2bert`` (import them by name, e.g.
``from word2bert import lm``), so that importing the package stays cheap and does not
start a deep-learning backend.
"""
from word2bert.profiles import PROFILES, pick, profile

__version__ = "0.1.0"
__all__ = ["PROFILES", "pick", "profile", "__version__"]
