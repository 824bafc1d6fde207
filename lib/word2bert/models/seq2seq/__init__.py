"""Sequence to sequence: translation data for teacher forcing, a GRU encoder-decoder, and the
prepare -> train -> translate -> BLEU pipeline the translation chapters share.
"""
from word2bert.models.seq2seq.data import encode_pairs, group_references
from word2bert.models.seq2seq.model import Seq2Seq
from word2bert.models.seq2seq.pipeline import (TranslationData, evaluate_translation, length_edges, prepare_translation,
                                        train_seq2seq)

__all__ = ["Seq2Seq", "TranslationData",
           "encode_pairs",
           "evaluate_translation", "group_references", "length_edges", "prepare_translation", "train_seq2seq"]
