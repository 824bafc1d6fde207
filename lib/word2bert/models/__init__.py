"""The model families, one package each; no family imports another: ``lm`` (n-grams, NNLM, LSTM, ELMo),
``word2vec``, ``glove``, ``seq2seq``, ``transformer`` (the Transformer, GPT, cached decoding) and ``bert``."""
