"""The models through the shared harness (``layer_checks.run_layer_test``), and the harness's own checks
shown to fail: a config that drops an argument, a float32 output under mixed_float16, a sublayer not
handed the policy, a tied head rebuilt without its embedding. The known dtype bugs the harness tolerates
for existing callers (``KNOWN_DTYPE_BUGS``) are held here as strict xfails, one per bug and cause."""
import re

import keras
import numpy as np
import pytest

from layer_checks import KNOWN_DTYPE_BUGS, run_layer_test, run_precision_checks
from word2bert.models.bert import BertBackbone, BertPretrainer, MaskedLMHead, NextSentenceHead
from word2bert.models.glove import GloVe
from word2bert.layers import MultiHeadAttention, ReversibleEmbedding, TokenAndPositionEmbedding
from word2bert.models.seq2seq import Seq2Seq
from word2bert.models.transformer import DecoderOnlyTransformer, Transformer
from word2bert.models.word2vec import CBOW, HierarchicalSoftmax, NegativeSampling, SkipGram, SoftmaxOutput

VOCAB, WIDTH = 50, 16
COUNTS = [12.0, 9.0, 7.0, 5.0, 5.0, 4.0, 3.0, 3.0, 2.0, 2.0, 1.0, 1.0]


def _pretraining_batch(rng, batch=3, length=10, predictions=3):
    """``[CLS] a [SEP] b [SEP] [PAD]...`` rows (ids 2, 3; 0 = padding) with masked positions, labels and weights."""
    ids = np.zeros((batch, length), np.int32)
    for row, real in enumerate((10, 8, 6)[:batch]):
        ids[row, :real] = rng.integers(5, VOCAB, real)
        ids[row, [0, real // 2, real - 1]] = [2, 3, 3]
    segments = ((np.cumsum(ids == 3, axis=1) > 0) & (ids != 0)).astype(np.int32)
    positions = np.sort(rng.integers(1, 5, (batch, predictions)), axis=1).astype(np.int32)
    x = {"token_ids": ids, "segment_ids": segments, "mask_positions": positions}
    y = {"mlm": rng.integers(5, VOCAB, (batch, predictions)).astype(np.int32), "nsp": np.array([0, 1, 0][:batch])}
    weights = {"mlm": np.ones((batch, predictions), "float32"), "nsp": np.ones((batch,), "float32")}
    return x, y, weights


def _backbone(**kwargs):
    return BertBackbone(VOCAB, num_layers=1, hidden_dim=WIDTH, num_heads=2, intermediate_dim=32, max_sequence_length=12,
                        dropout=0.1, **kwargs)


def _token_embedding():
    table = ReversibleEmbedding(VOCAB, WIDTH, name="token_embedding")
    table.build((None,))
    return table


# ------------------------------------------------------------------ the models
@pytest.mark.slow
def test_bert_pretrainer_through_harness(tmp_path):
    """The backbone round-trips as a nested serialized layer; the head stays tied in every rebuild (from_config,
    each dtype policy, the .keras file loaded in separate TensorFlow and JAX processes): one (V, H) table, no second."""
    x, y, weights = _pretraining_batch(np.random.default_rng(0))
    # backbone: embeddings 3 + LayerNorm 2; encoder block: attention 8, 2 LayerNorms 4, FFN 4; pooler 2 -> 23;
    # MLM head: transform 2, LayerNorm 2, output bias 1 (its matrix is the token table); NSP head 2 -> 30
    run_layer_test(BertPretrainer, {"backbone": _backbone()}, [x], tmp_path,
                   expected_output_shape=[(3, 3, VOCAB), (3, 2)], expected_num_trainable_weights=30,
                   fit_data=(x, y, weights), compile_kwargs={"optimizer": keras.optimizers.SGD(0.5)},
                   float32_outputs=True)


def test_tied_masked_lm_head_through_harness(tmp_path):
    """``token_embedding`` is documented as not in the config: from_config gets it again and must give the same
    weights (the embedding's table, no output kernel of its own) and the same logits. No .keras round trip of the
    head alone: a file cannot hold the tie without its owner (the pretrainer's test above does)."""
    rng = np.random.default_rng(1)
    hidden = rng.normal(size=(2, 6, WIDTH)).astype("float32")
    positions = np.array([[1, 4, 0], [5, 2, 2]], np.int32)
    # the embedding's table 1 (tracked through the head), transform 2, LayerNorm 2, output bias 1
    out = run_layer_test(MaskedLMHead, {"vocabulary_size": VOCAB, "token_embedding": _token_embedding(),
                                        "activation": "relu", "layer_norm_epsilon": 1e-6}, [hidden, positions],
                         tmp_path, expected_output_shape=(2, 3, VOCAB), expected_num_trainable_weights=6,
                         not_in_config=("token_embedding",), float32_outputs=True, cross_backend=False)[0]
    np.testing.assert_array_equal(out[1, 1], out[1, 2])                # two slots on position 2 agree


@pytest.mark.slow
def test_decoder_only_transformer_through_harness(tmp_path):
    ids = np.array([[4, 9, 17, 30, 2, 0], [5, 49, 8, 0, 0, 0], [1, 6, 7, 8, 11, 12]], np.int32)
    targets = np.concatenate([ids[:, 1:], np.zeros((3, 1), np.int32)], axis=1)
    # learned token + position tables 2; per block: self-attention 8, FFN 4, 2 LayerNorms 4 -> 2 x 16;
    # pre-LN final LayerNorm 2; the tied output's bias 1 -> 37
    run_layer_test(DecoderOnlyTransformer, {"vocabulary_size": VOCAB, "num_layers": 2, "hidden_dim": WIDTH, "num_heads": 2,
                                            "intermediate_dim": 32, "dropout": 0.1, "max_sequence_length": 8,
                                            "activation": "relu", "layer_norm_epsilon": 1e-6}, [ids], tmp_path,
                   expected_output_shape=(3, 6, VOCAB), expected_num_trainable_weights=37,
                   fit_data=(ids, targets),
                   compile_kwargs={"optimizer": keras.optimizers.SGD(0.5),
                                   "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True)},
                   float32_outputs=True)


def test_attention_scores_declared_float32_by_index():
    """MultiHeadAttention documents its weights (output 1) as float32; its context (output 0) follows the policy."""
    rng = np.random.default_rng(4)
    query, value = rng.normal(size=(3, 4, 6)).astype("float32"), rng.normal(size=(3, 5, 6)).astype("float32")
    kwargs, call = {"num_heads": 2, "key_dim": 3}, {"return_attention_scores": True}
    run_precision_checks(MultiHeadAttention, kwargs, [query, value], call, float32_outputs=(1,))
    with pytest.raises(AssertionError, match="output 1 is float32, expected float16"):
        run_precision_checks(MultiHeadAttention, kwargs, [query, value], call)


# ------------------------------------------------------------------ the harness's checks can fail
@keras.saving.register_keras_serializable(package="word2bert_tests")
class _Scale(keras.layers.Layer):
    """``x w * factor + offset``; ``forget`` drops ``factor`` from the config, ``cast_up`` returns float32,
    ``inner_without_policy`` builds its Dense without the layer's dtype policy, ``pinned`` makes ``offset`` a
    float32 variable whatever the policy."""

    def __init__(self, factor=2.0, forget=False, cast_up=False, inner_without_policy=False, pinned=False, **kwargs):
        super().__init__(**kwargs)
        self.factor, self.forget, self.cast_up = factor, forget, cast_up
        self.inner_without_policy, self.pinned = inner_without_policy, pinned

    def build(self, input_shape):
        policy = {} if self.inner_without_policy else {"dtype": self.dtype_policy}
        self.dense = keras.layers.Dense(3, name="dense", **policy)
        self.dense.build(input_shape)
        self.offset = self.add_weight(name="offset", shape=(), initializer="zeros",
                                      dtype="float32" if self.pinned else None)

    def call(self, x):
        y = self.dense(x) * self.factor
        y = y + keras.ops.cast(self.offset, y.dtype)
        return keras.ops.cast(y, "float32") if self.cast_up else y

    def get_config(self):
        config = {**super().get_config(), "forget": self.forget, "cast_up": self.cast_up,
                  "inner_without_policy": self.inner_without_policy, "pinned": self.pinned}
        return config if self.forget else {**config, "factor": self.factor}


def _x():
    return np.random.default_rng(2).normal(size=(4, 5)).astype("float32")


def test_harness_passes_the_faithful_layer(tmp_path):
    run_layer_test(_Scale, {"factor": 3.0}, [_x()], tmp_path, expected_output_shape=(4, 3),
                   expected_num_trainable_weights=3, cross_backend=False)
    # a float32 output passes once it is declared documented
    run_layer_test(_Scale, {"factor": 3.0, "cast_up": True}, [_x()], tmp_path, float32_outputs=True,
                   cross_backend=False)


def test_harness_catches_an_argument_missing_from_the_config(tmp_path):
    with pytest.raises(AssertionError, match=r"get_config\(\) lacks \['factor'\]"):
        run_layer_test(_Scale, {"factor": 3.0, "forget": True}, [_x()], tmp_path, mixed_precision=False,
                       cross_backend=False)


def test_harness_catches_a_float32_output_under_mixed_float16(tmp_path):
    with pytest.raises(AssertionError, match="under mixed_float16: output 0 is float32, expected float16"):
        run_layer_test(_Scale, {"cast_up": True}, [_x()], tmp_path, cross_backend=False)


def test_harness_catches_a_sublayer_not_handed_the_policy(tmp_path):
    with pytest.raises(AssertionError, match="sublayer 'dense' computes in float32 with float32 variables"):
        run_layer_test(_Scale, {"inner_without_policy": True}, [_x()], tmp_path, cross_backend=False)


def test_harness_catches_a_weight_not_in_the_variable_dtype(tmp_path):
    with pytest.raises(AssertionError, match=r"under bfloat16: weight \S*offset is float32, not bfloat16"):
        run_layer_test(_Scale, {"pinned": True}, [_x()], tmp_path, cross_backend=False)


def test_harness_catches_a_layer_argument_missing_from_the_config(tmp_path):
    with pytest.raises(AssertionError, match=r"lacks \['token_embedding'\]"):
        run_layer_test(MaskedLMHead, {"vocabulary_size": VOCAB, "token_embedding": _token_embedding()},
                       [np.zeros((2, 4, WIDTH), "float32"), np.zeros((2, 1), np.int32)], tmp_path,
                       mixed_precision=False, cross_backend=False)


@keras.saving.register_keras_serializable(package="word2bert_tests")
class _ForgetfulTiedLM(keras.Model):
    """An embedding and a head tied to it, whose config keeps the head as a nested layer: from_config
    deserializes the head without its embedding, so the rebuilt model is untied (the bug to catch)."""

    def __init__(self, vocabulary_size, width, head=None, **kwargs):
        super().__init__(**kwargs)
        self.vocabulary_size, self.width = vocabulary_size, width
        self.embedding = ReversibleEmbedding(vocabulary_size, width, name="embedding")
        self.head = head or MaskedLMHead(vocabulary_size, token_embedding=self.embedding, name="head")

    def call(self, ids):
        return self.head(self.embedding(ids), keras.ops.zeros((keras.ops.shape(ids)[0], 1), "int32"))

    def get_config(self):
        return {**super().get_config(), "vocabulary_size": self.vocabulary_size, "width": self.width,
                "head": keras.saving.serialize_keras_object(self.head)}

    @classmethod
    def from_config(cls, config):
        return cls(**{**config, "head": keras.saving.deserialize_keras_object(config["head"])})


def test_harness_catches_a_tied_head_rebuilt_without_its_embedding(tmp_path):
    ids = np.array([[3, 4, 5], [6, 7, 0]], np.int32)
    with pytest.raises(AssertionError, match=r"from_config\(get_config\(\)\) builds other weights"):
        run_layer_test(_ForgetfulTiedLM, {"vocabulary_size": 9, "width": 4}, [ids], tmp_path, mixed_precision=False,
                       cross_backend=False)



def test_harness_catches_a_compute_output_shape_off_by_one(tmp_path, monkeypatch):
    ids = np.array([[4, 2, 0], [1, 5, 3]], np.int32)
    kwargs = {"vocabulary_size": 8, "sequence_length": 4, "embedding_dim": 4}
    run_layer_test(TokenAndPositionEmbedding, kwargs, [ids], tmp_path, expected_output_shape=(2, 3, 4),
                   expected_output_mask=ids != 0, mixed_precision=False, cross_backend=False)
    monkeypatch.setattr(TokenAndPositionEmbedding, "compute_output_shape",
                        lambda self, input_shape: (*input_shape, self.embedding_dim + 1))
    with pytest.raises(AssertionError, match=r"compute_output_shape gives \(2, 3, 5\) for output 0, "
                                             r"the call returns \(2, 3, 4\)"):
        run_layer_test(TokenAndPositionEmbedding, kwargs, [ids], tmp_path, expected_output_mask=ids != 0,
                       mixed_precision=False, cross_backend=False)


@keras.saving.register_keras_serializable(package="word2bert_tests")
class _MaskingModel(keras.Model):
    """Returns an inner ``Embedding(mask_zero=True)``'s output, which carries the padding mask, without a
    ``compute_mask`` of its own (so ``compute_mask`` gives none): the call and compute_mask disagree."""

    def __init__(self, width=3, **kwargs):
        super().__init__(**kwargs)
        self.width = width
        self.embedding = keras.layers.Embedding(9, width, mask_zero=True, dtype=self.dtype_policy, name="embedding")

    def call(self, ids):
        return self.embedding(ids)

    def get_config(self):
        return {**super().get_config(), "width": self.width}


def test_harness_catches_a_mask_the_call_attaches_but_compute_mask_does_not_give(tmp_path):
    ids = np.array([[3, 4, 0], [6, 0, 0]], np.int32)
    with pytest.raises(AssertionError, match="attaches a mask to its outputs; state it as expected_output_mask"):
        run_layer_test(_MaskingModel, {"width": 3}, [ids], tmp_path, mixed_precision=False, cross_backend=False)
    with pytest.raises(AssertionError, match="compute_mask dropped the mask of output 0"):
        run_layer_test(_MaskingModel, {"width": 3}, [ids], tmp_path, expected_output_mask=ids != 0,
                       mixed_precision=False, cross_backend=False)

# ------------------------------------------------------------------ the known dtype bugs, one strict xfail each
def _cases():
    rng = np.random.default_rng(3)
    src, dec = np.array([[3, 4, 5, 0], [6, 2, 0, 0]], np.int32), np.array([[1, 4, 5], [1, 3, 0]], np.int32)
    hidden, target = rng.normal(size=(4, 5)).astype("float32"), np.array([1, 5, 7, 11], np.int32)
    ids = np.array([[4, 9, 17, 2], [5, 49, 0, 0]], np.int32)
    small = {"num_layers": 1, "hidden_dim": 8, "num_heads": 2, "intermediate_dim": 12, "max_sequence_length": 6}
    return {
        "word2bert>Seq2Seq": (Seq2Seq, {"source_vocabulary_size": 10, "target_vocabulary_size": 7, "embedding_dim": 4, "hidden_dim": 6},
                              [(src, dec)]),
        "word2bert>SkipGram": (SkipGram, {"vocabulary_size": 12, "embedding_dim": 4, "output": "negative", "counts": COUNTS,
                                          "num_negatives": 2, "seed": 0},
                               [(target, target[::-1].copy(), rng.integers(0, 12, (4, 2)).astype(np.int32))]),
        "word2bert>CBOW": (CBOW, {"vocabulary_size": 12, "embedding_dim": 4, "output": "hierarchical",
                                  "counts": [0.0] + COUNTS[1:], "pad_id": 0},
                           [(rng.integers(1, 12, (4, 3)).astype(np.int32), target)]),
        "word2bert>MaskedLMHead": (MaskedLMHead, {"vocabulary_size": 11}, [rng.normal(size=(2, 6, 8)).astype("float32"),
                                                                      np.array([[1, 4], [5, 2]], np.int32)]),
        "word2bert>NextSentenceHead": (NextSentenceHead, {}, [rng.normal(size=(3, 8)).astype("float32")]),
        "word2bert>Transformer": (Transformer, {"source_vocabulary_size": 10, "target_vocabulary_size": 7, **small}, [(src, dec)]),
        "word2bert>DecoderOnlyTransformer": (DecoderOnlyTransformer, {"vocabulary_size": VOCAB, **small}, [ids]),
        "word2bert>GloVe": (GloVe, {"vocabulary_size": 7, "embedding_dim": 4}, [np.array([[0, 6], [3, 3]], np.int32)]),
        "word2bert>SoftmaxOutput": (SoftmaxOutput, {"vocabulary_size": 12}, [hidden, target]),
        "word2bert>HierarchicalSoftmax": (HierarchicalSoftmax, {"counts": COUNTS}, [hidden, target]),
        "word2bert>NegativeSampling": (NegativeSampling, {"counts": COUNTS, "num_negatives": 3, "seed": 0},
                                       [hidden, target, rng.integers(0, 12, (4, 3)).astype(np.int32)]),
    }


CAUSES = {"policy": r"sublayer '\w+' computes in float32 with float32 variables",
          "symbolic": r"symbolic output \d+ is b?float16, expected float32"}
BUGS = [(name, kind) for name in sorted(KNOWN_DTYPE_BUGS) for kind in sorted(KNOWN_DTYPE_BUGS[name])]


# fixed: symbolic outputs float32 as the eager ones (compute_output_spec); each now passes every precision check
FIXED = ("word2bert>MaskedLMHead", "word2bert>NextSentenceHead", "word2bert>Transformer",
         "word2bert>DecoderOnlyTransformer")


def test_every_known_dtype_bug_has_its_case():
    assert set(_cases()) == set(KNOWN_DTYPE_BUGS) | set(FIXED) and all(kind in CAUSES for _, kind in BUGS)
    assert not set(FIXED) & set(KNOWN_DTYPE_BUGS)


@pytest.mark.slow
@pytest.mark.parametrize("name", FIXED)
def test_fixed_dtype_bugs_stay_fixed(name):
    cls, init_kwargs, args = _cases()[name]
    run_precision_checks(cls, init_kwargs, args, known_bugs=set())


@pytest.mark.parametrize("name, kind", [
    pytest.param(name, kind, id=f"{name.split('>')[1]}-{kind}",
                 marks=pytest.mark.xfail(strict=True, raises=AssertionError,
                                         reason=f"{kind}: {KNOWN_DTYPE_BUGS[name][kind]}")) for name, kind in BUGS])
def test_known_dtype_bug(name, kind):
    """Fails while the bug is there (for that cause alone: the model's other known bugs tolerated); passes, and so
    fails as strict XPASS, once it is fixed: then delete the entry of ``layer_checks.KNOWN_DTYPE_BUGS``."""
    cls, init_kwargs, args = _cases()[name]
    try:
        run_precision_checks(cls, init_kwargs, args, known_bugs=set(KNOWN_DTYPE_BUGS[name]) - {kind})
    except AssertionError as error:
        if not re.search(CAUSES[kind], str(error)):
            pytest.fail(f"{name} fails for another cause than {kind!r}: {error}")
        raise
