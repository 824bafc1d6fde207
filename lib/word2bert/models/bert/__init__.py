"""BERT (Devlin et al. 2019) built from ``word2bert.layers``: the input embeddings, the configurations,
the encoder with its pooler, the masked-LM and next-sentence heads, the pretraining model, its loss
and metric, and the pretraining data (sentence pairs, masking, batches for ``fit``); then fine-tuning
(chapter 10): the classifier, tagger and question-answering heads, their data (first-piece labels,
document-stride windows, span decoding) and the recipe; and a real pretrained checkpoint in Hugging Face's format
(all-MiniLM-L6-v2) read into the same ``BertBackbone`` (``load_hf_bert``, ``BertBackbone.from_preset``).
"""
from word2bert.models.bert.classifier import BertClassifier
from word2bert.models.bert.config import BERT_VOCAB_SIZE, BertConfig
from word2bert.models.bert.embedding import BertEmbedding, bert_initializer
from word2bert.models.bert.finetuning import Refitter, copy_backbone, fine_tune, finetuning_optimizer, steps_per_epoch
from word2bert.models.bert.finetuning_data import (IGNORE_LABEL, AlignedTags, QAWindows, predict_by_length,
                                                   align_first_pieces, best_spans, check_span_targets, context_words, decode_answers,
                                                   encode_texts, qa_windows, word_accuracy, word_hits)
from word2bert.models.bert.masked_lm_head import MaskedLMHead
from word2bert.models.bert.model import BertBackbone
from word2bert.models.bert.next_sentence_head import IS_NEXT, NOT_NEXT, NextSentenceHead
from word2bert.models.bert.presets import load_hf_bert
from word2bert.models.bert.pretrainer import BertPretrainer
from word2bert.models.bert.question_answerer import BertQuestionAnswerer, SpanLoss
from word2bert.models.bert.pretraining import (NextSentencePairs, PretrainingBatches, SentencePairSample, mask_tokens,
                                               pack_documents)
from word2bert.models.bert.head import BertHead, task_inputs
from word2bert.models.bert.token_tagger import BertTokenTagger
from word2bert.models.bert.training import MaskedLMAccuracy, MaskedLMLoss

__all__ = ["AlignedTags", "BERT_VOCAB_SIZE", "BertBackbone", "BertClassifier", "BertConfig", "BertEmbedding", "BertHead", "check_span_targets",
           "BertPretrainer", "BertQuestionAnswerer", "BertTokenTagger", "IGNORE_LABEL", "IS_NEXT",
           "MaskedLMAccuracy", "MaskedLMHead", "MaskedLMLoss", "NOT_NEXT", "NextSentenceHead",
           "NextSentencePairs", "PretrainingBatches", "QAWindows", "Refitter", "SentencePairSample", "SpanLoss",
           "align_first_pieces", "bert_initializer", "best_spans", "context_words", "copy_backbone", "decode_answers",
           "encode_texts", "fine_tune", "finetuning_optimizer", "load_hf_bert", "mask_tokens", "pack_documents",
           "predict_by_length", "qa_windows", "steps_per_epoch", "task_inputs", "word_accuracy", "word_hits"]
