import pytest

import word2bert
from word2bert.course.profiles import pick, profile


def test_env_var_selects_profile(monkeypatch):
    monkeypatch.setenv("W2B_PROFILE", "ci")
    assert profile() == "ci"
    monkeypatch.setenv("W2B_PROFILE", "GPU")
    assert profile() == "gpu"


def test_unknown_profile_is_a_one_line_error_that_says_what_to_do(monkeypatch):
    monkeypatch.setenv("W2B_PROFILE", "laptop")
    with pytest.raises(ValueError) as err:
        profile()
    msg = str(err.value)
    assert "laptop" in msg and "ci, cpu, gpu" in msg and "W2B_PROFILE" in msg and "\n" not in msg


def test_default_without_gpu_is_cpu(monkeypatch):
    monkeypatch.delenv("W2B_PROFILE", raising=False)
    monkeypatch.setattr(word2bert.course.profiles, "_gpu_visible", lambda: False)
    assert profile() == "cpu"
    monkeypatch.setattr(word2bert.course.profiles, "_gpu_visible", lambda: True)
    assert profile() == "gpu"


def test_pick_returns_the_profile_row_and_checks_the_table():
    table = {"ci": {"epochs": 1}, "cpu": {"epochs": 4}, "gpu": {"epochs": 20}}
    assert pick(table, "cpu") == {"epochs": 4, "profile": "cpu"}
    assert table["cpu"] == {"epochs": 4}  # not mutated
    with pytest.raises(ValueError, match="lacks"):
        pick({"ci": {}, "cpu": {}}, "ci")
