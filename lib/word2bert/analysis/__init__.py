"""What a trained model has learned: every layer's vectors (``layer_features``), linear probes on them
(``train_probe``), each attention head's statistics, and the pseudo-log-likelihood of a sentence under a masked LM.
"""
from word2bert.analysis.probing import (SHARE_KINDS, LinearProbe, attention_entropy, attention_shares, layer_features,
                                        layer_outputs_model, train_probe)
from word2bert.analysis.pseudo_likelihood import pseudo_log_likelihood

__all__ = ["LinearProbe", "SHARE_KINDS", "attention_entropy", "attention_shares", "layer_features",
           "layer_outputs_model", "pseudo_log_likelihood", "train_probe"]
