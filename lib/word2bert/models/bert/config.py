"""BERT's sizes: the number of layers L, the hidden size H, the number of heads A and the
feed-forward size 4H (Devlin et al. 2019, section 3: BERT_BASE L=12, H=768, A=12, 110M parameters;
BERT_LARGE L=24, H=1024, A=16, 340M).
"""
from __future__ import annotations

import dataclasses

BERT_VOCAB_SIZE = 30522  # the uncased English WordPiece vocabulary of the released models


@dataclasses.dataclass(frozen=True)
class BertConfig:
    """The sizes of a BERT encoder, as ``BertBackbone`` takes them.

    Args:
        vocabulary_size: WordPiece vocabulary size (id 0 = ``[PAD]``).
        num_layers: L, encoder blocks.
        hidden_dim: H, the model width.
        num_heads: A, attention heads (must divide ``hidden_dim``).
        intermediate_dim: the feed-forward size (4H in the paper).
        max_sequence_length: positions of the learned position table (512).
        num_segments: segments (2: sentence A and sentence B).
        dropout: on embeddings, attention weights and sublayer outputs (0.1).
        normalize_first: pre-LN blocks, ``x + f(LN(x))``, and one LayerNorm after the last block (Xiong et
            al. 2020, "On Layer Normalization in the Transformer Architecture": trains without warm-up
            trouble at higher learning rates); default False, the paper's post-LN ``LN(x + f(x))``.

    Raises:
        ValueError: a size < 1, ``num_heads`` not dividing ``hidden_dim``, dropout outside [0, 1).

    Example:
        >>> config = BertConfig.base()
        >>> config.num_parameters()   # 109,482,240 with the 30,522-token vocabulary
        >>> backbone = BertBackbone.from_bert_config(BertConfig(8000, 4, 256, 4, 1024))

    Reference: Devlin et al. (2019), section 3 and appendix A.2.
    """

    vocabulary_size: int
    num_layers: int
    hidden_dim: int
    num_heads: int
    intermediate_dim: int
    max_sequence_length: int = 512
    num_segments: int = 2
    dropout: float = 0.1
    normalize_first: bool = False

    def __post_init__(self):
        sizes = {f: getattr(self, f) for f in ("vocabulary_size", "num_layers", "hidden_dim", "num_heads",
                                                "intermediate_dim", "max_sequence_length", "num_segments")}
        small = {k: v for k, v in sizes.items() if v < 1}
        if small:
            raise ValueError(f"BertConfig sizes must be >= 1, got {small}")
        if self.hidden_dim % self.num_heads:
            raise ValueError(f"num_heads ({self.num_heads}) must divide hidden_dim ({self.hidden_dim})")
        if not 0 <= self.dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")

    @classmethod
    def base(cls, vocabulary_size: int = BERT_VOCAB_SIZE, **overrides) -> "BertConfig":
        """BERT_BASE: 12 layers, 768 wide, 12 heads, 3072 feed-forward (110M parameters)."""
        return cls(vocabulary_size, **{"num_layers": 12, "hidden_dim": 768, "num_heads": 12, "intermediate_dim": 3072,
                                  **overrides})

    @classmethod
    def large(cls, vocabulary_size: int = BERT_VOCAB_SIZE, **overrides) -> "BertConfig":
        """BERT_LARGE: 24 layers, 1024 wide, 16 heads, 4096 feed-forward (340M in the paper, 335M counted)."""
        return cls(vocabulary_size, **{"num_layers": 24, "hidden_dim": 1024, "num_heads": 16, "intermediate_dim": 4096,
                                  **overrides})

    def to_dict(self) -> dict:
        """The fields as a dict, the keyword arguments of ``BertBackbone``."""
        return dataclasses.asdict(self)

    def num_parameters(self, pooler: bool = True) -> int:
        """Parameters of ``BertBackbone`` with these sizes, counted without building it.

        Embeddings ``(V + max_sequence_length + num_segments) H`` and their LayerNorm ``2H``; per layer the four
        attention projections ``4(H^2 + H)``, the feed-forward ``2HI + I + H`` and two LayerNorms ``4H``;
        the pooler ``H^2 + H``; with ``normalize_first`` the final LayerNorm ``2H``.
        """
        h, i = self.hidden_dim, self.intermediate_dim
        embeddings = (self.vocabulary_size + self.max_sequence_length + self.num_segments) * h + 2 * h
        layer = 4 * (h * h + h) + (2 * h * i + i + h) + 4 * h
        final_norm = 2 * h if self.normalize_first else 0
        return embeddings + self.num_layers * layer + final_norm + ((h * h + h) if pooler else 0)
