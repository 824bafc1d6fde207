"""The special tokens every word2bert vocabulary and model agrees on: one set, defined once.

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
"""
from __future__ import annotations

PAD, UNK, BOS, EOS = "<pad>", "<unk>", "<s>", "</s>"
SPECIALS = (PAD, UNK, BOS, EOS)
