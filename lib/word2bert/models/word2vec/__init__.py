"""word2vec: CBOW and skip-gram with full softmax, hierarchical softmax or negative sampling.

Mikolov et al. (2013a), "Efficient Estimation of Word Representations in Vector Space", and
(2013b), "Distributed Representations of Words and Phrases and their Compositionality". The
package holds, from data to model:

- ``huffman``  -- the Huffman tree of hierarchical softmax;
- ``sampling`` -- subsampling and the unigram^0.75 negative sampler (alias table);
- ``pairs``    -- skip-gram pairs and CBOW windows with word2vec.c's dynamic window;
- ``outputs``  -- the three output layers (``SoftmaxOutput``, ``HierarchicalSoftmax``,
  ``NegativeSampling``);
- ``models``   -- ``SkipGram`` and ``CBOW``, with the sparse SGD step;
- ``training`` -- ``train_word2vec``: one ``fit`` over a dataset that redraws every epoch;
- ``reference`` -- gensim's ``Word2Vec`` at the same settings, the chapters' reference.
"""
from word2bert.models.word2vec.huffman import HuffmanTree, build_huffman_tree
from word2bert.models.word2vec.models import CBOW, OUTPUTS, SkipGram
from word2bert.models.word2vec.outputs import HierarchicalSoftmax, NegativeSampling, SoftmaxOutput
from word2bert.models.word2vec.pairs import cbow_examples, encode_sentences, skipgram_pairs
from word2bert.models.word2vec.reference import gensim_word2vec
from word2bert.models.word2vec.sampling import (SUBSAMPLE_FORMULAS, alias_table, sample_negatives, subsample_keep_prob,
                                         unigram_probs)
from word2bert.models.word2vec.training import Word2VecDataset, train_word2vec

__all__ = ["CBOW", "HierarchicalSoftmax", "HuffmanTree", "NegativeSampling", "OUTPUTS", "SUBSAMPLE_FORMULAS",
           "SkipGram", "SoftmaxOutput", "Word2VecDataset", "alias_table", "build_huffman_tree", "cbow_examples",
           "encode_sentences", "gensim_word2vec", "sample_negatives", "skipgram_pairs", "subsample_keep_prob",
           "train_word2vec", "unigram_probs"]
