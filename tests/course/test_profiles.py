import pytest

import word2bert
from word2bert.course.profiles import by_profile, pick, profile


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


def test_by_profile_writes_the_table_one_line_per_setting():
    table = by_profile(epochs=(1, 4, 20), scores=(("dot",), ("general", "additive"), ("dot", "general")))
    assert table == {"ci": {"epochs": 1, "scores": ("dot",)}, "cpu": {"epochs": 4, "scores": ("general", "additive")},
                     "gpu": {"epochs": 20, "scores": ("dot", "general")}}
    assert pick(table, "cpu") == {"epochs": 4, "scores": ("general", "additive"), "profile": "cpu"}
    with pytest.raises(ValueError, match="setting 'units' must give 3 values, for ci, cpu, gpu; got 64"):
        by_profile(epochs=(1, 4, 20), units=64)
    with pytest.raises(ValueError, match="setting 'units'"):
        by_profile(units=(64, 128))


# --- the smoke mode: the gpu profile's shapes with the ci profile's amounts ---------------------------------------

def _sizes_tables():
    """Every chapter's SIZES table, read from its first code cell that defines one (evaluated without running it)."""
    import ast
    import pathlib

    import nbformat

    tables = {}
    for path in sorted((pathlib.Path(__file__).resolve().parents[2] / "chapters").glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        source = next(c.source for c in nb.cells if c.cell_type == "code"
                      and ("SIZES = {" in c.source or "SIZES = by_profile(" in c.source))
        tree = ast.parse(source)
        env = {"tuple": tuple, "range": range, "dict": dict, "list": list, "by_profile": by_profile}
        for node in tree.body:  # the constants the table uses (ADAM_LR = {...}), then the table itself
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id.isupper():
                exec(compile(ast.Module([node], []), str(path), "exec"), env)
                if node.targets[0].id == "SIZES":
                    break
        tables[path.stem] = env["SIZES"]
    return tables


def test_every_chapter_setting_is_an_amount_or_a_shape_for_the_smoke_run():
    from word2bert.course.profiles import SMOKE_AMOUNTS, SMOKE_MIXED, SMOKE_SHAPES, smoke_sizes

    assert not SMOKE_AMOUNTS & SMOKE_SHAPES and not (SMOKE_AMOUNTS | SMOKE_SHAPES) & set(SMOKE_MIXED)
    tables = _sizes_tables()
    assert len(tables) >= 12
    for name, table in tables.items():
        cfg = smoke_sizes(table)                       # raises on a setting named in neither set
        assert cfg["profile"] == "gpu" and cfg["smoke"] is True, name
        for key, value in cfg.items():
            if key in ("profile", "smoke"):
                continue
            if key in SMOKE_MIXED:
                continue
            expected = table["ci"][key] if key in SMOKE_AMOUNTS else table["gpu"][key]
            assert value == expected, (name, key)
    # chapter 09 saves an encoder as long as its last phase; chapters 10-11 read it at the gpu lengths
    phases = smoke_sizes(tables["09_bert_pretraining"])["phases"]
    assert phases == ((128, 3, 1024), (256, 1, 256))
    assert max(smoke_sizes(tables["10_bert_finetuning"])["lengths"].values()) <= phases[-1][0]
    assert smoke_sizes(tables["11_what_bert_learns"])["max_len"] <= phases[-1][0]
    with pytest.raises(ValueError):
        SMOKE_MIXED["phases"](((32, 1, 8),), ((128, 2, 16), (256, 1, 8)))


def test_smoke_sizes_takes_amounts_from_ci_and_shapes_from_gpu_and_names_unknown_settings():
    from word2bert.course.profiles import smoke_sizes

    table = {"ci": {"epochs": 1, "hidden_dim": 8, "strict": False},
             "cpu": {"epochs": 4, "hidden_dim": 64, "strict": True},
             "gpu": {"epochs": 20, "hidden_dim": 512, "strict": True}}
    assert smoke_sizes(table) == {"epochs": 1, "hidden_dim": 512, "strict": False, "profile": "gpu", "smoke": True}
    with pytest.raises(ValueError, match=r"\['wings'\].*SMOKE_AMOUNTS or SMOKE_SHAPES"):
        smoke_sizes({p: {"wings": 2} for p in ("ci", "cpu", "gpu")})
    with pytest.raises(ValueError, match=r"\['epochs'\] have no ci value"):
        smoke_sizes({"ci": {}, "cpu": {}, "gpu": {"epochs": 3}})
    with pytest.raises(ValueError, match="lacks"):
        smoke_sizes({"ci": {}, "gpu": {}})


def test_setup_in_smoke_mode_runs_gpu_shapes_and_refuses_another_profile(monkeypatch, capsys):
    from word2bert.course.profiles import smoke

    table = {"ci": {"epochs": 1, "hidden_dim": 8}, "cpu": {"epochs": 4, "hidden_dim": 64},
             "gpu": {"epochs": 20, "hidden_dim": 512}}
    monkeypatch.setenv("W2B_SMOKE", "1")
    monkeypatch.delenv("W2B_PROFILE", raising=False)
    cfg = word2bert.course.setup(table)
    assert (cfg.profile, cfg["epochs"], cfg["hidden_dim"], cfg["smoke"]) == ("gpu", 1, 512, True)
    assert "profile: gpu (smoke: ci amounts)" in capsys.readouterr().out
    monkeypatch.setenv("W2B_PROFILE", "cpu")
    with pytest.raises(ValueError, match="W2B_SMOKE=1 runs the gpu profile's shapes.*'cpu'"):
        word2bert.course.setup(table)
    monkeypatch.setenv("W2B_SMOKE", "maybe")
    with pytest.raises(ValueError, match="W2B_SMOKE='maybe' is not understood"):
        smoke()
    monkeypatch.setenv("W2B_SMOKE", "0")
    monkeypatch.setenv("W2B_PROFILE", "cpu")
    assert word2bert.course.setup(table)["epochs"] == 4 and "smoke" not in word2bert.course.setup(table)
