"""One name per concept on the library's public surface, as keras-hub names it.

Every public callable the library exports (each package's ``__all__``, and for a class its constructor and its public
methods) is read with ``inspect.signature``; a parameter with one of the old names fails the test. The names and
what replaces them:

- ``d_model``, ``units`` (a width) -> ``hidden_dim``;
- ``max_len``, ``seq_len`` -> ``max_sequence_length`` (a model's or a position table's capacity),
  ``sequence_length`` (the length a preprocessing call pads or cuts to) or ``max_length`` (the most tokens a
  sampler generates);
- ``vocab_size``, ``src_vocab_size``, ``tgt_vocab_size`` -> ``vocabulary_size``, ``source_vocabulary_size``,
  ``target_vocabulary_size``;
- ``type_vocab_size`` -> ``num_segments``; ``lm``, ``bilm`` (a head's encoder) -> ``backbone``.
"""
import importlib
import inspect
import pkgutil

import pytest

import word2bert

FORBIDDEN = {"d_model", "max_len", "seq_len", "type_vocab_size", "vocab_size", "src_vocab_size", "tgt_vocab_size",
             "units", "lm", "bilm"}
# ``context_size`` stays: the NNLM's number of previous words (Bengio et al.'s n - 1), not a length to pad to.
SKIP_PACKAGES = ("word2bert.course",)


def _packages():
    names = ["word2bert"]
    for info in pkgutil.walk_packages(word2bert.__path__, "word2bert."):
        if info.ispkg and not info.name.startswith(SKIP_PACKAGES):
            names.append(info.name)
    return names


def _public_callables():
    seen = set()
    for package in _packages():
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            if not inspect.isclass(obj) or "__init__" not in vars(obj):
                yield f"{package}.{name}", obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    if isinstance(member, (staticmethod, classmethod)):
                        member = member.__func__
                    if inspect.isfunction(member):
                        yield f"{package}.{name}.{attr}", member


def _bad_parameters(callables):
    found = []
    for where, obj in callables:
        try:
            parameters = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            continue
        found += [f"{where}({p})" for p in parameters if p in FORBIDDEN]
    return found


def test_there_are_public_callables_to_check():
    names = [where for where, _ in _public_callables()]
    assert len(names) > 100
    assert "word2bert.models.bert.BertBackbone.__init__" in names


def test_no_public_signature_uses_an_old_name():
    assert _bad_parameters(_public_callables()) == []


def test_the_check_catches_an_old_name():
    def encode(texts, max_len=128):
        return texts

    class Head:
        def __init__(self, lm, num_classes=2):
            pass

        def score(self, tokens, vocab_size):
            pass

    found = _bad_parameters([("encode", encode), ("Head.__init__", Head.__init__), ("Head.score", Head.score)])
    assert found == ["encode(max_len)", "Head.__init__(lm)", "Head.score(vocab_size)"]


def test_bert_backbone_takes_keras_hubs_order():
    from word2bert.models.bert import BertBackbone
    order = list(inspect.signature(BertBackbone.__init__).parameters)[1:9]
    assert order == ["vocabulary_size", "num_layers", "num_heads", "hidden_dim", "intermediate_dim", "dropout",
                     "max_sequence_length", "num_segments"]
