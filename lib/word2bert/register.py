"""Import every package that defines a serializable Keras class, so that ``keras.saving.load_model``
finds them all by name (``word2bert>SkipGram``, ...) without ``custom_objects``.

    import word2bert.register
    model = keras.saving.load_model("skipgram.keras")
"""
import word2bert.models.bert  # noqa: F401
import word2bert.models.glove  # noqa: F401
import word2bert.layers  # noqa: F401
import word2bert.models.lm  # noqa: F401
import word2bert.metrics  # noqa: F401
import word2bert.models.seq2seq  # noqa: F401
import word2bert.models.transformer  # noqa: F401
import word2bert.models.word2vec  # noqa: F401,E501
