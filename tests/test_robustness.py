"""Malformed configs never give a traceback; killed or concurrent renders never corrupt earlier output."""

import hashlib
import os
import signal
import subprocess
import sys
import time

import numpy as np
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_math.attention import self_attention, softmax
from lecture.config import ConfigError, load_config, valid_keys
from media_checks import ROOT, TINY, run_cli, streams
from render import cli

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


@given(st.lists(st.tuples(keys, values), min_size=1, max_size=3))
@settings(max_examples=300, deadline=None)
def test_any_config_is_accepted_or_refused_in_one_line(pairs):
    overrides = tuple(f"{key}={toml_literal(value)}" for key, value in pairs)
    try:
        load_config(overrides=overrides)
    except ConfigError as error:
        assert str(error) and "\n" not in str(error)


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


def digests(out):
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in out.iterdir() if path.is_file()
            and not path.name.startswith(".")}


def test_killed_renders_leave_earlier_output_intact(tmp_path):
    assert run_cli("render", "matrix", *TINY, "-o", str(tmp_path)).returncode == 0
    before = digests(tmp_path)
    for stop in (signal.SIGINT, signal.SIGKILL):
        process = subprocess.Popen([sys.executable, str(ROOT / "render.py"), "render", "matrix", *TINY, "-o",
                                    str(tmp_path), "--force", "--set", "matrix.causal=true"],
                                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        while not any("-work-" in path.name for path in tmp_path.iterdir()):  # mid-render: scratch exists
            time.sleep(0.05)
        time.sleep(1.0)
        os.killpg(process.pid, stop)  # the whole process group, as Ctrl-C in a terminal does
        process.wait(timeout=60)
        assert digests(tmp_path) == before
    result = run_cli("render", "matrix", *TINY, "-o", str(tmp_path))
    assert result.returncode == 0
    assert set(streams(tmp_path / "01-matrix.mp4")) == {"video", "audio"}
    assert not [path for path in tmp_path.iterdir() if ".tmp-" in path.name or "-work-" in path.name]


def test_two_renders_into_one_directory_both_finish(tmp_path):
    command = [sys.executable, str(ROOT / "render.py"), "render", "matrix", *TINY, "-o", str(tmp_path), "-j", "1"]
    first = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    second = subprocess.Popen([*command, "--no-audio", "--format", "webm"], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    assert first.wait(timeout=300) == 0 and second.wait(timeout=300) == 0
    assert set(streams(tmp_path / "01-matrix.mp4")) == {"video", "audio"}
    assert set(streams(tmp_path / "01-matrix.webm")) == {"video"}
