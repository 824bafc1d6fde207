"""word2bert.utils.inputs.model_inputs: the one reading of a model's token inputs."""
import keras
import numpy as np
import pytest

from word2bert.utils.inputs import model_inputs

IDS = np.array([[5, 6, 0], [7, 0, 0]], np.int32)


def test_a_dict_a_pair_and_ids_alone_give_the_same_filled_dict():
    segments = np.array([[0, 1, 0], [0, 0, 0]], np.int32)
    from_dict = model_inputs({"token_ids": IDS, "segment_ids": segments})
    from_pair = model_inputs((IDS, segments))
    for parts in (from_dict, from_pair):
        np.testing.assert_array_equal(parts["segment_ids"], segments)
        np.testing.assert_array_equal(parts["padding_mask"], [[True, True, False], [True, False, False]])
    alone = model_inputs(IDS)
    np.testing.assert_array_equal(alone["segment_ids"], np.zeros_like(IDS))
    assert isinstance(alone["padding_mask"], np.ndarray)              # NumPy in, NumPy out


def test_a_given_mask_is_kept_even_where_ids_are_zero_and_nothing_is_filled_on_request():
    mask = np.array([[1, 1, 1], [1, 1, 0]], np.int32)                  # a real id 0 at [0, 2]
    np.testing.assert_array_equal(model_inputs({"token_ids": IDS, "padding_mask": mask})["padding_mask"], mask)
    parts = model_inputs({"token_ids": IDS, "segment_ids": None}, fill=False)
    assert parts["segment_ids"] is None and parts["padding_mask"] is None


def test_tensors_in_give_tensors_out():
    parts = model_inputs({"token_ids": keras.ops.convert_to_tensor(IDS)})
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(parts["padding_mask"]), IDS != 0)


@pytest.mark.parametrize("inputs, words", [
    ({"segment_ids": IDS}, "needs 'token_ids'"),
    ((IDS, IDS, IDS), "must be (token_ids, segment_ids), got 3 items"),
    ({"token_ids": IDS, "padding_mask": IDS[:, :2]}, "padding_mask must have the shape of token_ids (2, 3), got (2, 2)"),
    ({"token_ids": IDS, "segment_ids": IDS.T}, "segment_ids must have the shape of token_ids (2, 3), got (3, 2)"),
])
def test_malformed_inputs_are_refused_by_name(inputs, words):
    with pytest.raises(ValueError) as caught:
        model_inputs(inputs)
    assert words in str(caught.value)


def test_symbolic_inputs_with_unknown_dimensions_pass_the_shape_check():
    ids = keras.Input((None,), dtype="int32")
    mask = keras.Input((None,), dtype="bool")
    parts = model_inputs({"token_ids": ids, "padding_mask": mask})
    assert parts["padding_mask"] is mask
