"""Every Keras layer and model class that word2bert registers goes through the shared harness
(``layer_checks.run_layer_test``, STYLE.md "A test file").

``COVERED`` maps each registered ``keras.layers.Layer`` subclass (models included) of the library, by its
registered name, to the test function that runs the harness on it. Two checks, neither builds a model:
the table names exactly the registered classes found by walking every module of ``word2bert`` (the course
package, which holds no layers, left out), so a new registered layer without an entry fails here; and each
named test function really calls ``run_layer_test`` with that class (read from the test file's syntax tree:
the first argument names the class, directly or through a ``pytest.mark.parametrize`` argument), outside a
``pytest.raises`` block (the harness's own failure tests do not count)."""
import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import keras
import pytest

import word2bert

TESTS = Path(__file__).resolve().parent
# registered name -> (test file, test function)
COVERED = {
    "word2bert>Attention": ("layers/test_attention.py", "test_attention_passes_the_shared_layer_test"),
    "word2bert>MultiHeadAttention": ("models/test_transformer.py", "test_multi_head_attention_passes_the_shared_layer_test"),
    "word2bert>PositionEmbedding": ("models/test_transformer.py", "test_position_layers_pass_the_shared_layer_test"),
    "word2bert>SinusoidalPositionEncoding": ("models/test_transformer.py", "test_position_layers_pass_the_shared_layer_test"),
    "word2bert>TokenAndPositionEmbedding": ("models/test_transformer.py", "test_position_layers_pass_the_shared_layer_test"),
    "word2bert>ReversibleEmbedding": ("models/test_transformer.py", "test_reversible_embedding_through_harness"),
    "word2bert>TransformerEncoder": ("models/test_transformer.py", "test_blocks_pass_the_shared_layer_test"),
    "word2bert>TransformerDecoder": ("models/test_transformer.py", "test_blocks_pass_the_shared_layer_test"),
    "word2bert>Transformer": ("models/test_transformer.py", "test_transformer_passes_the_shared_layer_test_and_loads_trained"),
    "word2bert>ScalarMix": ("analysis/test_probing.py", "test_scalar_mix_through_harness_with_a_list"),
    "word2bert>BertEmbedding": ("models/test_bert.py", "test_bert_embedding_through_harness"),
    "word2bert>BertBackbone": ("models/test_bert.py", "test_bert_backbone_through_harness"),
    "word2bert>MaskedLMHead": ("models/test_bert.py", "test_masked_lm_head_through_harness"),
    "word2bert>NextSentenceHead": ("models/test_bert.py", "test_next_sentence_head_through_harness"),
    "word2bert>BertPretrainer": ("test_harness_models.py", "test_bert_pretrainer_through_harness"),
    "word2bert>BertClassifier": ("models/test_finetuning.py", "test_classifier_through_harness"),
    "word2bert>BertTokenTagger": ("models/test_finetuning.py", "test_tagger_through_harness"),
    "word2bert>BertQuestionAnswerer": ("models/test_finetuning.py", "test_question_answerer_through_harness"),
    "word2bert>DecoderOnlyTransformer": ("test_harness_models.py", "test_decoder_only_transformer_through_harness"),
    "word2bert>GPTClassifier": ("models/test_elmo_gpt.py", "test_gpt_classifier_through_harness"),
    "word2bert>GPTTokenTagger": ("models/test_elmo_gpt.py", "test_gpt_token_tagger_through_harness"),
    "word2bert>BidirectionalLM": ("models/test_elmo_gpt.py", "test_bilm_through_harness"),
    "word2bert>ElmoClassifier": ("models/test_elmo_gpt.py", "test_elmo_classifier_through_harness"),
    "word2bert>ElmoTokenTagger": ("models/test_elmo_gpt.py", "test_elmo_token_tagger_through_harness"),
    "word2bert>Seq2Seq": ("models/test_seq2seq.py", "test_seq2seq_passes_the_shared_layer_test"),
    "word2bert>GloVe": ("models/test_glove.py", "test_glove_passes_the_shared_layer_test"),
    "word2bert>SkipGram": ("models/test_word2vec.py", "test_models_pass_the_shared_layer_test"),
    "word2bert>CBOW": ("models/test_word2vec.py", "test_models_pass_the_shared_layer_test"),
    "word2bert>SoftmaxOutput": ("models/test_word2vec.py", "test_output_layers_pass_the_shared_layer_test"),
    "word2bert>HierarchicalSoftmax": ("models/test_word2vec.py", "test_output_layers_pass_the_shared_layer_test"),
    "word2bert>NegativeSampling": ("models/test_word2vec.py", "test_output_layers_pass_the_shared_layer_test"),
}


def registered_layer_classes(package=word2bert, skip=("word2bert.course", "word2bert.__main__")) -> dict:
    """``{registered name: class}`` of every ``keras.layers.Layer`` subclass defined in a module of ``package``
    (those under ``skip`` left out) and registered serializable (found in Keras's custom objects as itself)."""
    classes = []
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if any(info.name == s or info.name.startswith(s + ".") for s in skip):
            continue
        module = importlib.import_module(info.name)
        classes += [obj for obj in vars(module).values() if inspect.isclass(obj)
                    and issubclass(obj, keras.layers.Layer) and obj.__module__ == module.__name__]
    registered = {id(obj): name for name, obj in keras.saving.get_custom_objects().items()}   # after the imports
    return {registered[id(c)]: c for c in classes if id(c) in registered}


def _name(node) -> str | None:
    """The class a first argument names: ``Cls`` or ``module.Cls``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _parametrized(function: ast.FunctionDef, argname: str) -> set:
    """The names given to ``argname`` by the function's ``pytest.mark.parametrize`` decorators."""
    names = set()
    for deco in function.decorator_list:
        if not (isinstance(deco, ast.Call) and _name(deco.func) == "parametrize" and len(deco.args) >= 2):
            continue
        argnames = deco.args[0].value if isinstance(deco.args[0], ast.Constant) else ""
        argnames = [a.strip() for a in argnames.split(",")] if isinstance(argnames, str) else list(argnames)
        if argname not in argnames:
            continue
        position = argnames.index(argname)
        for case in getattr(deco.args[1], "elts", []):
            value = case.elts[position] if isinstance(case, ast.Tuple) and len(argnames) > 1 else case
            if _name(value):
                names.add(_name(value))
    return names


def _under_raises(node, parents) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.With) and any(
                isinstance(item.context_expr, ast.Call) and _name(item.context_expr.func) == "raises"
                for item in node.items):
            return True
    return False


def harness_classes(source: str, function_name: str) -> set:
    """The class names that ``function_name`` in ``source`` passes to ``run_layer_test`` (not under
    ``pytest.raises``); empty when there is no such function."""
    tree = ast.parse(source)
    function = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function_name), None)
    if function is None:
        return set()
    parents = {child: parent for parent in ast.walk(function) for child in ast.iter_child_nodes(parent)}
    params = {a.arg for a in function.args.args}
    names = set()
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and _name(node.func) == "run_layer_test" and node.args):
            continue
        if _under_raises(node, parents):
            continue
        first = _name(node.args[0])
        if first in params:
            names |= _parametrized(function, first)
        elif first:
            names.add(first)
    return names


def test_every_registered_layer_class_has_a_harness_test():
    found = registered_layer_classes()
    missing = sorted(set(found) - set(COVERED))
    stale = sorted(set(COVERED) - set(found))
    assert not missing, f"registered layer classes with no harness test in COVERED: {missing}"
    assert not stale, f"COVERED names classes that are not registered layers of word2bert: {stale}"


@pytest.mark.parametrize("registered", sorted(COVERED))
def test_the_named_test_runs_the_harness_on_the_class(registered):
    path, function = COVERED[registered]
    cls = keras.saving.get_registered_object(registered)
    assert cls is not None, registered
    source = (TESTS / path).read_text()
    assert cls.__name__ in harness_classes(source, function), \
        f"{path}::{function} does not call run_layer_test with {cls.__name__}"


def test_the_walk_and_the_syntax_check_can_fail():
    # the walk finds registered classes and skips the unregistered bases
    found = registered_layer_classes()
    assert found["word2bert>ElmoClassifier"].__name__ == "ElmoClassifier"
    assert not {"Task", "_ElmoHead", "_GPTHead", "BertHead"} & {c.__name__ for c in found.values()}
    source = '''
import pytest
@pytest.mark.parametrize("cls, n", [(w2v.A, 1), (B, 2)])
def test_p(cls, n, tmp_path):
    run_layer_test(cls, {}, [x], tmp_path)
def test_raises(tmp_path):
    with pytest.raises(AssertionError):
        run_layer_test(C, {}, [x], tmp_path)
def test_other(tmp_path):
    other_check(D, {})
'''
    assert harness_classes(source, "test_p") == {"A", "B"}
    assert harness_classes(source, "test_raises") == set()      # a harness failure test covers nothing
    assert harness_classes(source, "test_other") == set()
    assert harness_classes(source, "test_absent") == set()
