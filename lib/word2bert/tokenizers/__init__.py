"""Text to ids: the one set of special tokens, the ``Vocabulary``, the word tokenizer, and the subword
tokenizers of chapter 07 (WordPiece, byte-pair encoding) with BERT's pair format.
"""
from word2bert.tokenizers.bpe import BPETokenizer, learn_bpe, train_bpe
from word2bert.tokenizers.normalize import normalize, pretokenize, word_counts
from word2bert.tokenizers.specials import BERT_SPECIALS, BOS, EOS, PAD, SPECIALS, UNK
from word2bert.tokenizers.vocab import Vocabulary
from word2bert.tokenizers.wordpiece import WordPieceTokenizer, train_wordpiece, wordpiece_split
from word2bert.tokenizers.words import detokenize, tokenize

__all__ = ["BERT_SPECIALS", "BOS", "BPETokenizer", "EOS", "PAD", "SPECIALS", "UNK", "Vocabulary", "WordPieceTokenizer",
           "detokenize", "learn_bpe", "normalize", "pretokenize", "tokenize", "train_bpe", "train_wordpiece",
           "word_counts", "wordpiece_split"]
