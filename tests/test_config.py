"""The config schema: defaults, layering, and one-line errors that name the key."""

import numpy as np
import pytest

from attn_math import worked_example
from lesson.config import ConfigError, load_config, read_toml


def refused(*overrides: str) -> str:
    with pytest.raises(ConfigError) as error:
        load_config(overrides=overrides)
    message = str(error.value)
    assert "\n" not in message
    return message


def test_defaults_load_and_match_the_worked_example():
    config = load_config()
    matrices = config.matrix.matrices()
    for name in ("X", "W_Q", "W_K", "W_V"):
        np.testing.assert_array_equal(matrices[name], getattr(worked_example, name))
    assert config.audio.volume == 100 and config.audio.mute is False
    assert config.pipeline.temperature == 1.0


def test_file_then_overrides_take_precedence(tmp_path):
    custom = tmp_path / "custom.toml"
    custom.write_text("[pipeline]\ntemperature = 2.0\nsentence = 'red'\n", encoding="utf-8")
    assert load_config(custom).pipeline.temperature == 2.0
    assert load_config(custom, ("pipeline.temperature=0.3",)).pipeline.temperature == 0.3
    assert load_config(custom).pipeline.tokens == ("la", "red", "neuronal", "aprende", "rapido")


def test_preset_then_explicit_matrices():
    large = load_config(overrides=("matrix.preset='large_scores'",)).matrix.matrices()
    np.testing.assert_array_equal(large["X"], 3 * worked_example.X)
    custom = load_config(overrides=("matrix.preset='large_scores'", "matrix.X=[[1,0],[0,1]]")).matrix.matrices()
    np.testing.assert_array_equal(custom["X"], [[1, 0], [0, 1]])
    np.testing.assert_array_equal(custom["W_Q"], worked_example.W_Q)


def test_bare_words_are_strings_and_values_are_toml():
    assert load_config(overrides=("pipeline.sentence=hola mundo",)).pipeline.tokens == ("hola", "mundo")
    assert load_config(overrides=("matrix.causal=true",)).matrix.causal is True


def test_six_tokens_of_dimension_four_are_accepted():
    X = [[(i + j) % 3 - 1 for j in range(4)] for i in range(6)]
    W = [[1 if i == j else 0 for j in range(4)] for i in range(4)]
    config = load_config(overrides=(f"matrix.X={X}", f"matrix.W_Q={W}", f"matrix.W_K={W}", f"matrix.W_V={W}"))
    assert config.matrix.matrices()["X"].shape == (6, 4)


@pytest.mark.parametrize("override, starts_with, mentions", [
    ("matrix.X=[[1,2],[3]]", "matrix.X:", "equal length"),
    ("matrix.X=[]", "matrix.X:", "non-empty"),
    ("matrix.X=[[1,nan],[0,1],[1,1]]", "matrix.X:", "finite"),
    ("matrix.X=[[1,inf],[0,1],[1,1]]", "matrix.X:", "finite"),
    ("matrix.X=[[1,0],[0,1],[1,1],[1,1],[1,1],[1,1],[1,1]]", "matrix.X:", "6x4"),
    ("matrix.W_Q=[[1,2,3],[1,2,3],[1,1,1]]", "matrix.W_Q:", "needs 2 rows (2 x d_k), got 3x3"),
    ("matrix.W_K=[[1],[2]]", "matrix.W_K:", "needs 2 columns"),
    ("matrix.X=[[100,0],[0,1],[1,1]]", "matrix.X:", "between"),
    ("matrix.X='tres'", "matrix.X:", "expected"),
    ("matrix.preset='enorme'", "matrix.preset:", "large_scores"),
    ("matrix.Xx=1", "matrix.Xx:", "did you mean 'matrix.X'"),
    ("matrx.X=1", "matrx.X:", "did you mean 'matrix'"),
    ("pipeline.temprature=1", "pipeline.temprature:", "did you mean 'pipeline.temperature'"),
    ("pipeline.temperature=0", "pipeline.temperature:", "0.1"),
    ("pipeline.temperature=-1", "pipeline.temperature:", "0.1"),
    ("pipeline.temperature=5.5", "pipeline.temperature:", "5"),
    ("pipeline.sentence='   '", "pipeline.sentence:", "at least one word"),
    ("pipeline.sentence='" + "palabra " * 33 + "'", "pipeline.sentence:", "32"),
    ("pipeline.query=7", "pipeline.query:", "0 to 6"),
    ("heads.sentence='" + "palabra " * 13 + "'", "heads.sentence:", "12"),
    ("audio.volume=101", "audio.volume:", "100"),
    ("audio.volume=true", "audio.volume:", "integer"),
    ("scaling.d_k=0", "scaling.d_k:", "1"),
    ("capital.identity=1.5", "capital.identity:", "1"),
    ("capital.country='España'", "capital.country:", "france"),
])
def test_bad_values_give_one_line_naming_the_key(override, starts_with, mentions):
    message = refused(override)
    assert message.startswith(starts_with), message
    assert mentions in message, message


def test_malformed_override_and_missing_file(tmp_path):
    assert refused("temperature").startswith("--set:")
    with pytest.raises(ConfigError, match="^config: file not found"):
        load_config(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[matrix\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(broken)


def test_a_file_may_allow_deeper_nesting(tmp_path):
    """read_toml's depth: 6 levels for a config; a file that holds configs deeper down says how deep."""
    deep = tmp_path / "variants.toml"
    deep.write_text("[variants.alumno.config.matrix]\nX = [[1, 0], [0, 2]]\n", encoding="utf-8")  # 7 levels
    with pytest.raises(ConfigError, match="deeper than 6 levels"):
        read_toml(deep)
    assert read_toml(deep, max_depth=7)["variants"]["alumno"]["config"]["matrix"]["X"] == [[1, 0], [0, 2]]
