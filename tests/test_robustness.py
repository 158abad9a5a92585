"""Malformed configs never give a traceback; extreme numbers stay finite. (Killed, concurrent and failing
renders: test_output_safety.)"""

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from attn_math.attention import self_attention, softmax
from lecture.render.manifest import Manifest, read_manifest
from lecture.render.output_folder import OutputFolder
from lesson.config import ConfigError, load_config, valid_keys
from lesson.config_dump import documented_toml
from lesson.locale import languages
from lecture.cli import cli

scalars = st.one_of(st.integers(-10**12, 10**12), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                    st.text(max_size=40))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=7), max_leaves=40)
keys = st.one_of(st.sampled_from([f"{table}.{key}" for table, names in valid_keys().items() for key in names]),
                 st.text(min_size=1, max_size=12).map(lambda word: f"matrix.{word}"))


def toml_literal(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if value != value else ("inf" if value == float("inf") else "-inf" if value == float("-inf")
                                             else repr(value))
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_literal(item) for item in value) + "]"
    return str(value)


def numbers_in(value) -> list[float]:
    """Every number in a config's dump (tables, lists, matrices), bools aside."""
    if isinstance(value, dict):
        return [number for item in value.values() for number in numbers_in(item)]
    if isinstance(value, (list, tuple)):
        return [number for item in value for number in numbers_in(item)]
    return [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


@given(st.lists(st.tuples(keys, values), min_size=1, max_size=3))
@settings(max_examples=300, deadline=None)
def test_any_config_is_accepted_or_refused_in_one_line(pairs):
    """Refused: one line naming why. Accepted: every number it holds is finite (a NaN or an infinity given for any
    key is refused, never carried into a render)."""
    overrides = tuple(f"{key}={toml_literal(value)}" for key, value in pairs)
    try:
        config = load_config(overrides=overrides)
    except ConfigError as error:
        assert str(error) and "\n" not in str(error)
    else:
        assert all(np.isfinite(number) for number in numbers_in(config.model_dump())), overrides


def number_keys() -> list[str]:
    """``table.key`` of every key whose default value is a float."""
    return [f"{table}.{key}" for table, values in load_config().model_dump().items() if isinstance(values, dict)
            for key, value in values.items() if isinstance(value, float)]


@pytest.mark.parametrize("key", number_keys())
@pytest.mark.parametrize("bad", ["nan", "inf", "-inf"])
def test_a_nan_or_an_infinity_is_refused_for_every_number_key(key, bad):
    with pytest.raises(ConfigError) as refused:
        load_config(overrides=(f"{key}={bad}",))
    assert key.split(".", 1)[1] in str(refused.value) and "\n" not in str(refused.value)


def config_text(pairs) -> str:
    """``table.key = value`` pairs as a TOML file, one table header per pair."""
    return "".join(f"[{key.split('.', 1)[0]}]\n{key.split('.', 1)[1]} = {toml_literal(value)}\n"
                   for key, value in pairs)


@given(st.one_of(st.lists(st.tuples(keys, values), min_size=1, max_size=4).map(config_text),
                 st.binary(max_size=300).map(lambda raw: raw.decode("latin-1"))))
@settings(max_examples=200, deadline=None)
def test_any_config_file_is_accepted_or_refused_in_one_line(text):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mine.toml"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        try:
            load_config(path)
        except ConfigError as error:
            assert str(error) and "\n" not in str(error)


entries = st.floats(-10, 10, allow_nan=False) | st.integers(-10, 10)
accepted_values = {
    "lecture.lang": st.sampled_from(languages()),
    "matrix.preset": st.sampled_from(["default", "large_scores", "shared_projection"]),
    "matrix.X": st.integers(1, 6).flatmap(lambda n: st.lists(st.lists(entries, min_size=2, max_size=2),
                                                             min_size=n, max_size=n)),
    "matrix.scale": st.booleans(),
    "pipeline.temperature": st.floats(0.1, 5.0),
    "pipeline.temperatures": st.lists(st.floats(0.1, 5.0), min_size=1, max_size=6),
    "pipeline.W_V": st.lists(st.lists(entries, min_size=8, max_size=8), min_size=1, max_size=16),
    "heads.sentence": st.lists(st.text("abcdeñáü", min_size=1, max_size=8), min_size=1, max_size=12).map(" ".join),
    "narration.voice": st.sampled_from(["es", "en", "en-us", "es-419"]),
    "capital.identity": st.floats(-1.0, 1.0),
    "positional.base": st.floats(1.001, 1e9),
}


@given(st.dictionaries(st.sampled_from(sorted(accepted_values)), st.none(), min_size=1).flatmap(
    lambda chosen: st.fixed_dictionaries({key: accepted_values[key] for key in chosen})))
@settings(max_examples=120, deadline=None)
def test_any_accepted_config_dumps_and_loads_back(chosen):
    overrides = tuple(f"{key}={toml_literal(value)}" for key, value in chosen.items())
    try:
        config = load_config(overrides=overrides)
    except ConfigError:
        assume(False)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mine.toml"
        path.write_text(documented_toml(None, overrides), encoding="utf-8")
        assert load_config(path) == config


json_values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                                     st.text(max_size=12)),
                           lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                           max_leaves=25)
manifest_like = st.fixed_dictionaries({"sections": st.dictionaries(
    st.sampled_from(["matrix", "heads"]), st.fixed_dictionaries(
        {"files": st.lists(st.sampled_from(["01-matrix.mp4", "../x", ".hidden", "a/b"]), max_size=2),
         "fingerprint": json_values, "sha256": json_values, "steps": json_values}), max_size=2)})


@given(st.one_of(json_values.map(json.dumps), manifest_like.map(json.dumps), st.binary(max_size=200)))
@settings(max_examples=150, deadline=None)
def test_any_manifest_is_read_or_kept_aside(content):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "manifest.json"
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        data = read_manifest(OutputFolder(Path(folder)), warn=lambda message: None)
        Manifest.model_validate(data)  # whatever was there, what comes back is a valid manifest
        written = content if isinstance(content, bytes) else content.encode()
        if path.exists():  # read: left as it was, nothing set aside
            assert path.read_bytes() == written and not list(Path(folder).glob("manifest.json.corrupt-*"))
        else:  # refused: kept aside byte for byte
            (aside,) = Path(folder).glob("manifest.json.corrupt-*")
            assert aside.read_bytes() == written


@given(st.text(max_size=60))
@settings(max_examples=100, deadline=None)
def test_any_sentence_is_accepted_or_refused_by_the_cli(sentence):
    result = CliRunner().invoke(cli, ["config", "--set", f"pipeline.sentence={toml_literal(sentence)}"])
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 2:
        assert result.stderr.startswith("error: pipeline.") and result.stderr.count("\n") == 1


def test_softmax_edge_cases_stay_finite():
    cases = [np.array([1e6, 1e6, -1e6]), np.full(5, 3.0), np.array([0.0, -np.inf, -np.inf]), np.array([1e-300])]
    for row in cases:
        p = softmax(row)
        assert np.all(np.isfinite(p)) and abs(p.sum() - 1) < 1e-12


def test_attention_with_one_key_dimension_huge_scores_and_extreme_temperatures_stays_finite():
    X = np.array([[1e3, -1e3], [1e3, 1e3], [-1e3, 0.0], [1e3, 1e3]])  # scores up to 4e6, rows 1 and 3 tie
    W_Q, W_K, W_V = np.array([[1.0], [1.0]]), np.array([[1.0], [0.5]]), np.eye(2)  # d_k = 1
    for temperature in (0.1, 5.0):  # both ends of the temperature range
        for causal in (False, True):
            weights = self_attention(X, W_Q, W_K, W_V, temperature=temperature, causal=causal).weights
            assert np.all(np.isfinite(weights)) and np.allclose(weights.sum(axis=1), 1.0)
            if causal:  # the first row sees only itself
                np.testing.assert_array_equal(weights[0], [1.0, 0.0, 0.0, 0.0])
