import json

import numpy as np
import pytest

from word2bert.course.results import report

from backends import once_on_tensorflow

pytestmark = once_on_tensorflow  # no Keras backend involved: the TensorFlow pass runs it


def test_report_prints_one_parseable_line(capsys):
    record = report("01_demo", "ci", {"ppl": np.float32(12.345678), "epochs": 3, "best": "additive"}, seconds=61.04)
    line = capsys.readouterr().out.strip()
    assert line.startswith("W2B_RESULTS ") and "\n" not in line
    parsed = json.loads(line[len("W2B_RESULTS "):])
    assert parsed == record
    assert parsed["metrics"] == {"ppl": 12.3457, "epochs": 3, "best": "additive"}
    assert parsed["seconds"] == 61.0 and parsed["profile"] == "ci"
    assert set(parsed) == {"chapter", "profile", "backend", "device", "cpu", "seconds", "metrics"}


@pytest.mark.parametrize("metrics, match", [
    ({"ppl": float("inf")}, "not a finite number"), ({"ppl": float("nan")}, "not a finite number"),
    ({"x": None}, "number or a string"), ({"x": [1, 2]}, "number or a string"),
    ({"x": np.zeros(3)}, "number or a string"), ({"x": {"a": 1}}, "number or a string"),
])
def test_report_rejects_values_that_are_not_plain_numbers(metrics, match):
    with pytest.raises(ValueError, match=match):
        report("01_demo", "ci", metrics)


def test_report_rejects_unknown_profile():
    with pytest.raises(ValueError, match="profile must be one of"):
        report("01_demo", "laptop", {"x": 1})


def test_device_name_comes_from_the_profiles_gpu_probe(monkeypatch):
    import word2bert.course.profiles
    from word2bert.course.results import device_name

    monkeypatch.setattr(word2bert.course.profiles, "gpu_name", lambda: "gpu:H200")
    assert device_name() == "gpu:H200"
    monkeypatch.setattr(word2bert.course.profiles, "gpu_name", lambda: None)
    assert device_name() == "cpu"
