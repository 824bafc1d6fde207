"""The Transformer (Vaswani et al. 2017) built from ``word2bert.layers``: the encoder-decoder model,
a decoder-only model, cached and uncached incremental decoding, the label-smoothed loss and the
paper's learning-rate schedule and the token accuracy (``MaskedAccuracy``).
"""
from word2bert.models.transformer.data import (encode_sources, encode_translation_pairs, train_transformer,
                                        translate_texts)
from word2bert.models.transformer.heads import GPTClassifier, GPTTokenTagger
from word2bert.models.transformer.incremental import compile_function, run_steps
from word2bert.models.transformer.model import DecoderOnlyTransformer, Transformer
from word2bert.models.transformer.training import (MaskedCrossEntropy, TransformerSchedule, masked_accuracy,
                                         warmup_inverse_sqrt)

__all__ = ["DecoderOnlyTransformer", "GPTClassifier", "GPTTokenTagger", "MaskedCrossEntropy", "Transformer", "TransformerSchedule", "compile_function",
           "encode_sources", "encode_translation_pairs", "masked_accuracy", "run_steps", "train_transformer",
           "translate_texts", "warmup_inverse_sqrt"]
