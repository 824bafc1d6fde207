"""word2bert: Keras 3 layers and models from n-gram language models through word2vec, GloVe, seq2seq with attention
and the Transformer to BERT, with the tokenizers, data pipelines and evaluation they need.

The packages, by role (a test checks that imports run one way, from the top of this list to the bottom):

- ``word2bert.utils``         -- atomic file writes, argument checks, the one cache folder.
- ``word2bert.datasets``      -- real, offline corpora (PTB, a Wikipedia sample, similarity sets, Ding de-en, Bibles).
- ``word2bert.tokenizers``    -- special tokens, ``Vocabulary``, the word tokenizer, WordPiece and BPE.
- ``word2bert.preprocessing`` -- ``LengthBatches``: examples of similar length batched together.
- ``word2bert.layers``        -- attention, multi-head attention, masks, positions, embeddings, Transformer blocks.
- ``word2bert.samplers``      -- greedy, beam and sampling search over any step function.
- ``word2bert.metrics``       -- perplexity, BLEU, SQuAD, word-vector evaluation, bootstrap intervals.
- ``word2bert.training``      -- ``resumable_fit``, ``EpochCheckpoint``, ``RunRecords``, callbacks.
- ``word2bert.models.<family>`` -- ``lm`` (n-grams, NNLM, LSTM, ELMo), ``word2vec``, ``glove``, ``seq2seq``,
  ``transformer`` (the Transformer, GPT, cached decoding), ``bert``; no family imports another.
- ``word2bert.analysis``      -- layer features, linear probes, attention statistics, pseudo-log-likelihood.
- ``word2bert.baselines``     -- models without a network: bag of words, most frequent tag, overlap, lookup.
- ``word2bert.converters``    -- Hugging Face BERT checkpoints read into ``BertBackbone``.
- ``word2bert.plots``         -- figures (matplotlib).

``word2bert.course`` is the course built on top (profiles, runner, website); the library never imports it.

``import word2bert`` is cheap: it starts no deep-learning backend and changes nothing in the process. Import a
package by name (``from word2bert.models.word2vec import SkipGram``). Loading a saved ``.keras`` model needs the
package that defines its classes imported first (``import word2bert.register`` imports them all).
"""
__version__ = "0.1.0"
__all__ = ["__version__"]
