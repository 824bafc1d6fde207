"""BERT (Devlin et al. 2019) built from ``word2bert.layers``: the input embeddings, the configurations,
the encoder with its pooler, the masked-LM and next-sentence heads, the pretraining model, its loss
and metric, and the pretraining data (sentence pairs, masking, batches for ``fit``).
"""
from word2bert.bert.config import BERT_VOCAB_SIZE, BertConfig
from word2bert.bert.embedding import BertEmbedding, bert_initializer
from word2bert.bert.masked_lm_head import MaskedLMHead
from word2bert.bert.model import BertBackbone
from word2bert.bert.next_sentence_head import IS_NEXT, NOT_NEXT, NextSentenceHead
from word2bert.bert.pretrainer import BertPretrainer
from word2bert.bert.pretraining import (NextSentencePairs, PretrainingBatches, SentencePairSample, mask_tokens,
                                        pack_documents)
from word2bert.bert.saved import MODEL_FILE, VOCAB_FILE, load_pretrained
from word2bert.bert.training import MaskedLMAccuracy, MaskedLMLoss

__all__ = ["BERT_VOCAB_SIZE", "BertBackbone", "BertConfig", "BertEmbedding", "BertPretrainer", "IS_NEXT",
           "MODEL_FILE", "MaskedLMAccuracy", "MaskedLMHead", "MaskedLMLoss", "NOT_NEXT", "NextSentenceHead",
           "NextSentencePairs", "PretrainingBatches", "SentencePairSample", "VOCAB_FILE", "bert_initializer",
           "load_pretrained", "mask_tokens", "pack_documents"]
