"""The special tokens every word2bert vocabulary and model agrees on: two sets, each defined once.

Word-level vocabularies (``Vocabulary``, the word tokenizer, byte-pair encoding):

========  =========  ======================================================================
name      token      meaning
========  =========  ======================================================================
``PAD``   ``<pad>``  padding; id 0 in every vocabulary that has it (masked out by models)
``UNK``   ``<unk>``  a word outside the vocabulary
``BOS``   ``<s>``    start of a sentence: the n-gram history before the first word, the
                     decoder's first input
``EOS``   ``</s>``   end of a sentence: predicted by language models and decoders
========  =========  ======================================================================

PTB's own stream calls its end marker ``<eos>`` (``datasets.ptb_tokens``); language models
on PTB pass ``eos="<eos>"``.

BERT's WordPiece vocabularies (``WordPieceTokenizer``, BERT's ``vocab.txt``), in this order as their first
ids (Devlin et al. 2019, section 3):

=============  ==========  =================================================================
name           token       meaning
=============  ==========  =================================================================
``BERT_PAD``   ``[PAD]``   padding; id 0 (the models' padding mask is False there)
``BERT_UNK``   ``[UNK]``   a word that WordPiece cannot spell with the vocabulary
``BERT_CLS``   ``[CLS]``   first token of every input; its final state is the pooled output
``BERT_SEP``   ``[SEP]``   ends each segment of ``[CLS] A [SEP] B [SEP]``
``BERT_MASK``  ``[MASK]``  a masked-LM prediction target (80% of the chosen tokens)
=============  ==========  =================================================================
"""
from __future__ import annotations

# one name a line, so that documentation tools that read the source see each constant
PAD = "<pad>"
UNK = "<unk>"
BOS = "<s>"
EOS = "</s>"
SPECIALS = (PAD, UNK, BOS, EOS)

BERT_PAD = "[PAD]"
BERT_UNK = "[UNK]"
BERT_CLS = "[CLS]"
BERT_SEP = "[SEP]"
BERT_MASK = "[MASK]"
BERT_SPECIALS = (BERT_PAD, BERT_UNK, BERT_CLS, BERT_SEP, BERT_MASK)
