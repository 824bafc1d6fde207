"""word2bert: the Keras 3 library behind the word2bert course.

From n-gram language models through word2vec, GloVe, seq2seq with attention and the
Transformer to BERT. Each module implements one concept that a chapter derives:

- ``word2bert.profiles``  -- ``profile()`` / ``pick()``: the ci / cpu / gpu size profiles.
- ``word2bert.datasets``  -- real, offline corpora (PTB, a Wikipedia sample, similarity sets).
- ``word2bert.vocab``     -- ``Vocabulary``: token <-> id with ``<unk>`` handling.
- ``word2bert.lm``        -- n-gram models (add-k, Kneser-Ney), NNLM and LSTM LMs, perplexity.
- ``word2bert.runner``    -- executes the chapters (``python -m word2bert run``).

Submodules are imported lazily so that ``import word2bert`` stays cheap and does not
import a deep-learning backend until one is needed.
"""
from word2bert.profiles import PROFILES, pick, profile

__version__ = "0.1.0"
__all__ = ["PROFILES", "pick", "profile", "__version__"]
