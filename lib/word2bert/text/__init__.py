"""Text to ids: the one set of special tokens, the ``Vocabulary``, the word tokenizer.

Subword tokenizers (WordPiece, byte-pair encoding) join this package in chapter 07.
"""
from word2bert.text.specials import BOS, EOS, PAD, SPECIALS, UNK
from word2bert.text.vocab import Vocabulary
from word2bert.text.words import detokenize, tokenize

__all__ = ["BOS", "EOS", "PAD", "SPECIALS", "UNK", "Vocabulary", "detokenize", "tokenize"]
