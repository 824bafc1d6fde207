"""Import every package that defines a serializable Keras class, so that ``keras.saving.load_model``
finds them all by name (``word2bert>SkipGram``, ...) without ``custom_objects``.

    import word2bert.register
    model = keras.saving.load_model("skipgram.keras")
"""
import word2bert.bert  # noqa: F401
import word2bert.glove  # noqa: F401
import word2bert.layers  # noqa: F401
import word2bert.lm  # noqa: F401
import word2bert.metrics  # noqa: F401
import word2bert.seq2seq  # noqa: F401
import word2bert.transformer  # noqa: F401
import word2bert.word2vec  # noqa: F401,E501
