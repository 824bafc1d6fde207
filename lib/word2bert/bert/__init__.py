"""BERT (Devlin et al. 2019) built from ``word2bert.layers``: the input embeddings, the configurations,
the encoder with its pooler, the masked-LM and next-sentence heads, the pretraining model, its loss
and metric, and the pretraining data (sentence pairs, masking, batches for ``fit``); then fine-tuning
(chapter 10): the classifier, tagger and question-answering heads, their data (first-piece labels,
document-stride windows, span decoding), the recipe, and the non-neural baselines; then probing (chapter 11): every layer's vectors, linear
probes and the attention of each head; and a real pretrained checkpoint in Hugging Face's format
(all-MiniLM-L6-v2) read into the same ``BertBackbone`` (``load_hf_bert``, ``BertBackbone.from_preset``).
"""
from word2bert.bert.baselines import MostFrequentTag, bag_of_words_classifier, overlap_classifier, word_overlap
from word2bert.bert.classifier import BertClassifier
from word2bert.bert.config import BERT_VOCAB_SIZE, BertConfig
from word2bert.bert.embedding import BertEmbedding, bert_initializer
from word2bert.bert.finetuning import Refitter, copy_backbone, fine_tune, finetuning_optimizer, steps_per_epoch
from word2bert.bert.hf_checkpoint import (HF_NAMES, MINILM_FETCH, MINILM_PRESET, MINILM_SHA256, MINILM_WHEEL,
                                          CheckpointError, CheckpointNotFoundError, backbone_config_from_hf,
                                          hf_weights, load_hf_bert)
from word2bert.bert.finetuning_data import (IGNORE_LABEL, AlignedTags, LengthBatches, QAWindows, predict_by_length, align_first_pieces,
                                            best_spans, context_words, decode_answers, encode_texts, qa_windows,
                                            word_accuracy, word_hits)
from word2bert.bert.masked_lm_head import MaskedLMHead
from word2bert.bert.model import BertBackbone
from word2bert.bert.next_sentence_head import IS_NEXT, NOT_NEXT, NextSentenceHead
from word2bert.bert.pretrainer import BertPretrainer
from word2bert.bert.probing import SHARE_KINDS, LinearProbe, attention_entropy, attention_shares, layer_features, layer_outputs_model, train_probe
from word2bert.bert.pseudo_likelihood import pseudo_log_likelihood
from word2bert.bert.qa_baseline import sliding_window_answer, sliding_window_predictions
from word2bert.bert.question_answerer import BertQuestionAnswerer, SpanLoss
from word2bert.bert.pretraining import (NextSentencePairs, PretrainingBatches, SentencePairSample, mask_tokens,
                                        pack_documents)
from word2bert.bert.saved import (MODEL_FILE, SNAPSHOT_PREFIX, VOCAB_FILE, SnapshotCallback, load_pretrained,
                                  pretraining_snapshots, save_snapshot)
from word2bert.bert.task_model import BertTaskModel, task_inputs
from word2bert.bert.token_tagger import BertTokenTagger
from word2bert.bert.training import MaskedLMAccuracy, MaskedLMLoss

__all__ = ["AlignedTags", "BertClassifier", "BertQuestionAnswerer", "BertTaskModel", "BertTokenTagger",
           "IGNORE_LABEL", "LengthBatches", "predict_by_length", "LinearProbe", "SHARE_KINDS", "attention_entropy", "attention_shares", "pseudo_log_likelihood", "layer_features", "layer_outputs_model", "train_probe", "MostFrequentTag", "QAWindows", "SpanLoss", "align_first_pieces", "bag_of_words_classifier",
           "best_spans", "context_words", "copy_backbone", "fine_tune", "Refitter", "decode_answers", "encode_texts", "finetuning_optimizer",
           "overlap_classifier", "qa_windows", "sliding_window_answer", "sliding_window_predictions", "steps_per_epoch", "task_inputs", "word_accuracy", "word_hits", "word_overlap",
           "BERT_VOCAB_SIZE", "BertBackbone", "BertConfig", "BertEmbedding", "BertPretrainer", "IS_NEXT",
           "MODEL_FILE", "MaskedLMAccuracy", "MaskedLMHead", "MaskedLMLoss", "NOT_NEXT", "NextSentenceHead",
           "NextSentencePairs", "PretrainingBatches", "SentencePairSample", "VOCAB_FILE", "bert_initializer",
           "load_pretrained", "mask_tokens", "pack_documents", "SNAPSHOT_PREFIX", "SnapshotCallback",
           "pretraining_snapshots", "save_snapshot",
           "CheckpointError", "CheckpointNotFoundError", "HF_NAMES", "MINILM_FETCH", "MINILM_PRESET", "MINILM_SHA256",
           "MINILM_WHEEL", "backbone_config_from_hf", "hf_weights", "load_hf_bert"]
