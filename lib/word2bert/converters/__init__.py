"""Checkpoints of other libraries read into word2bert's models: a Hugging Face-format BERT (``config.json``,
``model.safetensors``, ``vocab.txt``) mapped onto ``BertBackbone``'s weights. The model itself is built by
``word2bert.models.bert.load_hf_bert`` / ``BertBackbone.from_preset``.
"""
from word2bert.converters.hf_bert import CheckpointError, CheckpointNotFoundError, backbone_config_from_hf, hf_weights

__all__ = ["CheckpointError", "CheckpointNotFoundError", "backbone_config_from_hf", "hf_weights"]
